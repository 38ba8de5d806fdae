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

# site_make NAME local|ceph CEPH_CONF: a fresh directory $site (mode 755,
# so other users' clients reach its socket) with run/ and backing/, and
# $site/danausd.conf for service $service serving mount point $mnt from
# the backend; a script may append lines to the configuration.
site_make() {
    site=$(mktemp -d "/tmp/danaus-$1-XXXXXX") || return 1
    chmod 755 "$site"
    mnt=$site/mnt
    service="$1-$$"
    mkdir "$site/run" "$site/backing" || return 1
    {
        echo "service $service"
        echo "rundir $site/run"
        case $2 in
        local) echo "mount $mnt local $site/backing" ;;
        ceph) echo "ceph_conf $3"
              echo "mount $mnt ceph /$1-$(hostname)-$$" ;;
        *) echo "unknown backend $2" >&2; return 1 ;;
        esac
    } > "$site/danausd.conf"
}
