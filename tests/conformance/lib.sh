# lib.sh - what the conformance scripts share (sourced, not run): a site
# for one danausd whose instance is FUSE-mounted (started and stopped with
# tests/lib.sh).

. "$(dirname "$0")/../lib.sh"


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
        # Other users act through the FUSE door too (identity changes, the
        # test users): open it to them, as a multi-user host would.
        echo "fuse_allow_other on"
        case $2 in
        local) echo "mount $mnt local $site/backing" ;;
        ceph) echo "ceph_conf $3"
              echo "mount $mnt ceph /$1-$(hostname)-$$" ;;
        *) echo "unknown backend $2" >&2; return 1 ;;
        esac
    } > "$site/danausd.conf"
}

# reference_make local|ceph CEPH_CONF NAME: $ref, a directory of the
# kernel's client of the backend to compare with: $site/plain on the host
# (ext4) for local, for Ceph a directory NAME-ref-PID of a ceph-fuse mount
# of the cluster at $site/cephfuse. $site/plain is made either way.
reference_make() {
    mkdir "$site/plain" || return 1
    ref=$site/plain
    [ "$1" = local ] && return 0
    mkdir "$site/cephfuse" || return 1
    ceph-fuse -c "$2" -r / "$site/cephfuse" > "$site/ceph-fuse.log" 2>&1 ||
        { echo "ceph-fuse failed:"; cat "$site/ceph-fuse.log"; return 1; }
    ref=$site/cephfuse/$3-ref-$$
    mkdir "$ref"
}

# reference_remove local|ceph: removes what reference_make made in Ceph.
reference_remove() {
    [ "$1" = ceph ] && rm -rf "$ref" && umount "$site/cephfuse"
    return 0
}

# reference_cleanup local|ceph: at the end of a script that made a site
# (with a union at $site/union, or not) and a reference, what it leaves:
# the service stopped, the reference and the mounts gone, the site
# removed.
reference_cleanup() {
    service_stop
    reference_remove "$1"
    unmount_left "$mnt" "$site/union"
    rm -rf "$site"
}

# plain COMMAND...: runs COMMAND without the preload (through the FUSE door
# on the mount); pre COMMAND...: under the preload, as a client of
# $service whose library is $lib. Bounded: a broken door must fail the
# test, not hang it.
plain() { timeout 20 env -u LD_PRELOAD -u DANAUS_SERVICE -u DANAUS_RUNDIR "$@"; }
pre() {
    timeout 20 env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
