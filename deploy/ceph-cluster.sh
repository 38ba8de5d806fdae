#!/bin/bash
# ceph-cluster.sh - a throw-away single-node Ceph cluster on 127.0.0.1 for
# Danaus's tests and demos.
#
#   ceph-cluster.sh start DIR   start (or find running) the cluster kept in DIR;
#                               prints the absolute path of DIR/ceph.conf
#   ceph-cluster.sh stop DIR    stop its daemons (harmless when stopped)
#   ceph-cluster.sh status DIR  say which daemons run; exit 0 if all do
#
# Everything lives in DIR: ceph.conf, keyring, mon/mgr/osd/mds data, logs,
# pid files, admin sockets. One mon (a), one mgr (x), one memstore OSD (0),
# one MDS (a) and one CephFS "cephfs" over pools of size 1.
# Daemons are plain background processes (no systemd).
#
# Auth is cephx, so a client is only what its key allows (Danaus gives each
# pool a client restricted to its directory). Every daemon has its keyring
# in its data directory; DIR/keyring holds client.admin, and the conf's
# [client] section names it, so a client given only the conf (ceph,
# ceph-fuse, libcephfs) is the admin.
#
# A start after a stop recreates the cluster from nothing: the memstore OSD
# keeps its objects in memory only, so there is no data worth reusing.
# Ports are Ceph's defaults (3300, 6789), so only one such cluster runs on the
# machine at a time: start refuses when another DIR's cluster is running.
#
# CEPH_MEMSTORE_BYTES sets the OSD's size (default 2 GiB); a small one lets
# a test fill the cluster.
#
# Only the path goes to stdout; progress and errors go to stderr.
set -euo pipefail

DAEMONS="mon.a mgr.x osd.0 mds.a"
START_TIMEOUT=90   # seconds for the whole cluster to become usable
CLI_TIMEOUT=15     # seconds for one ceph CLI call

say() { echo "ceph-cluster: $*" >&2; }
die() { say "error: $*"; exit 1; }

usage() {
    echo "usage: $0 start|stop|status DIR" >&2
    exit 2
}

[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2" 2>/dev/null || die "cannot create directory $2"
dir=$(cd "$2" && pwd -P)
conf=$dir/ceph.conf

cli() {
    timeout "$CLI_TIMEOUT" ceph -c "$conf" --connect-timeout 10 "$@"
}

# pid of a daemon of this cluster if it is alive, else nothing.
daemon_pid() {
    local pidfile=$dir/run/$1.pid pid
    [ -r "$pidfile" ] || return 0
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] || return 0
    # The pid must still be a Ceph daemon started with our conf (pids recycle).
    if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "-c $conf "; then
        echo "$pid"
    fi
}

running_count() {
    local n=0 d
    for d in $DAEMONS; do
        [ -n "$(daemon_pid "$d")" ] && n=$((n + 1))
    done
    echo "$n"
}

# The conf path of any Ceph daemon running with a conf other than ours, in
# our network namespace (ports are per namespace).
other_cluster() {
    local p args other
    local mynet
    mynet=$(readlink /proc/self/ns/net)
    for p in $(for b in ceph-mon ceph-osd ceph-mgr ceph-mds; do pgrep -x "$b"; done); do
        # Clusters in other network namespaces have loopbacks of their own.
        [ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = "$mynet" ] || continue
        args=$(tr '\0' '\n' 2>/dev/null <"/proc/$p/cmdline" || true)
        other=$(echo "$args" | sed -n '/^-c$/{n;p;q}')
        if [ "$other" != "$conf" ]; then
            echo "${other:-default conf} (pid $p)"
            return
        fi
    done
}

# The daemons are killed outright: the cluster is recreated at the next start
# and memstore keeps nothing, so a graceful shutdown (the MDS alone spends
# seconds on it) would buy nothing.
stop_cluster() {
    local d pid left=""
    for d in $DAEMONS; do
        pid=$(daemon_pid "$d")
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && left="$left $pid"
    done
    for _ in $(seq 100); do
        local alive=""
        for pid in $left; do
            [ -d "/proc/$pid" ] && alive="$alive $pid"
        done
        left=$alive
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    die "daemons still present 10 s after SIGKILL:$left"
}

write_conf() {
    local fsid=$1
    cat >"$conf" <<EOF
# Written by deploy/ceph-cluster.sh: a loopback test cluster, auth cephx.
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:3300,v1:127.0.0.1:6789]
public addr = 127.0.0.1
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
run dir = $dir/run
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
mon data = $dir/mon/\$id
mgr data = $dir/mgr/\$id
osd data = $dir/osd/\$id
mds data = $dir/mds/\$id
osd objectstore = memstore
memstore device bytes = ${CEPH_MEMSTORE_BYTES:-2147483648}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim allowed = false
mgr initial modules =
# Without these the OSD asks the mon to move itself at boot and dies with
# 'wrong fsid' on this single-node layout.
osd crush update on start = false
osd class update on start = false
[mon]
keyring = $dir/mon/\$id/keyring
[mgr]
keyring = $dir/mgr/\$id/keyring
[osd]
keyring = $dir/osd/\$id/keyring
[mds]
keyring = $dir/mds/\$id/keyring
[client]
keyring = $dir/keyring
EOF
}

# Wait until check() succeeds or the start deadline passes.
wait_for() {
    local what=$1 log=$2
    shift 2
    while ! "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || die "timed out waiting for $what; see $log"
        sleep 0.3
    done
}

spawn() {
    local name=$1 bin=$2 id=$3 out
    shift 3
    out=$dir/log/$name.out
    "$bin" -c "$conf" -i "$id" "$@" >"$out" 2>&1 \
        || die "$name failed to start; see $out and $dir/log/$name.log"
}

alive() { [ -n "$(daemon_pid "$1")" ]; }
mds_active() { cli mds stat | grep -q 'up:active'; }
pgs_active() {
    # "N pgs: N active+clean; ..." once every placement group is serving.
    local s
    s=$(cli pg stat) || return 1
    echo "$s" | grep -Eq '^([0-9]+) pgs: \1 active'
}

# A new key for daemon $1 in its data directory, registered with caps $2...
add_key() {
    local name=$1 keyring
    shift
    keyring=$dir/${name%%.*}/${name#*.}/keyring
    ceph-authtool --create-keyring "$keyring" --gen-key -n "$name" >/dev/null \
        && cli auth add "$name" "$@" -i "$keyring" >/dev/null 2>&1 \
        || die "cannot create the key of $name"
}

create_cluster() {
    local fsid osd_uuid
    deadline=$((SECONDS + START_TIMEOUT))
    rm -rf "${dir:?}"/{mon,mgr,osd,mds,log,run,keyring,mon.keyring,monmap,ceph.conf}
    mkdir -p "$dir"/{mon/a,mgr/x,osd/0,mds/a,log,run}
    fsid=$(uuidgen)
    osd_uuid=$(uuidgen)
    write_conf "$fsid"

    say "creating mon.a"
    # The mon starts knowing its own key and the admin's; the admin then
    # registers the other daemons' keys.
    ceph-authtool --create-keyring "$dir/mon.keyring" --gen-key -n mon. \
        --cap mon 'allow *' >/dev/null
    ceph-authtool --create-keyring "$dir/keyring" --gen-key -n client.admin \
        --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' \
        --cap mgr 'allow *' >/dev/null
    ceph-authtool "$dir/mon.keyring" --import-keyring "$dir/keyring" >/dev/null
    monmaptool --create --fsid "$fsid" \
        --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' "$dir/monmap" >/dev/null
    ceph-mon -c "$conf" -i a --mkfs --monmap "$dir/monmap" \
        --keyring "$dir/mon.keyring" >"$dir/log/mon.a.out" 2>&1 \
        || die "mon.a mkfs failed; see $dir/log/mon.a.out"
    spawn mon.a ceph-mon a
    wait_for "mon.a to answer" "$dir/log/mon.a.log" cli mon stat

    say "starting mgr.x"
    cli auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' \
        mds 'allow *' -o "$dir/mgr/x/keyring" >/dev/null 2>&1 \
        || die "cannot create the key of mgr.x"
    spawn mgr.x ceph-mgr x

    say "creating osd.0 (memstore)"
    [ "$(cli osd create "$osd_uuid")" = 0 ] || die "ceph osd create did not give id 0"
    # mkfs asks the mon for its config, with this key.
    add_key osd.0 osd 'allow *' mon 'allow profile osd' mgr 'allow profile osd'
    ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$osd_uuid" \
        >"$dir/log/osd.0.out" 2>&1 \
        || die "osd.0 mkfs failed; see $dir/log/osd.0.out and $dir/log/osd.0.log"
    cli osd crush add osd.0 1.0 host=localhost root=default >/dev/null 2>&1 \
        || die "cannot add osd.0 to the crush map"
    spawn osd.0 ceph-osd 0
    wait_for "osd.0 to come up" "$dir/log/osd.0.log" \
        sh -c "ceph -c '$conf' --connect-timeout 10 osd stat | grep -q '1 up'"

    say "creating CephFS"
    cli osd pool create cephfs_metadata 8 >/dev/null 2>&1 || die "cannot create pool cephfs_metadata"
    cli osd pool create cephfs_data 8 >/dev/null 2>&1 || die "cannot create pool cephfs_data"
    cli fs new cephfs cephfs_metadata cephfs_data >/dev/null 2>&1 || die "ceph fs new failed"

    say "starting mds.a"
    add_key mds.a mds 'allow *' osd 'allow rwx' mon 'allow profile mds' \
        mgr 'allow profile mds'
    spawn mds.a ceph-mds a
    wait_for "mds.a to become active" "$dir/log/mds.a.log" mds_active
    wait_for "placement groups to become active" "$dir/log/osd.0.log" pgs_active
}

check_alive_all() {
    local d
    for d in $DAEMONS; do
        alive "$d" || die "$d is not running; see $dir/log/$d.log"
    done
}

case $cmd in
start)
    command -v ceph-mon >/dev/null || die "ceph-mon not found; run deploy/install-deps.sh"
    n=$(running_count)
    if [ "$n" -eq 4 ]; then
        say "already running"
        echo "$conf"
        exit 0
    fi
    if [ "$n" -gt 0 ]; then
        say "only $n of 4 daemons are running; recreating the cluster"
        stop_cluster
    fi
    other=$(other_cluster)
    [ -z "$other" ] || die "another Ceph cluster is running with conf $other; stop it first"
    if ss -ltnH '( sport = :3300 or sport = :6789 )' | grep -q .; then
        die "ports 3300/6789 are taken by another program"
    fi
    t0=$SECONDS
    create_cluster
    check_alive_all
    say "cluster up in $((SECONDS - t0)) s"
    echo "$conf"
    ;;
stop)
    stop_cluster
    ;;
status)
    n=0
    for d in $DAEMONS; do
        pid=$(daemon_pid "$d")
        if [ -n "$pid" ]; then
            echo "$d running (pid $pid)"
            n=$((n + 1))
        else
            echo "$d stopped"
        fi
    done
    [ "$n" -eq 4 ] || exit 1
    cli fs status 2>/dev/null || true
    ;;
*)
    usage
    ;;
esac
