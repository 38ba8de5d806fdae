#!/bin/sh
# run-isolation.sh - issue 18's isolation cases on the local backend, for
# one or more builds side by side in one run (ratios, not absolute times).
#
#   run-isolation.sh ROUNDS SECONDS TENANT_LOAD NAME=BUILD_DIR...
#
# TENANT_LOAD is bench/tenant_load.c as built (build/bench/tenant-load; its
# `victim` and `writer` modes). bench/run-tenants.sh measures the same
# cases with engine pools and ceph-fuse beside them; this script is the
# quick before/after for one change. For each build, on a 2-cpu machine:
#   two-core   danausd on cpu 1, the victim on cpu 0
#   one-core   danausd started with taskset -c 0, the victim on cpu 0
#   moved      danausd started on cpus 0-1, then taskset -a -p -c 0, the
#              victim on cpu 0
#   shared     one danausd (cpus 0-1): the victim on cpu 0 alone, then
#              next to the writer (1 MiB dd conv=fsync) on cpu 1
#   split      danausd taskset -c 0 and danausd taskset -c 1: the victim on
#              the first alone, then next to the writer on the second
# Each round runs every case of every build once, SECONDS each, so builds
# alternate in time. Prints one line per case and build: the best round's
# ops/s and its stat p99 in microseconds (on a shared machine the best
# round is the least disturbed one), then the ops/s ratio to the first
# build.
# With CEPH_CONF set, the services serve directories of that cluster
# instead of local ones.
# Everything runs at nice $ISOLATION_NICE (default -20), so that other work
# on a shared machine disturbs the cases less; CFS still schedules them.
set -u
nice=${ISOLATION_NICE:--20}

if [ $# -lt 4 ]; then
    echo "usage: run-isolation.sh ROUNDS SECONDS TENANT_LOAD NAME=BUILD_DIR..." >&2
    exit 2
fi
rounds=$1 secs=$2 load=$(realpath "$3")
shift 3

site=$(mktemp -d /tmp/danaus-isolation-XXXXXX) || exit 1
daemons=
cleanup() {
    for p in $daemons; do
        kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    rm -rf "$site"
}
trap cleanup EXIT

# start NAME BUILD TASKSET_CPUS: a danausd serving $site/NAME, no FUSE.
start() {
    mkdir -p "$site/$1/run" "$site/$1/data"
    printf 'service iso-%s-%s\nrundir %s/run\nfuse off\n' \
        "$1" $$ "$site/$1" > "$site/$1/conf"
    if [ -n "${CEPH_CONF:-}" ]; then
        printf 'ceph_conf %s\nmount %s/mnt ceph /\n' "$CEPH_CONF" \
            "$site/$1" >> "$site/$1/conf"
    else
        printf 'mount %s/mnt local %s/data\n' "$site/$1" "$site/$1" \
            >> "$site/$1/conf"
    fi
    : > "$site/$1/log" # never read the last service's ready line
    nice -n "$nice" taskset -c "$3" "$2/fsservice/danausd" -c "$site/$1/conf" \
        2> "$site/$1/log" &
    pid=$!
    daemons="$daemons $pid"
    until grep -q ' ready: ' "$site/$1/log"; do sleep 0.05; done
}
stop_all() {
    for p in $daemons; do
        kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    daemons=
}
# client NAME BUILD CPU MODE: tenant-load MODE in NAME's mount on CPU.
client() {
    nice -n "$nice" taskset -c "$3" env LD_PRELOAD="$2/libfs/libdanaus.so" \
        DANAUS_SERVICE="iso-$1-$$" DANAUS_RUNDIR="$site/$1/run" \
        "$load" "$4" "$site/$1/mnt/$4-$$" "$secs"
}
# report CASE BUILD LINE: ops/s and stat p99 out of tenant-load's line.
report() {
    ops=$(echo "$3" | sed -n 's/.*ops_s=\([0-9.]*\).*/\1/p')
    p99=$(echo "$3" | sed -n 's/.*stat_p99_us=\([0-9.]*\).*/\1/p')
    echo "$1 $2 ${ops:-0} ${p99:-0}" >> "$site/results"
}
# beside NAME BUILD VICTIM_CPU WRITER_NAME: victim next to a writer.
beside() {
    client "$4" "$2" 1 writer > /dev/null 2>&1 &
    writer=$!
    sleep 1
    line=$(client "$1" "$2" "$3" victim)
    kill "$writer" 2>/dev/null
    wait "$writer" 2>/dev/null
    echo "$line"
}

for round in $(seq "$rounds"); do
    for spec in "$@"; do
        name=${spec%%=*} build=$(realpath "${spec#*=}")
        start a "$build" 1
        report two-core "$name" "$(client a "$build" 0 victim)"
        stop_all
        start a "$build" 0
        report one-core "$name" "$(client a "$build" 0 victim)"
        stop_all
        start a "$build" 0-1
        taskset -a -p -c 0 "$pid" > /dev/null
        report moved "$name" "$(client a "$build" 0 victim)"
        stop_all
        start a "$build" 0-1
        report shared-solo "$name" "$(client a "$build" 0 victim)"
        report shared-wr "$name" "$(beside a "$build" 0 a)"
        stop_all
        start a "$build" 0
        start b "$build" 1
        report split-solo "$name" "$(client a "$build" 0 victim)"
        report split-wr "$name" "$(beside a "$build" 0 b)"
        stop_all
    done
done
first=${1%%=*}
awk -v first="$first" '
    { k = $1 " " $2; if (!(k in best) || $3 > best[k]) { best[k] = $3; p99[k] = $4 } }
    !($1 in seen) { seen[$1] = 1; order[n++] = $1 }
    !($2 in bseen) { bseen[$2] = 1; builds[m++] = $2 }
    END {
        for (i = 0; i < n; i++) {
            for (j = 0; j < m; j++) {
                k = order[i] " " builds[j]; f = best[order[i] " " first]
                printf "%-12s %-10s ops/s %10.0f  stat p99 %8.1f us  x%.2f\n",
                       order[i], builds[j], best[k], p99[k],
                       (f > 0 ? best[k] / f : 0)
            }
        }
    }' "$site/results"
