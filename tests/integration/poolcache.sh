#!/bin/bash
# poolcache.sh - the pool's page cache on Ceph (issue 41, a container kept
# at its knee): a standalone danausd plays a pool made with `--cache
# auto`, with two containers' root mounts. Reads through the cache return
# the file's bytes; a change made by another Ceph client (a second
# danausd on the same directory), with the file closed here or held open
# by a reader, is what the next read returns; and a container streaming
# a file larger than the cache through it leaves the other container's
# pages, which keep answering its reads.
#
#   poolcache.sh DANAUSD DANAUS LIBDANAUS READER CEPH_CONF
#
# The clients' own read caches are off (read_cache_blocks 0), so every
# read reaches the service. Run as root. Prints "ok"/"FAIL" per check;
# exit 0 when all passed.
set -u

if [ $# -ne 5 ]; then
    echo "usage: poolcache.sh DANAUSD DANAUS LIBDANAUS READER CEPH_CONF" >&2
    exit 2
fi
danausd=$(realpath "$1") danaus=$(realpath "$2") lib=$(realpath "$3")
reader=$(realpath "$4") ceph_conf=$5

site=$(mktemp -d /tmp/danaus-poolcache-XXXXXX) || exit 1
export DANAUS_STATE=$site/state
pool=pcpool
quiet=$DANAUS_STATE/containers/quiet/root
stream=$DANAUS_STATE/containers/stream/root
other=$site/other
top=/danaus-poolcache-$(hostname)-$$
mkdir -p "$site/run" "$site/orun" "$DANAUS_STATE/pools/$pool/door" \
    "$quiet" "$stream" "$other" || exit 1
cat > "$site/danausd.conf" <<CONF
service $pool
rundir $site/run
door_dir $DANAUS_STATE/pools/$pool/door
fuse_keep 0
read_cache_blocks 0
ceph_conf $ceph_conf
cache_auto 48M
mount $quiet ceph $top/quiet
mount $stream ceph $top/stream
CONF
# Another Ceph client of the same directory, as another host's pool.
cat > "$site/other.conf" <<CONF
service pcother
rundir $site/orun
fuse_keep 0
read_cache_blocks 0
ceph_conf $ceph_conf
mount $other ceph $top/quiet
CONF
preloaded() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE=$pool \
        DANAUS_RUNDIR="$DANAUS_STATE/pools/$pool/door" "$@"
}
through_other() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE=pcother DANAUS_RUNDIR="$site/orun" "$@"
}

. "$(dirname "$0")/../lib.sh"
failures=0
daemon= other_daemon=
cleanup() {
    [ -n "$other_daemon" ] && kill -TERM "$other_daemon" && wait "$other_daemon"
    [ -n "$daemon" ] && service_stop
    unmount_left "$quiet" "$stream" "$other"
    rm -rf "$site"
}
trap cleanup EXIT
service_start "$site/other.log" "$other" "$danausd" -c "$site/other.conf" ||
    exit 1
other_daemon=$daemon
service_start "$site/danausd.log" "$stream" "$danausd" -c "$site/danausd.conf" ||
    exit 1

# The pool cache's counts of a container: its hits and misses so far.
counts() {
    (cd "$site" && "$danaus" stats --hrc $pool) |
        awk -v c="$1" '$1 == c { print $(NF - 1), $NF; exit }'
}

head -c 8388608 /dev/urandom > "$site/set" &&
    head -c 10000 /dev/urandom > "$site/odd" &&
    head -c 100663296 /dev/zero > "$site/big" || exit 1
preloaded cp "$site/set" "$quiet/set" && preloaded cp "$site/odd" "$quiet/odd" &&
    preloaded cp "$site/big" "$stream/big" ||
    fail "cannot write the files through the service"

# The cache is sized after the first look at the knees (5 s): read the
# working set, wait for the look, read it again.
preloaded "$reader" "$quiet/set" 2048 40000 3 || fail "the reader failed"
sleep 6
grep 'danausd: cache:' "$site/danausd.log" | tail -n 1
preloaded "$reader" "$quiet/set" 2048 40000 5 || fail "the reader failed"
read -r h0 m0 <<< "$(counts quiet)"
echo "quiet: $h0 hits, $m0 misses"
expect "the quiet container's second pass is answered by the pool's cache" 1 \
    "$([ "${h0:-0}" -ge 30000 ] && echo 1)"
for i in 1 2; do
    expect "read $i of the working set through the cache is its bytes" 0 \
        "$(preloaded cmp "$quiet/set" "$site/set" > /dev/null; echo $?)"
    expect "read $i of a file ending inside a page is its bytes" 0 \
        "$(preloaded cmp "$quiet/odd" "$site/odd" > /dev/null; echo $?)"
done

# A change by another client while no file here is open.
head -c 4096 /dev/urandom > "$site/page"
through_other dd if="$site/page" of="$other/set" bs=4096 seek=7 conv=notrunc \
    status=none || fail "the other client cannot write"
dd if="$site/page" of="$site/set" bs=4096 seek=7 conv=notrunc status=none
expect "another client's change, made between opens, is read" 0 \
    "$(preloaded cmp "$quiet/set" "$site/set" > /dev/null; echo $?)"

# A change by another client while a reader here holds the file open.
head -c 4096 /dev/urandom > "$site/page2"
cat > "$site/held.py" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
first = os.pread(fd, 4096, 4096 * 9)
print("read", flush=True)
sys.stdin.readline()
second = os.pread(fd, 4096, 4096 * 9)
print("same" if first == second else "changed", second.hex()[:32], flush=True)
PY
# The reader talks through two FIFOs held open here (not a coprocess,
# whose descriptors bash drops as soon as it exits).
mkfifo "$site/held.in" "$site/held.out"
exec 7<> "$site/held.in" 8<> "$site/held.out"
preloaded python3 "$site/held.py" "$quiet/set" <&7 >&8 &
held_pid=$!
read -r -t 30 line <&8
expect "the reader read before the change" read "${line:-}"
through_other dd if="$site/page2" of="$other/set" bs=4096 seek=9 conv=notrunc \
    status=none || fail "the other client cannot write"
echo >&7
read -r -t 30 verdict hex <&8
expect "another client's change under a held open is read through it" \
    "changed $(od -An -tx1 -N16 "$site/page2" | tr -d ' \n')" \
    "${verdict:-} ${hex:-}"
wait "$held_pid" || fail "the reader holding the file open failed"
exec 7>&- 8>&-
dd if="$site/page2" of="$site/set" bs=4096 seek=9 conv=notrunc status=none
expect "and by the next open" 0 \
    "$(preloaded cmp "$quiet/set" "$site/set" > /dev/null; echo $?)"

# Next to a stream: the quiet container's working set is read back in,
# then the stream container reads 96 MiB twice through a cache of 40.
preloaded "$reader" "$quiet/set" 2048 40000 7 || fail "the reader failed"
sleep 6 # a look at the knees with the stream's curve empty
for pass in 1 2; do
    preloaded cat "$stream/big" > /dev/null || fail "the stream failed"
done
sleep 6 # and with it
read -r h1 m1 <<< "$(counts quiet)"
preloaded "$reader" "$quiet/set" 2048 40000 9 || fail "the reader failed"
read -r h2 m2 <<< "$(counts quiet)"
(cd "$site" && "$danaus" stats --hrc $pool) | sed -n '1,4p'
echo "quiet after the stream: $((h2 - h1)) hits, $((m2 - m1)) misses"
expect "after the stream, the quiet container's reads still hit (>= 90%)" 1 \
    "$(awk -v h=$((h2 - h1)) -v m=$((m2 - m1)) 'BEGIN { print (h + m > 0 && h >= 0.9 * (h + m)) }')"
read -r sh sm <<< "$(counts stream)"
expect "the stream went through the cache" 1 \
    "$([ "${sm:-0}" -gt 0 ] && echo 1)"
preloaded rm -rf "$quiet/set" "$quiet/odd" "$stream/big"

echo "$failures failures"
[ "$failures" -eq 0 ]
