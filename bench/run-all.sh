#!/bin/bash
# run-all.sh - reproduces every figure of docs/performance.md from
# a fresh clone in one command: installs the dependencies, builds, and runs
# every bench script in a network namespace of its own (each starts its own
# Ceph cluster on Ceph's default ports), writing tables, CSV and PNG plots
# to one directory with a description of the machine. Never run by CI.
#
#   bench/run-all.sh [--fast] [--out DIR] [--build DIR] [--no-build]
#                    [--only NAMES]
#
#   --fast    a quick look: one round or batch each, short runs, fewer sizes
#             (about 22 min instead of about 110)
#   --out     where results go (default bench/results)
#   --build   the build tree (default build); it is configured and built
#   --no-build  use the build tree as it is (the `bench` target's way)
#   --only    a comma-separated subset of core,union,containers,lighttpd,
#             workloads,workloads-neighbour,tenants
#
# Needs root (cgroups, namespaces, mounts), as the scripts it runs do.
set -euo pipefail

say() { echo "run-all: $*" >&2; }
die() { say "error: $*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
fast=""
out=$repo/bench/results
build=$repo/build
only=core,union,containers,lighttpd,workloads,workloads-neighbour,tenants
no_build=""
while [ $# -gt 0 ]; do
    case $1 in
    --fast) fast=1 ;;
    --out) out=$2; shift ;;
    --build) build=$2; shift ;;
    --no-build) no_build=1 ;;
    --only) only=$2; shift ;;
    *) die "unknown option '$1' (see the comment at the top)" ;;
    esac
    shift
done
[ "$(id -u)" -eq 0 ] || die "run as root: the benchmarks make cgroups, namespaces and mounts"

# Each step: name, minutes it takes in the full and the fast mode (measured
# on the 2-core machine of bench/results/machine.txt), and its command.
steps=()
add_step() { # NAME FULL_MIN FAST_MIN
    case ",$only," in *",$1,"*) steps+=("$1 $2 $3") ;; esac
}
add_step core 14 2
add_step union 3 2
add_step containers 8 2
add_step lighttpd 4 2
add_step workloads 9 4
add_step workloads-neighbour 7 3
add_step tenants 67 9

if [ -n "$fast" ]; then
    export REPEATS=1 COUNTS="1 4 16" ROUNDS=1 RUN_SECONDS=3 START_DELAY=4 \
        WORKLOADS="fileserver noisy" LIMIT_WORKLOADS=noisy TARGET_WORKLOADS=noisy \
        SCALE_COUNTS="1 4" \
        SCALE_WORKLOADS=fileserver \
        BENCH_ARGS="--iters 2000 --meta-iters 100"
fi

left_min() { # FROM_INDEX
    local i total=0 col=2
    [ -n "$fast" ] && col=3
    for ((i = $1; i < ${#steps[@]}; i++)); do
        total=$((total + $(echo "${steps[$i]}" | cut -d' ' -f"$col")))
    done
    echo "$total"
}

started=$SECONDS
say "$((${#steps[@]} + 2)) steps, about $(($(left_min 0) + 3)) min in all${fast:+ (fast mode)}"

say "[1] dependencies (deploy/install-deps.sh)"
"$repo/deploy/install-deps.sh"

if [ -z "$no_build" ]; then
    say "[2] building in $build"
    cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j"$(nproc)" --target danausd danaus danaus_engine \
        danaus-bench tenant-load switch-floor >/dev/null
fi

# The lighttpd step's Debian image comes from Debian's mirror, which the
# namespace below cannot reach: made (or found in the cache) first.
case ",$only," in *,lighttpd,*)
    say "the Debian image of the lighttpd step (mmdebstrap, cached)"
    "$repo/tests/engine/images.sh" fill-cache "$build/engine-image-cache" >&2 ||
        die "no Debian image for the lighttpd step" ;;
esac
case ",$only," in *,workloads,* | *,workloads-neighbour,*)
    say "the Debian image of the workloads step (mmdebstrap, cached)"
    "$repo/bench/run-workloads.sh" --fill-cache "$build" ||
        die "no Debian image for the workloads step" ;;
esac

# The namespace: its own loopback, so its Ceph cluster's ports are its own.
netns=danaus-bench-$$
ip netns add "$netns"
trap 'ip netns del "$netns" 2>/dev/null' EXIT
ip netns exec "$netns" ip link set lo up
# nsenter joins only the network namespace; `ip netns exec` would also
# remount /sys, hiding the cgroup hierarchies the engine needs.
in_netns() { nsenter --net="/run/netns/$netns" "$@"; }

mkdir -p "$out"
out=$(cd "$out" && pwd -P)
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
{
    echo "Date (UTC):   $(date -u '+%Y-%m-%d %H:%M')"
    echo "Commit:       $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "Mode:         ${fast:+fast}${fast:-full}"
    echo "Kernel:       $(uname -sr)"
    echo "CPU:          $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    echo "Memory:       $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "Ceph:         $(ceph --version 2>/dev/null | cut -d' ' -f1-3), single-node cluster (memstore OSD) on loopback"
    echo "Settings:     $(env | grep -E '^(ROUNDS|RUN_SECONDS|START_DELAY|WORKLOADS|STACKS|PARTS|SCALE_COUNTS|SCALE_WORKLOADS|REPEATS|COUNTS|BENCH_ARGS|CEPH_CPUS)=' | sort | xargs -d '\n' echo || true)"
    echo "Load average before: $(loadavg)"
} >"$out/machine.txt"

n=2
for ((i = 0; i < ${#steps[@]}; i++)); do
    name=${steps[$i]%% *}
    n=$((n + 1))
    say "[$n] run-$name.sh (about $(echo "${steps[$i]}" | cut -d' ' -f"$([ -n "$fast" ] && echo 3 || echo 2)") min; $(left_min "$i") min left; $(((SECONDS - started) / 60)) min so far)"
    in_netns "$repo/bench/run-$name.sh" "$out" "$build" >"$out/run-$name.log" 2>&1 ||
        die "run-$name.sh failed; see $out/run-$name.log"
    echo "Load average after run-$name.sh: $(loadavg)" >>"$out/machine.txt"
done
say "done in $(((SECONDS - started) / 60)) min: tables (*.txt), CSV and plots (*.png) in $out"
