#!/bin/sh
# run-scenario.sh - runs one real-program scenario on a plain directory and
# on a Danaus mount under LD_PRELOAD, and compares the two transcripts.
#
#   run-scenario.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|- SCENARIO
#
# Starts a danausd (local backend on a private host directory, or the
# CephFS root with CEPH_CONF, each run in a CephFS directory of its own),
# then runs `sh SCENARIO` twice with the working directory and $ROOT set to:
#   reference  a fresh plain directory, no preload;
#   danaus     a fresh directory on the Danaus mount, with
#              LD_PRELOAD=LIBDANAUS, DANAUS_SERVICE and DANAUS_RUNDIR.
# $OUTSIDE is an empty plain directory in both runs (for moves across file
# systems). A scenario prints a normalized transcript (tests/programs/lib.sh) on
# stdout and stderr; each run's own root is replaced by "$ROOT". Exit 0 when
# the transcripts and exit statuses are the same and the reference run
# succeeded; otherwise the diff is printed and the exit status is 1.
# Used by tests/programs/programs.cmake.
set -u

if [ $# -ne 5 ]; then
    echo "usage: run-scenario.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|- SCENARIO" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") backend=$3 ceph_conf=$4
scenario=$(realpath "$5")
name=$(basename "$scenario" .sh)
here=$(dirname "$(realpath "$0")")
mountpoint=/danaus-programs

site=$(mktemp -d "/tmp/danaus-programs-$name-XXXXXX") || exit 1
service="programs-$name-$$"
mkdir "$site/run" "$site/plain" "$site/backing" || exit 1
{
    echo "service $service"
    echo "rundir $site/run"
    case $backend in
    local) echo "mount $mountpoint local $site/backing" ;;
    ceph) echo "ceph_conf $ceph_conf"; echo "mount $mountpoint ceph /" ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
    esac
} > "$site/danausd.conf" || exit 2

. "$(dirname "$0")/../lib.sh"
service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf" >&2 ||
    exit 1

# The Danaus run's root; on CephFS the root is shared between runs.
droot="$mountpoint/programs-$name-$(hostname)-$$"
danaus_env() {
    env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
if ! danaus_env mkdir "$droot"; then
    echo "cannot make $droot on the Danaus mount" >&2
    service_stop
    exit 1
fi

# One run: cd to the root, run the scenario, replace the root in what it
# printed, append its exit status.
run() { # ROOT OUT [env assignments...]
    root=$1 out=$2
    shift 2
    rm -rf "$site/outside" && mkdir "$site/outside" || exit 1
    # The cd happens inside the (preloaded) shell: the Danaus root exists
    # only for processes running with the library.
    env ROOT="$root" OUTSIDE="$site/outside" PROGRAMS_LIB="$here/lib.sh" \
        "$@" sh -c 'cd "$ROOT" && exec sh "$1"' sh "$scenario" \
        > "$out.raw" 2>&1 < /dev/null
    status=$?
    # Both roots and the site are made of characters sed takes literally.
    sed -e "s|$root|\$ROOT|g" -e "s|$site/outside|\$OUTSIDE|g" \
        "$out.raw" > "$out"
    echo "scenario exit status $status" >> "$out"
}

start=$(date +%s)
run "$site/plain" "$site/reference.txt"
ref_status=$status
middle=$(date +%s)
run "$droot" "$site/danaus.txt" LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
    DANAUS_RUNDIR="$site/run"
end=$(date +%s)
echo "$name on $backend: reference $((middle - start)) s, danaus $((end - middle)) s"

ok=1
if [ "$ref_status" -ne 0 ]; then
    echo "the scenario fails on a plain directory (status $ref_status):"
    cat "$site/reference.txt"
    ok=0
fi
if ! diff -a -u "$site/reference.txt" "$site/danaus.txt" \
    --label reference --label "danaus ($backend)"; then
    ok=0
fi

danaus_env rm -rf "$droot"
service_stop
if [ $ok -eq 1 ]; then
    rm -rf "$site"
    echo "same"
    exit 0
fi
echo "danausd log:"
cat "$site/danausd.log"
echo "site kept: $site"
echo "DIFFERENT"
exit 1
