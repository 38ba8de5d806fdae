#!/bin/bash
# run-hrc-accuracy.sh - how close the sampled hit-ratio curves
# (fsservice/core/reuse.h) come to an exact LRU simulation of the same
# traces: tests/unit/test_reuse's traces (1M reads each: uniform, zipf,
# hot set with a scan, loop, a set smaller than the sample) under several
# keys of the estimator's hash, with the largest and the mean absolute
# error of hit ratio over the curve's sizes, per trace and key.
#
#   bench/run-hrc-accuracy.sh OUTDIR BUILD [SEEDS...]
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: run-hrc-accuracy.sh OUTDIR BUILD [SEEDS...]" >&2; exit 2; }
outdir=$1 test=$(realpath "$2")/tests/test_reuse
shift 2
seeds=${*:-0x5eed 0x1234 0x9999 0xabcdef 0x777 0x4242}
mkdir -p "$outdir"
{
    echo "Hit-ratio curve estimate against exact LRU, absolute hit ratio over the curve's sizes"
    echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(git -C "$(dirname "$0")" rev-parse --short HEAD)"
    echo
    printf '%-10s %-10s %8s %8s %9s %9s\n' seed trace rate samples max-error mean-error
    for seed in $seeds; do
        REUSE_SEED=$seed "$test" 2>&1 | awk -v s="$seed" '/max error/ {
            sub(/:$/, "", $5)
            printf "%-10s %-10s %8s %8s %9s %9s\n", s, $1, $3, $5, $8, $NF }'
    done
} | tee "$outdir/hrc-accuracy.txt"
