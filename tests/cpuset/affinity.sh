#!/bin/sh
# affinity.sh - danausd keeps to the cpus it is given (issue 18).
#
#   affinity.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|-
#
# Starts danausd, with the FUSE door on, under each way of giving it cpus,
# loads it with clients (enough at once that crews grow), and checks every
# thread's Cpus_allowed_list (/proc/PID/task/*/status) against the set:
#  - started under taskset -c LAST: every thread on LAST, and `ready` names it;
#  - started in a cgroup cpuset of cpu LAST (v2 where it has the cpuset
#    controller, v1 otherwise, as engine/cgroup.c does; skipped where no
#    cpuset hierarchy is mounted, as under `ip netns exec`);
#  - a configuration `cpus LAST` under an affinity of all cpus;
#  - a configuration `cpus` naming a cpu outside its affinity is refused
#    with the file and line, exit 1;
#  - a thread that ran a long call on its client's cpu is back on all of
#    the service's cpus after it;
#  - all threads moved to cpu 0 after start (taskset -a -p): threads added
#    afterwards stay there too.
# Needs two cpus or more (skips, exit 77, on one). Exit 0 when every check
# passed.
set -u

if [ $# -ne 4 ]; then
    echo "usage: affinity.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") backend=$3 ceph_conf=$4

ncpus=$(nproc --all)
if [ "$(nproc)" -lt 2 ]; then
    echo "skip: needs two cpus"
    exit 77
fi
last=$((ncpus - 1))
all="0-$last"

site=$(mktemp -d /tmp/danaus-cpuset-XXXXXX) || exit 1
mnt=$site/mnt
service="cpuset-$$"
cgname="danaus-test-$$"
mkdir "$site/run" "$site/backing" || exit 1
# write_conf [EXTRA_LINE]
write_conf() {
    {
        echo "service $service"
        echo "rundir $site/run"
        echo "threads_per_queue 4"
        case $backend in
        local) echo "mount $mnt local $site/backing" ;;
        ceph) echo "ceph_conf $ceph_conf"
              echo "mount $mnt ceph /cpuset-$(hostname)-$$" ;;
        *) echo "unknown backend $backend" >&2; exit 2 ;;
        esac
        [ $# -gt 0 ] && echo "$1"
    } > "$site/danausd.conf"
}

pre() {
    timeout 60 env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}

. "$(dirname "$0")/../lib.sh"
daemon=
# start COMMAND...: runs danausd -c CONF through COMMAND, waits for ready.
start() {
    : > "$site/danausd.log"
    service_start "$site/danausd.log" "" "$@" "$danausd" -c "$site/danausd.conf"
}
stop() {
    [ -n "$daemon" ] || return 0
    kill -TERM "$daemon" 2>/dev/null
    tries=0
    while kill -0 "$daemon" 2>/dev/null; do
        tries=$((tries + 1))
        [ $tries -gt 100 ] && kill -KILL "$daemon"
        sleep 0.1
    done
    wait "$daemon" 2>/dev/null
    daemon=
    grep -q " $mnt fuse" /proc/mounts && umount -l "$mnt"
    return 0
}

cg_dir=
cleanup() {
    stop
    if [ -n "$cg_dir" ]; then
        rmdir "$cg_dir" 2>/dev/null
    fi
    rm -rf "$site"
}
trap cleanup EXIT

# Clients at once, several threads' worth of requests in the queue, so the
# crews grow and the FUSE door starts its loop threads.
load() {
    pids=
    for i in 1 2 3 4; do
        pre sh -c "dd if=/dev/zero of=$mnt/f$i bs=256k count=64 2>/dev/null;
                   cat $mnt/f$i > /dev/null; ls $mnt > /dev/null" &
        pids="$pids $!"
    done
    ls "$mnt" > /dev/null
    cat "$mnt/f1" > /dev/null 2>&1
    wait $pids
}

# expand LIST: the cpu numbers of a kernel cpu list, one per line.
expand() {
    echo "$1" | tr ',' '\n' | while IFS=- read -r lo hi; do
        seq "$lo" "${hi:-$lo}"
    done
}
# subset A B: every cpu of list A is in list B.
subset() {
    expand "$2" > "$site/b"
    for c in $(expand "$1"); do
        grep -qx "$c" "$site/b" || return 1
    done
}

# check_threads NAME ALLOWED: every thread of danausd within ALLOWED, and
# more than the main thread looked at.
check_threads() {
    n=0 bad=
    for status in /proc/"$daemon"/task/*/status; do
        list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$status")
        [ -n "$list" ] || continue
        n=$((n + 1))
        subset "$list" "$2" ||
            bad="$bad $(sed -n 's/^Name:[[:space:]]*//p' "$status"):$list"
    done
    if [ $n -lt 4 ]; then
        fail "$1: only $n threads seen"
    elif [ -n "$bad" ]; then
        fail "$1: threads outside cpus $2:$bad"
    else
        ok "$1: all $n threads within cpus $2"
    fi
}

# 1. taskset at start.
write_conf
if start taskset -c "$last"; then
    load
    check_threads "taskset -c $last" "$last"
    if grep -q " ready: .*cpus $last, 1 queues: $last," "$site/danausd.log"
    then ok "ready names cpus $last and its queue"
    else fail "ready line: $(grep ' ready: ' "$site/danausd.log")"; fi
    stop
else
    fail "start under taskset"
fi

# 2. A cgroup cpuset.
if grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    echo "+cpuset" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
    cg_dir=/sys/fs/cgroup/$cgname
    mkdir "$cg_dir" && echo "$last" > "$cg_dir/cpuset.cpus"
    procs=$cg_dir/cgroup.procs
elif [ -d /sys/fs/cgroup/cpuset ]; then
    cg_dir=/sys/fs/cgroup/cpuset/$cgname
    mkdir "$cg_dir" && echo "$last" > "$cg_dir/cpuset.cpus" &&
        cat /sys/fs/cgroup/cpuset/cpuset.mems > "$cg_dir/cpuset.mems"
    procs=$cg_dir/tasks
fi
if [ -n "$cg_dir" ] && [ -d "$cg_dir" ]; then
    if start sh -c 'echo $$ > "$0" && exec "$@"' "$procs"; then
        load
        check_threads "cgroup cpuset $last" "$last"
        stop
    else
        fail "start in a cgroup cpuset"
    fi
    rmdir "$cg_dir" || fail "cgroup $cg_dir left behind"
    cg_dir=
else
    # `ip netns exec` mounts a sysfs of its own, without /sys/fs/cgroup.
    echo "skip: cgroup cpuset: no cpuset hierarchy mounted here"
fi

# 3. cpus in the configuration, a subset of the affinity.
write_conf "cpus $last"
if start taskset -c "$all"; then
    load
    check_threads "config cpus $last" "$last"
    stop
else
    fail "start with cpus $last"
fi

# 4. cpus in the configuration that are not all allowed: refused, with the
# line that says so.
write_conf "cpus $all"
line=$(grep -n '^cpus' "$site/danausd.conf" | cut -d: -f1)
out=$(taskset -c "$last" "$danausd" -c "$site/danausd.conf" 2>&1)
rc=$?
want="danausd: $site/danausd.conf:$line: cpus $all: danausd may run on cpus $last only"
if [ $rc -eq 1 ] && [ "$out" = "$want" ]; then
    ok "cpus $all outside taskset -c $last refused"
else
    fail "cpus outside the affinity: exit $rc, [$out], want [$want]"
fi
out=$(taskset -c "$last" "$danausd" -c "$site/danausd.conf" --check 2>&1)
[ $? -eq 1 ] && ok "--check refuses it too" || fail "--check: [$out]"

# 4b. A thread that ran a long call on its client's cpu (the writes of
# load) goes back to all of the service's cpus after it: none is left on
# one cpu.
write_conf
if start taskset -c "$all"; then
    load
    pinned=
    for status in /proc/"$daemon"/task/*/status; do
        list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$status")
        [ -n "$list" ] && [ "$list" != "$all" ] && pinned="$pinned $list"
    done
    expect "after long calls, every thread on cpus $all" "" "$pinned"
    stop
else
    fail "start on all cpus"
fi

# 5. Shrunk after start: threads added later keep to what is left.
write_conf
if start taskset -c "$all"; then
    taskset -a -p -c 0 "$daemon" > /dev/null
    load
    check_threads "moved to cpu 0 after start" 0
    stop
else
    fail "start on all cpus"
fi

echo "$failures failed"
[ $failures -eq 0 ]
