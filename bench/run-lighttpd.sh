#!/bin/bash
# run-lighttpd.sh - web servers from a real Debian image (issue 14): the
# time until N containers (1, 4, 16, 64), started at once from a Debian
# root with lighttpd (made by mmdebstrap), all answer HTTP, on Danaus (a
# pool on the Ceph backend, and on the local backend) against `podman run`
# with its default storage, kernel overlayfs. Builds nothing.
#
#   bench/run-lighttpd.sh [OUTDIR [BUILD_DIR]]
#
# Environment:
#   CEPH_CONF     use this running cluster instead of starting one
#   COUNTS        the batch sizes (default "1 4 16 64")
#   REPEATS       batches per system and N; the table gives the median time
#                 and the highest peak (default 2)
#   IMAGE_CACHE   where the Debian tarball is kept between runs (default
#                 BUILD_DIR/engine-image-cache, shared with the engine tests)
#
# Every container runs the same shell line: write a lighttpd configuration
# serving a page on port BASE+i (host network: the engine makes no network
# namespace, podman gets --network host), then exec lighttpd in the
# foreground. A batch's time runs from the first start command to the
# moment every server has answered curl; then all are removed (untimed).
# Peak memory of the file-system client: the pool's danausd (VmHWM; a new
# pool per batch); podman's overlay is in the kernel (n/a).
#
# podman on this machine needs runc (crun refuses the cgroup hybrid mode)
# and explicit nofile/nproc limits (crun and runc may not raise them here);
# the script passes both. Its storage is a private root per run.
set -euo pipefail

say() { echo "run-lighttpd: $*" >&2; }
die() { say "error: $*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
outdir=${1:-./bench-results}
build=${2:-${BUILD_DIR:-./build}}
counts=${COUNTS:-1 4 16 64}
repeats=${REPEATS:-2}
cache=${IMAGE_CACHE:-$build/engine-image-cache}
base_port=18000

danaus=$build/engine/danaus
[ -x "$danaus" ] || die "$danaus not found: build the target danaus_engine in $build"
for c in podman runc curl mmdebstrap ceph-fuse; do
    command -v "$c" >/dev/null || die "$c not found"
done
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)
build=$(cd "$build" && pwd -P)

work=$(mktemp -d /tmp/danaus-lighttpd-bench.XXXXXX)
state=$work/state
cluster_dir=""
setup_fuse_pid=""
top=""
cleanup() {
    local rc=$?
    set +e
    remove_engine_state pools
    remove_podman_state
    if [ -n "$setup_fuse_pid" ]; then
        [ -n "$top" ] && rm -rf "${work:?}/fuse/${top#/}"
        unmount_fuse_at "$work/fuse" "$setup_fuse_pid"
    fi
    [ -n "$cluster_dir" ] && "$repo/deploy/ceph-cluster.sh" stop "$cluster_dir"
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source "$repo/bench/lib.sh"

say "the Debian image (mmdebstrap, cached in $cache)"
"$repo/tests/engine/images.sh" fill-cache "$cache" >&2 ||
    die "no Debian image: mmdebstrap could not reach Debian's mirror"
tarball=$(ls "$cache"/debian-*/rootfs.tar | head -n 1)

use_ceph_cluster
quiet_client_conf
mount_ceph_fuse_at "$work/fuse"
setup_fuse_pid=$mounted_pid
top=/danaus-lighttpd-bench-$$
mkdir -p "$work/fuse$top" "$work/local"

say "importing it into the engine and into podman"
"$danaus" --state "$state" image import deb "$tarball" >/dev/null
podman_ import -q "$tarball" localhost/deb:bench >/dev/null

# The container's command: a configuration for port $1, then lighttpd.
serve() {
    echo "mkdir -p /srv/www && echo served >/srv/www/index.html &&" \
        "printf 'server.document-root = \"/srv/www\"\\nserver.port = $1\\nserver.bind = \"127.0.0.1\"\\n'" \
        ">/etc/lighttpd/bench.conf && exec lighttpd -D -f /etc/lighttpd/bench.conf"
}

# Waits until ports BASE+1..BASE+N all answer; fails after 120 s.
await_servers() { # N
    local i deadline=$((SECONDS + 120))
    for i in $(seq "$1"); do
        until curl -sf "http://127.0.0.1:$((base_port + i))/index.html" >/dev/null; do
            [ "$SECONDS" -lt "$deadline" ] || return 1
            sleep 0.02
        done
    done
}

results=$work/results.csv
echo "system,n,repeat,seconds,peak_mib" >"$results"
record() { # SYSTEM N SECONDS PEAK_MIB
    echo "$1,$2,$rep,$3,$4" >>"$results"
    say "$1 N=$2 #$rep: all answering after $3 s, peak $4 MiB"
}

danaus_batch() { # BACKEND N
    local backend=$1 n=$2 pool=l$1$2r$rep spec i
    if [ "$backend" = ceph ]; then
        mkdir -p "$work/fuse$top/$pool"
        spec=ceph:$bench_conf:$top/$pool
    else
        mkdir -p "$work/local/$pool"
        spec=local:$work/local/$pool
    fi
    "$danaus" --state "$state" pool create "$pool" --cpus "0-$(($(nproc) - 1))" \
        --memory 8G --backend "$spec"
    # Unpacks the image into the pool's backend, untimed.
    "$danaus" --state "$state" run --rm --pool "$pool" --image deb -- true
    local t0=$EPOCHREALTIME pids=()
    for i in $(seq "$n"); do
        "$danaus" --state "$state" run -d --pool "$pool" --image deb \
            --name "$pool-$i" -- sh -c "$(serve $((base_port + i)))" >/dev/null &
        pids+=($!)
    done
    wait "${pids[@]}"
    await_servers "$n" || die "danaus ($backend) N=$n: not every server answered"
    local t1=$EPOCHREALTIME svc
    svc=$(sed -n 's/^pid=//p' "$state/pools/$pool/pool")
    record "danaus ($backend)" "$n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')" \
        "$(awk '/^VmHWM:/ {printf "%.1f", $2 / 1024}' "/proc/$svc/status")"
    for i in $(seq "$n"); do "$danaus" --state "$state" rm -f "$pool-$i" >/dev/null; done
    "$danaus" --state "$state" pool rm "$pool"
}

podman_batch() { # N
    local n=$1 i
    podman_ --runtime "$(command -v runc)" run --rm --network host \
        --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
        localhost/deb:bench true
    local t0=$EPOCHREALTIME pids=()
    for i in $(seq "$n"); do
        podman_ --runtime "$(command -v runc)" run -d --network host \
            --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
            --name "p$n-$rep-$i" localhost/deb:bench \
            sh -c "$(serve $((base_port + i)))" >/dev/null &
        pids+=($!)
    done
    wait "${pids[@]}"
    await_servers "$n" || die "podman N=$n: not every server answered"
    local t1=$EPOCHREALTIME
    record "podman (overlayfs)" "$n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')" n/a
    podman_ rm -af -t 0 >/dev/null
}

for n in $counts; do
    for rep in $(seq "$repeats"); do
        danaus_batch ceph "$n"
        danaus_batch local "$n"
        podman_batch "$n"
    done
done

# Per system and N: the median time, the highest peak.
summary=$work/summary.csv
tail -n +2 "$results" | sort -t, -k2,2n -k1,1 -k4,4n | awk -F, -v OFS=, '
    function flush() { if (key != "") print sys, n, t[int((c + 1) / 2)], peak }
    $1 SUBSEP $2 != key { flush(); key = $1 SUBSEP $2; sys = $1; n = $2; c = 0; peak = $5 }
    { t[++c] = $4; if ($5 != "n/a" && $5 + 0 > peak + 0) peak = $5 }
    END { flush() }' >"$summary"
cp "$results" "$outdir/lighttpd.csv"
{
    echo "N lighttpd containers started at once from a Debian image (mmdebstrap --variant=essential --include=lighttpd);"
    echo "seconds: first start command to every server answering HTTP, median of $repeats batches;"
    echo "peak: highest VmHWM of the file-system client (danausd; podman's overlayfs is in the kernel)"
    echo
    printf '%-20s %4s %9s %9s\n' system N seconds "peak MiB"
    while IFS=, read -r system n seconds mib; do
        printf '%-20s %4s %9s %9s\n' "$system" "$n" "$seconds" "$mib"
    done <"$summary"
    echo
    echo "Time of Danaus on Ceph / time of podman (lower: Danaus faster):"
    for n in $counts; do
        awk -F, -v n="$n" '$2 == n && $1 == "danaus (ceph)" {d = $3}
            $2 == n && $1 == "podman (overlayfs)" {p = $3}
            END {if (p > 0) printf "  N=%-3s %.2fx\n", n, d / p}' "$summary"
    done
} | tee "$outdir/lighttpd.txt"
pivot_csv '$2' '$1' '$3' 1 <"$summary" >"$outdir/lighttpd-time.csv"
"$repo/bench/plot.sh" lines "$outdir/lighttpd-time.csv" "$outdir/lighttpd-time.png" \
    "N lighttpd containers: until all answer HTTP (median)" \
    "containers started at once (N)" seconds log
say "results in $outdir/lighttpd.txt, lighttpd.csv and lighttpd-time.png"
