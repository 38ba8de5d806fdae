#!/bin/bash
# run-hrc-cost.sh - what counting pages for hit-ratio curves
# (fsservice/core/reuse.h) costs a cached read, two builds side by side
# (a change's before and after), in rounds that alternate them:
#   - hrc-cost: the estimator alone, its cpu ns per page read for each
#     read pattern (bench/hrc_cost.c);
#   - the share of the service's busy cpu samples (those not spent
#     waiting for work: ipc_cpu_relax, ipc_wait_work, ipc_spin_step) in
#     the estimator (perf, the functions of reuse.c and hrc.c) while danaus-bench reads a cached
#     file through the preload on the local backend, 1 MiB at a time
#     (seq-read-1m) and 4 KiB at one offset (pread-4k), with counting on
#     from the service's start (`danaus stats --hrc`, as a pool with
#     `--cache auto` counts) and no client read cache (every read reaches
#     the service). A share of cpu time is what the machine's other load
#     moves least; each op's ns/op is given beside it.
#
#   bench/run-hrc-cost.sh OUTDIR BEFORE_BUILD AFTER_BUILD
#
# Environment: ROUNDS (default 3). Needs perf. Starts one danausd per
# build, op and round (fuse off), stops each before the next.
set -euo pipefail

say() { echo "run-hrc-cost: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 3 ] || die "usage: run-hrc-cost.sh OUTDIR BEFORE_BUILD AFTER_BUILD"
outdir=$(realpath -m "$1") before=$(realpath "$2") after=$(realpath "$3")
rounds=${ROUNDS:-3}
command -v perf > /dev/null || die "perf is not installed"
mkdir -p "$outdir"
work=$(mktemp -d /tmp/danaus-hrccost-XXXXXX)
source "$(dirname "$0")/lib.sh"
danausd_pid=
cleanup() {
    [ -z "$danausd_pid" ] || kill -TERM "$danausd_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# The estimator's functions, as perf names them (static ones inlined
# elsewhere count where they were inlined).
idle='^(ipc_cpu_relax|ipc_wait_work|ipc_spin_step)$'
estimator='^(reuse_[a-z_]+|recent_read|sampled_read|next_in_run|stamp|unstamp|touch|distance|live_[a-z]+|compact|oldest|index_[a-z]+|heap_[a-z]+|evict_largest|scaled_bin|bin_of|mix|fill_curve|hrc_read|tracker_of|__popcountdi2)$'

# profile NAME BUILD OP ROUND: a counting danausd of BUILD, profiled while
# danaus-bench runs OP on it; appends "ns_per_op share" to OUTDIR.
profile() {
    local name=$1 build=$2 op=$3 round=$4 dir=$work/$1-$3-$4
    local pool=cost-$$-$round door=$dir/state/pools/cost-$$-$round/door
    mkdir -p "$dir/run" "$dir/backing" "$dir/mnt" "$door"
    cat > "$dir/danausd.conf" <<CONF
service $pool
rundir $dir/run
door_dir $door
fuse off
read_cache_blocks 0
mount $dir/mnt local $dir/backing
CONF
    # perf runs danausd and writes its profile when danausd stops.
    start_danausd "$dir/log" perf record -o "$dir/perf.data" -- \
        "$build/fsservice/danausd" -c "$dir/danausd.conf" ||
        die "danausd of $build did not start"
    local perf_pid=$danausd_pid
    danausd_pid=$(ps -o pid= --ppid "$perf_pid" | tr -d ' ')
    (cd "$dir" && DANAUS_STATE=$dir/state \
        "$build/engine/danaus" stats --hrc "$pool" > /dev/null) ||
        die "danaus stats --hrc of $build failed"
    run_bench() {
        DANAUS_SERVICE=$pool DANAUS_RUNDIR=$door \
            "$build/bench/danaus-bench" --preload "$dir/mnt/$1" --ops "$op" \
            --repeats "$2" --csv "$dir/$1.csv" > /dev/null 2>&1
    }
    run_bench timed 20 || die "danaus-bench $op of $build failed"
    kill -TERM "$danausd_pid"
    wait "$perf_pid" || true
    danausd_pid=
    local ns share
    ns=$(awk -F, -v op="$op" '$2 == op { print $5 }' "$dir/timed.csv")
    share=$(perf report -i "$dir/perf.data" --stdio --no-children --sort sym \
                2> /dev/null | awk -v re="$estimator" -v idle="$idle" '
        /^ +[0-9.]+%/ { if ($3 ~ re) sum += $1; if ($3 ~ idle) waiting += $1 }
        END { printf "%.2f", waiting < 100 ? 100 * sum / (100 - waiting) : 0 }')
    echo "$ns $share" >> "$outdir/hrc-cost-$name-$op.txt"
    rm -rf "$dir"
}

rm -f "$outdir"/hrc-cost-{before,after}-*.txt
for round in $(seq "$rounds"); do
    say "round $round of $rounds"
    for name in before after; do
        build=$before
        [ "$name" = after ] && build=$after
        "$build/bench/hrc-cost" >> "$outdir/hrc-cost-$name-alone.txt"
        for op in seq-read-1m pread-4k; do
            profile "$name" "$build" "$op" "$round"
        done
    done
done

# median FILE COLUMN [PATTERN]: the median of COLUMN over FILE's lines
# (those matching PATTERN).
median() {
    awk -v c="$2" -v p="${3:-}" '$0 ~ p { print $c }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
{
    echo "What counting for hit-ratio curves costs a cached read: medians of $rounds alternating rounds"
    echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); before $(git -C "$before/.." rev-parse --short HEAD 2>/dev/null || echo "$before"), after $(git -C "$after/.." rev-parse --short HEAD 2>/dev/null || echo "$after"); $(nproc) cpus; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "The estimator alone (hrc-cost), cpu ns per page read:"
    printf '%-8s %8s %8s\n' pattern before after
    for p in seq1m copy1m rand4k same4k; do
        printf '%-8s %8s %8s\n' "$p" \
            "$(median "$outdir/hrc-cost-before-alone.txt" 2 "^$p ")" \
            "$(median "$outdir/hrc-cost-after-alone.txt" 2 "^$p ")"
    done
    echo
    echo "danausd counting, local backend, no client read cache: ns/op, and the"
    echo "estimator's share of danausd's busy cpu samples (%):"
    printf '%-12s %10s %8s %10s %8s\n' op before share after share
    for op in seq-read-1m pread-4k; do
        printf '%-12s %10s %8s %10s %8s\n' "$op" \
            "$(median "$outdir/hrc-cost-before-$op.txt" 1)" \
            "$(median "$outdir/hrc-cost-before-$op.txt" 2)" \
            "$(median "$outdir/hrc-cost-after-$op.txt" 1)" \
            "$(median "$outdir/hrc-cost-after-$op.txt" 2)"
    done
} | tee "$outdir/hrc-cost.txt"
