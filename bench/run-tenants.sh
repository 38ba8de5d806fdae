#!/bin/bash
# run-tenants.sh - tenant isolation under contention (issues 15 and 18),
# side by side in one run, stacks interleaved within every round. Builds
# nothing.
#
#   bench/run-tenants.sh [OUTDIR [BUILD_DIR]]
#
#   OUTDIR      where tenants.txt (tables and ratios), tenants.csv (every
#               run), the plots and the logs go (default ./bench-results)
#   BUILD_DIR   a build tree with the danaus command, danausd, libdanaus.so
#               and tenant-load (default $BUILD_DIR, else ./build)
#
# Environment:
#   CEPH_CONF      use this running cluster instead of starting one
#   ROUNDS         rounds; tables give medians over them (default 3)
#   RUN_SECONDS    timed part of every workload (default 6)
#   START_DELAY    seconds between launching the tenants of a run and the
#                  start of their timed parts, for their setups (default 4)
#   WORKLOADS      tenant workloads (default "fileserver rocksdb seq noisy")
#   PAIRS          the matrix's rows as A/B words (e.g. "seq/fileserver
#                  noisy/seq"), each workload of them also alone; default:
#                  every pair of WORKLOADS
#   STACKS         of the tenant matrix (default "danaus ceph-fuse unionfs";
#                  also danaus-old, below)
#   PARTS          of "matrix limit target victim scale" (default all five)
#   LIMIT_WORKLOADS  A's workloads of part "limit" (default "seq noisy")
#   LIMIT_NEIGHBOUR  B's workload there (default fileserver)
#   LIMIT_OPS, LIMIT_WRITE_RATE  B's pool's limits there (default 100, 4M)
#   LIMIT_START_DELAY  START_DELAY there: B's setup goes at its pool's
#                  rate too (default 12)
#   TARGET_WORKLOADS, TARGET_NEIGHBOUR  A's and B's workloads of part
#                  "target" (default "seq noisy", fileserver)
#   TARGET_MS      A's pool's latency target there (default 2)
#   TARGET_START_DELAY  START_DELAY there (default 12)
#   SCALE_COUNTS   containers per scale run (default "1 2 4 8")
#   SCALE_WORKLOADS  (default "rocksdb fileserver")
#   CEPH_CPUS      CPUs the cluster's daemons are pinned to when the script
#                  starts it (default 1; "all" leaves them alone)
#   CEPH_NICE      nice of the cluster's daemons when the script starts it
#                  (default -10, so that they are served first on the CPU
#                  they share with tenant B, as on hosts of their own; 0
#                  leaves them as started)
#   PIN_RANKS      "RA RB": the directories of the pools on CPU 0 and CPU 1
#                  go to these MDS ranks (ceph.dir.pin; a cluster with that
#                  many active MDS, given as CEPH_CONF); default: no pins
#
# Two tenants, A on CPU 0 and B on CPU 1. Part "matrix" (issue 15): each
# workload runs alone as A, and as A next to each other workload as B, on
#   danaus     a pool per tenant (cgroup cpuset = its CPU, memory 4G) with
#              its own danausd over one Ceph cluster; the workload runs in a
#              container of the pool, in a directory of its root
#   danaus-old the same with the pools' fair share off (pool create
#              --backend-fair-share off, the defaults before issue 37), in
#              an engine state of their own
#   ceph-fuse  one ceph-fuse mount serving both tenants; each workload
#              pinned to its CPU with taskset
#   unionfs    a unionfs-fuse -o cow per tenant (its container root, pinned
#              to the tenant's CPU) over that shared ceph-fuse
# Workloads (bench/tenant_load.c; RocksDB is Debian's db_bench):
#   fileserver create+write whole, append, read whole, stat, delete (16 KiB
#              files), rocksdb db_bench fillrandom then readrandom (half the
#              time each, rows rocksdb-fill and rocksdb-read), seq 1 MiB
#              writes then reads of a 128 MiB file, noisy random 4 KiB
#              writes each with fsync.
# Each matrix run also records the CPU the cluster's MDS and OSD used in
# its timed part (columns mds_cpu, osd_cpu; from the pid files in the
# cluster's run dir): every stack's tenants share them; and, on the
# Danaus stacks, how many calls of each pool waited for its fair share
# (tenants-paced.txt).
#
# Part "limit" (issue 15): the Danaus stack of the matrix once more for
# LIMIT_WORKLOADS, alone and next to LIMIT_NEIGHBOUR, with B's pool created
# with --backend-ops LIMIT_OPS --backend-write-rate LIMIT_WRITE_RATE (its
# load on the shared cluster bounded); rows "danaus B limited" of the
# matrix's tables.
#
# Part "target" (issue 15): the same for TARGET_WORKLOADS next to
# TARGET_NEIGHBOUR, B's pool without limits and A's created with
# --backend-latency-target TARGET_MS (B holds back while A's backend calls
# miss it; fsservice/core/pressure.h); rows "danaus A with target".
#
# Part "victim" (issue 18): one thread alternating stat and a 4 KiB pread of
# a cached 4 MiB file on CPU 0, alone and next to a writer on CPU 1 looping
# `dd bs=1M count=256 conv=fsync` (tenant-load writer), on
#   engine pools     the two pools above
#   ceph-fuse        the shared mount
#   two danausd      standalone services started under taskset -c 0 / -c 1,
#                    each client pinned next to its own
#   one danausd      one service (no affinity) serving both
# and, alone, a client and its service on one core: a danausd started under
# taskset -c 0 ("known at start"), one started on both CPUs and moved to
# CPU 0 with taskset -a -p ("taken away later"), against the two-core case
# (a danausd on CPU 1, the client on CPU 0), with the floor under them
# (switch-floor: a round trip between two processes doing nothing else,
# once a round, switch-floor.txt); and CPU oversubscription: the
# victim in a 2-CPU pool next to 2 CPU-bound containers, against the same
# on the host's ext4 with 2 CPU-bound processes.
#
# Part "scale" (issue 15, scale-out and scale-up): N containers at once of
# db_bench or the file server, in one pool on both CPUs, across the two
# pools (alternately), and as N processes on the shared ceph-fuse; ops/s
# per container and in total, and the CPU the file-system service used in
# the timed part (all pools' danausd, or ceph-fuse), in % of one CPU.
#
# Every tenant's timed part starts at one wall-clock time (TENANT_START)
# after its setup, so the tenants of a run overlap exactly.
#
# What it starts (and stops on exit, also on error): the cluster (unless
# CEPH_CONF), the shared ceph-fuse mount, the pools (danausd, cgroups,
# IPC namespaces) and their containers, unionfs-fuse mounts, standalone
# danausd services.
set -euo pipefail

say() { echo "run-tenants: $*" >&2; }
die() { say "error: $*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
outdir=${1:-./bench-results}
build=${2:-${BUILD_DIR:-./build}}
rounds=${ROUNDS:-3}
run_seconds=${RUN_SECONDS:-6}
start_delay=${START_DELAY:-4}
workloads=${WORKLOADS:-fileserver rocksdb seq noisy}
stacks=${STACKS:-danaus ceph-fuse unionfs}
pairs=${PAIRS:-}
parts=${PARTS:-matrix limit target victim scale}
limit_workloads=${LIMIT_WORKLOADS:-seq noisy}
limit_neighbour=${LIMIT_NEIGHBOUR:-fileserver}
limit_ops=${LIMIT_OPS:-100}
limit_write_rate=${LIMIT_WRITE_RATE:-4M}
target_workloads=${TARGET_WORKLOADS:-seq noisy}
target_neighbour=${TARGET_NEIGHBOUR:-fileserver}
target_ms=${TARGET_MS:-2}
scale_counts=${SCALE_COUNTS:-1 2 4 8}
scale_workloads=${SCALE_WORKLOADS:-rocksdb fileserver}
ceph_cpus=${CEPH_CPUS:-1}
ceph_nice=${CEPH_NICE:--10}

build=$(cd "$build" && pwd -P)
danaus=$build/engine/danaus
danausd_bin=$build/fsservice/danausd
libdanaus=$build/libfs/libdanaus.so
load=$build/bench/tenant-load
switch_floor=$build/bench/switch-floor
for f in "$danaus" "$danausd_bin" "$libdanaus" "$load" "$switch_floor"; do
    [ -e "$f" ] || die "$f not found: build danaus_engine, danausd, danaus, tenant-load and switch-floor in $build"
done
for c in ceph-fuse unionfs-fuse db_bench taskset gnuplot; do
    command -v "$c" >/dev/null || die "$c not found (deploy/install-deps.sh)"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)

work=$(mktemp -d /tmp/danaus-tenants-bench.XXXXXX)
state=$work/state
state_old=$work/state-old
cluster_dir=""
fuse_pid=""
top=""
service_pids=()
union_mounts=()
launched=()

cleanup() {
    local rc=$?
    set +e
    local p m
    # A run cut short: its workloads end before their containers go.
    for p in "${launched[@]}"; do
        kill -TERM "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    remove_engine_state pools
    state=$state_old remove_engine_state pools
    for p in "${service_pids[@]}"; do
        kill -TERM "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    for m in "${union_mounts[@]}"; do
        unmount_fuse_at "${m%:*}" "${m##*:}"
    done
    if [ -n "$fuse_pid" ]; then
        [ -n "$top" ] && rm -rf "${work:?}/fuse/${top#/}"
        unmount_fuse_at "$work/fuse" "$fuse_pid"
    fi
    for f in ceph-fuse.log danausd-*.log; do
        [ -f "$work/$f" ] && cp "$work/$f" "$outdir/logs/"
    done
    [ -n "$cluster_dir" ] && "$repo/deploy/ceph-cluster.sh" stop "$cluster_dir"
    # Whatever is still mounted in $work (a pool that would not go) must
    # not be walked by rm.
    for m in $(awk -v w="$work/" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r); do
        umount -l "$m"
    done
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source "$repo/bench/lib.sh"

mkdir -p "$outdir/logs"
use_ceph_cluster
[ "$ceph_cpus" != all ] && pin_ceph_cluster "$ceph_cpus"
[ "$ceph_nice" != 0 ] && renice_ceph_cluster "$ceph_nice"
quiet_client_conf

say "mounting the shared ceph-fuse"
mount_ceph_fuse_at "$work/fuse"
fuse_pid=$mounted_pid
top=/danaus-tenants-bench-$$
ceph_top=$work/fuse$top
mkdir -p "$ceph_top"/{pools,shared,unionfs,standalone} "$work/out" "$work/mnt" "$work/run"

say "making the image (tenant-load, db_bench and their libraries)"
image=$work/image
mkdir -p "$image"/{dev,tmp,data}
: >"$image/dev/null"
image_add_programs "$image" "$load" "$(command -v db_bench)"
"$danaus" --state "$state" image import load "$image" >/dev/null
case " $stacks " in *" danaus-old "*)
    "$danaus" --state "$state_old" image import load "$image" >/dev/null ;;
esac
cp -a "$image" "$ceph_top/unionfs/image"

results=$outdir/tenants.csv
: >"$outdir/tenants-paced.txt"
echo "part,stack,round,tenant,workload,neighbour,ops_s,mb_s,p50_us,p99_us,stat_p99_us,mds_cpu,osd_cpu" >"$results"
: >"$outdir/switch-floor.txt"

# ---- launching one tenant's workload ----

# The workload's command for a directory: tenant-load, or db_bench waiting
# for the start time through tenant-load's "at".
workload_cmd() { # LOAD_BIN DB_BENCH WORKLOAD DIR
    if [ "$3" = rocksdb ]; then
        local half
        half=$(awk -v s="$run_seconds" 'BEGIN {printf "%d", (s + 1) / 2}')
        echo "$1 at $2 --benchmarks=fillrandom,readrandom --duration=$half" \
            "--num=20000 --db=$4 --use_existing_db=0 --mmap_read=0" \
            "--mmap_write=0 --threads=1 --compression_type=none" \
            "--statistics=0 --histogram=1 --seed=42"
    else
        echo "$1 $3 $4 $run_seconds"
    fi
}

# Starts a workload in the background in a container of POOL; its output
# in $work/out/ID.
launch_container() { # ID POOL WORKLOAD
    # shellcheck disable=SC2046 # the command is a list of words
    "$danaus" --state "$state" run --pool "$2" --image load --name "$1" \
        -e "TENANT_START=$start_at" -- \
        $(workload_cmd /usr/bin/tenant-load /usr/bin/db_bench "$3" "/data/$1") \
        >"$work/out/$1" 2>&1 &
    launched+=($!)
}

# Starts a workload in the background on the host, pinned to CPUS, with
# extra environment VAR=VALUE words before it.
launch_host() { # ID CPUS WORKLOAD DIR [VAR=VALUE...]
    local id=$1 cpus=$2 wl=$3 dir=$4
    shift 4
    # shellcheck disable=SC2046 # the command is a list of words
    taskset -c "$cpus" env "TENANT_START=$start_at" "$@" \
        $(workload_cmd "$load" "$(command -v db_bench)" "$wl" "$dir") \
        >"$work/out/$id" 2>&1 &
    launched+=($!)
}

# Converts a workload's output to key=value lines, one per result row:
# tenant-load's own line, or one line per db_bench benchmark.
result_lines() { # FILE
    awk '
        /^mode=/ {print; next}
        /^(fillrandom|readrandom) +:/ {
            name = ($1 == "fillrandom") ? "rocksdb-fill" : "rocksdb-read"
            for (i = 1; i <= NF; i++) if ($i ~ /^ops\/sec;?$/) ops = $(i - 1)
            mb = 0
            for (i = 1; i <= NF; i++) if ($i == "MB/s") mb = $(i - 1)
        }
        /^Percentiles:/ && name != "" {
            for (i = 1; i < NF; i++) {
                if ($i == "P50:") p50 = $(i + 1)
                if ($i == "P99:") p99 = $(i + 1)
            }
            printf "mode=%s ops_s=%s mb_s=%s p50_us=%s p99_us=%s\n", name, ops, mb, p50, p99
            name = ""
        }' "$1"
}

value() { # KEY LINE
    echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# Records the results of tenant ID: PART STACK TENANT NEIGHBOUR ID.
record() {
    local part=$1 stack=$2 tenant=$3 neighbour=$4 id=$5 line n=0
    while read -r line; do
        n=$((n + 1))
        echo "$part,$stack,$round,$tenant,$(value mode "$line"),$neighbour,$(value ops_s "$line"),$(value mb_s "$line"),$(value p50_us "$line"),$(value p99_us "$line"),$(value stat_p99_us "$line"),$run_mds_cpu,$run_osd_cpu" >>"$results"
    done < <(result_lines "$work/out/$id")
    local late
    late=$(sed -n 's/.*late_s=\([0-9.]*\).*/\1/p' "$work/out/$id" | head -n 1)
    awk -v l="${late:-0}" 'BEGIN {exit !(l > 0.5)}' &&
        say "$stack $tenant ($id) started its timed part ${late} s late: raise START_DELAY"
    [ "$n" -gt 0 ] || say "no result from $stack $tenant ($id): $(tail -n 2 "$work/out/$id" | tr '\n' ' ')"
    cp "$work/out/$id" "$outdir/logs/$part-$stack-$round-$id.log"
}

# Starts a run: the tenants launched next share one start time.
begin_run() {
    launched=()
    run_mds_cpu="" run_osd_cpu=""
    start_at=$(awk -v t="$EPOCHREALTIME" -v d="$start_delay" 'BEGIN {printf "%.3f", t + d}')
}

# Sleeps until the run's timed part starts.
sleep_until_start() {
    sleep "$(awk -v t="$EPOCHREALTIME" -v s="$start_at" 'BEGIN {d = s - t; printf "%.3f", (d > 0 ? d : 0)}')"
}

# The CPU each list of PIDS used through the run's timed part, in % of one
# CPU: one figure per list, on one line. Returns when the timed part ends.
timed_part_cpu() { # PIDS...
    local i t0=() pct=()
    sleep_until_start
    for ((i = 1; i <= $#; i++)); do t0[i]=$(ticks_of "${!i}"); done
    sleep "$run_seconds"
    for ((i = 1; i <= $#; i++)); do
        pct+=("$(cpu_percent $(($(ticks_of "${!i}") - t0[i])) "$run_seconds")")
    done
    echo "${pct[*]}"
}

# Through the timed part: the CPU the cluster's MDS and OSD used
# (run_mds_cpu, run_osd_cpu; recorded with the run). They serve every
# tenant, so a victim that waits on them waits on its neighbour's load
# there.
time_cluster_cpu() {
    local mds osd
    mds=$(ceph_daemon_pids mds) osd=$(ceph_daemon_pids osd)
    [ -n "$mds$osd" ] || return 0
    read -r run_mds_cpu run_osd_cpu < <(timed_part_cpu "$mds" "$osd")
}

end_run() {
    wait "${launched[@]}" || true
}

# ---- the stacks ----

danaus_pool() { # NAME CPUS [POOL CREATE OPTIONS...]
    mkdir -p "$ceph_top/pools/$1"
    if [ -n "${PIN_RANKS:-}" ] && [ "$2" != 0-1 ]; then
        local ranks
        read -ra ranks <<<"$PIN_RANKS"
        python3 -c 'import os, sys; os.setxattr(sys.argv[1], "ceph.dir.pin", sys.argv[2].encode())' \
            "$ceph_top/pools/$1" "${ranks[$2]}"
    fi
    "$danaus" --state "$state" pool create "$1" --cpus "$2" --memory 4G \
        --backend "ceph:$bench_conf:$top/pools/$1" "${@:3}"
}

# A unionfs-fuse container root for tenant T over the shared ceph-fuse,
# pinned to CPUS; mounted at $work/union/T.
union_root() { # T CPUS
    local mnt=$work/union/$1 upper=$ceph_top/unionfs/upper-$1
    mkdir -p "$mnt" "$upper"
    taskset -c "$2" unionfs-fuse -f -o cow "$upper=RW:$ceph_top/unionfs/image=RO" "$mnt" \
        >"$work/unionfs-$1.log" 2>&1 &
    local pid=$!
    union_mounts+=("$mnt:$pid")
    up() { mountpoint -q "$mnt"; }
    wait_until 30 up || die "unionfs-fuse did not mount $mnt"
}

# A standalone danausd named NAME serving $work/mnt/NAME from the cluster,
# started under `taskset -c CPUS` unless CPUS is "all"; pid in service_pid.
standalone() { # NAME CPUS
    local name=$1 pin=()
    [ "$2" != all ] && pin=(taskset -c "$2")
    mkdir -p "$ceph_top/standalone/$name" "$work/mnt/$name"
    cat >"$work/$name.conf" <<EOF
service $name
rundir $work/run
ceph_conf $bench_conf
fuse off
mount $work/mnt/$name ceph $top/standalone/$name
EOF
    "${pin[@]}" "$danausd_bin" -c "$work/$name.conf" 2>"$work/danausd-$name.log" &
    service_pid=$!
    service_pids+=("$service_pid")
    up() {
        kill -0 "$service_pid" 2>/dev/null || die "danausd $name exited; see $outdir/logs/danausd-$name.log"
        grep -qs ready "$work/danausd-$name.log"
    }
    wait_until 60 up || die "danausd $name did not start"
}

client_env() { # SERVICE
    echo "LD_PRELOAD=$libdanaus DANAUS_SERVICE=$1 DANAUS_RUNDIR=$work/run"
}

# How many calls of POOL waited for its fair share so far (its note in
# the engine's pressure/shares/, fsservice/core/fairshare.h; 0 without).
paced_calls() { # POOL
    local n
    n=$(od -An -tu8 -j56 -N8 "$state/pressure/shares/$1" 2>/dev/null | tr -d ' ')
    echo "${n:-0}"
}

# One run of the tenant matrix: WORKLOAD as A on CPU 0, NEIGHBOUR (or
# "alone") as B on CPU 1, on STACK; recorded as LABEL (default STACK).
matrix_run() { # STACK WORKLOAD NEIGHBOUR [LABEL]
    local stack=$1 wl=$2 nb=$3 a=a$round$RANDOM b=b$round$RANDOM
    local label=${4:-$1}
    # The old defaults' pools, in their own engine state.
    [ "$stack" = danaus-old ] &&
        local state=$state_old pool_a=$pool_a_old pool_b=$pool_b_old
    local paced_a paced_b
    paced_a=$(paced_calls "$pool_a") paced_b=$(paced_calls "$pool_b")
    begin_run
    case $stack in
    danaus | danaus-old)
        launch_container "$a" "$pool_a" "$wl"
        [ "$nb" = alone ] || launch_container "$b" "$pool_b" "$nb" ;;
    ceph-fuse)
        launch_host "$a" 0 "$wl" "$ceph_top/shared/$a"
        [ "$nb" = alone ] || launch_host "$b" 1 "$nb" "$ceph_top/shared/$b" ;;
    unionfs)
        launch_host "$a" 0 "$wl" "$work/union/a/data/$a"
        [ "$nb" = alone ] || launch_host "$b" 1 "$nb" "$work/union/b/data/$b" ;;
    esac
    time_cluster_cpu
    end_run
    record matrix "$label" A "$nb" "$a"
    [ "$nb" = alone ] || record matrix "$label" B "$wl" "$b"
    case $stack in danaus | danaus-old)
        echo "$round $label $wl/$nb A $(($(paced_calls "$pool_a") - paced_a)) B $(($(paced_calls "$pool_b") - paced_b))" \
            >>"$outdir/tenants-paced.txt" ;;
    esac
    case $stack in
    danaus | danaus-old) remove_engine_state ;;
    ceph-fuse) rm -rf "$ceph_top/shared/$a" "$ceph_top/shared/$b" ;;
    unionfs) rm -rf "$work/union/a/data/$a" "$work/union/b/data/$b" ;;
    esac
}

# One run of the victim (CPU 0) alone or next to the writer (CPU 1).
victim_run() { # STACK NEIGHBOUR
    local stack=$1 nb=$2 v=v$round$RANDOM w=w$round$RANDOM
    begin_run
    case $stack in
    "engine pools")
        launch_container "$v" "$pool_a" victim
        [ "$nb" = alone ] || launch_container "$w" "$pool_b" writer ;;
    ceph-fuse)
        launch_host "$v" 0 victim "$ceph_top/shared/$v"
        [ "$nb" = alone ] || launch_host "$w" 1 writer "$ceph_top/shared/$w" ;;
    "two danausd")
        # shellcheck disable=SC2046 # client_env is a list of words
        launch_host "$v" 0 victim "$work/mnt/sa0/$v" $(client_env sa0)
        # shellcheck disable=SC2046
        [ "$nb" = alone ] || launch_host "$w" 1 writer "$work/mnt/sa1/$w" $(client_env sa1) ;;
    "one danausd")
        # shellcheck disable=SC2046
        launch_host "$v" 0 victim "$work/mnt/one/$v" $(client_env one)
        # shellcheck disable=SC2046
        [ "$nb" = alone ] || launch_host "$w" 1 writer "$work/mnt/one/$w" $(client_env one) ;;
    esac
    end_run
    record victim "$stack" victim "$nb" "$v"
    [ "$nb" = alone ] || record victim "$stack" writer victim "$w"
    remove_engine_state
    rm -rf "$ceph_top/shared/$v" "$ceph_top/shared/$w"
    rm -rf "$work/mnt"/*/"$v" "$work/mnt"/*/"$w" 2>/dev/null || true
}

# The victim alone on CPU 0 next to a service on CPU(s) of the case.
samecore_run() { # CASE SERVICE
    local v=v$round$RANDOM
    begin_run
    # shellcheck disable=SC2046
    launch_host "$v" 0 victim "$work/mnt/$2/$v" $(client_env "$2")
    end_run
    record samecore "$1" victim alone "$v"
}

# The victim in a 2-CPU pool (or on the host's ext4) next to 0 or 2
# CPU-bound containers (processes).
oversub_run() { # STACK SPINNERS
    local stack=$1 n=$2 v=v$round$RANDOM i
    begin_run
    if [ "$stack" = danaus ]; then
        launch_container "$v" "$pool_c" victim
        for i in $(seq "$n"); do launch_container "s$i$v" "$pool_c" spin; done
    else
        mkdir -p "$work/ext4"
        launch_host "$v" 0-1 victim "$work/ext4/$v"
        for i in $(seq "$n"); do launch_host "s$i$v" 0-1 spin "$work/ext4/s$i$v"; done
    fi
    end_run
    local nb=alone
    [ "$n" -gt 0 ] && nb="$n spinners"
    record oversub "$stack" victim "$nb" "$v"
    remove_engine_state
    rm -rf "$work/ext4"
}

# The danausd pids of the pools, or ceph-fuse's.
service_of() { # LAYOUT
    if [ "$1" = ceph-fuse ]; then
        echo "$fuse_pid"
    else
        sed -n 's/^pid=//p' "$state"/pools/*/pool
    fi
}

# N containers (processes) of WORKLOAD at once in LAYOUT, and the CPU their
# file-system service used during the timed part.
scale_run() { # LAYOUT WORKLOAD N
    local layout=$1 wl=$2 n=$3 i ids=() p cpu
    begin_run
    for i in $(seq "$n"); do
        ids+=("c$i-$round$RANDOM")
        case $layout in
        "one pool") launch_container "${ids[-1]}" "$pool_c" "$wl" ;;
        "two pools")
            if [ $((i % 2)) = 1 ]; then p=$pool_a; else p=$pool_b; fi
            launch_container "${ids[-1]}" "$p" "$wl" ;;
        ceph-fuse) launch_host "${ids[-1]}" 0-1 "$wl" "$ceph_top/shared/${ids[-1]}" ;;
        esac
    done
    cpu=$(timed_part_cpu "$(service_of "$layout")")
    end_run
    for i in $(seq "$n"); do
        record scale "$layout" "c$i" "N=$n" "${ids[$((i - 1))]}"
    done
    echo "scale,$layout,$round,service,$wl cpu%,N=$n,$cpu,,,,,," >>"$results"
    remove_engine_state
    rm -rf "$ceph_top/shared"/c*-"$round"*
}

# Pool names are unique to the run: the cgroups are the host's.
pool_a=ta$$ pool_b=tb$$ pool_c=tc$$ pool_a_old=toa$$ pool_b_old=tob$$
say "starting the pools ($pool_a on CPU 0, $pool_b on CPU 1)"
danaus_pool "$pool_a" 0
danaus_pool "$pool_b" 1
case " $stacks " in *" danaus-old "*)
    say "starting the pools at the old defaults ($pool_a_old, $pool_b_old)"
    state=$state_old danaus_pool "$pool_a_old" 0 --backend-fair-share off
    state=$state_old danaus_pool "$pool_b_old" 1 --backend-fair-share off ;;
esac
case " $stacks " in *" unionfs "*)
    say "mounting the unionfs-fuse roots"
    union_root a 0
    union_root b 1 ;;
esac
case " $parts " in *" victim "*)
    say "starting the standalone services"
    standalone sa0 0
    standalone sa1 1
    standalone one all
    standalone onecore 0
    standalone late all
    late_pid=$service_pid
    taskset -a -p -c 0 "$late_pid" >/dev/null ;;
esac

# The matrix's cases, WORKLOAD:NEIGHBOUR: from PAIRS (each workload of
# them alone first), or every pair of WORKLOADS.
cases=()
if [ -n "$pairs" ]; then
    for wl in $(echo "$pairs" | tr ' /' '\n\n' | awk '!seen[$0]++'); do
        cases+=("$wl:alone")
    done
    for p in $pairs; do cases+=("${p%/*}:${p#*/}"); done
else
    for wl in $workloads; do
        for nb in alone $workloads; do
            [ "$nb" = "$wl" ] || cases+=("$wl:$nb")
        done
    done
fi

for round in $(seq "$rounds"); do
    case " $parts " in *" matrix "*)
        for c in "${cases[@]}"; do
            wl=${c%:*} nb=${c#*:}
            for stack in $stacks; do
                say "round $round/$rounds: $stack: $wl next to $nb"
                matrix_run "$stack" "$wl" "$nb"
            done
        done ;;
    esac
    case " $parts " in *" victim "*)
        for nb in alone writer; do
            for stack in "engine pools" ceph-fuse "two danausd" "one danausd"; do
                say "round $round/$rounds: victim: $stack, $nb"
                victim_run "$stack" "$nb"
            done
        done
        say "round $round/$rounds: client and service on one core"
        samecore_run "two cores (service on CPU 1)" sa1
        samecore_run "one core (known at start)" onecore
        samecore_run "one core (taken away later)" late
        say "round $round/$rounds: the hand-off floor (switch-floor)"
        "$switch_floor" | sed "s/^/round $round: /" >>"$outdir/switch-floor.txt" ;;
    esac
    case " $parts " in *" scale "*)
        for wl in $scale_workloads; do
            for n in $scale_counts; do
                for layout in "two pools" ceph-fuse; do
                    say "round $round/$rounds: scale: $wl x $n, $layout"
                    scale_run "$layout" "$wl" "$n"
                done
            done
        done ;;
    esac
done

# The Danaus rows of the matrix once more, as LABEL: each of WORKLOADS
# alone and next to NEIGHBOUR, every round, with the tenants' setups given
# DELAY seconds (a held-back pool's setup is slow too).
labelled_rounds() { # LABEL WORKLOADS NEIGHBOUR DELAY
    local usual_start_delay=$start_delay wl nb
    start_delay=$4
    for round in $(seq "$rounds"); do
        for wl in $2; do
            for nb in alone "$3"; do
                say "round $round/$rounds: $1: $wl next to $nb"
                matrix_run danaus "$wl" "$nb" "$1"
            done
        done
    done
    start_delay=$usual_start_delay
}

# B's pool again, its load on the cluster bounded.
case " $parts " in *" limit "*)
    "$danaus" --state "$state" pool rm "$pool_b"
    say "starting the pool $pool_b on CPU 1 at $limit_ops ops/s, $limit_write_rate/s written"
    danaus_pool "$pool_b" 1 --backend-ops "$limit_ops" \
        --backend-write-rate "$limit_write_rate"
    labelled_rounds "danaus B limited" "$limit_workloads" "$limit_neighbour" \
        "${LIMIT_START_DELAY:-12}" ;;
esac

# Both pools again: B's without limits, A's with a latency target.
case " $parts " in *" target "*)
    "$danaus" --state "$state" pool rm "$pool_a"
    "$danaus" --state "$state" pool rm "$pool_b"
    say "starting the pools again, $pool_a with a latency target of $target_ms ms"
    danaus_pool "$pool_a" 0 --backend-latency-target "$target_ms"
    danaus_pool "$pool_b" 1
    labelled_rounds "danaus A with target" "$target_workloads" \
        "$target_neighbour" "${TARGET_START_DELAY:-12}" ;;
esac

# Oversubscription and scale-up in one pool need a pool on both CPUs,
# which the engine lets no other pool share: their rounds come last.
case " $parts " in *" victim "*|*" scale "*)
    "$danaus" --state "$state" pool rm "$pool_a"
    "$danaus" --state "$state" pool rm "$pool_b"
    say "starting the pool $pool_c on CPUs 0-1"
    danaus_pool "$pool_c" 0-1
    for round in $(seq "$rounds"); do
        case " $parts " in *" victim "*)
            for n in 0 2; do
                for stack in danaus ext4; do
                    say "round $round/$rounds: oversubscription: $stack, $n spinners"
                    oversub_run "$stack" "$n"
                done
            done ;;
        esac
        case " $parts " in *" scale "*)
            for wl in $scale_workloads; do
                for n in $scale_counts; do
                    say "round $round/$rounds: scale: $wl x $n, one pool"
                    scale_run "one pool" "$wl" "$n"
                done
            done ;;
        esac
    done ;;
esac

# ---- tables ----

# Medians over the rounds per part, stack, tenant, workload and neighbour:
# part,stack,tenant,workload,neighbour,runs,ops_s,mb_s,p50_us,p99_us,stat_p99_us,
# mds_cpu,osd_cpu
summary=$outdir/tenants-summary.csv
tail -n +2 "$results" | awk -F, -v OFS=, '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
        return n == 0 ? "" : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
    }
    {
        k = $1 OFS $2 OFS $4 OFS $5 OFS $6
        if (!(k in runs)) order[++keys] = k
        runs[k]++
        for (c = 7; c <= 13; c++) if ($c != "") v[k, c] = v[k, c] " " $c
    }
    END {
        for (i = 1; i <= keys; i++) {
            k = order[i]; line = k OFS runs[k]
            for (c = 7; c <= 13; c++) line = line OFS median(v[k, c])
            print line
        }
    }' >"$summary"

# Ratios: each row against the same part, stack, tenant and workload alone;
# with "cluster", the CPU the cluster's MDS and OSD used in the run too.
ratio_table() { # PART TENANT [cluster]
    awk -F, -v part="$1" -v tenant="$2" -v cluster="${3:-}" '
        $1 == part && $3 == tenant && $5 == "alone" {alone[$2 SUBSEP $4] = $7; p99[$2 SUBSEP $4] = $10}
        $1 == part && $3 == tenant {rows[++n] = $0}
        END {
            printf "%-32s %-14s %-16s %10s %10s %6s %9s %9s %7s", "stack", "workload", "next to", "ops/s", "alone", "kept", "p50 us", "p99 us", "p99 x"
            printf cluster ? " %6s %6s\n" : "\n", "mds %", "osd %"
            for (i = 1; i <= n; i++) {
                split(rows[i], f, ",")
                k = f[2] SUBSEP f[4]
                kept = (alone[k] > 0) ? sprintf("%5.0f%%", 100 * f[7] / alone[k]) : "-"
                grow = (p99[k] > 0) ? sprintf("%6.1fx", f[10] / p99[k]) : "-"
                printf "%-32s %-14s %-16s %10.0f %10.0f %6s %9.1f %9.1f %7s", f[2], f[4], f[5], f[7], alone[k], kept, f[9], f[10], grow
                printf cluster ? " %6s %6s\n" : "\n", f[12], f[13]
            }
        }' "$summary"
}

# B's rows of the matrix against the same stack and workload alone (A's
# alone row: every tenant runs alone as A).
neighbour_table() {
    awk -F, '
        $1 == "matrix" && $3 == "A" && $5 == "alone" {alone[$2 SUBSEP $4] = $7}
        $1 == "matrix" && $3 == "B" {rows[++n] = $0}
        END {
            printf "%-32s %-14s %-16s %10s %10s %6s\n", "stack", "neighbour B", "next to A", "ops/s", "alone", "kept"
            for (i = 1; i <= n; i++) {
                split(rows[i], f, ",")
                k = f[2] SUBSEP f[4]
                kept = (alone[k] > 0) ? sprintf("%5.0f%%", 100 * f[7] / alone[k]) : "-"
                printf "%-32s %-14s %-16s %10.0f %10.0f %6s\n", f[2], f[4], f[5], f[7], alone[k], kept
            }
        }' "$summary"
}

{
    echo "Tenant isolation (bench/run-tenants.sh): medians of $rounds rounds, $run_seconds s timed per run,"
    echo "stacks interleaved in every round. kept: ops/s next to the neighbour / alone; p99 x: p99 growth."
    if grep -q '^matrix,' "$summary"; then
        echo
        echo "== Tenant matrix: A on CPU 0 next to B on CPU 1 (A's rows; B's are in the CSV) =="
        echo "mds %, osd %: CPU the cluster's MDS and OSD used in the timed part, % of one CPU"
        ratio_table matrix A cluster
        echo
        echo "== The neighbour's own rate: B on CPU 1 next to A, against B's workload alone (as A) =="
        neighbour_table
        if [ -s "$outdir/tenants-paced.txt" ]; then
            echo
            echo "== Calls that waited for their pool's fair share, per run (round stack A/B pool count...) =="
            cat "$outdir/tenants-paced.txt"
        fi
    fi
    if grep -q '^victim,' "$summary"; then
        echo
        echo "== Issue 18: victim (stat + 4 KiB pread, CPU 0) next to a 1 MiB fsync writer (CPU 1) =="
        ratio_table victim victim
        echo "stat p99 (us), alone -> next to the writer:"
        awk -F, '$1 == "victim" && $3 == "victim" {s[$2, $5] = $11; if (!($2 in seen)) {seen[$2]; o[++n] = $2}}
            END {for (i = 1; i <= n; i++) printf "  %-16s %8.1f -> %8.1f\n", o[i], s[o[i], "alone"], s[o[i], "writer"]}' "$summary"
        echo
        echo "== Client and service thread on one core (victim alone) =="
        awk -F, '$1 == "samecore" {printf "  %-32s %10.0f ops/s  p50 %7.1f us  p99 %7.1f us\n", $2, $7, $9, $10}' "$summary"
        if [ -s "$outdir/switch-floor.txt" ]; then
            echo "The floor: a round trip between two processes doing nothing else (bench/switch_floor.c), us:"
            sed 's/^/  /' "$outdir/switch-floor.txt"
        fi
        echo
        echo "== CPU oversubscription: victim in a 2-CPU pool (or on ext4) next to 2 CPU-bound processes =="
        ratio_table oversub victim
    fi
    if grep -q '^scale,' "$summary"; then
        echo
        echo "== Scale: N containers at once (ops/s: total and per container; service CPU: % of one CPU) =="
        printf '%-12s %-14s %4s %12s %14s %12s\n' layout workload N total per-container "service cpu"
        awk -F, '$1 == "scale" && $3 != "service" {k = $2 "," $4 "," $5; if (!(k in t)) o[++n] = k; t[k] += $7; c[k]++}
            $1 == "scale" && $3 == "service" {sub(/ cpu%$/, "", $4); cpu[$2 "," $4 "," $5] = $7}
            END {for (i = 1; i <= n; i++) {split(o[i], f, ","); w = f[2]; sub(/^rocksdb-.*/, "rocksdb", w)
                printf "%-12s %-14s %4s %12.0f %14.0f %11s%%\n", f[1], f[2], substr(f[3], 3), t[o[i]], t[o[i]] / c[o[i]], cpu[f[1] "," w "," f[3]]}}' "$summary"
    fi
} | tee "$outdir/tenants.txt"

# ---- plots ----

# Throughput kept next to each neighbour, per stack: x = workload/neighbour.
awk -F, -v OFS=, '
    $1 == "matrix" && $3 == "A" && $5 == "alone" {alone[$2, $4] = $7}
    $1 == "matrix" && $3 == "A" {
        if (!($2 in s)) {s[$2]; st[++ns] = $2}
        if ($5 != "alone") {x = $4 " / " $5; if (!(x in xs)) {xs[x]; xo[++nx] = x}; ops[x, $2] = $7; wl[x] = $4}
    }
    # A workload alone may come after its rows (a failed first round).
    END {
        line = "case"; for (j = 1; j <= ns; j++) line = line OFS st[j]; print line
        for (i = 1; i <= nx; i++) {
            line = "\"" xo[i] "\""
            for (j = 1; j <= ns; j++) {
                a = alone[st[j], wl[xo[i]]]
                line = line OFS ((a > 0 && (xo[i], st[j]) in ops) ? 100 * ops[xo[i], st[j]] / a : "")
            }
            print line
        }
    }' "$summary" >"$outdir/tenants-kept.csv"
# The neighbour's own rate kept next to A, per stack: x = B's workload /
# A's.
awk -F, -v OFS=, '
    $1 == "matrix" && $3 == "A" && $5 == "alone" {alone[$2, $4] = $7}
    $1 == "matrix" && $3 == "B" {
        if (!($2 in s)) {s[$2]; st[++ns] = $2}
        x = $4 " / " $5; if (!(x in xs)) {xs[x]; xo[++nx] = x}
        ops[x, $2] = $7; wl[x] = $4
    }
    END {
        line = "case"; for (j = 1; j <= ns; j++) line = line OFS st[j]; print line
        for (i = 1; i <= nx; i++) {
            line = "\"" xo[i] "\""
            for (j = 1; j <= ns; j++) {
                a = alone[st[j], wl[xo[i]]]
                line = line OFS ((a > 0 && (xo[i], st[j]) in ops) ? 100 * ops[xo[i], st[j]] / a : "")
            }
            print line
        }
    }' "$summary" >"$outdir/tenants-neighbour-kept.csv"
# The victim's ops/s alone and next to its neighbour, per stack.
pivot_csv '($1 == "oversub" ? $2 " (oversub)" : $2)' '($5 == "alone" ? "alone" : "next to the neighbour")' '$7' \
    '($1 == "victim" || $1 == "oversub") && $3 == "victim"' <"$summary" >"$outdir/tenants-victim.csv"
# p99 latency of every matrix workload alone and next to the noisy neighbour.
pivot_csv '$4 ($5 == "alone" ? " alone" : " + noisy")' '$2' '$10' \
    '$1 == "matrix" && $3 == "A" && ($5 == "alone" || $5 == "noisy")' <"$summary" >"$outdir/tenants-p99.csv"
# Scale: total ops/s against N, one line per layout and workload.
pivot_csv 'substr($5, 3)' '$2 ": " $4' '$7' '$1 == "scale" && $3 != "service"' <"$summary" |
    sed 's/^"\([0-9]*\)"/\1/' >"$outdir/tenants-scale.csv"
plot_if_any() { # KIND CSV ARGS...
    [ "$(wc -l <"$2")" -gt 1 ] || return 0
    "$repo/bench/plot.sh" "$1" "$2" "${2%.csv}.png" "${@:3}"
}
plot_if_any bars "$outdir/tenants-kept.csv" \
    "Throughput kept next to a neighbour (workload / neighbour), % of alone" "% of alone"
plot_if_any bars "$outdir/tenants-neighbour-kept.csv" \
    "The neighbour's own throughput kept next to A (neighbour / A's workload), % of alone" "% of alone"
plot_if_any bars "$outdir/tenants-victim.csv" \
    "Victim ops/s alone and next to a neighbour (writer; oversub: 2 CPU-bound processes)" "ops/s" log
plot_if_any bars "$outdir/tenants-p99.csv" \
    "p99 latency per operation, alone and next to the noisy neighbour" "p99 us" log
plot_if_any lines "$outdir/tenants-scale.csv" \
    "Scale: total ops/s of N containers at once" "containers (N)" "ops/s" log
say "results in $outdir/tenants.txt, tenants.csv, tenants-summary.csv and tenants-*.png"
