#!/bin/bash
# hrc.sh - `danaus stats --hrc` (issue 41): two containers of a pool, each
# reading its own working set at random, one through the preload and one
# through the FUSE door, get a hit-ratio curve each whose knee lies near
# its working set's size. A standalone danausd plays the pool: its door
# and its mounts are where the engine looks for a pool's and its
# containers' (STATE/pools/P/door, STATE/containers/NAME/root). The
# clients' read caches are off (read_cache_blocks 0) and the FUSE door
# bypasses the kernel's page cache (fuse_direct_io), so every read reaches
# the service, as every read a pool's cache gets does.
#
#   hrc.sh DANAUSD DANAUS LIBDANAUS READER [CEPH_CONF]
#
# Local backend; with CEPH_CONF, the two mounts on that cluster and the
# pool's cache sized by the knees (cache_auto, as `pool create --cache
# auto` sets it): the service must set the object cache to the floor plus
# both knees. Run as root. Prints "ok"/"FAIL" per check; exit 0 when all
# passed.
set -u

if [ $# -ne 4 ] && [ $# -ne 5 ]; then
    echo "usage: hrc.sh DANAUSD DANAUS LIBDANAUS READER [CEPH_CONF]" >&2
    exit 2
fi
danausd=$(realpath "$1") danaus=$(realpath "$2") lib=$(realpath "$3")
reader=$(realpath "$4") ceph_conf=${5:-}

site=$(mktemp -d /tmp/danaus-hrc-XXXXXX) || exit 1
export DANAUS_STATE=$site/state
pool=hrcpool
small=$DANAUS_STATE/containers/small/root
large=$DANAUS_STATE/containers/large/root
mkdir -p "$site/run" "$site/small" "$site/large" "$DANAUS_STATE/pools/$pool/door" \
    "$small" "$large" || exit 1
cat > "$site/danausd.conf" <<CONF
service $pool
rundir $site/run
door_dir $DANAUS_STATE/pools/$pool/door
fuse_keep 0
read_cache_blocks 0
fuse_direct_io on
CONF
if [ -n "$ceph_conf" ]; then
    top=/danaus-hrc-$(hostname)-$$
    cat >> "$site/danausd.conf" <<CONF
ceph_conf $ceph_conf
cache_auto 256M
mount $small ceph $top/small
mount $large ceph $top/large
CONF
else
    cat >> "$site/danausd.conf" <<CONF
mount $small local $site/small
mount $large local $site/large
CONF
fi
# Working sets: 1024 pages (4 MiB) and 6144 pages (24 MiB), of files
# written through the service.
preloaded() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE=$pool \
        DANAUS_RUNDIR="$DANAUS_STATE/pools/$pool/door" "$@"
}

. "$(dirname "$0")/../lib.sh"
failures=0
daemon=
cleanup() {
    [ -n "$daemon" ] && service_stop
    unmount_left "$small" "$large"
    rm -rf "$site"
}
trap cleanup EXIT
service_start "$site/danausd.log" "$large" "$danausd" -c "$site/danausd.conf" ||
    exit 1
preloaded dd if=/dev/urandom of="$small/data" bs=4096 count=2048 status=none &&
    preloaded dd if=/dev/urandom of="$large/data" bs=4096 count=8192 \
        status=none || fail "cannot write the data through the service"

out=$(cd "$site" && "$danaus" stats --hrc $pool)
expect "no curve before any read" "pool $pool: no reads counted yet" "$out"

preloaded timeout 120 "$reader" "$small/data" 1024 100000 7 ||
    fail "the preloaded reader failed"
timeout 120 env -u LD_PRELOAD "$reader" "$large/data" 6144 150000 11 ||
    fail "the reader through the FUSE door failed"

out=$(cd "$site" && "$danaus" stats --hrc $pool)
echo "$out"
# The knee's size in KiB, from the summary row of a container.
knee_kib() {
    echo "$out" | awk -v c="$1" '$1 == c {
        v = $4; u = v; sub(/[0-9.]+/, "", u); sub(/[A-Za-z]+$/, "", v)
        print int(v * (u == "MiB" ? 1024 : u == "GiB" ? 1048576 : 1)); exit }'
}
k=$(knee_kib small)
expect "the preloaded container's knee is near its 4 MiB" 1 \
    "$([ -n "$k" ] && [ "$k" -ge 3277 ] && [ "$k" -le 4915 ] && echo 1)"
k=$(knee_kib large)
expect "the FUSE door's container's knee is near its 24 MiB" 1 \
    "$([ -n "$k" ] && [ "$k" -ge 19661 ] && [ "$k" -le 29491 ] && echo 1)"
sum=$(echo "$out" | awk '$1 == "knees" { print $3 }')
expect "the knees' sum, what the pool's cache needs" \
    "$(awk -v a="$(knee_kib small)" -v b="$(knee_kib large)" \
        'BEGIN { printf "%.1fMiB", (a + b) / 1024 }')" "$sum"
reads=$(echo "$out" | awk '$1 == "small" { print $2 }')
expect "every page read through the preload counted" 100000 "$reads"
reads=$(echo "$out" | awk '$1 == "large" { print $2 }')
expect "every page read through the FUSE door counted" 150000 "$reads"
expect "the curves as CSV, a row per size and a column per container" \
    "cache MiB,small,large" "$(head -n 1 "$site/hrc-$pool.csv" 2>/dev/null)"
if command -v gnuplot >/dev/null; then
    expect "and a plot" 1 "$([ -s "$site/hrc-$pool.png" ] && echo 1)"
fi
if [ -n "$ceph_conf" ]; then
    # The sweeper looks every 5 s, and sets a size again only when it
    # moved by more than an eighth: after a look past the last read, the
    # size set last is within an eighth of the floor (8 MiB) and both
    # knees.
    sleep 6
    line=$(grep 'knees of 2 mounts' "$site/danausd.log" | tail -n 1)
    echo "$line"
    mib=$(echo "$line" | sed -n 's/.*cache: \([0-9.]*\) MiB.*/\1/p')
    expect "cache_auto sets the cache to the floor and both knees" 1 \
        "$(awk -v m="${mib:-0}" -v a="$(knee_kib small)" -v b="$(knee_kib large)" \
            'BEGIN { w = 8 + (a + b) / 1024; d = w - m
                     print (m > 0 && d <= m / 8 + 0.05 && -d <= m / 8 + 0.05) }')"
    preloaded rm -rf "$small/data" "$large/data"
fi
out=$("$danaus" stats --hrc ../x 2>&1)
expect "a pool's name is checked" \
    "danaus: pool name '../x': use 1 to 32 letters, digits, '_', '.' or '-', not starting with '.' or '-'" \
    "$out"
"$danaus" stats --hrc nopool > /dev/null 2>&1
expect "a pool without a danausd is an error" 1 "$?"

echo "$failures failures"
[ "$failures" -eq 0 ]
