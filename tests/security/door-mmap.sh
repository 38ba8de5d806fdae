#!/bin/bash
# door-mmap.sh - an attach never waits for the service's mmap_lock
# (client.h): the door's thread makes no system call that takes it as a
# writer (mmap, munmap, mprotect, madvise, mremap, brk) while processes
# attach and detach, one after another and in bursts of hellos sent
# together (more than the spares made ahead), so that no service thread holding that lock inside a
# page fault, however long it is kept from a cpu, can hold up the next
# program's start. Traced with the kernel's syscall events, filtered to
# the door's thread, in a tracing instance of the test's own; the door's
# replies (sendmsg) are traced too, so an empty trace is a trace that saw
# the attaches.
#
#   door-mmap.sh DANAUSD LIBDANAUS HELLO_BURST
#
# Local backend, run as root. Prints "ok"/"FAIL" per check; exit 0 when
# all passed.
set -u

if [ $# -ne 3 ]; then
    echo "usage: door-mmap.sh DANAUSD LIBDANAUS HELLO_BURST" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") burst=$(realpath "$3")
. "$(dirname "$0")/../lib.sh"

site=$(mktemp -d /tmp/danaus-doormm-XXXXXX) || exit 1
mnt=$site/mnt
service="doormm-$$"
mkdir "$site/run" "$site/backing" "$mnt" || exit 1
echo hello > "$site/backing/file"
cat > "$site/danausd.conf" <<CONF
service $service
rundir $site/run
fuse off
mount $mnt local $site/backing
CONF
trace=/sys/kernel/tracing/instances/danaus-doormm-$$
cleanup() {
    [ -d "$trace" ] && rmdir "$trace"
    site_remove
}
trap cleanup EXIT

mountpoint -q /sys/kernel/tracing ||
    mount -t tracefs tracefs /sys/kernel/tracing
service_start "$site/log" "" "$danausd" -c "$site/danausd.conf" || exit 1

door=
for t in /proc/$daemon/task/*; do
    [ "$(cat "$t/comm")" = danaus-door ] && door=${t##*/}
done
[ -n "$door" ] && ok "the door's thread is named" ||
    { fail "no thread named danaus-door"; exit 1; }

# n processes, each attaching for one stat and detaching at its exit.
attaches() {
    for _ in $(seq "$1"); do
        env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
            DANAUS_RUNDIR="$site/run" cat "$mnt/file" || return 1
    done
}
expect "a preloaded program reads through the service" \
    "hello" "$(attaches 1)"
attaches 10 > /dev/null # the door's own first allocations

mkdir "$trace" ||
    { fail "a tracing instance for the door's calls not made"; exit 1; }
calls="mmap munmap mprotect madvise mremap brk sendmsg"
for c in $calls; do
    echo "common_pid == $door" > "$trace/events/syscalls/sys_enter_$c/filter"
    echo 1 > "$trace/events/syscalls/sys_enter_$c/enable"
done
attaches 100 > /dev/null
bursts=
for _ in 1 2 3 4 5; do
    bursts="$bursts$("$burst" "$site/run/$service.sock" 16 2>&1);"
done
for c in $calls; do
    echo 0 > "$trace/events/syscalls/sys_enter_$c/enable"
done
seen=$(grep -o 'sys_[a-z]*(' "$trace/trace" | sort | uniq -c)
replies=$(grep -c 'sys_sendmsg(' "$trace/trace")
[ "$replies" -ge 180 ] && ok "the trace saw the door answer 180 hellos" ||
    fail "the door's replies traced: $replies, expected at least 180"
expect "five bursts of 16 hellos, each answered with a client" \
    "$(printf 'attached 16 of 16;%.0s' 1 2 3 4 5)" "$bursts"
expect "the door's mmap, munmap, mprotect, madvise, mremap and brk" \
    "" "$(echo "$seen" | grep -v sys_sendmsg)"

grep -q "ready" "$site/log" && kill -0 "$daemon" &&
    ok "the service still runs" || fail "the service died"
echo "$failures failures"
[ "$failures" -eq 0 ]
