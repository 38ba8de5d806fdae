#!/bin/sh
# restart_programs.sh - real programs under LD_PRELOAD live through danausd
# killed with SIGKILL three times at random moments (issue 11; resume in
# libfs/resume.h).
#
#   restart_programs.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|-
#
# While tar extracts a tree (/usr/include/linux) round after round,
# db_bench fills and reads databases, and a loop of `dd conv=fsync` writes
# numbered records (each acknowledged in a file outside Danaus once dd
# exits 0), danausd is killed and started again three times. Every program must exit 0 and every result must be whole:
# both trees compare equal to the archive (tar --compare; on Ceph but for
# mtimes, see below), db_bench finds every key, every acknowledged record
# reads back. On Ceph the service runs
# with ceph_write_through on: tar does not fsync, and the default object
# cache would lose its unflushed files with the service (docs/recovery.md).
# Prints the longest pause a record write saw across the kills.
set -u

if [ $# -ne 4 ]; then
    echo "usage: restart_programs.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") backend=$3 ceph_conf=$4
mountpoint=/danaus-restart-programs
site=$(mktemp -d /tmp/danaus-restart-programs-XXXXXX) || exit 1
service="restart-programs-$$"
mkdir "$site/run" "$site/backing" || exit 1
{
    echo "service $service"
    echo "rundir $site/run"
    echo "fuse off"
    case $backend in
    local) echo "mount $mountpoint local $site/backing" ;;
    ceph) echo "ceph_conf $ceph_conf"; echo "ceph_write_through on"
          echo "mount $mountpoint ceph /" ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
    esac
} > "$site/danausd.conf" || exit 2

. "$(dirname "$0")/../lib.sh"
start() {
    service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf"
}
start || exit 1

danaus() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
root="$mountpoint/restart-$(hostname)-$$"
danaus mkdir "$root" || { service_stop; exit 1; }
tar cf "$site/tree.tar" -C /usr/include linux || exit 1

# The workloads, each in rounds until the kills are over, logging to its
# own file; a round that fails ends its loop with status 1.
( r=0
  while [ ! -e "$site/stop" ] || [ $r -lt 2 ]; do
      r=$((r + 1))
      echo "round $r at $(date +%T.%N | cut -c1-12)"
      danaus mkdir "$root/tar$r" &&
          danaus tar xf "$site/tree.tar" -C "$root/tar$r" || exit 1
  done
  echo $r > "$site/tar.rounds" ) > "$site/tar.log" 2>&1 &
tar_pid=$!
( r=0
  while [ ! -e "$site/stop" ] || [ $r -lt 1 ]; do
      r=$((r + 1))
      danaus db_bench --benchmarks=fillseq,readrandom --num=20000 \
          --reads=20000 --db="$root/db$r" --use_existing_db=0 \
          --mmap_read=0 --mmap_write=0 --threads=1 --seed=42 \
          --compression_type=none --statistics=0 > "$site/db_bench$r.log" 2>&1 ||
          exit 1
  done
  echo $r > "$site/db.rounds" ) > "$site/db_bench.log" 2>&1 &
db_pid=$!
( i=0
  while [ ! -e "$site/stop" ]; do
      printf 'record %08d\n' $i |
          danaus dd of="$root/records" bs=16 seek=$i conv=notrunc,fsync \
              status=none || exit 1
      echo "$i $(date +%s%N)" >> "$site/acked"
      i=$((i + 1))
  done ) > "$site/records.log" 2>&1 &
rec_pid=$!

failed=0
sleep 1
for k in 1 2 3; do
    sleep "0.$(shuf -i 2-9 -n 1)"
    kill -KILL "$daemon"
    wait "$daemon" 2>/dev/null
    echo "kill $k: danausd killed at $(date +%T.%N | cut -c1-12)"
    start || { failed=1; break; }
done

touch "$site/stop"
wait $tar_pid || failed=1
wait $db_pid || { echo "db_bench failed:"; cat "$site/db_bench"*.log; failed=1; }
wait $rec_pid || { echo "record loop failed:"; cat "$site/records.log"; failed=1; }

# On Ceph the MDS, recovering the files the dead service had been writing,
# sets their mtime to their objects' last write (checked by hand: a file
# written, closed and touched to 2001 reads back with its write time after
# a kill); tar's own mtime of such a file is lost. Everything else counts.
tar_rounds=$(cat "$site/tar.rounds" 2>/dev/null || echo 0)
for r in $(seq "$tar_rounds"); do
    danaus tar df "$site/tree.tar" -C "$root/tar$r" 2>&1 |
        if [ "$backend" = ceph ]; then grep -v ': Mod time differs$'; else cat; fi \
        > "$site/compare$r"
    [ -s "$site/compare$r" ] &&
        { echo "tree $r differs:"; head "$site/compare$r"; failed=1; }
done
[ $failed -eq 0 ] || { echo "tar's rounds:"; cat "$site/tar.log"; }
db_rounds=$(cat "$site/db.rounds" 2>/dev/null || echo 0)
for r in $(seq "$db_rounds"); do
    grep -q '(20000 of 20000 found)' "$site/db_bench$r.log" ||
        { echo "db_bench round $r did not find every key:"
          cat "$site/db_bench$r.log"; failed=1; }
done
acked=$(wc -l < "$site/acked")
i=0
danaus cat "$root/records" > "$site/records.read"
while [ $i -lt "$acked" ]; do
    printf 'record %08d\n' $i
    i=$((i + 1))
done > "$site/records.want"
head -c "$(wc -c < "$site/records.want")" "$site/records.read" |
    cmp -s - "$site/records.want" ||
    { echo "acknowledged records are not all there"; failed=1; }
pause=$(awk 'NR > 1 && $2 - prev > max { max = $2 - prev } { prev = $2 }
             END { printf "%.0f", max / 1e6 }' "$site/acked")
echo "$backend: 3 kills; $tar_rounds tar x, $db_rounds db_bench and $acked" \
     "fsync'd records went on; longest pause between records ${pause} ms"

if [ $failed -eq 0 ]; then
    danaus rm -rf "$root"
    service_stop
    rm -rf "$site"
else
    service_stop
    echo "site kept: $site (the trees stay in $root)"
fi
exit $failed
