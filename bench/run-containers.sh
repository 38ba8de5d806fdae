#!/bin/bash
# run-containers.sh - the container start benchmark (issue 6), side by side
# in one run: N containers (1, 4, 16, 64) started at once from one image in
# one pool, each running a short command that reads files of the image, on
# Danaus (a pool on the Ceph backend, and on the local backend as a
# reference row), against the same containers on unionfs-fuse -o cow over
# ceph-fuse and on kernel overlayfs. Builds nothing.
#
#   bench/run-containers.sh [OUTDIR [BUILD_DIR]]
#   bench/run-containers.sh --podman [OUTDIR [BUILD_DIR]]
#
#   OUTDIR      where containers.txt (table and ratios), containers.csv and
#               the logs go (default ./bench-results)
#   BUILD_DIR   a build tree with the danaus command, danausd and
#               libdanaus.so (default $BUILD_DIR, else ./build)
#
# Environment:
#   CEPH_CONF          use this running cluster instead of starting one in a
#                      temp dir with deploy/ceph-cluster.sh
#   COUNTS             the batch sizes (default "1 4 16 64")
#   DATA_FILES         data files in the image's /data (default 8)
#   DATA_KIB           size of each, KiB (default 256)
#   REPEATS            batches per system and N, each on fresh clients; the
#                      table gives the median time and the highest peak
#                      (default 3)
#   POOL_CPUS          the Danaus pools' cpus (default: all of them, as the
#                      peers' containers may use)
#   POOL_MEMORY        the Danaus pools' memory (default 4G)
#   BENCH_CEPH_DEBUG   "keep": leave the Ceph clients' log levels as the
#                      cluster conf has them (default: client-side 0/0, as
#                      run-core.sh does, for the same reason)
#
# The image: Debian's busybox-static (sh, cat, ls), an empty /dev/null to
# bind the host's over, and DATA_FILES random files in /data. Each container
# runs CONTAINER_CMD below. A batch's time runs from the first start to the
# last exit, and covers for each container: making its root (writable
# branch and union mount), new mount, PID and UTS namespaces, the command,
# and unmounting the root. Removing containers is not timed.
#
# Every batch gets fresh file-system clients, so their caches start cold
# and their peak memory is the batch's own: a new Danaus pool (its own
# danausd) per batch, a new ceph-fuse mount per unionfs-fuse batch. Before
# the timed batch each system runs one warm-up container (`true`) on the
# same clients: for Danaus it unpacks the image into the pool's backend, for
# all it brings busybox into the caches alike.
#
# Peak memory of the file-system clients (VmHWM of /proc/PID/status):
# Danaus: the pool's danausd; unionfs-fuse: its ceph-fuse plus every
# container's unionfs-fuse (each read just before it is unmounted);
# overlayfs: n/a (in the kernel).
#
# The peers' container runner (peer_container) is deliberately minimal:
# the union mount, `unshare --mount --pid --fork --uts`, the host's
# /dev/null bound into the root, chroot, the command; no cgroup.
#
# --podman compares one container's start under podman instead, on the
# local backend, no Ceph: `run --rm` of the image's CONTAINER_CMD through
# the Danaus engine (a local pool), through podman with danaus-runtime
# delegating to crun and to runc (the same pool, by annotation) and
# through podman with crun and with runc over its own overlayfs storage.
# On a cgroup hybrid host it first runs deploy/cgroup-hybrid.sh, without
# which crun refuses to run (the mount it makes stays: host setup).
# With CEPH_CONF (a running cluster; none is started), the engine and
# podman with danaus-runtime in a pool on Ceph as well (a new directory
# /bench-podman-PID of it, left there; the local pool then gets cpu 0 and
# the Ceph pool cpu 1 unless POOL_CPUS and CEPH_POOL_CPUS say otherwise).
# RUNS (default 7) runs of each, all interleaved, after a warm-up
# run of each; podman.txt gives the medians and their ratios to podman
# with crun and with runc, podman.csv every run, with the date, commit
# and load. It starts its pools and podman storage under a temp dir and
# removes both on exit.
#
# What it starts (and stops on exit, also on error): the cluster (unless
# CEPH_CONF), a ceph-fuse mount for setting up, the Danaus pools (danausd,
# cgroups, IPC namespaces) and their containers, the peers' ceph-fuse,
# unionfs-fuse and overlay mounts.
set -euo pipefail

say() { echo "run-containers: $*" >&2; }
die() { say "error: $*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
mode=ceph
if [ "${1:-}" = --podman ]; then
    mode=podman
    shift
fi
outdir=${1:-./bench-results}
build=${2:-${BUILD_DIR:-./build}}
counts=${COUNTS:-1 4 16 64}
data_files=${DATA_FILES:-8}
data_kib=${DATA_KIB:-256}
repeats=${REPEATS:-3}
pool_cpus=${POOL_CPUS:-0-$(($(nproc) - 1))}
pool_memory=${POOL_MEMORY:-4G}

CONTAINER_CMD='cat /data/* > /dev/null; ls -R /bin > /dev/null'

danaus=$build/engine/danaus
[ -x "$danaus" ] || die "$danaus not found: build the target danaus_engine in $build"
[ "$mode" = podman ] || for c in ceph-fuse unionfs-fuse unshare chroot fusermount; do
    command -v "$c" >/dev/null || die "$c not found"
done
busybox=/bin/busybox
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
    die "$busybox is not a static busybox: install busybox-static"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)

work=$(mktemp -d /tmp/danaus-containers-bench.XXXXXX)
state=$work/state
source "$repo/bench/lib.sh"

# ---- --podman: one start under podman ----

podman_cleanup() {
    local rc=$?
    set +e
    remove_podman_state
    remove_engine_state pools
    # danaus-runtime's notes of which state directory a container is in
    grep -lxF "$state" /run/danaus-runtime/* 2>/dev/null | xargs -r rm -f
    local m
    for m in $(awk -v w="$work/" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r); do
        umount "$m" 2>/dev/null || umount -l "$m"
    done
    rm -rf "$work"
    exit "$rc"
}

# The pool a Danaus system runs in: "... (ceph)" the Ceph one.
system_pool() { # SYSTEM
    case $1 in *"(ceph)") echo bench-ceph ;; *) echo bench ;; esac
}

# One run of SYSTEM: its wall time in seconds, and its exit code, as
# "SECONDS RC".
podman_run_one() { # SYSTEM
    local limits="--ulimit nofile=1024:1024 --ulimit nproc=4096:4096" rc=0
    local t0=$EPOCHREALTIME
    case $1 in
    "danaus engine"*)
        "$danaus" --state "$state" run --rm --pool "$(system_pool "$1")" \
            --image bench -- sh -c "$CONTAINER_CMD" ;;
    "podman + danaus-runtime/"*)
        # (the runc it delegates to follows the slash)
        local runc=${1#*/}
        runc=${runc%% *}
        # shellcheck disable=SC2086 # $limits is words
        podman_ --runtime "$runtime" --runtime-flag "danaus-state=$state" \
            --runtime-flag "danaus-runc=$runc" \
            run --rm --network none $limits \
            --annotation "danaus.pool=$(system_pool "$1")" \
            localhost/bench sh -c "$CONTAINER_CMD" ;;
    "podman + runc" | "podman + crun")
        # shellcheck disable=SC2086
        podman_ --runtime "$(command -v "${1#podman + }")" run --rm \
            --network none $limits localhost/bench sh -c "$CONTAINER_CMD" ;;
    esac >>"$work/podman-runs.log" 2>&1 || rc=$?
    local t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" -v rc="$rc" 'BEGIN {printf "%.3f %s\n", b - a, rc}'
}

podman_mode() {
    runtime=$(realpath "$build/runtime/danaus-runtime")
    local runs=${RUNS:-7} s r out
    [ -x "$runtime" ] || die "$runtime not found: build the target danaus_runtime in $build"
    for c in podman runc crun; do
        command -v "$c" >/dev/null || die "$c not found"
    done
    "$repo/deploy/cgroup-hybrid.sh" || die "crun cannot run here (deploy/cgroup-hybrid.sh)"
    trap podman_cleanup EXIT
    say "making the image ($data_files data files of $data_kib KiB)"
    local image=$work/image
    mkdir -p "$image"/{bin,dev,data,tmp} "$work/backend"
    cp "$busybox" "$image/bin/busybox"
    for c in sh cat ls true; do ln -s busybox "$image/bin/$c"; done
    for i in $(seq "$data_files"); do
        head -c "$((data_kib * 1024))" /dev/urandom >"$image/data/file$i"
    done
    "$danaus" --state "$state" image import bench "$image" >/dev/null
    tar -C "$image" -cf "$work/image.tar" .
    podman_ import -q "$work/image.tar" localhost/bench >/dev/null
    local systems=("danaus engine" "podman + danaus-runtime/crun"
        "podman + danaus-runtime/runc" "podman + crun" "podman + runc")
    if [ -n "${CEPH_CONF:-}" ]; then
        pool_cpus=${POOL_CPUS:-0}
        "$danaus" --state "$state" pool create bench-ceph \
            --cpus "${CEPH_POOL_CPUS:-1}" --memory "$pool_memory" \
            --backend "ceph:$CEPH_CONF:/bench-podman-$$"
        systems+=("danaus engine (ceph)" "podman + danaus-runtime/crun (ceph)"
            "podman + danaus-runtime/runc (ceph)")
    fi
    local load0 load1
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    "$danaus" --state "$state" pool create bench --cpus "$pool_cpus" \
        --memory "$pool_memory" --backend "local:$work/backend"
    echo "system,run,seconds,rc" >"$work/podman.csv"
    for s in "${systems[@]}"; do
        out=$(podman_run_one "$s")
        [ "${out#* }" = 0 ] || die "the warm-up run of $s failed: $(tail -n 1 "$work/podman-runs.log")"
    done
    for r in $(seq "$runs"); do
        for s in "${systems[@]}"; do
            out=$(podman_run_one "$s")
            echo "$s,$r,${out% *},${out#* }" >>"$work/podman.csv"
            say "$s #$r: ${out% *} s (exit ${out#* })"
        done
    done
    load1=$(cut -d' ' -f1-3 /proc/loadavg)
    cp "$work/podman.csv" "$outdir/podman.csv"
    {
        echo "One container's start: run --rm of sh -c '$CONTAINER_CMD'"
        echo "(busybox-static, $data_files x $data_kib KiB in /data), local backend${CEPH_CONF:+ and Ceph}; median of $runs runs"
        echo "each, the systems interleaved, after one warm-up run of each."
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cpus, load $load0 before, $load1 after"
        echo
        echo "median and fastest run in seconds; the ratios are of the medians (and of the fastest runs)."
        echo
        printf '%-36s %7s %7s %6s %15s %15s\n' system median fastest failed "vs p+crun" "vs p+runc"
        tail -n +2 "$work/podman.csv" | sort -t, -k1,1 -k3,3n | awk -F, '
            $1 != sys { if (sys != "") close_system(); sys = $1; n = 0; bad = 0 }
            { t[++n] = $3; if ($4 != 0) bad++ }
            function close_system() { med[sys] = t[int((n + 1) / 2)]; low[sys] = t[1]; fails[sys] = bad; order[++k] = sys }
            function ratio(a, b) { return b > 0 ? a / b : 0 }
            END {
                close_system()
                c = "podman + crun"; r = "podman + runc"
                for (i = 1; i <= k; i++) {
                    s = order[i]
                    printf "%-36s %7.3f %7.3f %6d %6.2fx (%.2fx) %6.2fx (%.2fx)\n", s, med[s], low[s], fails[s], ratio(med[s], med[c]), ratio(low[s], low[c]), ratio(med[s], med[r]), ratio(low[s], low[r])
                }
            }'
    } | tee "$outdir/podman.txt"
    say "results in $outdir/podman.txt and $outdir/podman.csv"
}

if [ "$mode" = podman ]; then
    podman_mode
    exit 0
fi
cluster_dir=""
setup_fuse_pid=""
peer_fuse_pid=""
top=""

cleanup() {
    local rc=$?
    set +e
    local m
    remove_engine_state pools
    # The peers' roots (unionfs-fuse, overlay), innermost first; their
    # unionfs-fuse processes end with their mounts.
    for m in $(awk -v w="$work/peer/" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r); do
        umount "$m" 2>/dev/null || umount -l "$m"
    done
    [ -n "$peer_fuse_pid" ] && unmount_fuse_at "$work/peer-fuse" "$peer_fuse_pid"
    if [ -n "$setup_fuse_pid" ]; then
        [ -n "$top" ] && rm -rf "${work:?}/fuse/${top#/}"
        unmount_fuse_at "$work/fuse" "$setup_fuse_pid"
    fi
    [ -f "$work/ceph-fuse.log" ] && cp "$work/ceph-fuse.log" "$outdir/"
    [ -n "$cluster_dir" ] && "$repo/deploy/ceph-cluster.sh" stop "$cluster_dir"
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# VmHWM of a process, KiB (0 if it is gone).
hwm_kib() {
    local kib
    kib=$(awk '/^VmHWM:/ {print $2}' "/proc/$1/status" 2>/dev/null || true)
    echo "${kib:-0}"
}

use_ceph_cluster

quiet_client_conf

say "mounting ceph-fuse for the setup"
mount_ceph_fuse_at "$work/fuse"
setup_fuse_pid=$mounted_pid

say "making the image ($data_files data files of $data_kib KiB)"
image=$work/image
mkdir -p "$image"/{bin,dev,data,tmp}
cp "$busybox" "$image/bin/busybox"
for c in sh cat ls true; do ln -s busybox "$image/bin/$c"; done
: >"$image/dev/null"
for i in $(seq "$data_files"); do
    head -c "$((data_kib * 1024))" /dev/urandom >"$image/data/file$i"
done
"$danaus" --state "$state" image import bench "$image" >/dev/null

# The peers' image: in Ceph for unionfs-fuse, on the host for overlayfs.
top=/danaus-containers-bench-$$
mkdir -p "$work/fuse$top/danaus" "$work/fuse$top/unionfs" "$work/danaus-local" "$work/peer"
cp -a "$image" "$work/fuse$top/unionfs/image"
sync -f "$work/fuse$top/unionfs/image"
cp -a "$image" "$work/peer/overlay-image"

results=$work/results.csv
echo "system,n,repeat,ok,seconds,peak_mib,first_error" >"$results"

# Starts `$2 ARGS... INDEX` for INDEX 1..$1 at once, waits for all; prints
# the wall time in seconds. Each one writes its exit code to $3/INDEX/rc.
batch() { # N FUNCTION DIR ARGS...
    local n=$1 fn=$2 dir=$3 pids=() i
    shift 3
    local t0=$EPOCHREALTIME
    for i in $(seq "$n"); do
        mkdir -p "$dir/$i"
        "$fn" "$dir/$i" "$@" "$i" &
        pids+=($!)
    done
    wait "${pids[@]}" || true
    local t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", b - a}'
}

# Records a batch of repeat $rep and keeps its containers' logs:
# SYSTEM N DIR SECONDS PEAK_KIB (peak "n/a" for none).
record() {
    local system=$1 n=$2 dir=$3 seconds=$4 peak=$5 ok=0 err="" i
    for i in $(seq "$n"); do
        if [ "$(cat "$dir/$i/rc" 2>/dev/null)" = 0 ]; then
            ok=$((ok + 1))
        elif [ -z "$err" ]; then
            err="#$i exit $(cat "$dir/$i/rc" 2>/dev/null || echo none): $(tail -n 1 "$dir/$i/log" 2>/dev/null | tr ',\n' '; ')"
        fi
    done
    local mib=n/a
    [ "$peak" != n/a ] && mib=$(awk -v k="$peak" 'BEGIN {printf "%.1f", k / 1024}')
    echo "$system,$n,$rep,$ok,$seconds,$mib,$err" >>"$results"
    say "$system N=$n #$rep: $ok/$n ok in $seconds s, peak $mib MiB${err:+ (first failure $err)}"
    local logs=$outdir/logs/$(echo "$system" | tr -cs 'a-z0-9\n' - | sed 's/-$//')-$n-$rep
    mkdir -p "$logs"
    for i in $(seq "$n"); do
        cp "$dir/$i/log" "$logs/$i.log" 2>/dev/null || true
    done
}

# ---- Danaus ----

danaus_container() { # DIR POOL INDEX
    local rc=0
    "$danaus" --state "$state" run --pool "$2" --image bench --name "$2-$3" \
        -- sh -c "$CONTAINER_CMD" >"$1/log" 2>&1 || rc=$?
    echo "$rc" >"$1/rc"
}

danaus_batch() { # BACKEND N
    local backend=$1 n=$2 pool spec
    if [ "$backend" = ceph ]; then
        pool=dc$n-$rep
        spec=ceph:$bench_conf:$top/danaus/$pool
        mkdir -p "$work/fuse$top/danaus/$pool"
    else
        pool=dl$n-$rep
        spec=local:$work/danaus-local/$pool
        mkdir -p "$work/danaus-local/$pool"
    fi
    "$danaus" --state "$state" pool create "$pool" --cpus "$pool_cpus" \
        --memory "$pool_memory" --backend "$spec"
    "$danaus" --state "$state" run --pool "$pool" --image bench --name "$pool-warm" \
        -- true >"$work/danaus-warm.log" 2>&1 ||
        die "the warm-up container failed: $(tail -n 1 "$work/danaus-warm.log")"
    local dir=$work/runs/danaus-$backend-$n-$rep seconds
    seconds=$(batch "$n" danaus_container "$dir" "$pool")
    local svc
    svc=$(sed -n 's/^pid=//p' "$state/pools/$pool/pool")
    record "danaus ($backend)" "$n" "$dir" "$seconds" "$(hwm_kib "$svc")"
    remove_engine_state
    "$danaus" --state "$state" pool rm "$pool"
}

# ---- the peers' container runner ----

# One container: its root (unionfs-fuse -o cow over LOWER with the writable
# branch UPPER, or overlayfs), the command in new mount, PID and UTS
# namespaces chrooted there, then the root unmounted. Writes the exit code
# to DIR/rc and, for unionfs, its unionfs-fuse's VmHWM (KiB) to DIR/hwm.
peer_container() { # DIR KIND LOWER UPPER_PARENT INDEX
    local dir=$1 kind=$2 lower=$3 upper=$4/$5 rc=0 upid=""
    mkdir -p "$dir/root" "$upper"
    if [ "$kind" = unionfs ]; then
        unionfs-fuse -f -o cow "$upper=RW:$lower=RO" "$dir/root" >"$dir/log" 2>&1 &
        upid=$!
        # Mounted once the image's /bin shows through.
        local tries=0
        until [ -e "$dir/root/bin" ]; do
            if ! kill -0 "$upid" 2>/dev/null || [ $((tries += 1)) -gt 3000 ]; then
                echo "unionfs-fuse did not mount" >>"$dir/log"
                echo 125 >"$dir/rc"
                return
            fi
            sleep 0.01
        done
    else
        mkdir -p "$dir/work"
        if ! mount -t overlay overlay \
            -o "lowerdir=$lower,upperdir=$upper,workdir=$dir/work" "$dir/root" >"$dir/log" 2>&1; then
            echo 125 >"$dir/rc"
            return
        fi
    fi
    # shellcheck disable=SC2016 # $1 and $2 belong to the inner sh
    unshare --mount --pid --fork --uts sh -c \
        'mount --bind /dev/null "$1/dev/null" && exec chroot "$1" /bin/sh -c "$2"' \
        sh "$dir/root" "$CONTAINER_CMD" >>"$dir/log" 2>&1 || rc=$?
    if [ -n "$upid" ]; then
        hwm_kib "$upid" >"$dir/hwm"
        fusermount -u "$dir/root" || umount -l "$dir/root"
        wait "$upid" || true
    else
        umount "$dir/root"
    fi
    echo "$rc" >"$1/rc"
}

unionfs_batch() { # N
    local n=$1
    mount_ceph_fuse_at "$work/peer-fuse"
    peer_fuse_pid=$mounted_pid
    local lower=$work/peer-fuse$top/unionfs/image
    local uppers=$work/peer-fuse$top/unionfs/upper-$n-$rep
    mkdir -p "$uppers"
    peer_container "$work/peer/warm-unionfs-$n-$rep" unionfs "$lower" "$uppers" warm
    [ "$(cat "$work/peer/warm-unionfs-$n-$rep/rc")" = 0 ] ||
        die "the unionfs-fuse warm-up container failed: $(tail -n 1 "$work/peer/warm-unionfs-$n-$rep/log")"
    local dir=$work/peer/unionfs-$n-$rep seconds
    seconds=$(batch "$n" peer_container "$dir" unionfs "$lower" "$uppers")
    local peak i
    peak=$(hwm_kib "$peer_fuse_pid")
    for i in $(seq "$n"); do
        peak=$((peak + $(cat "$dir/$i/hwm" 2>/dev/null || echo 0)))
    done
    record "unionfs-fuse/ceph-fuse" "$n" "$dir" "$seconds" "$peak"
    rm -rf "$work/peer-fuse$top/unionfs/upper-$n-$rep"
    unmount_fuse_at "$work/peer-fuse" "$peer_fuse_pid"
    peer_fuse_pid=""
}

overlay_batch() { # N
    local n=$1
    local lower=$work/peer/overlay-image uppers=$work/peer/overlay-upper-$n-$rep
    mkdir -p "$uppers"
    peer_container "$work/peer/warm-overlay-$n-$rep" overlay "$lower" "$uppers" warm
    [ "$(cat "$work/peer/warm-overlay-$n-$rep/rc")" = 0 ] ||
        die "the overlayfs warm-up container failed: $(tail -n 1 "$work/peer/warm-overlay-$n-$rep/log")"
    local dir=$work/peer/overlay-$n-$rep seconds
    seconds=$(batch "$n" peer_container "$dir" overlay "$lower" "$uppers")
    record "overlayfs" "$n" "$dir" "$seconds" n/a
}

for n in $counts; do
    for rep in $(seq "$repeats"); do
        say "N=$n #$rep: danaus (ceph)"
        danaus_batch ceph "$n"
        say "N=$n #$rep: unionfs-fuse over ceph-fuse"
        unionfs_batch "$n"
        say "N=$n #$rep: overlayfs"
        overlay_batch "$n"
        say "N=$n #$rep: danaus (local)"
        danaus_batch local "$n"
    done
done

# Per system and N: the median time of the repeats (rate from it and the
# fewest containers that ran), the highest peak, the first failure seen.
summary=$work/summary.csv
tail -n +2 "$results" | sort -t, -k2,2n -k1,1 -k5,5n | awk -F, -v OFS=, '
    function flush() {
        if (key == "") return
        med = secs[int((cnt + 1) / 2)]
        print sys, n, ok, cnt, med, (med > 0 ? ok / med : 0), peak, err
    }
    $1 SUBSEP $2 != key {
        flush(); key = $1 SUBSEP $2; sys = $1; n = $2
        cnt = 0; ok = $4; peak = $6; err = ""
    }
    {
        secs[++cnt] = $5
        if ($4 < ok) ok = $4
        if ($6 != "n/a" && (peak == "n/a" || $6 + 0 > peak + 0)) peak = $6
        if (err == "" && $7 != "") err = $7
    }
    END { flush() }' >"$summary"

cp "$results" "$outdir/containers.csv"
{
    echo "Starting N containers at once from one image (busybox-static, $data_files x $data_kib KiB in /data),"
    echo "each running: sh -c '$CONTAINER_CMD'"
    echo "seconds: first start to last exit, median of $repeats batches on fresh clients;"
    echo "ok: fewest containers that exited 0 in a batch; peak: highest VmHWM of the file-system clients"
    echo
    printf '%-24s %4s %7s %9s %13s %9s\n' system N ok seconds containers/s "peak MiB"
    while IFS=, read -r system n ok _ seconds rate mib _; do
        printf '%-24s %4s %7s %9s %13.1f %9s\n' "$system" "$n" "$ok/$n" "$seconds" "$rate" "$mib"
    done <"$summary"
    echo
    echo "Time of unionfs-fuse over ceph-fuse / time of Danaus on Ceph (higher: Danaus faster):"
    for n in $counts; do
        awk -F, -v n="$n" '$2 == n && $1 == "danaus (ceph)" {d = $5}
            $2 == n && $1 == "unionfs-fuse/ceph-fuse" {u = $5}
            END {if (d > 0) printf "  N=%-3s %.2fx\n", n, u / d}' "$summary"
    done
    if awk -F, '$8 != "" {found = 1} END {exit !found}' "$summary"; then
        echo
        echo "Failures (first one seen per system and N):"
        awk -F, '$8 != "" {printf "  %s N=%s: %s\n", $1, $2, $8}' "$summary"
    fi
} | tee "$outdir/containers.txt"
say "results in $outdir/containers.txt and $outdir/containers.csv"

# Plots: median batch time and peak memory against N, one line per system.
plot_by_n() { # COLUMN CSV PNG TITLE YLABEL [log]
    awk -F, -v OFS=, -v col="$1" '
        {if (!($1 in s)) {s[$1]; o[++ns] = $1}; if (!($2 in x)) {x[$2]; xo[++nx] = $2}; v[$2, $1] = ($col == "n/a" ? "" : $col)}
        END {
            line = "N"; for (j = 1; j <= ns; j++) line = line OFS o[j]; print line
            for (i = 1; i <= nx; i++) {line = xo[i]; for (j = 1; j <= ns; j++) line = line OFS v[xo[i], o[j]]; print line}
        }' "$summary" >"$2"
    "$repo/bench/plot.sh" lines "$2" "$3" "$4" "containers started at once (N)" "$5" "${6:-}"
}
plot_by_n 5 "$outdir/containers-time.csv" "$outdir/containers-time.png" \
    "Starting N containers at once: first start to last exit (median)" seconds log
plot_by_n 7 "$outdir/containers-peak.csv" "$outdir/containers-peak.png" \
    "Peak memory of the file-system clients" MiB
say "plots in $outdir/containers-time.png and containers-peak.png"
