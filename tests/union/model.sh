#!/bin/bash
# model.sh - the randomized model test of partial copy-up: rounds of
# union_model (a long random sequence of writes, appends, truncates and
# reads, checked against a model) on a lower file of a Danaus union, with
# danausd killed (SIGKILL) in the middle of every round but the first and
# restarted; the file must then hold every acknowledged op.
#
#   model.sh DANAUSD LIBDANAUS UNION_MODEL local|ceph CEPH_CONF|- ROUNDS OPS
#
# Local: the branches are host directories. Ceph: they are directories of
# CephFS made through a raw mount of the same service, and each change is
# fsynced before union_model acknowledges it (libcephfs caches writes in
# danausd, so a write is durable at fsync; see union_model.c).
#
# The kill lands after a random number of acknowledged ops, in the first
# half of the sequence, while the copy is likely still partial (union_model
# appends each to a log, which this script watches). Each round uses its
# own lower file, so every round starts from a fresh partial copy. The
# file's st_ino must stay the lower file's through the restart too.
set -u
if [ $# -ne 7 ]; then
    echo "usage: model.sh DANAUSD LIBDANAUS UNION_MODEL local|ceph CEPH_CONF|- ROUNDS OPS" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") model=$(realpath "$3")
backend=$4 ceph_conf=$5 rounds=$6 ops=$7

site=$(mktemp -d /tmp/danaus-union-model-XXXXXX) || exit 1
mkdir "$site/run"
service="union-model-$$"
mnt=/danaus-union-model
raw=/danaus-union-model-raw
cephdir="/union-model-$(hostname)-$$"
sync=""
{
    echo "service $service"
    echo "rundir $site/run"
    echo "fuse off"
    case $backend in
    local)
        mkdir "$site/up" "$site/low"
        echo "union $mnt local $site/up $site/low" ;;
    ceph)
        sync=sync
        echo "ceph_conf $ceph_conf"
        echo "mount $raw ceph /"
        echo "union $mnt ceph $cephdir/up $cephdir/low" ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
    esac
} > "$site/danausd.conf"

. "$(dirname "$0")/../lib.sh"
daemon=""
start_service() {
    service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf" \
        >&2 || exit 1
}
danaus() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
cleanup() {
    if [ "$backend" = ceph ] && [ -z "$daemon" ]; then
        start_service
    fi
    [ "$backend" = ceph ] && danaus rm -rf "$raw$cephdir"
    service_stop
}
trap cleanup EXIT

# The lower files, before the union looks at its branches.
if [ "$backend" = local ]; then
    for r in $(seq "$rounds"); do
        "$model" prepare "$site/low/f$r" "$r" || exit 1
    done
    start_service
else
    start_service
    danaus mkdir -p "$raw$cephdir/up" "$raw$cephdir/low" || exit 1
    for r in $(seq "$rounds"); do
        danaus "$model" prepare "$raw$cephdir/low/f$r" "$r" || exit 1
    done
fi

failed=0
for r in $(seq "$rounds"); do
    log=$site/acked.$r
    : > "$log"
    ino=$(danaus stat -c %i "$mnt/f$r")
    if [ "$r" -eq 1 ]; then
        # A whole sequence, no kill: its reads check every state.
        danaus "$model" run "$mnt/f$r" "$r" "$ops" "$log" $sync ||
            failed=1
        echo "round $r: $(wc -l < "$log") of $ops ops, no kill"
    else
        kill_after=$((RANDOM % (ops / 2))) # early: the copy still partial
        # The state at the kill is what is checked: the client must not
        # wait for the next service and go on (libfs/resume.h).
        DANAUS_RESTART_WAIT_MS=0 danaus "$model" run "$mnt/f$r" "$r" "$ops" \
            "$log" $sync 2> "$site/run.$r.err" &
        client=$!
        while [ "$(wc -l < "$log")" -le "$kill_after" ] &&
              kill -0 "$client" 2>/dev/null; do
            sleep 0.005
        done
        kill -KILL "$daemon"
        wait "$daemon" 2>/dev/null
        daemon=""
        # The client's calls now fail; it may also wait on the ring.
        kill -KILL "$client" 2>/dev/null
        wait "$client" 2>/dev/null
        start_service
        if [ "$backend" = local ]; then
            state=$("$model" state "$site/up/f$r")
        else
            state=$(danaus "$model" state "$raw$cephdir/up/f$r")
        fi
        echo "round $r: killed danausd after $(wc -l < "$log") of $ops" \
             "acknowledged ops (aimed at $kill_after), the copy $state"
    fi
    danaus "$model" check "$mnt/f$r" "$r" "$log" || failed=1
    now=$(danaus stat -c %i "$mnt/f$r")
    if [ "$now" != "$ino" ]; then
        echo "round $r: st_ino $now at the end, $ino before the copy-up"
        failed=1
    fi
done
if [ $failed -ne 0 ]; then
    echo "danausd log:"
    cat "$site/danausd.log"
    echo "site kept: $site"
    echo "FAILED"
    exit 1
fi
cleanup
trap - EXIT
rm -rf "$site"
echo "all $rounds rounds match the model"
