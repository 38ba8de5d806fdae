#!/bin/bash
# run-core.sh - the core data-path benchmark, side by side in one run:
# Danaus (Ceph and local backends), libcephfs linked in, ceph-fuse, and the
# host file system, all on one Ceph cluster. Builds nothing.
#
#   bench/run-core.sh [OUTDIR [BUILD_DIR]]
#
#   OUTDIR      where core.txt (table and ratios), core.csv and the logs go
#               (default ./bench-results)
#   BUILD_DIR   a build tree with danausd, libdanaus.so and danaus-bench
#               (default $BUILD_DIR, else ./build)
#
# Environment:
#   CEPH_CONF          use this running cluster instead of starting one in a
#                      temp dir with deploy/ceph-cluster.sh
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
# /bench/ceph (the cluster) and /bench/local (a host temp dir).
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

# Waits up to $1 seconds for the command after it to succeed.
wait_until() {
    local limit=$1
    shift
    local end=$((SECONDS + limit))
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.2
    done
}

if [ -n "${CEPH_CONF:-}" ]; then
    conf=$CEPH_CONF
    [ -r "$conf" ] || die "CEPH_CONF=$conf is not readable"
else
    cluster_dir=$work/ceph
    conf=$("$repo/deploy/ceph-cluster.sh" start "$cluster_dir") \
        || { cluster_dir=""; die "cannot start a Ceph cluster (one running already? pass CEPH_CONF)"; }
fi

# One client conf for every Ceph client of the run.
bench_conf=$work/ceph.conf
cp "$conf" "$bench_conf"
if [ "${BENCH_CEPH_DEBUG:-}" != keep ]; then
    {
        echo "[client]"
        for s in client objectcacher objecter ms monc auth journaler \
                 finisher context rados crush asok perfcounter; do
            echo "debug $s = 0/0"
        done
    } >>"$bench_conf"
fi

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
mkdir -p "$work/fuse$top"/{danaus,libcephfs,fuse} "$work/danaus-local" "$work/local" "$work/run"

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
mount /bench/ceph ceph $top/danaus
mount /bench/local local $work/danaus-local
EOF
say "starting danausd"
start_danausd "$work/danausd.conf" || die "danausd did not start; see $outdir/danausd.log"

say "running danaus-bench"
# shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
DANAUS_SERVICE=bench DANAUS_RUNDIR=$work/run "$bench_bin" \
    --local "$work/local/run" \
    --danaus-local /bench/local/run \
    --libcephfs "$top/libcephfs/run" --ceph-conf "$bench_conf" \
    --danaus /bench/ceph/run --preload /bench/ceph/preload \
    --danausd-pid "$danausd_pid" \
    --ceph-fuse "$work/fuse$top/fuse/run" --ceph-fuse-pid "$fuse_pid" \
    --csv "$outdir/core.csv" ${BENCH_ARGS:-} | tee "$outdir/core.txt"
say "results in $outdir/core.txt and $outdir/core.csv"
