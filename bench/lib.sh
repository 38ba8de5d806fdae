# lib.sh - what the bench/run-*.sh scripts share: waiting for a condition,
# a Ceph cluster to run against, and one quiet client configuration for
# every Ceph client of a run. Sourced after the script has defined say, die
# and the variables repo and work.

# Waits up to $1 seconds for the command after it to succeed.
wait_until() {
    local limit=$1
    shift
    local end=$((SECONDS + limit))
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.2
    done
}

# Sets conf: CEPH_CONF's cluster, or one started in $work/ceph (then
# cluster_dir names it, for the script's cleanup to stop).
use_ceph_cluster() {
    if [ -n "${CEPH_CONF:-}" ]; then
        conf=$CEPH_CONF
        [ -r "$conf" ] || die "CEPH_CONF=$conf is not readable"
    else
        cluster_dir=$work/ceph
        conf=$("$repo/deploy/ceph-cluster.sh" start "$cluster_dir") \
            || { cluster_dir=""; die "cannot start a Ceph cluster (one running already? pass CEPH_CONF)"; }
    fi
}

# Sets bench_conf: a copy of $conf for every Ceph client of the run, with
# client-side debug levels 0/0 unless BENCH_CEPH_DEBUG=keep (Ceph's default
# in-memory logging wakes its log thread on nearly every call: Ceph's
# overhead, not the path measured).
quiet_client_conf() {
    bench_conf=$work/ceph.conf
    cp "$conf" "$bench_conf"
    [ "${BENCH_CEPH_DEBUG:-}" = keep ] && return
    {
        echo "[client]"
        for s in client objectcacher objecter ms monc auth journaler \
                 finisher context rados crush asok perfcounter; do
            echo "debug $s = 0/0"
        done
    } >>"$bench_conf"
}
