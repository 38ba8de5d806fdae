#!/bin/bash
# run-flushers.sh - issue 41's "flushing by many threads": bench/varmail
# (a mail server's open, small pwrites, fsync, close from many threads
# of one process) on the local backend, one danausd per number of
# flushers (`writeback_flushers`), with ext4 itself as the baseline.
# Rounds interleave the rows; the table gives each row's median.
#
#   bench/run-flushers.sh OUTDIR BUILD
#
# Environment: FLUSHERS (the values to compare, default "1 2 4"; "-"
# is a row "base": the key left out, and the danausd BASE_DANAUSD names
# if set, e.g. main's before the change), THREADS (default 8),
# SECONDS_EACH (seconds per run, default 5), WRITES and SIZE (pwrites per message and
# their size, default 4 and 4096), ROUNDS (default 3).
# Starts one danausd per value (fuse off), stops them on exit.
set -euo pipefail

say() { echo "run-flushers: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 2 ] || die "usage: run-flushers.sh OUTDIR BUILD"
outdir=$1 build=$(realpath "$2")
flushers=${FLUSHERS:-1 2 4}
threads=${THREADS:-8} seconds=${SECONDS_EACH:-5}
writes=${WRITES:-4} size=${SIZE:-4096} rounds=${ROUNDS:-3}
mkdir -p "$outdir"
# On the disk, not /tmp's tmpfs where there is one: fsync is the cost.
work=$(mktemp -d "${WORKDIR:-/var/tmp}/danaus-flushers-XXXXXX")
source "$(dirname "$0")/lib.sh"
pids=()
trap 'stop_danausds; rm -rf "$work"' EXIT

# start N: a danausd with N flushers serving $work/fN/mnt.
start() {
    local name=f$1 key= danausd=$build/fsservice/danausd
    [ "$1" = - ] && name=base danausd=${BASE_DANAUSD:-$danausd}
    [ "$1" = - ] || key="writeback_flushers $1"
    mkdir -p "$work/$name/run" "$work/$name/backing" "$work/$name/mnt"
    cat > "$work/$name/danausd.conf" <<CONF
service flushers-$name-$$
rundir $work/$name/run
fuse off
mount $work/$name/mnt local $work/$name/backing
$key
CONF
    start_danausd "$work/$name/log" \
        "$danausd" -c "$work/$name/danausd.conf" ||
        die "danausd with $1 flushers did not start"
    pids+=("$danausd_pid")
}
for n in $flushers; do start "$n"; done
mkdir -p "$work/ext4"

# run ROW DIR ROUND [SERVICE RUNDIR]: one varmail, its line in OUTDIR.
run() {
    local row=$1 dir=$2 round=$3
    if [ $# -gt 3 ]; then
        DANAUS_SERVICE=$4 DANAUS_RUNDIR=$5 \
            LD_PRELOAD=$build/libfs/libdanaus.so \
            "$build/bench/varmail" "$dir" "$threads" "$seconds" "$writes" "$size"
    else
        "$build/bench/varmail" "$dir" "$threads" "$seconds" "$writes" "$size"
    fi | sed "s/^/$row round $round /" >> "$outdir/flushers-runs.txt"
}
: > "$outdir/flushers-runs.txt"
for round in $(seq "$rounds"); do
    say "round $round of $rounds"
    run ext4 "$work/ext4/r$round" "$round"
    for n in $flushers; do
        name=f$n
        [ "$n" = - ] && name=base
        run "$name" "$work/$name/mnt/r$round" "$round" \
            "flushers-$name-$$" "$work/$name/run"
    done
done

# median ROW FIELD: the median of FIELD (messages/s, fsync_us) over ROW's rounds.
median() {
    awk -v row="$1" -v f="$2" '$1 == row { for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' \
        "$outdir/flushers-runs.txt" | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
{
    echo "varmail: $threads threads, $writes pwrites of $size bytes, fsync, close per message; median of $rounds interleaved rounds of ${seconds}s"
    echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(git -C "$build/.." rev-parse --short HEAD 2>/dev/null || echo "$build"); $(nproc) cpus; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    base=$(median ext4 messages/s)
    printf '%-10s %12s %10s %12s %8s\n' row messages/s fsync_us message_us /ext4
    for row in ext4 $(for n in $flushers; do [ "$n" = - ] && echo base || echo "f$n"; done); do
        m=$(median "$row" messages/s)
        printf '%-10s %12s %10s %12s %7.2fx\n' "$row" "$m" \
            "$(median "$row" fsync_us)" "$(median "$row" message_us)" \
            "$(echo "$m / $base" | bc -l)"
    done
} | tee "$outdir/flushers.txt"
