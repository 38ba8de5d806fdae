# lib.sh - what the conformance scripts share (sourced, not run): starting
# and stopping one danausd whose instance is FUSE-mounted.

# service_start DANAUSD CONF LOG MOUNTPOINT: starts danausd -c CONF, its
# output in LOG, and waits until it is ready and MOUNTPOINT is its FUSE
# mount. Sets $daemon. Returns 1 (printing LOG) when it does not start.
service_start() {
    "$1" -c "$2" > "$3" 2>&1 &
    daemon=$!
    tries=0
    until grep -q ' ready: ' "$3" && grep -q " $4 fuse" /proc/mounts; do
        tries=$((tries + 1))
        if [ $tries -gt 300 ] || ! kill -0 "$daemon" 2>/dev/null; then
            echo "danausd did not start; its log:"
            cat "$3"
            return 1
        fi
        sleep 0.1
    done
}

# service_stop: SIGTERM to $daemon, and wait for it.
service_stop() {
    [ -n "$daemon" ] && kill -TERM "$daemon" 2>/dev/null
    [ -n "$daemon" ] && wait "$daemon" 2>/dev/null
    daemon=
}

# unmount_left MOUNTPOINT...: detaches FUSE mounts a dead service left.
unmount_left() {
    for m in "$@"; do
        grep -q " $m fuse" /proc/mounts && umount -l "$m"
    done
    return 0
}
