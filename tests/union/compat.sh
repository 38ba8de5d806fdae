#!/bin/sh
# compat.sh - the union compatibility test: one scenario script run on a
# unionfs-fuse -o cow mount (the reference user-level union) and on a
# Danaus union instance, over branches of the same contents; the two
# transcripts (listings, contents, modes, link counts, error messages of
# failed calls) must be the same. Then, on the Danaus union alone, the
# "." and ".." entries of every directory must carry the numbers stat
# gives the directory and its parent (DOTS_PROBE, dots_probe.c).
#
#   compat.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|- DOTS_PROBE
#
# The reference always runs on local directories; the Danaus union runs on
# the chosen backend (its branches in a fresh CephFS directory for ceph,
# written through a plain Danaus mount of the CephFS root).
#
# Intentional differences, left out of the comparison:
#  - the branches themselves: unionfs-fuse records deletions in its own
#    format (.unionfs-fuse/NAME_HIDDEN~ in the writable branch, hidden from
#    the union with -o hide_meta_files); Danaus uses OCI whiteouts (.wh.NAME,
#    .wh..wh..opq) so image layers serve as branches as they are. Only what
#    the unions show is compared.
#  - renaming a directory merged from several lower branches: unionfs-fuse
#    moves the topmost branch's part only, the entries of the other
#    branches vanish; Danaus moves the whole merged directory. The scenario
#    renames a directory of one lower branch; test_union.c covers the
#    merged case.
# The reference runs with the kernel's caches off (direct_io, zero attr and
# entry timeouts): with them, a hard link made through unionfs-fuse showed
# a stale link count and stale data for the other name, which is the
# kernel's cache, not the union.
set -u

if [ $# -ne 5 ]; then
    echo "usage: compat.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|- DOTS_PROBE" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") backend=$3 ceph_conf=$4
probe=$(realpath "$5")
here=$(dirname "$(realpath "$0")")
command -v unionfs-fuse > /dev/null || { echo "unionfs-fuse missing" >&2; exit 1; }

site=$(mktemp -d /tmp/danaus-union-compat-XXXXXX) || exit 1
service="union-compat-$$"
mountpoint=/danaus-union-compat
raw=/danaus-union-raw
mkdir "$site/run" "$site/ref" "$site/ref/mnt" "$site/danaus" || exit 1
cephdir="/union-compat-$(hostname)-$$"
{
    echo "service $service"
    echo "rundir $site/run"
    echo "fuse off"
    case $backend in
    local)
        d=$site/danaus
        mkdir "$d/up" "$d/l1" "$d/l2"
        echo "union $mountpoint local $d/up $d/l1:$d/l2" ;;
    ceph)
        echo "ceph_conf $ceph_conf"
        echo "mount $raw ceph /"
        echo "union $mountpoint ceph $cephdir/up $cephdir/l1:$cephdir/l2" ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
    esac
} > "$site/danausd.conf" || exit 2

# The branches: plain commands for local directories, the preload for
# CephFS (before the union is first used).
(cd "$site/ref" && . "$here/compat_branches.sh") || exit 1
danaus_env() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
if [ "$backend" = local ]; then
    (cd "$site/danaus" && . "$here/compat_branches.sh") || exit 1
fi

. "$here/../lib.sh"
cleanup() {
    umount "$site/ref/mnt" 2>/dev/null
    [ "$backend" = ceph ] && danaus_env rm -rf "$raw$cephdir"
    service_stop
}
service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf" >&2 ||
    { cleanup; exit 1; }
if [ "$backend" = ceph ]; then
    danaus_env sh -c 'cd "$1" && . "$2"' sh "$raw$cephdir" \
        "$here/compat_branches.sh" || { cleanup; exit 1; }
fi

if ! unionfs-fuse -o cow,hide_meta_files,direct_io,attr_timeout=0,entry_timeout=0 "$site/ref/up=RW:$site/ref/l1=RO:$site/ref/l2=RO" \
    "$site/ref/mnt"; then
    echo "cannot mount unionfs-fuse" >&2
    cleanup
    exit 1
fi

scenario=$here/compat_scenario.sh
(cd "$site/ref/mnt" && sh "$scenario") > "$site/reference.txt" 2>&1
echo "exit status $?" >> "$site/reference.txt"
danaus_env sh -c 'cd "$1" && exec sh "$2"' sh "$mountpoint" "$scenario" \
    > "$site/danaus.txt" 2>&1
echo "exit status $?" >> "$site/danaus.txt"

ok=1
diff -a -u "$site/reference.txt" "$site/danaus.txt" \
    --label unionfs-fuse --label "danaus union ($backend)" || ok=0
# The Danaus union alone: "." and ".." of every directory below its root
# as stat says (the root's ".." is outside the union, as on any mount).
danaus_env sh -c 'cd "$1" && find . -mindepth 1 -type d -exec "$2" {} +' sh \
    "$mountpoint" "$probe" || ok=0
cleanup
if [ $ok -eq 1 ]; then
    echo "same: $(grep -c '^\$ ' "$site/reference.txt") steps, tree of" \
         "$(sed -n '/^== tree/,$p' "$site/reference.txt" | wc -l) lines"
    rm -rf "$site"
    exit 0
fi
echo "danausd log:"
cat "$site/danausd.log"
echo "site kept: $site"
echo "DIFFERENT"
exit 1
