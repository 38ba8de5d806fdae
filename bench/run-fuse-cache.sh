#!/bin/bash
# run-fuse-cache.sh - what the FUSE door's kernel caches buy (issue 36):
# static programs through the FUSE mount of a standalone danausd on the
# local backend, two builds side by side, against ext4 on the same disk.
#
#   bench/run-fuse-cache.sh OUTDIR DANAUSD_BEFORE DANAUSD_AFTER [TIMEOUT_MS]
#
# Each danausd serves its own copy of /usr/include (a local backend in a
# temp dir under /tmp); ext4 is a third copy. Workloads, each run once to
# warm the caches and then timed, in ROUNDS (default 3) interleaved rounds:
#   find     busybox (static) find DIR > /dev/null
#   ls-l     busybox ls -lR DIR > /dev/null
#   cat-all  busybox find DIR -type f -exec busybox cat {} + > /dev/null
#   stat     statloop (bench/statloop, static Go): lstat of every path,
#            5 times, ns per lstat
# TIMEOUT_MS is the AFTER build's fuse_cache_timeout_ms (default 1000).
# Builds statloop with go (CGO_ENABLED=0) into OUTDIR. Writes
# OUTDIR/fuse-cache.csv (every run) and fuse-cache.txt (medians).
set -euo pipefail

outdir=$1 before=$(realpath "$2") after=$(realpath "$3")
timeout_ms=${4:-1000}
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")" && pwd -P)
bb=/usr/bin/busybox
mkdir -p "$outdir"
outdir=$(realpath "$outdir")
(cd "$here/statloop" && CGO_ENABLED=0 GO111MODULE=off go build -o "$outdir/statloop" .)

work=$(mktemp -d /tmp/danaus-fcache-bench-XXXXXX)
source "$here/lib.sh"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

tar -C /usr -cf "$work/include.tar" include
for sys in ext4 before after; do
    mkdir -p "$work/$sys"
    tar -C "$work/$sys" -xf "$work/include.tar"
done
# The two services: each serves its copy at mnt-SYS.
serve() {
    local sys=$1 bin=$2 extra=$3
    mkdir -p "$work/run-$sys"
    printf 'service fcb-%s-%d\nrundir %s\nfuse_keep 0\n%smount %s local %s\n' \
        "$sys" $$ "$work/run-$sys" "$extra" "$work/mnt-$sys" "$work/$sys" \
        > "$work/$sys.conf"
    start_danausd "$work/$sys.log" "$bin" -c "$work/$sys.conf" || exit 1
    pids+=("$danausd_pid")
}
serve before "$before" ""
serve after "$after" "fuse_cache_timeout_ms $timeout_ms
"
dir_of() { [ "$1" = ext4 ] && echo "$work/ext4/include" || echo "$work/mnt-$1/include"; }
echo "files: $(find "$work/ext4/include" | wc -l)" >&2

ms() { echo $(( ($2 - $1) / 1000000 )); }
run() { # run WORKLOAD DIR: prints the time (ms, or ns per lstat)
    local w=$1 d=$2 t0 t1
    case $w in
    stat) find "$d" > "$work/paths"
          "$outdir/statloop" 5 < "$work/paths" > /dev/null
          "$outdir/statloop" 5 < "$work/paths" ;;
    *) for i in 1 2; do
           t0=$(date +%s%N)
           case $w in
           find) $bb find "$d" > /dev/null ;;
           ls-l) $bb ls -lR "$d" > /dev/null ;;
           cat-all) $bb find "$d" -type f -exec $bb cat {} + > /dev/null ;;
           esac
           t1=$(date +%s%N)
       done
       ms "$t0" "$t1" ;;
    esac
}
echo "round,workload,system,value" > "$outdir/fuse-cache.csv"
for r in $(seq "$rounds"); do
    for w in find ls-l cat-all stat; do
        for sys in ext4 before after; do
            echo "$r,$w,$sys,$(run "$w" "$(dir_of "$sys")")" >> "$outdir/fuse-cache.csv"
        done
    done
done
{
    echo "workload  ext4  before  after   (medians of $rounds rounds; ms, stat: ns per lstat)"
    for w in find ls-l cat-all stat; do
        printf '%-8s' "$w"
        for sys in ext4 before after; do
            printf '  %s' "$(awk -F, -v w="$w" -v s="$sys" '$2 == w && $3 == s {print $4}' \
                "$outdir/fuse-cache.csv" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")"
        done
        echo
    done
} > "$outdir/fuse-cache.txt"
cat "$outdir/fuse-cache.txt"
