# lib.sh - what the shell tests share (sourced, not run): checks that
# print "ok"/"FAIL" and count failures, running a program as another
# user, and starting and stopping one danausd.

failures=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect NAME EXPECTED ACTUAL
expect() {
    if [ "$2" = "$3" ]; then ok "$1"; else
        fail "$1: expected [$2], got [$3]"; fi
}

# nobody COMMAND...: COMMAND as uid and gid 65534, no supplementary
# groups, without the preload (so through a FUSE door: nobody cannot
# attach to a service's socket), bounded.
nobody() {
    timeout 30 env -u LD_PRELOAD -u DANAUS_SERVICE -u DANAUS_RUNDIR \
        setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# service_start LOG MOUNTPOINT COMMAND...: runs COMMAND (danausd -c CONF,
# perhaps under taskset), its output appended to LOG, and waits until it
# says ready once more than LOG said before (a restart logs to the same
# file) and, unless MOUNTPOINT is "", MOUNTPOINT is its FUSE mount. Sets
# $daemon. Returns 1, printing LOG, when it does not start within 60 s.
service_start() {
    _log=$1 _mnt=$2
    shift 2
    _before=$(cat "$_log" 2>/dev/null | grep -c ' ready: ')
    "$@" >> "$_log" 2>&1 &
    daemon=$!
    _tries=0
    until [ "$(grep -c ' ready: ' "$_log")" -gt "$_before" ] &&
          { [ -z "$_mnt" ] || grep -q " $_mnt fuse" /proc/mounts; }; do
        _tries=$((_tries + 1))
        if [ $_tries -gt 600 ] || ! kill -0 "$daemon" 2>/dev/null; then
            echo "danausd did not start; its log:"
            cat "$_log"
            daemon=
            return 1
        fi
        sleep 0.1
    done
}

# unmount_left MOUNTPOINT...: detaches FUSE mounts a dead service left.
unmount_left() {
    for m in "$@"; do
        grep -q " $m fuse" /proc/mounts && umount -l "$m"
    done
    return 0
}

# site_remove: what a test that ran one danausd at $mnt from $site leaves:
# the service stopped, its FUSE mount gone, the site removed.
site_remove() {
    service_stop
    grep -q " $mnt fuse" /proc/mounts && umount -l "$mnt"
    rm -rf "$site"
}

# service_stop: SIGTERM to $daemon, and wait for it.
service_stop() {
    [ -n "$daemon" ] && kill -TERM "$daemon" 2>/dev/null
    [ -n "$daemon" ] && wait "$daemon" 2>/dev/null
    daemon=
}

# uring_enable lets this kernel's FUSE connections take requests over
# io_uring (the fuse module's enable_uring, a host setting that changes
# nothing for connections that do not ask), or exits 77, which ctest
# counts as skipped, on a kernel without it. With FUSE_DOOR_CONF
# "fuse_io_uring on" (the FUSE tests' ring runs), uring_allow does so,
# and uring_check LOG expects the service's log to say its requests came
# over io_uring, with no queue that failed.
uring_on() { case ${FUSE_DOOR_CONF:-} in *"fuse_io_uring on"*) return 0 ;; esac; return 1; }
uring_allow() {
    uring_on || return 0
    uring_enable
}
uring_enable() {
    param=/sys/module/fuse/parameters/enable_uring
    if ! [ -w "$param" ] || ! echo Y > "$param"; then
        echo "skipped: this kernel has no FUSE over io_uring"
        exit 77
    fi
}
uring_check() {
    uring_on || return 0
    expect "requests over io_uring, every queue registered" "1 0" \
        "$(grep -c 'FUSE requests over io_uring' "$1") $(grep -c 'io_uring, queue\|io_uring not started' "$1")"
}
