#!/bin/sh
# ceph_full.sh - the test cluster filled through a service, as a tenant
# who writes until the disk is full would (fsservice/libservice/ceph/
# space.h): the writer gets ENOSPC while the OSD still has room, so the
# MDS can still journal, and the tenant's deletes, mkdir and reads go on;
# a write that needs space and its fsync get ENOSPC at once, one inside a
# file does not; once the big file is gone, writes are taken again. Before, the OSD filled to 100% and
# the rmdir after rm's unlinks waited for good.
#
#   ceph_full.sh DANAUSD LIBDANAUS CEPH_CONF
set -u

if [ $# -ne 3 ]; then
    echo "usage: ceph_full.sh DANAUSD LIBDANAUS CEPH_CONF" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") ceph_conf=$3
. "$(dirname "$0")/../lib.sh"
mountpoint=/danaus-ceph-full
site=$(mktemp -d /tmp/danaus-ceph-full-XXXXXX) || exit 1
service="ceph-full-$$"
mkdir "$site/run" || exit 1
printf 'service %s\nrundir %s\nfuse off\nceph_conf %s\nmount %s ceph /\n' \
    "$service" "$site/run" "$ceph_conf" "$mountpoint" > "$site/danausd.conf"
service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf" ||
    exit 1
danaus() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
root="$mountpoint/full-$(hostname)-$$"
danaus mkdir -p "$root/tree/sub" || { service_stop; exit 1; }
for i in 1 2 3; do
    echo "file $i" | danaus dd of="$root/tree/sub/f$i" status=none
done
echo kept | danaus dd of="$root/kept" conv=fsync status=none

# A file rewritten over and over takes no more room than it holds, though
# the window counts 10 s of writes against the cluster's figure: 40
# rewrites of 64 MiB (2.5 GiB through a 2 GiB cluster in a few seconds),
# each after a truncate, by O_TRUNC (dd) and by ftruncate.
nospc=0
for i in $(seq 40); do
    danaus timeout 20 dd if=/dev/zero of="$root/rewritten" bs=1M count=64 \
        conv=fsync status=none 2>>"$site/rewrite.err" || nospc=$((nospc + 1))
done
expect "O_TRUNC rewrites of one file that failed" 0 "$nospc"
danaus timeout 60 python3 - "$root/rewritten" <<'PY' > "$site/ftruncate.out" 2>&1
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
block = bytes(1 << 20)
for _ in range(40):
    os.ftruncate(fd, 0)
    for i in range(64):
        os.pwrite(fd, block, i << 20)
    os.fsync(fd)
print("rewritten")
PY
expect "ftruncate rewrites of one file" rewritten \
    "$(tail -n 1 "$site/ftruncate.out")"
danaus rm -f "$root/rewritten"

# More than the cluster holds (2 GiB), in 4 MiB writes, without fsync.
danaus timeout 120 dd if=/dev/zero of="$root/big" bs=4M count=1024 \
    > "$site/dd.out" 2>&1
rc=$?
expect "the filling dd fails" 1 "$rc"
grep -q 'No space left on device' "$site/dd.out" &&
    ok "with ENOSPC" || fail "with ENOSPC: $(cat "$site/dd.out")"

expect "a file written before reads back" kept \
    "$(danaus timeout 20 cat "$root/kept")"
danaus timeout 20 rm -rf "$root/tree"
expect "rm -rf of a tree (unlinks, then rmdirs) ends" 0 $?
danaus timeout 20 mkdir "$root/after"
expect "mkdir works" 0 $?
danaus timeout 20 dd if=/dev/zero of="$root/after/more" bs=1M count=8 \
    conv=fsync > "$site/more.out" 2>&1
rc=$?
expect "a write that needs space fails at once" 1 "$rc"
grep -q 'No space left on device' "$site/more.out" &&
    ok "with ENOSPC" || fail "with ENOSPC: $(cat "$site/more.out")"

echo KEPT | danaus timeout 20 dd of="$root/kept" conv=notrunc status=none
expect "a write inside a file still goes through" KEPT \
    "$(danaus timeout 20 cat "$root/kept")"

danaus timeout 20 rm -f "$root/big"
expect "the big file is removed" 0 $?
# The cluster's figure shows the freed space seconds later, and the
# service counts its own writes against it for 10 s (space.h).
start=$(date +%s)
until danaus timeout 20 dd if=/dev/zero of="$root/after/more" bs=1M \
        count=8 conv=fsync status=none 2>/dev/null; do
    [ $(($(date +%s) - start)) -ge 60 ] && break
    sleep 1
done
waited=$(($(date +%s) - start))
[ $waited -lt 60 ] && ok "writes are taken again ${waited} s after the delete" ||
    fail "writes are still refused 60 s after the delete"

danaus timeout 20 rm -rf "$root"
# A service stuck in a wedged cluster leaves at SIGTERM within about 2 s.
service_stop
[ $failures -eq 0 ] && rm -rf "$site"
exit $((failures > 0))
