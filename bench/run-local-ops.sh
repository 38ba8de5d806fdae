#!/bin/bash
# run-local-ops.sh - per-operation cost through the preload on the local
# backend, two builds side by side in one run (a change's before and
# after), with the host file system as the baseline: stat of one file
# over and over, open+close, 4 KiB pread and pwrite. Each build's
# danaus-bench (its libdanaus linked in, so the libc calls it makes take
# the preload's path) runs against that build's own danausd. Rounds
# interleave the three; the table gives each op's median ns and ratios.
#
#   bench/run-local-ops.sh OUTDIR BEFORE_BUILD AFTER_BUILD
#
# Environment: ROUNDS (default 3), BENCH_ARGS (extra danaus-bench flags),
# DANAUSD_CONF (lines added to both danausd's configuration, e.g.
# "read_cache_blocks 0": every pread then reaches the service), OPS
# (danaus-bench's ops, default stat,open+close,pread-4k,pwrite-4k),
# HRC (before, after or both: which danausd counts every page read for
# hit-ratio curves from its start, as a pool with `--cache auto` does;
# `danaus stats --hrc` of that build asks it once).
# Starts one danausd per build (fuse off), stops them on exit.
set -euo pipefail

say() { echo "run-local-ops: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 3 ] || die "usage: run-local-ops.sh OUTDIR BEFORE_BUILD AFTER_BUILD"
outdir=$1 before=$(realpath "$2") after=$(realpath "$3")
rounds=${ROUNDS:-3}
ops=${OPS:-stat,open+close,pread-4k,pwrite-4k}
hrc=${HRC:-}
mkdir -p "$outdir"
work=$(mktemp -d /tmp/danaus-localops-XXXXXX)
source "$(dirname "$0")/lib.sh"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# start NAME BUILD: a danausd of BUILD serving $work/NAME/mnt; counting
# for hit-ratio curves when HRC names it, its door where `danaus stats
# --hrc` finds a pool's.
start() {
    local name=$1 build=$2 state=$work/$1/state
    mkdir -p "$work/$name/run" "$work/$name/backing" "$work/$name/mnt" \
        "$state/pools/ops-$name-$$/door"
    cat > "$work/$name/danausd.conf" <<CONF
service ops-$name-$$
rundir $work/$name/run
door_dir $state/pools/ops-$name-$$/door
fuse off
mount $work/$name/mnt local $work/$name/backing
${DANAUSD_CONF:-}
CONF
    start_danausd "$work/$name/log" \
        "$build/fsservice/danausd" -c "$work/$name/danausd.conf" ||
        die "danausd of $build did not start"
    pids+=("$danausd_pid")
    if [ "$hrc" = "$name" ] || [ "$hrc" = both ]; then
        (cd "$work/$name" && DANAUS_STATE=$state \
            "$build/engine/danaus" stats --hrc "ops-$name-$$" > /dev/null) ||
            die "danaus stats --hrc of $build failed"
    fi
}
start before "$before"
start after "$after"
mkdir -p "$work/ext4"

# bench NAME BUILD ROW DIR: one danaus-bench run, its CSV in OUTDIR.
bench() {
    local name=$1 build=$2 row=$3 dir=$4 round=$5
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
    DANAUS_SERVICE=ops-$name-$$ \
        DANAUS_RUNDIR=$work/$name/state/pools/ops-$name-$$/door \
        "$build/bench/danaus-bench" "$row" "$dir" --ops "$ops" \
        --csv "$outdir/local-ops-$name-round$round.csv" ${BENCH_ARGS:-} \
        > /dev/null
}
for round in $(seq "$rounds"); do
    say "round $round of $rounds"
    bench ext4 "$after" --local "$work/ext4/r$round" "$round"
    bench before "$before" --preload "$work/before/mnt/r$round" "$round"
    bench after "$after" --preload "$work/after/mnt/r$round" "$round"
done

# What the counting builds counted, in OUTDIR/hrc-NAME.txt.
for name in before after; do
    if [ "$hrc" = "$name" ] || [ "$hrc" = both ]; then
        build=$before
        [ "$name" = after ] && build=$after
        (cd "$work/$name" && DANAUS_STATE=$work/$name/state \
            "$build/engine/danaus" stats --hrc "ops-$name-$$") \
            > "$outdir/hrc-$name.txt"
    fi
done

# median NAME OP: the median ns/op of OP over NAME's rounds.
median() {
    cat "$outdir"/local-ops-"$1"-round*.csv | awk -F, -v op="$2" \
        '$2 == op && $5 != "" { print $5 }' | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
{
    echo "Per operation through the preload, local backend, ns: median of $rounds interleaved rounds"
    [ -z "$hrc" ] || echo "Counting for hit-ratio curves: $hrc"
    echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); before $(git -C "$before/.." rev-parse --short HEAD 2>/dev/null || echo "$before"), after $(git -C "$after/.." rev-parse --short HEAD 2>/dev/null || echo "$after"); $(nproc) cpus; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    printf '%-12s %10s %10s %10s %12s %12s\n' op ext4 before after after/before after/ext4
    for op in ${ops//,/ }; do
        e=$(median ext4 "$op") b=$(median before "$op") a=$(median after "$op")
        printf '%-12s %10s %10s %10s %11.2fx %11.2fx\n' "$op" "$e" "$b" "$a" \
            "$(echo "$a / $b" | bc -l)" "$(echo "$a / $e" | bc -l)"
    done
} | tee "$outdir/local-ops.txt"
