#!/bin/bash
# run-local-calls.sh - what danausd does for a workload on the local
# backend, two builds side by side (a change's before and after): for an
# untar of /usr/include, find, tar cf - | wc -c and rm -rf through the
# preload, each build's danausd (fuse off) is counted with perf: its
# system calls (all, and futex), its context switches, and the calls it
# served (uprobes on core's call_* functions). Counts, not times: they
# hold on a loaded machine. Needs perf and a danausd with symbols.
#
#   bench/run-local-calls.sh OUTDIR BEFORE_BUILD AFTER_BUILD
#
# Writes OUTDIR/local-calls.txt. Starts one danausd at a time, stops it,
# and removes its perf probes, on exit too.
set -euo pipefail

say() { echo "run-local-calls: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 3 ] || die "usage: run-local-calls.sh OUTDIR BEFORE_BUILD AFTER_BUILD"
outdir=$1 before=$(realpath "$2") after=$(realpath "$3")
command -v perf > /dev/null || die "perf is not installed (linux-perf)"
calls="open close stat getdents getfl dup unlink rmdir mkdir read write chmod chown utimens readlink"
mkdir -p "$outdir"
work=$(mktemp -d /tmp/danaus-localcalls-XXXXXX)
source "$(dirname "$0")/lib.sh"
pid=""
cleanup() {
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" || true
    perf probe -q -d 'probe_danausd:*' 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
tar -cf "$work/include.tar" -C /usr include

# count NAME BUILD STEP COMMAND...: perf stat of danausd during COMMAND.
count() {
    local name=$1 build=$2 step=$3
    shift 3
    perf stat -x, -e "raw_syscalls:sys_enter,syscalls:sys_enter_futex,context-switches,probe_danausd:*" \
        -p "$pid" -o "$work/$name-$step.stat" &
    local stat=$!
    sleep 1
    LD_PRELOAD=$build/libfs/libdanaus.so DANAUS_SERVICE=calls-$name-$$ \
        DANAUS_RUNDIR=$work/$name/run "$@" > /dev/null 2>&1
    sleep 0.3
    kill -INT "$stat"
    wait "$stat" || true
}

# measure NAME BUILD: the four steps against a danausd of BUILD.
measure() {
    local name=$1 build=$2 mnt=$work/$1/mnt
    mkdir -p "$work/$name/run" "$work/$name/backing" "$mnt"
    printf 'service calls-%s-%s\nrundir %s\nfuse off\nmount %s local %s\n' \
        "$name" $$ "$work/$name/run" "$mnt" "$work/$name/backing" \
        > "$work/$name/conf"
    start_danausd "$work/$name/log" \
        "$build/fsservice/danausd" -c "$work/$name/conf" ||
        die "danausd of $build did not start"
    pid=$danausd_pid
    perf probe -q -d 'probe_danausd:*' 2>/dev/null || true
    # A call one build does not have counts 0 there.
    for c in $calls; do
        perf probe -q -x "$build/fsservice/danausd" "call_$c" > /dev/null 2>&1 || true
    done
    count "$name" "$build" untar tar -xf "$work/include.tar" -C "$mnt"
    count "$name" "$build" find find "$mnt"
    count "$name" "$build" tar sh -c "tar cf - $mnt | wc -c"
    count "$name" "$build" rm rm -rf "$mnt/include"
    kill -TERM "$pid"
    wait "$pid" || true
    pid=""
}
say "before: $before"
measure before "$before"
say "after: $after"
measure after "$after"

# value NAME STEP EVENT: a count from perf's CSV.
value() {
    awk -F, -v ev="$3" '$3 == ev { n = $1 } END { print n + 0 }' "$work/$1-$2.stat"
}
{
    echo "danausd on the local backend, ~9 K files of /usr/include through the preload: counts during each step"
    echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); before $(git -C "$before/.." rev-parse --short HEAD 2>/dev/null || echo "$before"), after $(git -C "$after/.." rev-parse --short HEAD 2>/dev/null || echo "$after"); $(nproc) cpus; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    for step in untar find tar rm; do
        echo
        printf '%-6s %-20s %10s %10s\n' "$step" what before after
        for ev in raw_syscalls:sys_enter syscalls:sys_enter_futex context-switches; do
            printf '%-6s %-20s %10s %10s\n' "" "${ev#*:}" \
                "$(value before $step $ev)" "$(value after $step $ev)"
        done
        for c in $calls; do
            b=$(value before $step "probe_danausd:call_$c")
            a=$(value after $step "probe_danausd:call_$c")
            [ "$b$a" = 00 ] || printf '%-6s %-20s %10s %10s\n' "" "call $c" "$b" "$a"
        done
    done
} | tee "$outdir/local-calls.txt"
