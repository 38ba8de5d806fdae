#!/bin/sh
# memory.sh - the union memory test: 16 union instances share one read-only
# branch on CephFS holding a 64 MiB file; the file is read whole through
# each union and the service's resident memory must grow by less than 2
# copies of it (one Ceph client, one cache, however many containers).
#
#   memory.sh DANAUSD LIBDANAUS CEPH_CONF
#
# The file is written by a first service, which is then stopped, so the
# measured service starts with a cold cache. Prints the growth in MiB and
# in copies of the file.
set -u
if [ $# -ne 3 ]; then
    echo "usage: memory.sh DANAUSD LIBDANAUS CEPH_CONF" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") ceph_conf=$3
site=$(mktemp -d /tmp/danaus-union-memory-XXXXXX) || exit 1
mkdir "$site/run"
service="union-memory-$$"
raw=/danaus-union-memory-raw
cephdir="/union-memory-$(hostname)-$$"
unions=16
size_mib=64

. "$(dirname "$0")/../lib.sh"
start_service() { # CONF
    service_start "$site/danausd.log" "" "$danausd" -c "$1" >&2 || exit 1
}
stop_service() {
    service_stop
    rm -f "$site/danausd.log"
}
danaus_env() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
rss_kib() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$daemon/status"
}
header() {
    echo "service $service"
    echo "rundir $site/run"
    echo "fuse off"
    echo "ceph_conf $ceph_conf"
    echo "mount $raw ceph /"
}

header > "$site/write.conf"
start_service "$site/write.conf"
danaus_env sh -c 'mkdir -p "$1/image" && head -c $(($2 << 20)) /dev/urandom > "$1/image/big"' \
    sh "$raw$cephdir" "$size_mib" || { stop_service; exit 1; }
stop_service

{
    header
    i=0
    while [ $i -lt $unions ]; do
        echo "union /danaus-union-memory-$i ceph $cephdir/up$i $cephdir/image"
        i=$((i + 1))
    done
} > "$site/read.conf"
start_service "$site/read.conf"
before=$(rss_kib)
want=$(danaus_env sh -c 'md5sum < "$1"' sh "$raw$cephdir/image/big")
ok=1
i=0
while [ $i -lt $unions ]; do
    got=$(danaus_env sh -c 'md5sum < "$1"' sh "/danaus-union-memory-$i/big")
    if [ "$got" != "$want" ]; then
        echo "union $i read different contents" >&2
        ok=0
    fi
    i=$((i + 1))
done
after=$(rss_kib)
danaus_env rm -rf "$raw$cephdir"
stop_service
rm -rf "$site"

growth=$((after - before))
echo "service RSS $((before / 1024)) MiB -> $((after / 1024)) MiB after" \
     "$unions unions read the $size_mib MiB file (and once the plain mount):" \
     "growth $((growth / 1024)) MiB =" \
     "$(awk -v g=$growth -v s=$size_mib 'BEGIN { printf "%.2f", g / 1024 / s }')" \
     "copies (target < 2)"
[ $ok -eq 1 ] || exit 1
[ $growth -lt $((2 * size_mib * 1024)) ] || { echo "too much memory"; exit 1; }
echo "ok"
