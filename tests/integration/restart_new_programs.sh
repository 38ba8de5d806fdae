#!/bin/sh
# restart_new_programs.sh - programs that start while danausd is killed
# and started again, over and over (libfs/resume.h): each one's first
# call waits for the next service, also when the service dies between the
# program's hello and its thread's slot, or while its socket is replaced.
#
#   restart_new_programs.sh DANAUSD LIBDANAUS
#
# A loop runs one `mkdir` process after another under LD_PRELOAD while
# danausd is killed (SIGKILL) and started again 40 times, every 50-300 ms.
# Every mkdir must exit 0 and every directory must be there. Before, about
# one process in 400 failed with ENOTCONN (11 in four runs of 40 kills).
set -u

if [ $# -ne 2 ]; then
    echo "usage: restart_new_programs.sh DANAUSD LIBDANAUS" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2")
. "$(dirname "$0")/../lib.sh"
site=$(mktemp -d /tmp/danaus-restart-new-XXXXXX) || exit 1
service="restart-new-$$"
mountpoint=/danaus-restart-new
mkdir "$site/run" "$site/backing" || exit 1
printf 'service %s\nrundir %s\nfuse off\nmount %s local %s\n' \
    "$service" "$site/run" "$mountpoint" "$site/backing" > "$site/danausd.conf"
start() {
    service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf"
}
start || exit 1
danaus() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}

( i=0
  while [ ! -e "$site/stop" ]; do
      i=$((i + 1))
      danaus mkdir "$mountpoint/d$i" 2>> "$site/errors" ||
          echo "$i" >> "$site/failed"
      echo "$i" > "$site/made"
  done ) &
loop=$!
kills=0
while [ $kills -lt 40 ]; do
    sleep "0.$(shuf -i 05-30 -n 1)"
    kill -KILL "$daemon"
    wait "$daemon" 2>/dev/null
    kills=$((kills + 1))
    start || break
done
touch "$site/stop"
wait $loop
made=$(cat "$site/made")
expect "danausd killed and started again" 40 "$kills"
expect "mkdirs that failed, of $made" 0 "$(cat "$site/failed" 2>/dev/null | wc -l)"
[ -s "$site/errors" ] && head -5 "$site/errors"
missing=0
for i in $(seq "$made"); do
    [ -d "$site/backing/d$i" ] || missing=$((missing + 1))
done
expect "directories missing, of $made" 0 "$missing"
service_stop
[ $failures -eq 0 ] && rm -rf "$site"
exit $((failures > 0))
