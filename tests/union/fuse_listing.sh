#!/bin/bash
# fuse_listing.sh - a Danaus union's listings through the FUSE door stay
# whole while they are emptied (local backend). Static busybox lists two
# directories of 3000 names, 1500 of them directories, one tree in the
# upper branch and one in the lower (the kernel keeps the listings of
# directories it opens without asking the door, doors/fuse_dirs.h), and
# once the names' entries have expired removes both with rm -rf, which
# reads each directory while it empties it: the kernel drops its cached
# listing when it looks the directory up again, and the door, which
# meanwhile listed more directories than it keeps open, resumes the
# listing at the kernel's cookie on a new open, where names removed
# meanwhile must not shift the others.
#
#   fuse_listing.sh DANAUSD
set -u
if [ $# -ne 1 ]; then
    echo "usage: fuse_listing.sh DANAUSD" >&2
    exit 2
fi
danausd=$(realpath "$1")
bb=/usr/bin/busybox
[ -x "$bb" ] || { echo "no $bb" >&2; exit 1; }
site=$(mktemp -d /tmp/danaus-fuse-listing-XXXXXX) || exit 1
mnt=$site/mnt
mkdir "$site/run" "$site/up" "$site/low" "$mnt"
printf '%s\n' "service fuse-listing-$$" "rundir $site/run" "fuse_keep 0" \
    "fuse_cache_timeout_ms 200" "union $mnt local $site/up $site/low" \
    > "$site/danausd.conf"
for b in up low; do
    mkdir "$site/$b/$b-big"
    (cd "$site/$b/$b-big" && seq -f "a-name-long-enough-%05g" 1500 | xargs touch &&
     seq -f "a-directory-%04g" 1500 | xargs mkdir)
done

. "$(dirname "$0")/../lib.sh"
daemon=
trap site_remove EXIT
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1

for b in up low; do
    expect "busybox find of the $b branch's tree" "3001" \
        "$(timeout 60 "$bb" find "$mnt/$b-big" | wc -l)"
done
sleep 0.5
for b in up low; do
    expect "busybox rm -rf of the $b branch's tree" "0 gone" \
        "$( (timeout 60 "$bb" rm -rf "$mnt/$b-big" 2>&1; echo $?;
             test -e "$mnt/$b-big" || echo gone) | tail -2 | paste -sd' ')"
done

echo "$failures failures"
[ $failures -eq 0 ]
