#!/bin/bash
# run-fuse-requests.sh - what static busybox costs through the FUSE door
# (issue 36): the requests the kernel sends and the time taken, for two
# danausd builds side by side, each a standalone service on the local
# backend, against ext4 on the same disk.
#
#   bench/run-fuse-requests.sh OUTDIR DANAUSD_BEFORE DANAUSD_AFTER
#
# Each round, on ext4 (a directory) and on each build's FUSE mount, in
# turn: untar /usr/include (~9 K names) with busybox tar into u/; find of
# a second copy, c/, unpacked into the backend directly before the round
# (a tree the kernel has not seen, as in a new container), and again at
# once; find of u/ (its names seen, its listings not); rm -rf of u/, then
# of c/ (listed seconds before). ROUNDS (default 3) interleaved
# rounds, the two builds taking turns at going first. Requests are counted on the door's connection with the kernel's
# fuse_request_send tracepoint, in a trace instance of this script's own
# (root only). Writes OUTDIR/fuse-requests.csv (every step of every round)
# and fuse-requests.txt (median times, ratios to ext4, and the last
# round's requests per step).
set -euo pipefail

say() { echo "run-fuse-requests: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 3 ] || die "usage: $0 OUTDIR DANAUSD_BEFORE DANAUSD_AFTER"
outdir=$1 before=$(realpath "$2") after=$(realpath "$3")
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
bb=/usr/bin/busybox
tracing=/sys/kernel/tracing
[ -x "$bb" ] || die "no $bb"
[ -d "$tracing/events/fuse" ] || die "no fuse tracepoints in $tracing"
mkdir -p "$outdir"
outdir=$(realpath "$outdir")

work=$(mktemp -d /tmp/danaus-fuse-req-XXXXXX)
trace=$tracing/instances/$(basename "$work")
source "$here/lib.sh"
pids=()
cleanup() {
    [ -d "$trace" ] && { echo 0 > "$trace/tracing_on"; rmdir "$trace"; }
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

tar -C /usr -cf "$work/include.tar" include
serve() { # serve SYS DANAUSD: its mount at mnt-SYS over the backend SYS
    local sys=$1 bin=$2
    mkdir -p "$work/run-$sys" "$work/$sys"
    printf 'service freq-%s-%d\nrundir %s\nfuse_keep 0\nmount %s local %s\n' \
        "$sys" $$ "$work/run-$sys" "$work/mnt-$sys" "$work/$sys" \
        > "$work/$sys.conf"
    start_danausd "$work/$sys.log" "$bin" -c "$work/$sys.conf" || exit 1
    pids+=("$danausd_pid")
}
mkdir -p "$work/ext4"
serve before "$before"
serve after "$after"
dir_of() { [ "$1" = ext4 ] && echo "$work/ext4" || echo "$work/mnt-$1"; }
# The kernel's number of a FUSE mount's connection: its device, as
# MKDEV(major, minor) in the kernel's encoding.
conn_of() { local d; d=($(stat -c '%Hd %Ld' "$1")); echo $(( (d[0] << 20) | d[1] )); }

mkdir "$trace"
echo 65536 > "$trace/buffer_size_kb"
count_begin() { # count_begin MOUNT
    echo 0 > "$trace/tracing_on"
    echo > "$trace/trace"
    echo "connection == $(conn_of "$1")" > "$trace/events/fuse/fuse_request_send/filter"
    echo 1 > "$trace/events/fuse/fuse_request_send/enable"
    echo 1 > "$trace/tracing_on"
}
count_end() { # prints "TOTAL: OPCODE=COUNT ...", most frequent first
    echo 0 > "$trace/tracing_on"
    echo 0 > "$trace/events/fuse/fuse_request_send/enable"
    grep -o '(FUSE_[A-Z0-9_]*)' "$trace/trace" | sort | uniq -c | sort -rn \
        | awk '{ gsub(/[()]|FUSE_/, "", $2); all += $1; o = o " " $2 "=" $1 }
               END { print all + 0 ":" o }'
    local lost
    lost=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$trace"/per_cpu/cpu*/stats)
    [ "$lost" = 0 ] || say "warning: $lost trace events lost"
}

ms() { echo $(( ($2 - $1) / 1000000 )); }
step() { # step ROUND SYS NAME COMMAND...: times it, counts its requests
    local r=$1 sys=$2 name=$3 t0 t1 reqs=-
    shift 3
    [ "$sys" = ext4 ] || count_begin "$(dir_of "$sys")"
    t0=$(date +%s%N)
    "$@" > /dev/null
    t1=$(date +%s%N)
    [ "$sys" = ext4 ] || reqs=$(count_end)
    echo "$r,$name,$sys,$(ms "$t0" "$t1"),$reqs" >> "$outdir/fuse-requests.csv"
}

echo "round,step,system,ms,requests" > "$outdir/fuse-requests.csv"
steps="untar find-cold find-again find-warm rm-warm rm-cold"
for r in $(seq "$rounds"); do
    # The cold copy, straight into each backend (ext4's is the tree).
    for sys in ext4 before after; do
        mkdir "$work/$sys/c"
        tar -C "$work/$sys/c" -xf "$work/include.tar"
    done
    # The builds take turns at going first.
    order="before after"
    [ $((r % 2)) = 0 ] && order="after before"
    for sys in ext4 $order; do
        d=$(dir_of "$sys")
        mkdir "$d/u"
        step "$r" "$sys" untar $bb tar -xf "$work/include.tar" -C "$d/u"
        step "$r" "$sys" find-cold $bb find "$d/c"
        step "$r" "$sys" find-again $bb find "$d/c"
        step "$r" "$sys" find-warm $bb find "$d/u"
        step "$r" "$sys" rm-warm $bb rm -rf "$d/u"
        step "$r" "$sys" rm-cold $bb rm -rf "$d/c"
    done
done
{
    echo "busybox through the FUSE door, /usr/include ($(tar -tf "$work/include.tar" | wc -l) names); medians of $rounds rounds, ms"
    echo "date $(date -u '+%F %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-10s %8s %8s %8s %8s %8s\n' step ext4 before after before/x after/x
    for s in $steps; do
        med() { awk -F, -v s="$s" -v y="$1" '$2 == s && $3 == y {print $4}' \
            "$outdir/fuse-requests.csv" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p"; }
        e=$(med ext4) b=$(med before) a=$(med after)
        printf '%-10s %8s %8s %8s %8s %8s\n' "$s" "$e" "$b" "$a" \
            "$(awk -v x="$b" -v e="$e" 'BEGIN { printf "%.2fx", x / (e ? e : 1) }')" \
            "$(awk -v x="$a" -v e="$e" 'BEGIN { printf "%.2fx", x / (e ? e : 1) }')"
    done
    echo
    echo "requests in round $rounds (total: by opcode)"
    for s in $steps; do
        for sys in before after; do
            printf '%-10s %-7s %s\n' "$s" "$sys" "$(awk -F, -v s="$s" -v y="$sys" -v r="$rounds" \
                '$1 == r && $2 == s && $3 == y {print $5}' "$outdir/fuse-requests.csv")"
        done
    done
} > "$outdir/fuse-requests.txt"
cat "$outdir/fuse-requests.txt"
