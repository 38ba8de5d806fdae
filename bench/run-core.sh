#!/bin/bash
# run-core.sh - the core data-path benchmark, side by side in one run:
# Danaus (Ceph and local backends), libcephfs linked in (and the same with
# each call handed to a thread on another cpu: the floor of a service),
# ceph-fuse, danausd's FUSE door, and the host file system, all on one Ceph
# cluster. Builds nothing.
#
#   bench/run-core.sh [OUTDIR [BUILD_DIR]]
#
#   OUTDIR      where core.txt (every round's tables and ratios),
#               core-rounds.md (medians over the rounds), core.csv and
#               fuse-door.csv (the same medians), core-round<N>.csv and
#               fuse-door-round<N>.csv (each round), core-threads.csv and
#               the logs go (default ./bench-results)
#   BUILD_DIR   a build tree with danausd, libdanaus.so and danaus-bench
#               (default $BUILD_DIR, else ./build)
#
# Environment:
#   CEPH_CONF          use this running cluster instead of starting one in a
#                      temp dir with deploy/ceph-cluster.sh
#   ROUNDS             rounds of the single-thread runs (default 3): this
#                      machine is shared and noisy, so the tables give each
#                      figure's median over the rounds, with its range
#   BENCH_ARGS         extra danaus-bench flags, e.g. "--iters 20000"
#   BENCH_CEPH_DEBUG   "keep": leave the Ceph client's log levels as the
#                      cluster conf has them. By default every Ceph client of
#                      the run (libcephfs, danausd, ceph-fuse) gets the same
#                      conf with client-side debug levels 0/0: Ceph's default
#                      in-memory logging wakes its log thread on nearly
#                      every call, which is Ceph's overhead, not the path.
#
# What it starts (and stops on exit, also on error): the cluster (unless
# CEPH_CONF), a ceph-fuse mount in a temp dir, and one danausd serving
# TEMP/mnt/ceph (the cluster) and TEMP/mnt/local (a host temp dir), both
# also mounted there by its FUSE door.
#
# Each of ROUNDS rounds has two runs of danaus-bench. The first, with
# DANAUS_SERVICE set, has every row but the FUSE door's (its libc calls on
# Danaus paths take libdanaus's shared-memory path). The second, without
# DANAUS_SERVICE so that every libc call goes to the kernel, has the two
# user-level FUSE clients back to back: ceph-fuse again and the FUSE door;
# its table and ratios follow the first run's in core.txt. It checks that
# the FUSE door's loop threads (those blocked on /dev/fuse) did switch, i.e.
# the row went through FUSE. After the rounds, one more run has stat and the
# cached reads in two client threads at once.
set -euo pipefail

say() { echo "run-core: $*" >&2; }
die() { say "error: $*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
outdir=${1:-./bench-results}
build=${2:-${BUILD_DIR:-./build}}

bench_bin=$build/bench/danaus-bench
danausd_bin=$build/fsservice/danausd
for f in "$bench_bin" "$danausd_bin"; do
    [ -x "$f" ] || die "$f not found: build the targets danaus-bench and danausd in $build"
done
command -v ceph-fuse >/dev/null || die "ceph-fuse not found"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)

work=$(mktemp -d /tmp/danaus-bench.XXXXXX)
cluster_dir=""
fuse_pid=""
danausd_pid=""
top=""

cleanup() {
    local rc=$?
    set +e
    if [ -n "$danausd_pid" ]; then
        kill -TERM "$danausd_pid" 2>/dev/null
        wait "$danausd_pid" 2>/dev/null
    fi
    # danausd unmounts its FUSE door on SIGTERM; a mount it left must not
    # be walked by the rm -rf below.
    for mp in "$work/mnt/ceph" "$work/mnt/local"; do
        mountpoint -q "$mp" 2>/dev/null && umount -l "$mp"
    done
    if [ -n "$fuse_pid" ]; then
        [ -n "$top" ] && rm -rf "${work:?}/fuse/${top#/}"
        fusermount3 -u "$work/fuse" 2>/dev/null || umount -l "$work/fuse" 2>/dev/null
        for _ in $(seq 50); do
            kill -0 "$fuse_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$fuse_pid" 2>/dev/null
        wait "$fuse_pid" 2>/dev/null
    fi
    for log in danausd.log ceph-fuse.log; do
        [ -f "$work/$log" ] && cp "$work/$log" "$outdir/"
    done
    [ -n "$cluster_dir" ] && "$repo/deploy/ceph-cluster.sh" stop "$cluster_dir"
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source "$repo/bench/lib.sh"

# Writes core-rounds.md to stdout: the issue's table (one row per op, one
# column per stack; "libcephfs on another cpu" is danaus-bench's handoff
# row, the floor of any design that serves calls from another cpu), each cell the median over the rounds (from median_csv's
# CSVs of the first run, CORE, and of the FUSE clients' run, DOOR) with the
# lowest and highest round beside it (from the rounds' CSVs); then the
# ratios of the medians to libcephfs linked in, and the context switches
# per op.
rounds_table() { # ROUNDS CORE DOOR ROUND_CSV...
    local rounds=$1 core=$2 door=$3
    shift 3
    awk -F, -v rounds="$rounds" -v core="$core" -v door="$door" '
        function num(x) {
            return x < 10 ? sprintf("%.2f", x) : x < 100 ? sprintf("%.1f", x) : sprintf("%.0f", x)
        }
        function cell(op, sys,    k) {
            k = op SUBSEP sys
            if (!(k in med)) return "-"
            return n[k] == 1 ? num(med[k]) : num(med[k]) " (" num(lo[k]) "-" num(hi[k]) ")"
        }
        function ratio(op, sys,    a, b) {
            a = med[op SUBSEP sys]; b = med[op SUBSEP "libcephfs"]
            if (a == "" || b == "" || b == 0) return "-"
            return sprintf("%.2f", a / b)
        }
        FNR == 1 {
            medians = FILENAME == core || FILENAME == door
            door_run = FILENAME == door || FILENAME ~ /fuse-door-round/
            next
        }
        $10 != "" { next }
        {
            # ceph-fuse is in both runs of a round: take the first run'"'"'s,
            # beside the Danaus rows.
            if (door_run && $1 != "fuse-door") next
            x = $2 ~ /^seq/ ? $6 : ($5 == "" ? "" : $5 / 1000)
            if (x == "") next
            k = $2 SUBSEP $1
            if (medians) { med[k] = x + 0; csw[k] = $7 + 0; next }
            x += 0
            if (!(k in n) || x < lo[k]) lo[k] = x
            if (!(k in n) || x > hi[k]) hi[k] = x
            n[k]++
        }
        END {
            nops = split("stat open+close pread-4k pread-4k-rw pread-4k-rand pread-4k-seq pwrite-4k pwrite-4k-rand pwrite-4k-seq create unlink seq-read-1m seq-write-1m", ops, " ")
            split("stat|open+close|pread 4 KiB, offset 0|pread 4 KiB, offset 0, a read-write descriptor|pread 4 KiB, random offsets in 16 MiB|pread 4 KiB, consecutive offsets|pwrite 4 KiB, offset 0|pwrite 4 KiB, random offsets in 16 MiB|pwrite 4 KiB, consecutive offsets|create|unlink|1 MiB sequential read (MB/s)|1 MiB sequential write (MB/s)", label, "|")
            nsys = split("preload danaus libcephfs handoff ceph-fuse fuse-door danaus-local local", sys, " ")
            if (rounds == 1)
                print "One round, us per op unless MB/s:"
            else
                print "Medians of " rounds " rounds (lowest-highest), us per op unless MB/s:"
            print ""
            print "| op | preload (Ceph) | danaus API (Ceph) | libcephfs in-process | libcephfs on another cpu | ceph-fuse | FUSE door | API, local backend | host ext4 |"
            print "|---|---|---|---|---|---|---|---|---|"
            for (i = 1; i <= nops; i++) {
                line = "| " label[i]
                for (j = 1; j <= nsys; j++) line = line " | " cell(ops[i], sys[j])
                print line " |"
            }
            print ""
            print "Ratios of the medians to libcephfs in-process (time per op; for the MB/s rows, throughput), and context switches per op (medians):"
            print ""
            print "| op | preload / libcephfs | API / libcephfs | on another cpu / libcephfs | switches per op, preload | API | libcephfs |"
            print "|---|---|---|---|---|---|---|"
            for (i = 1; i <= nops; i++) {
                op = ops[i]
                printf "| %s | %s | %s | %s | %s | %s | %s |\n", label[i], ratio(op, "preload"), ratio(op, "danaus"), ratio(op, "handoff"),
                    sprintf("%.3f", csw[op SUBSEP "preload"]),
                    sprintf("%.3f", csw[op SUBSEP "danaus"]),
                    sprintf("%.3f", csw[op SUBSEP "libcephfs"])
            }
        }' "$core" "$door" "$@"
}

use_ceph_cluster

quiet_client_conf

say "mounting ceph-fuse"
mkdir -p "$work/fuse"
ceph-fuse -f -c "$bench_conf" "$work/fuse" >"$work/ceph-fuse.log" 2>&1 &
fuse_pid=$!
fuse_up() {
    kill -0 "$fuse_pid" 2>/dev/null || die "ceph-fuse exited; see $outdir/ceph-fuse.log"
    mountpoint -q "$work/fuse"
}
wait_until 60 fuse_up || die "ceph-fuse did not mount in 60 s"

# Each system works in a directory of its own at the top of the file system.
top=/danaus-bench-$$
mkdir -p "$work/fuse$top"/{danaus,libcephfs,handoff,fuse} "$work/danaus-local" "$work/local" "$work/run" "$work/mnt"

start_danausd() {
    "$danausd_bin" -c "$1" 2>"$work/danausd.log" &
    danausd_pid=$!
    local end=$((SECONDS + 60))
    while ! grep -q "ready" "$work/danausd.log"; do
        if ! kill -0 "$danausd_pid" 2>/dev/null || [ "$SECONDS" -ge "$end" ]; then
            kill -TERM "$danausd_pid" 2>/dev/null
            wait "$danausd_pid" 2>/dev/null
            danausd_pid=""
            return 1
        fi
        sleep 0.2
    done
}

cat >"$work/danausd.conf" <<EOF
service bench
rundir $work/run
ceph_conf $bench_conf
fuse on
mount $work/mnt/ceph ceph $top/danaus
mount $work/mnt/local local $work/danaus-local
EOF
say "starting danausd"
start_danausd "$work/danausd.conf" || die "danausd did not start; see $outdir/danausd.log"
mountpoint -q "$work/mnt/ceph" || die "danausd's FUSE door did not mount $work/mnt/ceph; see $outdir/danausd.log"

# Context switches of danausd's threads now blocked reading /dev/fuse: the
# FUSE door's loop threads (libfuse's workers wait in read on it).
fuse_loop_csw() {
    local fds=() f t
    for f in /proc/"$danausd_pid"/fd/*; do
        [ "$(readlink "$f")" = /dev/fuse ] && fds+=("$(printf '0x%x' "${f##*/}")")
    done
    local total=0 nr arg rest
    for t in /proc/"$danausd_pid"/task/*; do
        read -r nr arg rest <"$t/syscall" || continue
        [ "$nr" = 0 ] || continue
        for f in "${fds[@]}"; do
            [ "$arg" = "$f" ] || continue
            total=$((total + $(awk '/ctxt_switches/ {s += $2} END {print s}' "$t/status")))
        done
    done
    echo "$total"
}

rounds=${ROUNDS:-3}
case $rounds in '' | *[!0-9]* | 0) die "ROUNDS must be a positive number" ;; esac
: >"$outdir/core.txt"
for round in $(seq "$rounds"); do
    say "round $round of $rounds: running danaus-bench"
    echo "== Round $round of $rounds ==" >>"$outdir/core.txt"
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
    DANAUS_SERVICE=bench DANAUS_RUNDIR=$work/run "$bench_bin" \
        --local "$work/local/run$round" \
        --danaus-local "$work/mnt/local/run$round" \
        --libcephfs "$top/libcephfs/run$round" --ceph-conf "$bench_conf" \
        --handoff "$top/handoff/run$round" \
        --danaus "$work/mnt/ceph/run$round" \
        --preload "$work/mnt/ceph/preload$round" \
        --danausd-pid "$danausd_pid" \
        --ceph-fuse "$work/fuse$top/fuse/run$round" --ceph-fuse-pid "$fuse_pid" \
        --csv "$outdir/core-round$round.csv" ${BENCH_ARGS:-} | tee -a "$outdir/core.txt"

    say "round $round of $rounds: danaus-bench on the two FUSE clients, without DANAUS_SERVICE"
    csw_before=$(fuse_loop_csw)
    {
        echo
        echo "== The FUSE door and ceph-fuse, in a process without DANAUS_SERVICE =="
    } >>"$outdir/core.txt"
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
    env -u DANAUS_SERVICE -u DANAUS_RUNDIR "$bench_bin" \
        --ceph-fuse "$work/fuse$top/fuse/door-run$round" --ceph-fuse-pid "$fuse_pid" \
        --fuse-door "$work/mnt/ceph/fuse-door$round" --danausd-pid "$danausd_pid" \
        --csv "$outdir/fuse-door-round$round.csv" ${BENCH_ARGS:-} | tee -a "$outdir/core.txt"
    csw_after=$(fuse_loop_csw)
    [ "$csw_after" -gt "$csw_before" ] \
        || die "the FUSE door's loop threads did not switch: the fuse-door row did not go through FUSE"
    echo "FUSE door loop threads (blocked on /dev/fuse): $((csw_after - csw_before)) context switches during this round." \
        | tee -a "$outdir/core.txt"
    echo >>"$outdir/core.txt"
done
median_csv "$outdir"/core-round*.csv >"$outdir/core.csv"
median_csv "$outdir"/fuse-door-round*.csv >"$outdir/fuse-door.csv"
rounds_table "$rounds" "$outdir/core.csv" "$outdir/fuse-door.csv" \
    "$outdir"/core-round*.csv "$outdir"/fuse-door-round*.csv \
    >"$outdir/core-rounds.md"
{
    echo "== Medians over the $rounds rounds (core-rounds.md) =="
    cat "$outdir/core-rounds.md"
    echo
} | tee -a "$outdir/core.txt"

say "running danaus-bench with two client threads"
# Whether two client threads get twice the ops: the ops a thread repeats
# most, each thread on files of its own, all at once; batches long enough
# that starting the threads does not count.
{
    echo
    echo "== Two client threads at once (ns/op: a batch's time over both threads' ops) =="
} >>"$outdir/core.txt"
# shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
DANAUS_SERVICE=bench DANAUS_RUNDIR=$work/run "$bench_bin" --threads 2 --iters 200000 \
    --ops stat,pread-4k,pread-4k-rand \
    --local "$work/local/threads" \
    --libcephfs "$top/libcephfs/threads" --ceph-conf "$bench_conf" \
    --danaus "$work/mnt/ceph/threads" --preload "$work/mnt/ceph/preload-threads" \
    --danausd-pid "$danausd_pid" \
    --csv "$outdir/core-threads.csv" ${BENCH_ARGS:-} | tee -a "$outdir/core.txt"
say "results in $outdir/core.txt, $outdir/core-rounds.md, $outdir/core.csv, $outdir/core-threads.csv and $outdir/fuse-door.csv"

# Plots: latency per operation and sequential bandwidth, by stack.
plot_core() { # CSV NAME TITLE
    tail -n +2 "$outdir/$1.csv" | pivot_csv '$2' '$1' '$5 / 1000' '$2 !~ /^seq/ && $5 != ""' >"$outdir/$2-latency.csv"
    "$repo/bench/plot.sh" bars "$outdir/$2-latency.csv" "$outdir/$2-latency.png" \
        "$3: time per operation by stack" "us per op (log)" log
    tail -n +2 "$outdir/$1.csv" | pivot_csv '$2' '$1' '$6' '$2 ~ /^seq/ && $6 != ""' >"$outdir/$2-seq.csv"
    "$repo/bench/plot.sh" bars "$outdir/$2-seq.csv" "$outdir/$2-seq.png" \
        "$3: sequential 1 MiB I/O by stack" "MB/s"
}
plot_core core core "Core data path"
plot_core fuse-door fuse-door "FUSE door and ceph-fuse (kernel path)"
say "plots in $outdir/core-*.png and fuse-door-*.png"
