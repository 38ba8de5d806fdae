#!/bin/sh
# A pool whose FUSE door takes requests over io_uring (pool create
# --fuse-io-uring on; fsservice/doors/fuse_uring.h): a static container
# runs, writes, lists and removes through it; and a crash of the pool's
# danausd ends the running container's root (such mounts are not kept,
# docs/recovery.md) while the restarted service serves new containers.
# Usage: uring.sh DANAUS. Needs root, /dev/fuse, busybox-static; exits 77
# (skipped) on a kernel without FUSE over io_uring.
set -u
danaus=$1
. "$(dirname "$0")/../lib.sh"
uring_enable
work=$(mktemp -d /tmp/danaus-uring-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
trap 'remove_containers_and_pools; rm -rf "$work"' EXIT

busybox_image bb sh cat echo sleep ls rm mkdir paste xargs || exit 1
mkdir -p "$work/back"
"$danaus" pool create u --cpus 0-1 --memory 256M --backend "local:$work/back" \
    --fuse-io-uring on || exit 1
conf=$DANAUS_STATE/pools/u/danausd.conf

log=$DANAUS_STATE/pools/u/danausd.log
check "the pool's service takes its FUSE requests over io_uring" \
    "fuse_io_uring on|yes" \
    "$(grep '^fuse_io_uring' "$conf")|$(grep -q 'FUSE requests over io_uring' "$log" && echo yes)"
check "a static container writes, lists, reads and removes through it" \
    "a b c|x|gone" \
    "$("$danaus" run --rm --pool u --image bb -- sh -c \
        'mkdir /d && for f in a b c; do echo x > /d/$f; done;
         ls /d | xargs; cat /d/b; rm -r /d; [ -e /d ] || echo gone' |
        paste -sd'|')"

pid=$(cat "$DANAUS_STATE/pools/u/run/u.pid")
"$danaus" run -d --pool u --image bb --name held -- sleep 1000 >/dev/null
root=$DANAUS_STATE/containers/held/root
kill -KILL "$pid"
tries=0
while grep -q " $root fuse" /proc/mounts && [ $tries -lt 100 ]; do
    tries=$((tries + 1)); sleep 0.1
done
check "a crash of its danausd detaches the running container's root" no \
    "$(grep -q " $root fuse" /proc/mounts && echo yes || echo no)"
check "the next container runs on the restarted service" x \
    "$("$danaus" run --rm --pool u --image bb -- sh -c 'echo x > /f && cat /f')"
check "which is a new process" yes \
    "$([ "$(cat "$DANAUS_STATE/pools/u/run/u.pid")" != "$pid" ] && echo yes || echo no)"
[ "$failures" -eq 0 ]
