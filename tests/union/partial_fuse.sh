#!/bin/bash
# partial_fuse.sh - mmap of a partially copied-up file through the FUSE
# door: a program without the preload maps a 1 MiB lower file of a Danaus
# union (local backend) MAP_SHARED, writes two pages' worth and msyncs;
# the file must then read the same through the FUSE door and through the
# preload, and its upper copy must still be partial (the door calls the
# union's own pread and pwrite). Its st_ino and d_ino through both doors
# stay the lower file's.
#
#   partial_fuse.sh DANAUSD LIBDANAUS UNION_MODEL
set -u
if [ $# -ne 3 ]; then
    echo "usage: partial_fuse.sh DANAUSD LIBDANAUS UNION_MODEL" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") model=$(realpath "$3")
command -v python3 > /dev/null || { echo "python3 missing" >&2; exit 1; }
site=$(mktemp -d /tmp/danaus-partial-fuse-XXXXXX) || exit 1
mkdir "$site/run" "$site/up" "$site/low"
service="partial-fuse-$$"
mnt=/danaus-partial-fuse-$$
printf '%s\n' "service $service" "rundir $site/run" \
    "union $mnt local $site/up $site/low" > "$site/danausd.conf"
head -c 1048576 /dev/urandom > "$site/low/f"
cp "$site/low/f" "$site/expect"

. "$(dirname "$0")/../lib.sh"
cleanup() {
    service_stop
    rmdir "$mnt" 2>/dev/null
}
trap cleanup EXIT
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" >&2 ||
    exit 1

# st_ino through the FUSE door before the copy-up: the lower file's.
ino=$(stat -c %i "$mnt/f")
[ "$ino" = "$(stat -c %i "$site/low/f")" ] ||
    { echo "FAIL: st_ino $ino through FUSE, not the lower file's"; exit 1; }

# The same bytes into the mapped union file and into the expected copy.
python3 - "$mnt/f" "$site/expect" <<'EOF' || exit 1
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0)
m[500000:500007] = b"mapped!"
m[1048570:1048576] = b"at end"
m.flush()
m.close()
os.close(fd)
fd = os.open(sys.argv[2], os.O_RDWR)
os.pwrite(fd, b"mapped!", 500000)
os.pwrite(fd, b"at end", 1048570)
os.close(fd)
EOF

failed=0
cmp "$mnt/f" "$site/expect" || { echo "FAIL: read through the FUSE door"; failed=1; }
env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" DANAUS_RUNDIR="$site/run" \
    cmp "$mnt/f" "$site/expect" ||
    { echo "FAIL: read through the preload"; failed=1; }
state=$("$model" state "$site/up/f")
[ "$state" = partial ] || { echo "FAIL: the upper copy is $state"; failed=1; }
# The partial copy keeps st_ino, in stat and in readdir's d_ino, through
# both doors.
inos() {
    "$@" stat -c %i "$mnt/f"
    "$@" python3 -c 'import os, sys
print(next(e.inode() for e in os.scandir(sys.argv[1]) if e.name == "f"))' \
        "$mnt"
}
for got in $(inos) $(inos env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
                     DANAUS_RUNDIR="$site/run"); do
    [ "$got" = "$ino" ] ||
        { echo "FAIL: st_ino or d_ino $got, $ino before the copy-up"; failed=1; }
done
if [ $failed -ne 0 ]; then
    cat "$site/danausd.log"
    echo "site kept: $site"
    exit 1
fi
cleanup
trap - EXIT
rm -rf "$site"
echo "mmap writes into a partial copy read back through both doors"
