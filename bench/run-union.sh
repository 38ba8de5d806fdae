#!/bin/bash
# run-union.sh - the union benchmark, side by side in one run: a Danaus union
# over its Ceph backend, unionfs-fuse -o cow over two directories of a
# ceph-fuse mount, and kernel overlayfs over host directories. Builds nothing.
#
#   bench/run-union.sh [OUTDIR [BUILD_DIR]]
#
#   OUTDIR      where union.txt (table and ratios), union.csv and the logs go
#               (default ./bench-results)
#   BUILD_DIR   a build tree with danausd, libdanaus.so and danaus-bench
#               (default $BUILD_DIR, else ./build)
#
# Environment:
#   COPYUP_LOCAL       the local copy-up rows (below): 1 (default) runs them
#                      first, 0 skips them, "only" runs nothing else (no Ceph)
#   CEPH_CONF          use this running cluster instead of starting one in a
#                      temp dir with deploy/ceph-cluster.sh
#   COPYUP_FILES       64 MiB lower files per union, one copy-up each (3)
#   BENCH_ARGS         extra danaus-bench flags, e.g. "--meta-iters 200"
#   BENCH_CEPH_DEBUG   "keep": leave the Ceph clients' log levels as the
#                      cluster conf has them (default: client-side 0/0, as
#                      run-core.sh does, for the same reason)
#
# Each union's lower branch gets, before it is mounted, the files the read
# operations use (run/stat/file, run/open-close/file, run/pread-4k/file, 4 KiB
# each) and the copy-up files (run/copyup/c1..cN, 64 MiB each); the writable
# branch starts empty. After the run the copied-up files are checked in each
# writable branch.
#
# The local copy-up rows (union-copyup.txt): the first 4 KiB write (open,
# pwrite, close; bench/first_write.c, one process per system, each file
# looked up before the clock starts) into lower files of 64 MiB, 1 GiB and
# 4 GiB, and into each of ten 128 MiB files (total), through a Danaus union
# over the local backend (partial copy-up), kernel overlayfs and
# unionfs-fuse -o cow, all three over one lower directory of dense files on
# the host's disk (6.4 GiB, written once; overlayfs and unionfs-fuse then
# copy them whole into their upper directories: 2 x 6.4 GiB more).
#
# What it starts (and stops on exit, also on error): the cluster (unless
# CEPH_CONF), a ceph-fuse mount in a temp dir, a danausd serving the union
# /bench/union (FUSE door off: the row is the preload path), unionfs-fuse,
# and the overlay mount.
set -euo pipefail

say() { echo "run-union: $*" >&2; }
die() { say "error: $*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
outdir=${1:-./bench-results}
build=${2:-${BUILD_DIR:-./build}}
copyup_files=${COPYUP_FILES:-3}

bench_bin=$build/bench/danaus-bench
danausd_bin=$build/fsservice/danausd
first_write_bin=$build/bench/first-write
libdanaus=$build/libfs/libdanaus.so
copyup_local=${COPYUP_LOCAL:-1}
for f in "$bench_bin" "$danausd_bin" "$first_write_bin"; do
    [ -x "$f" ] || die "$f not found: build the targets danaus-bench and danausd in $build"
done
for c in ceph-fuse unionfs-fuse; do
    command -v "$c" >/dev/null || die "$c not found"
done
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)

work=$(mktemp -d /tmp/danaus-union-bench.XXXXXX)
cluster_dir=""
fuse_pid=""
unionfs_pid=""
danausd_pid=""
overlay_mounted=""
top=""
lc=$work/local
lc_danausd_pid=""
lc_unionfs_pid=""
lc_overlay_mounted=""

cleanup() {
    local rc=$?
    set +e
    if [ -n "$lc_danausd_pid" ]; then
        kill -TERM "$lc_danausd_pid" 2>/dev/null
        wait "$lc_danausd_pid" 2>/dev/null
    fi
    if [ -n "$lc_unionfs_pid" ]; then
        fusermount -u "$lc/unionfs/mnt" 2>/dev/null ||
            umount -l "$lc/unionfs/mnt" 2>/dev/null
        wait "$lc_unionfs_pid" 2>/dev/null
    fi
    [ -n "$lc_overlay_mounted" ] && umount "$lc/overlay/mnt"
    if [ -n "$danausd_pid" ]; then
        kill -TERM "$danausd_pid" 2>/dev/null
        wait "$danausd_pid" 2>/dev/null
    fi
    if [ -n "$unionfs_pid" ]; then
        fusermount -u "$work/unionfs" 2>/dev/null || umount -l "$work/unionfs" 2>/dev/null
        wait "$unionfs_pid" 2>/dev/null
    fi
    [ -n "$overlay_mounted" ] && umount "$work/overlay/mnt"
    if [ -n "$fuse_pid" ]; then
        [ -n "$top" ] && rm -rf "${work:?}/fuse/${top#/}"
        unmount_ceph_fuse
    fi
    for log in danausd.log ceph-fuse.log unionfs-fuse.log; do
        [ -f "$work/$log" ] && cp "$work/$log" "$outdir/"
    done
    [ -n "$cluster_dir" ] && "$repo/deploy/ceph-cluster.sh" stop "$cluster_dir"
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source "$repo/bench/lib.sh"

# First writes into the lower files of the local copy-up rows, through the
# union mounted at $1, by the command in the other arguments (an env
# prefix): one line of milliseconds, 64m 1g 4g 10x128m.
first_writes() {
    local dir=$1
    shift
    "$@" "$first_write_bin" "$dir"/{c64m,c1g,c4g} "$dir"/t{1..10} |
        awk '/\/c[0-9]/ {printf "%s ", $2} /\/t[0-9]/ {t += $2}
             END {print t}'
}

lc_danausd_up() {
    kill -0 "$lc_danausd_pid" 2>/dev/null || die "danausd exited; see $lc/danausd.log"
    grep -q "ready" "$lc/danausd.log"
}
lc_unionfs_up() { mountpoint -q "$lc/unionfs/mnt"; }

local_copyup_rows() {
    mkdir -p "$lc/lower" "$lc/run" "$lc"/{danaus,unionfs}/upper \
        "$lc"/overlay/{upper,work,mnt} "$lc/unionfs/mnt"
    say "local copy-up: writing the lower files (6.4 GiB)"
    dd if=/dev/zero of="$lc/lower/c64m" bs=1M count=64 status=none
    dd if=/dev/zero of="$lc/lower/c1g" bs=1M count=1024 status=none
    dd if=/dev/zero of="$lc/lower/c4g" bs=1M count=4096 status=none
    for i in $(seq 10); do
        dd if=/dev/zero of="$lc/lower/t$i" bs=1M count=128 status=none
    done
    sync -f "$lc/lower"

    printf '%s\n' "service union-copyup-bench" "rundir $lc/run" "fuse off" \
        "union /bench/copyup local $lc/danaus/upper $lc/lower" \
        >"$lc/danausd.conf"
    "$danausd_bin" -c "$lc/danausd.conf" 2>"$lc/danausd.log" &
    lc_danausd_pid=$!
    wait_until 60 lc_danausd_up || die "danausd did not start in 60 s"
    mount -t overlay overlay -o "lowerdir=$lc/lower,upperdir=$lc/overlay/upper,workdir=$lc/overlay/work" \
        "$lc/overlay/mnt" || die "cannot mount overlayfs"
    lc_overlay_mounted=1
    unionfs-fuse -f -o cow "$lc/unionfs/upper=RW:$lc/lower=RO" \
        "$lc/unionfs/mnt" >"$lc/unionfs-fuse.log" 2>&1 &
    lc_unionfs_pid=$!
    wait_until 30 lc_unionfs_up || die "unionfs-fuse did not mount in 30 s"

    say "local copy-up: first writes"
    local d o u
    d=$(first_writes /bench/copyup env LD_PRELOAD="$libdanaus" \
        DANAUS_SERVICE=union-copyup-bench DANAUS_RUNDIR="$lc/run")
    o=$(first_writes "$lc/overlay/mnt" env)
    u=$(first_writes "$lc/unionfs/mnt" env)
    {
        echo "First 4 KiB write into a lower file (open, pwrite, close), ms;"
        echo "local disk, all three over one lower directory:"
        echo
        printf '%-32s %9s %9s %9s %13s\n' system "64 MiB" "1 GiB" "4 GiB" \
            "10 x 128 MiB"
        # shellcheck disable=SC2086 # each is a list of four figures
        printf '%-32s %9s %9s %9s %13s\n' \
            "Danaus union (partial copy-up)" $d "overlayfs" $o \
            "unionfs-fuse -o cow" $u
        echo
        echo "Space the upper directories take after the run (du):"
        du -sh "$lc/danaus/upper" "$lc/overlay/upper" "$lc/unionfs/upper" |
            sed "s|$lc/||"
    } | tee "$outdir/union-copyup.txt"
    # The same as CSV, and plotted against the lower file's size.
    # shellcheck disable=SC2086 # each is a list of four figures
    {
        echo "MiB,Danaus union (partial copy-up),overlayfs,unionfs-fuse -o cow"
        paste -d, <(printf '%s\n' 64 1024 4096) \
            <(printf '%s\n' $d | head -n 3) <(printf '%s\n' $o | head -n 3) \
            <(printf '%s\n' $u | head -n 3)
    } >"$outdir/union-copyup-local.csv"
    "$repo/bench/plot.sh" lines "$outdir/union-copyup-local.csv" \
        "$outdir/union-copyup-local.png" "Copy-up on a local disk: first 4 KiB write into a lower file" \
        "lower file size (MiB)" "ms" log

    fusermount -u "$lc/unionfs/mnt"
    wait "$lc_unionfs_pid" 2>/dev/null
    lc_unionfs_pid=""
    umount "$lc/overlay/mnt"
    lc_overlay_mounted=""
    kill -TERM "$lc_danausd_pid"
    wait "$lc_danausd_pid" 2>/dev/null
    lc_danausd_pid=""
    rm -rf "$lc"
}

if [ "$copyup_local" != 0 ]; then
    local_copyup_rows
    [ "$copyup_local" = only ] && exit 0
fi

use_ceph_cluster

quiet_client_conf

fuse_up() {
    kill -0 "$fuse_pid" 2>/dev/null || die "ceph-fuse exited; see $outdir/ceph-fuse.log"
    mountpoint -q "$work/fuse"
}
mount_ceph_fuse() {
    mkdir -p "$work/fuse"
    ceph-fuse -f -c "$bench_conf" "$work/fuse" >>"$work/ceph-fuse.log" 2>&1 &
    fuse_pid=$!
    wait_until 60 fuse_up || die "ceph-fuse did not mount in 60 s"
}
unmount_ceph_fuse() {
    fusermount3 -u "$work/fuse" 2>/dev/null || umount -l "$work/fuse" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 "$fuse_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$fuse_pid" 2>/dev/null || true
    wait "$fuse_pid" 2>/dev/null || true
    fuse_pid=""
}

say "mounting ceph-fuse"
mount_ceph_fuse

# The lower branch's files, made once on the host and copied into each one.
say "preparing the lower branches ($copyup_files x 64 MiB each)"
proto=$work/proto/run
mkdir -p "$proto"/{stat,open-close,pread-4k,copyup}
for d in stat open-close pread-4k; do
    head -c 4096 /dev/urandom >"$proto/$d/file"
done
for i in $(seq "$copyup_files"); do
    dd if=/dev/urandom of="$proto/copyup/c$i" bs=1M count=64 status=none
done

top=/danaus-union-bench-$$
ceph_top=$work/fuse$top
mkdir -p "$ceph_top"/{danaus,unionfs}/{lower,upper} \
    "$work"/overlay/{lower,upper,work,mnt} "$work/unionfs" "$work/run"
for lower in "$ceph_top/danaus/lower" "$ceph_top/unionfs/lower" "$work/overlay/lower"; do
    cp -r "$proto" "$lower/"
    sync -f "$lower"
done
rm -rf "$work/proto"

# The client that makes a CephFS directory keeps its caps on it, and while
# it does, another client's lookups of missing names there each go to the
# MDS (measured here: 255 us per stat of a missing name in a directory
# ceph-fuse had just made, 4.5 us once it had let go). A union's lookups of
# lower files are such lookups in the writable branch, so ceph-fuse is
# remounted, holding no caps, before danausd and unionfs-fuse start.
say "remounting ceph-fuse"
unmount_ceph_fuse
mount_ceph_fuse

say "mounting unionfs-fuse over ceph-fuse"
unionfs-fuse -f -o cow "$ceph_top/unionfs/upper=RW:$ceph_top/unionfs/lower=RO" \
    "$work/unionfs" >"$work/unionfs-fuse.log" 2>&1 &
unionfs_pid=$!
unionfs_up() {
    kill -0 "$unionfs_pid" 2>/dev/null || die "unionfs-fuse exited; see $outdir/unionfs-fuse.log"
    mountpoint -q "$work/unionfs"
}
wait_until 30 unionfs_up || die "unionfs-fuse did not mount in 30 s"

say "mounting overlayfs"
mount -t overlay overlay -o "lowerdir=$work/overlay/lower,upperdir=$work/overlay/upper,workdir=$work/overlay/work" \
    "$work/overlay/mnt" || die "cannot mount overlayfs"
overlay_mounted=1

cat >"$work/danausd.conf" <<EOF
service union-bench
rundir $work/run
ceph_conf $bench_conf
fuse off
union /bench/union ceph $top/danaus/upper $top/danaus/lower
EOF
say "starting danausd"
"$danausd_bin" -c "$work/danausd.conf" 2>"$work/danausd.log" &
danausd_pid=$!
danausd_up() {
    kill -0 "$danausd_pid" 2>/dev/null || die "danausd exited; see $outdir/danausd.log"
    grep -q "ready" "$work/danausd.log"
}
wait_until 60 danausd_up || die "danausd did not start in 60 s"

say "running danaus-bench"
# shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
DANAUS_SERVICE=union-bench DANAUS_RUNDIR=$work/run "$bench_bin" \
    --ops stat,open+close,pread-4k,pwrite-4k,create,unlink,copyup-64m \
    --iters 2000 --meta-iters 100 --copyup-files "$copyup_files" \
    --union /bench/union/run --union-pid "$danausd_pid" \
    --unionfs "$work/unionfs/run" --unionfs-pid "$unionfs_pid" \
    --unionfs-ceph-fuse-pid "$fuse_pid" \
    --overlay "$work/overlay/mnt/run" \
    --csv "$outdir/union.csv" ${BENCH_ARGS:-} | tee "$outdir/union.txt"

# Each copy-up must have left the whole 64 MiB file in the writable branch.
kill -TERM "$danausd_pid" 2>/dev/null
wait "$danausd_pid" 2>/dev/null || true
danausd_pid=""
{
    echo
    echo "Copied-up files in the writable branches (expect $copyup_files of 67108864 bytes each):"
    for upper in "$ceph_top/danaus/upper" "$ceph_top/unionfs/upper" "$work/overlay/upper"; do
        sizes=$(stat -c %s "$upper"/run/copyup/c* 2>/dev/null | sort | uniq -c | xargs)
        echo "  ${upper#"$work"/}: ${sizes:-none}"
    done
} | tee -a "$outdir/union.txt"
say "results in $outdir/union.txt and $outdir/union.csv"

# Plots: latency per operation by stack, and copy-up time against the
# lower file's size (the copyup-SIZE rows, SIZE in MiB).
tail -n +2 "$outdir/union.csv" |
    pivot_csv '$2' '$1' '$5 / 1000' '$2 !~ /^copyup/ && $5 != ""' >"$outdir/union-latency.csv"
"$repo/bench/plot.sh" bars "$outdir/union-latency.csv" "$outdir/union-latency.png" \
    "Unions: time per operation by stack" "us per op (log)" log
tail -n +2 "$outdir/union.csv" |
    pivot_csv '$2 + 0' '$1' '$5 / 1e6' '$2 ~ /^copyup-[0-9]+m$/ && $5 != "" && sub(/^copyup-/, "", $2)' |
    sed 's/^"\([0-9.]*\)"/\1/' >"$outdir/union-copyup.csv"
"$repo/bench/plot.sh" lines "$outdir/union-copyup.csv" "$outdir/union-copyup.png" \
    "Copy-up: first write into a lower file" "lower file size (MiB)" "ms"
say "plots in $outdir/union-latency.png, union-copyup.png (on Ceph) and union-copyup-local.png"
