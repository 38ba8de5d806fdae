#!/bin/sh
# creds.sh - every call runs with exactly its caller's credentials, through
# both doors, on one backend (issue 17).
#
#   creds.sh DANAUSD LIBDANAUS HAMMER local|ceph CEPH_CONF|-
#
# Starts danausd with its FUSE door, then:
#  1. hammer: processes of root and of users 2001 (in group 7000), 2002 and
#     2003 (group 7000 as a supplementary group), each run twice at once,
#     under the preload and through the FUSE door, on the same directory;
#     each checks its own permissions call by call (creds_hammer.c) while
#     the service's and libfuse's thread pools grow and shrink;
#  2. protections: protections.sh as uid 65534 on a plain directory, under
#     the preload and through the FUSE door; the transcripts must match.
# Exit 0 when both pass.
set -u

if [ $# -ne 5 ]; then
    echo "usage: creds.sh DANAUSD LIBDANAUS HAMMER local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") hammer=$(realpath "$3")
backend=$4 ceph_conf=$5
here=$(dirname "$(realpath "$0")")

site=$(mktemp -d /tmp/danaus-creds-XXXXXX) || exit 1
chmod 755 "$site"   # other users reach the mount point through it
mnt=$site/mnt
service="creds-$$"
mkdir "$site/run" "$site/backing" "$site/plain" || exit 1
{
    echo "service $service"
    echo "rundir $site/run"
    # Other users act through the FUSE door too (identity changes, the
    # test users): open it to them, as a multi-user host would.
    echo "fuse_allow_other on"
    case $backend in
    local) echo "mount $mnt local $site/backing" ;;
    ceph) echo "ceph_conf $ceph_conf"
          echo "mount $mnt ceph /creds-$(hostname)-$$" ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
    esac
} > "$site/danausd.conf"

. "$(dirname "$0")/../lib.sh"
service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf" ||
    exit 1
if ! grep -q " $mnt fuse" /proc/mounts; then
    echo "FAIL: ready, but the FUSE door is not mounted on $mnt"
    service_stop; exit 1
fi

pre() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" DANAUS_RUNDIR="$site/run" "$@"
}
fuse() { env -u LD_PRELOAD "$@"; }
failures=0

# 1. hammer
h=$mnt/hammer
pre sh -e -c "
    mkdir -p '$h'; chmod 755 '$h'
    for u in 2001 2002 2003; do
        echo secret > '$h/own-'\$u; chown \$u:\$u '$h/own-'\$u
        chmod 600 '$h/own-'\$u
        mkdir '$h/d-'\$u; chown \$u:\$u '$h/d-'\$u; chmod 700 '$h/d-'\$u
    done
    echo group > '$h/grp'; chown 0:7000 '$h/grp'; chmod 640 '$h/grp'
    echo public > '$h/pub'; chmod 644 '$h/pub'" || failures=$((failures + 1))
pids=
for door in pre fuse; do
    $door "$hammer" "$h" 8 4 > "$site/hammer-$door-root.txt" 2>&1 &
    pids="$pids $!"
    $door setpriv --reuid 2001 --regid 7000 --clear-groups \
        "$hammer" "$h" 8 4 > "$site/hammer-$door-2001.txt" 2>&1 &
    pids="$pids $!"
    $door setpriv --reuid 2002 --regid 2002 --clear-groups \
        "$hammer" "$h" 8 4 > "$site/hammer-$door-2002.txt" 2>&1 &
    pids="$pids $!"
    $door setpriv --reuid 2003 --regid 2003 --groups 7000 \
        "$hammer" "$h" 8 4 > "$site/hammer-$door-2003.txt" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do
    wait "$p" || failures=$((failures + 1))
done
for f in "$site"/hammer-*.txt; do
    echo "$(basename "$f" .txt): $(cat "$f")"
done

# 2. protections
sh "$here/protections.sh" "$site/plain/p" > "$site/prot-plain.txt" 2>&1
pre sh "$here/protections.sh" "$mnt/prot-pre" > "$site/prot-pre.txt" 2>&1
fuse sh "$here/protections.sh" "$mnt/prot-fuse" > "$site/prot-fuse.txt" 2>&1
for door in pre fuse; do
    if diff -u --label kernel --label "$door ($backend)" \
        "$site/prot-plain.txt" "$site/prot-$door.txt"; then
        echo "ok: protections through $door ($(wc -l < "$site/prot-plain.txt") checks)"
    else
        echo "FAIL: protections through $door"
        failures=$((failures + 1))
    fi
done

pre rm -rf "$h" "$mnt/prot-pre" "$mnt/prot-fuse"
service_stop
if [ $failures -eq 0 ]; then
    rm -rf "$site"
    echo "PASS"
    exit 0
fi
echo "danausd log:"; cat "$site/danausd.log"
echo "site kept: $site"
echo "FAIL ($failures)"
exit 1
