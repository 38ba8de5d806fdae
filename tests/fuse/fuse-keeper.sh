#!/bin/sh
# fuse-keeper.sh - FUSE mounts outlive their service (issue 11, item 4;
# fsservice/doors/fuse_keeper.h), on one backend.
#
#   fuse-keeper.sh DANAUSD DANAUSD_STUCK KEEPER_LOAD local|ceph CEPH_CONF|-
#
# Programs without the preload use the FUSE mount while danausd is killed
# with SIGKILL and started again, and checks, printing "ok"/"FAIL" each:
#  - three kills under a program creating, fsyncing, renaming, reading back
#    and unlinking files, and one reading a 4 MiB file through one
#    descriptor from a current directory inside: no error, every byte
#    (sha256), a write the service lost (Ceph's cache) reported by the
#    fsync after it (EIO), none lost on the local backend; the pause each
#    restart cost;
#  - a request the dead service had taken and never answered (a mkdir stuck
#    in danausd_stuck's backend, local only) is sent again to the next
#    service and done; of appends so taken, one the dead service had made
#    is not made again, one it had not is made once, and one another
#    writer overtook fails with EIO;
#  - a file unlinked while open gets EIO after a restart, on that
#    descriptor only; a read-only file written through its creating
#    descriptor (by another user) writes on;
#  - restart on: the keeper starts the next danausd itself;
#  - a kill at each step of writing a file, the next service started by
#    the keeper: a write that died with the service is reported by the
#    fsync after it (EIO; on Ceph, every time), never read back short;
#    nothing fsync'd is lost;
#  - fuse_keep: mounts nobody takes are detached when it ends, and the
#    programs waiting get ENOTCONN;
#  - a keeper killed while its service runs is replaced, and a later crash
#    of the service still keeps the mount;
#  - only the service's user may claim the mounts from the keeper's socket.
# Exit 0 when every check passed.
set -u

if [ $# -ne 5 ]; then
    echo "usage: fuse-keeper.sh DANAUSD DANAUSD_STUCK KEEPER_LOAD local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") stuck=$(realpath "$2") load=$(realpath "$3")
backend=$4 ceph_conf=$5

site=$(mktemp -d /tmp/danaus-keeper-XXXXXX) || exit 1
chmod 755 "$site"
mnt=$site/mnt
service="keeper-$$"
mkdir "$site/run" "$site/backing" || exit 1
# config [EXTRA LINE...]: the service's configuration, on the backend.
config() {
    {
        echo "service $service"
        echo "rundir $site/run"
        echo "fuse_allow_other on" # another user's program below
        for line in "$@"; do echo "$line"; done
        case $backend in
        local) echo "mount $mnt local $site/backing" ;;
        ceph) echo "ceph_conf $ceph_conf"
              echo "mount $mnt ceph /fuse-keeper-$(hostname)-$$" ;;
        *) echo "unknown backend $backend" >&2; exit 2 ;;
        esac
    } > "$site/danausd.conf"
}

plain() { timeout 60 env -u LD_PRELOAD "$@"; }
mounted() { grep -q " $mnt fuse" /proc/mounts; }
now_ms() { date +%s%3N; }
took() { grep -c 'took over 1 FUSE mounts' "$site/danausd.log"; }

. "$(dirname "$0")/../lib.sh"
daemon=
start() { service_start "$site/danausd.log" "$mnt" "$@" -c "$site/danausd.conf"; }
keeper() { pgrep -f -- "--keeper $site/run $service"; }
# The pid in the service's pid file when it names a live process.
service_alive() {
    local pid
    pid=$(cat "$site/run/$service.pid" 2>/dev/null) &&
        [ -r "/proc/$pid/stat" ] && ! grep -q ') Z ' "/proc/$pid/stat" &&
        echo "$pid"
}
# crash: SIGKILL to the service, reaped.
crash() { kill -KILL "$daemon"; wait "$daemon" 2>/dev/null; }
cleanup() {
    [ -n "$daemon" ] && kill -TERM "$daemon" 2>/dev/null && wait "$daemon"
    for k in $(keeper); do kill -KILL "$k"; done
    mounted && umount -l "$mnt"
    rm -rf "$site"
}
trap cleanup EXIT

config "fuse_keep 20"
start "$danausd" || exit 1

# Writes a killed service held and lost: never silently (a read back that
# differs is an error above), each reported by the fsync after it with
# EIO. The local backend's writes are the kernel's, and none is lost.
lost_writes() {
    lost=$(tail -1 "$site/ops.out" | cut -d' ' -f6)
    if [ "$backend" = local ]; then
        expect "no write lost on the local backend" "0" "$lost"
    else
        echo "writes lost with a killed service, each reported by fsync: $lost"
    fi
}

# program_errors KILLS: the file program's errors, with its clock (ms);
# if there are any, when the service was killed (KILLS, ms since the
# epoch), the services' log and on Ceph the MDS's (deploy/ceph-cluster.sh
# keeps it beside the configuration), which chasing one needs: a write
# fsync'd before a kill and read back short is the MDS's answer to the next
# service as much as the service's own doing.
program_errors() {
    grep '^error' "$site/ops.out" || return 0
    echo "killed at (ms since the epoch):$1; the services' log:"
    tail -n 60 "$site/danausd.log"
    local mds_log
    mds_log=$(dirname "$ceph_conf")/log/mds.a.log
    [ "$backend" = ceph ] && [ -r "$mds_log" ] || return 0
    echo "the MDS's log ($mds_log):"
    tail -n 200 "$mds_log"
}

# Three kills under load; the pause is the time from the kill to the first
# stat answered through the mount.
head -c 4194304 /dev/urandom > "$site/big.src"
cp "$site/big.src" "$mnt/big"
sum=$(sha256sum < "$site/big.src" | cut -d' ' -f1)
mkdir "$mnt/work"
plain python3 "$load" ops "$mnt/work" 6 > "$site/ops.out" 2>&1 &
ops=$!
(cd "$mnt/work" &&
 exec timeout 60 env -u LD_PRELOAD python3 "$load" reader "$mnt/big" "$sum" 0.05) \
    > "$site/reader.out" 2>&1 &
reader=$!
pauses= kills=
for k in 1 2 3; do
    sleep 1
    t0=$(now_ms)
    kills="$kills $t0"
    crash
    start "$danausd" || exit 1
    plain stat "$mnt/work" > /dev/null
    pauses="$pauses $(($(now_ms) - t0))"
done
wait $ops
wait $reader
expect "three kills: the file program saw no error" "errors 0" \
    "$(tail -1 "$site/ops.out" | cut -d' ' -f3-4)"
program_errors "$kills"
lost_writes
expect "three kills: one descriptor read every byte" "read 4194304 sum OK" \
    "$(cat "$site/reader.out")"
echo "pause from SIGKILL to the first answer (ms):$pauses"
expect "each restart took the mount over" 3 "$(took)"

# A request taken by a service that dies before answering it is sent again
# to the next one (FUSE_NOTIFY_RESEND).
if [ "$backend" = local ]; then
    service_stop
    config "fuse_keep 20"
    DANAUS_STUCK_ROOT=$site/backing start "$stuck" || exit 1
    for log in made unmade overtaken; do
        printf 'first\n' > "$mnt/$log.log"
    done
    plain mkdir "$mnt/late" &
    mk=$!
    # Appends through O_APPEND descriptors: one the backend has made when
    # its thread blocks, two it has not; a client of the backend itself
    # (the backing directory) appends to the third before the crash.
    plain sh -c "printf 'stuck-after\n' >> '$mnt/made.log'" &
    made=$!
    plain sh -c "printf 'stuck-before\n' >> '$mnt/unmade.log'" &
    unmade=$!
    plain sh -c "printf 'stuck-before\n' >> '$mnt/overtaken.log'" \
        2> "$site/overtaken.err" &
    overtaken=$!
    blocked() { grep -c ' danausd_stuck: .* blocks for good' "$site/danausd.log"; }
    tries=0
    until [ "$(blocked)" -ge 4 ] || [ $tries -gt 300 ]
    do tries=$((tries + 1)); sleep 0.1; done
    expect "mkdir and three appends wait in the stuck backend" "4 yes yes yes yes" \
        "$(blocked) $(
           for p in $mk $made $unmade $overtaken; do
               kill -0 $p 2>/dev/null && echo yes; done | paste -sd' ')"
    printf 'other\n' >> "$site/backing/overtaken.log"
    crash
    start "$danausd" || exit 1
    wait $mk
    rc=$?
    expect "the taken mkdir is done by the next service" "0 yes" \
        "$rc $([ -d "$site/backing/late" ] && echo yes)"
    wait $made
    rc=$?
    expect "an append the dead service made is not made again" \
        "0 first|stuck-after" "$rc $(paste -sd'|' "$site/backing/made.log")"
    wait $unmade
    rc=$?
    expect "an append the dead service had not made is made once" \
        "0 first|stuck-before" "$rc $(paste -sd'|' "$site/backing/unmade.log")"
    wait $overtaken
    rc=$?
    expect "an append overtaken by another writer fails with EIO, not twice" \
        "1 yes first|other" \
        "$rc $(grep -q 'I/O error' "$site/overtaken.err" && echo yes) $(paste -sd'|' "$site/backing/overtaken.log")"
fi

# A file unlinked while open: EIO on its descriptor after the restart, the
# other descriptor reads on; a file a user created read-only writes on
# through the descriptor that created it (as on any file system).
mkdir "$mnt/nobody" && chown 65534:65534 "$mnt/nobody"
setpriv --reuid=65534 --regid=65534 --clear-groups \
    env -u LD_PRELOAD /usr/bin/python3 "$load" unlinked "$mnt/nobody" 2 \
    > "$site/unlinked.out" 2> "$site/unlinked.err" &
holder=$!
# lines N: waits until the holder said N lines.
lines() {
    tries=0
    until [ "$(cat "$site/unlinked.out" 2>/dev/null | wc -l)" -ge "$1" ] ||
          [ $tries -gt 300 ]
    do tries=$((tries + 1)); sleep 0.1; done
}
lines 1
kill -USR1 $holder
lines 2
crash
start "$danausd" || exit 1
kill -USR1 $holder
wait $holder
expect "unlinked while open: EIO after, the others read and write on" \
    "ready|OK OK OK|EIO OK OK" "$(paste -sd'|' "$site/unlinked.out")"
cat "$site/unlinked.err"

# A listing the dead service gave, which the kernel keeps, is dropped when
# the kernel asks for its directory again (fsservice/doors/fuse_dirs.h):
# a walk after the restart, once the names' entries have expired (the
# default fuse_cache_timeout_ms, 1 s), reads each directory again whole
# rather than the kernel looking up each of its 120 names, which busybox's
# find stats (GNU find goes by the listing's types). Counted with
# the kernel's fuse_request_send tracepoint on this mount's connection
# (the minor of its device), in a tracing instance of the test's own.
mkdir "$mnt/listed"
for d in a b c; do
    mkdir "$mnt/listed/$d"
    for f in $(seq 40); do : > "$mnt/listed/$d/file$f"; done
done
plain busybox find "$mnt/listed" > /dev/null
crash
start "$danausd" || exit 1
sleep 1.5
# A machine just booted may not have tracefs mounted yet.
mountpoint -q /sys/kernel/tracing ||
    mount -t tracefs tracefs /sys/kernel/tracing
trace=/sys/kernel/tracing/instances/danaus-keeper-$$
conn=$(mountpoint -d "$mnt" | cut -d: -f2)
if mkdir "$trace"; then
    echo "connection == $conn && opcode == 1" \
        > "$trace/events/fuse/fuse_request_send/filter"
    echo 1 > "$trace/events/fuse/fuse_request_send/enable"
    names=$(plain busybox find "$mnt/listed" | wc -l)
    echo 0 > "$trace/events/fuse/fuse_request_send/enable"
    lookups=$(grep -c 'opcode 1 ' "$trace/trace")
    rmdir "$trace"
    expect "after a restart, a walk relists: 124 names, under 20 lookups" \
        "124 yes" "$names $([ "$lookups" -lt 20 ] && echo yes || echo "no: $lookups")"
else
    expect "a tracing instance for the lookup count" made "not made"
fi

# restart on: the keeper starts the next service itself.
service_stop
config "fuse_keep 20" "restart on"
start "$danausd" || exit 1
plain python3 "$load" ops "$mnt/work" 3 > "$site/ops.out" 2>&1 &
ops=$!
sleep 1
first=$(cat "$site/run/$service.pid")
killed=$(now_ms)
crash
wait $ops
expect "restart on: the file program saw no error" "errors 0" \
    "$(tail -1 "$site/ops.out" | cut -d' ' -f3-4)"
program_errors " $killed"
lost_writes
next=$(cat "$site/run/$service.pid")
expect "restart on: the keeper started the next danausd" "yes" \
    "$([ "$next" != "$first" ] && kill -0 "$next" && echo yes)"
daemon=
kill -TERM "$next"
tries=0
while kill -0 "$next" 2>/dev/null && [ $tries -lt 100 ]; do
    tries=$((tries + 1)); sleep 0.1; done
expect "a clean stop ends the keeper and the mount" "0 no" \
    "$(keeper | wc -l) $(mounted && echo yes || echo no)"

# A kill at each step of writing a file, twenty times. The write step
# comes right before the fsync, whose request waits in the kernel for the
# next service: it was once answered twice (the take-over asked the
# kernel to resend the requests the dead service had taken only after its
# own threads had begun to read, so it took this one twice), and the copy
# whose answer the kernel kept said the lost write was safe.
config "fuse_keep 20" "restart on"
start "$danausd" || exit 1
first=$daemon daemon=
plain python3 "$load" kills "$mnt/work" "$site/run/$service.pid" 20 \
    > "$site/kills.out" 2>&1
grep -v '^rounds' "$site/kills.out"
expect "twenty kills while writing: nothing read back short, no error" \
    "bad 0 errors 0" "$(tail -1 "$site/kills.out" | cut -d' ' -f5-8)"
reported=$(tail -1 "$site/kills.out" | cut -d' ' -f4)
if [ "$backend" = local ]; then
    expect "no write lost on the local backend" 0 "$reported"
else
    expect "each write killed before its fsync reported lost by it" 10 \
        "$reported"
fi
wait "$first"
# The last service, once its pid file names it (it writes the file after
# it begins to serve), stops cleanly and takes the keeper and the mount.
tries=0
while [ -z "$(service_alive)" ] && [ $tries -lt 100 ]; do
    tries=$((tries + 1)); sleep 0.1; done
kill -TERM "$(service_alive)"
tries=0
while { mounted || [ -n "$(keeper)" ]; } && [ $tries -lt 100 ]; do
    tries=$((tries + 1)); sleep 0.1; done

# fuse_keep: nobody takes the mount within it; a program waiting on the
# mount gets ECONNABORTED when it ends (the kernel's answer to requests of
# an aborted connection), later ones ENOTCONN.
config "fuse_keep 2"
start "$danausd" || exit 1
crash
t0=$(now_ms)
out=$(plain stat "$mnt/work" 2>&1)
waited=$(($(now_ms) - t0))
expect "a program waits for the kept mount, then gets ECONNABORTED" \
    "Software caused connection abort" \
    "$(echo "$out" | grep -o 'Software caused connection abort')"
expect "it waited about fuse_keep (2 s)" yes \
    "$([ $waited -ge 1000 ] && [ $waited -lt 10000 ] && echo yes)"
tries=0
while { mounted || [ -n "$(keeper)" ]; } && [ $tries -lt 50 ]; do
    tries=$((tries + 1)); sleep 0.1; done
expect "then the keeper detaches the mount and leaves" "no no" \
    "$(mounted && echo yes || echo no) $([ -n "$(keeper)" ] && echo yes || echo no)"

# A keeper killed while its service runs is replaced: a later crash of
# the service still loses nothing.
config "fuse_keep 20"
start "$danausd" || exit 1
old_keeper=$(keeper)
kill -KILL $old_keeper
tries=0
while { [ -z "$(keeper)" ] || [ "$(keeper)" = "$old_keeper" ]; } && [ $tries -lt 50 ]; do
    tries=$((tries + 1)); sleep 0.1; done
expect "a killed keeper is replaced" yes \
    "$([ -n "$(keeper)" ] && [ "$(keeper)" != "$old_keeper" ] && echo yes)"
cd "$mnt/work" || exit 1
crash
before=$(took)
start "$danausd" || exit 1
expect "then a crash of the service keeps the mount" "$((before + 1)) yes" \
    "$(took) $(plain stat -c %n . 2>/dev/null | grep -q . && echo yes)"
cd "$site"
service_stop

# The keeper's socket: only the service's user may connect and claim.
config "fuse_keep 20"
start "$danausd" || exit 1
crash
sock=$site/run/$service.keeper
expect "the keeper's socket is the service user's only" "srwx------" \
    "$(stat -c %A "$sock")"
claim='import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(sys.argv[1])'
expect "another user cannot reach it" "PermissionError" \
    "$(setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c "$claim" "$sock" 2>&1 | grep -o PermissionError | head -1)"
before=$(took)
start "$danausd" || exit 1
expect "the next service still takes the mount over" $((before + 1)) "$(took)"
[ "$backend" = ceph ] &&
    plain rm -rf "$mnt/work" "$mnt/big" "$mnt/late" "$mnt/nobody"
service_stop

echo "$failures failures"
[ "$failures" -eq 0 ]
