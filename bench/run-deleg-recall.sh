#!/bin/bash
# run-deleg-recall.sh - the experiment behind docs/cache.md's "Write-back
# on Ceph": bench/deleg_recall.c in each of its modes on one test
# cluster (CEPH_CONF's, or one started here and stopped at the end; run
# it under `flock /work/helpers/ceph.lock` on a shared machine), the last
# mode being the one that is expected to hang until its 20 s run out.
#
#   bench/run-deleg-recall.sh OUTDIR BUILD
#
# Writes OUTDIR/deleg-recall.txt.
set -euo pipefail

say() { echo "run-deleg-recall: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 2 ] || die "usage: run-deleg-recall.sh OUTDIR BUILD"
outdir=$1 build=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
probe=$build/bench/deleg-recall
[ -x "$probe" ] || die "no $probe (a build with Ceph)"
mkdir -p "$outdir"
work=$(mktemp -d "${TMPDIR:-/tmp}/danaus-deleg-XXXXXX")
source "$(dirname "$0")/lib.sh"
cluster_dir=""
trap '[ -n "$cluster_dir" ] && "$repo/deploy/ceph-cluster.sh" stop "$cluster_dir"; rm -rf "$work"' EXIT
use_ceph_cluster
quiet_client_conf

out=$outdir/deleg-recall.txt
{
    echo "# bench/run-deleg-recall.sh, $(date -u +%FT%TZ), commit $(git -C "$repo" rev-parse --short HEAD), libcephfs $(dpkg-query -W -f '${Version}' libcephfs2 2>/dev/null || echo '?')"
    for mode in return written-before local-open write-at-recall; do
        echo
        status=0
        "$probe" "$bench_conf" "$mode" 10 || status=$?
        echo "exit status $status"
    done
} | tee "$out"
