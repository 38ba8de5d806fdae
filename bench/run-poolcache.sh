#!/bin/bash
# run-poolcache.sh - issue 41's last goal: on Ceph, a quiet container
# keeps its cache hits next to a container streaming a file larger than
# the cache, when the pool's cache is sized by the knees (--cache auto:
# the pool's page cache, a reserve per container), where a fixed shared
# cache (--cache SIZE: libcephfs's object cache, one LRU) loses them.
#
# A standalone danausd plays the pool (two root mounts, as the engine
# makes them; clients' own read caches off, so every read reaches the
# pool's cache), in two configurations of the same memory: cache_auto
# 48M, and ceph_oc_size 48M. In each, 3 rounds interleaved: the quiet
# container reads its 16 MiB working set at random (bench's hrc_reader,
# 4 KiB preads) until warm, then times 40,000 reads alone, and 40,000
# while the other container streams a 96 MiB file over and over (cat).
#
#   bench/run-poolcache.sh OUTDIR BUILD
#
# Environment: CEPH_CONF (a running cluster; else one is started here),
# ROUNDS (3). Writes OUTDIR/poolcache.txt and poolcache.csv.
set -euo pipefail

say() { echo "run-poolcache: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 2 ] || die "usage: run-poolcache.sh OUTDIR BUILD"
outdir=$(realpath -m "$1") build=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3}
danausd=$build/fsservice/danausd lib=$build/libfs/libdanaus.so
danaus=$build/engine/danaus reader=$build/tests/hrc_reader
for f in "$danausd" "$lib" "$danaus" "$reader"; do
    [ -e "$f" ] || die "no $f (build first)"
done
mkdir -p "$outdir"
work=$(mktemp -d "${TMPDIR:-/tmp}/danaus-poolcache-XXXXXX")
source "$(dirname "$0")/lib.sh"
cluster_dir="" pids=() streamer=""
cleanup() {
    [ -n "$streamer" ] && kill "$streamer" 2>/dev/null
    stop_danausds
    [ -n "$cluster_dir" ] && "$repo/deploy/ceph-cluster.sh" stop "$cluster_dir"
    rm -rf "$work"
}
trap cleanup EXIT
use_ceph_cluster
quiet_client_conf

pool=pcbench
export DANAUS_STATE=$work/state
quiet=$DANAUS_STATE/containers/quiet/root
stream=$DANAUS_STATE/containers/stream/root
mkdir -p "$work/run" "$DANAUS_STATE/pools/$pool/door" "$quiet" "$stream"
top=/danaus-poolcache-bench-$$
preloaded() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE=$pool \
        DANAUS_RUNDIR="$DANAUS_STATE/pools/$pool/door" "$@"
}

start_pool() { # MODE: auto or fixed
    local cache="cache_auto 48M"
    [ "$1" = fixed ] && cache="ceph_oc_size 48M"
    cat > "$work/$1.conf" <<CONF
service $pool
rundir $work/run
door_dir $DANAUS_STATE/pools/$pool/door
fuse off
read_cache_blocks 0
ceph_conf $bench_conf
$cache
mount $quiet ceph $top/quiet
mount $stream ceph $top/stream
CONF
    start_danausd "$work/$1.log" "$danausd" -c "$work/$1.conf" ||
        die "danausd ($1) did not start"
    pids=("$danausd_pid")
}

ns() { date +%s%N; }
# µs per read of READS random 4 KiB preads of the 16 MiB working set.
time_reads() { # READS SEED
    local t0 t1
    t0=$(ns)
    preloaded "$reader" "$quiet/set" 4096 "$1" "$2" || die "reader failed"
    t1=$(ns)
    awk -v d=$((t1 - t0)) -v n="$1" 'BEGIN { printf "%.2f", d / n / 1000 }'
}
counts() {
    (cd "$work" && "$danaus" stats --hrc $pool) |
        awk '$1 == "quiet" { print $(NF - 1), $NF; exit }'
}

start_pool auto
head -c 16777216 /dev/urandom | preloaded dd of="$quiet/set" bs=1M \
    iflag=fullblock status=none
head -c 100663296 /dev/zero | preloaded dd of="$stream/big" bs=1M \
    iflag=fullblock status=none
stop_danausds

csv=$outdir/poolcache.csv
echo "round,mode,alone_us,next_to_stream_us,hits_alone,misses_alone,hits_next,misses_next" > "$csv"
for round in $(seq 1 "$rounds"); do
    for mode in auto fixed; do
        start_pool "$mode"
        (cd "$work" && "$danaus" stats --hrc $pool > /dev/null) # counting on
        time_reads 60000 1 > /dev/null
        sleep 6 # the first look at the knees (cache_auto)
        time_reads 60000 2 > /dev/null
        read -r h0 m0 <<< "$(counts)"
        alone=$(time_reads 40000 3)
        read -r h1 m1 <<< "$(counts)"
        (while :; do preloaded cat "$stream/big" > /dev/null; done) &
        streamer=$!
        sleep 3
        next=$(time_reads 40000 4)
        read -r h2 m2 <<< "$(counts)"
        kill "$streamer"; wait "$streamer" 2>/dev/null || true; streamer=""
        say "round $round $mode: alone $alone us, next to the stream $next us"
        echo "$round,$mode,$alone,$next,$((h1 - h0)),$((m1 - m0)),$((h2 - h1)),$((m2 - m1))" >> "$csv"
        stop_danausds
    done
done
preloaded_cleanup() {
    start_pool auto
    preloaded rm -rf "$quiet/set" "$stream/big"
    stop_danausds
}
preloaded_cleanup

out=$outdir/poolcache.txt
{
    echo "The pool's cache next to a stream (bench/run-poolcache.sh): medians of $rounds rounds"
    echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); danausd $(build_commit "$build"); $(nproc) cpus, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)"
    echo "Quiet container: 4 KiB preads at random over 16 MiB; the other streams 96 MiB (cat) in a loop; 48 MiB of cache either way."
    echo "pool hits: of the quiet container's reads, those the pool's page cache answered (cache_auto only)"
    echo
    printf '%-34s %12s %16s %8s %14s %14s\n' "cache" "alone us" "next to stream" "ratio" "hits alone" "hits next to"
    for mode in auto fixed; do
        awk -F, -v m="$mode" '
            function med(a, n,   i, j, t) {
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                    if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                return a[int((n + 1) / 2)]
            }
            $2 == m { n++; a[n] = $3; b[n] = $4; h1 += $5; m1 += $6; h2 += $7; m2 += $8 }
            END {
                name = m == "auto" ? "--cache auto (pool page cache)" : "--cache 48M (libcephfs, one LRU)"
                ha = h1 + m1 ? sprintf("%.1f%%", 100 * h1 / (h1 + m1)) : "-"
                hn = h2 + m2 ? sprintf("%.1f%%", 100 * h2 / (h2 + m2)) : "-"
                x = med(a, n); y = med(b, n)
                printf "%-34s %12.2f %16.2f %7.2fx %14s %14s\n", name, x, y, y / x, ha, hn
            }' "$csv"
    done
    echo
    echo "Rounds (CSV: $(basename "$csv")):"
    cat "$csv"
} | tee "$out"
