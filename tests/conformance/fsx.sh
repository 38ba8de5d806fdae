#!/bin/sh
# fsx.sh - random-operation data checks (issue 17) on one backend: fsx
# (fsx.c) through the preload, its maps going through the FUSE door, and
# through the FUSE door alone, each file checked against fsx's model.
#
#   fsx.sh DANAUSD LIBDANAUS FSX local|ceph CEPH_CONF|- [OPS]
#
# The seed is the time unless FSX_SEED is set; a failure prints it. Exit 0
# when both runs matched the model.
set -u

if [ $# -lt 5 ]; then
    echo "usage: fsx.sh DANAUSD LIBDANAUS FSX local|ceph CEPH_CONF|- [OPS]" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") fsx=$(realpath "$3")
backend=$4 ceph_conf=$5 ops=${6:-8000}
seed=${FSX_SEED:-$(date +%s)}

. "$(dirname "$0")/lib.sh"
site_make fsx "$backend" "$ceph_conf" || exit 2
daemon=
cleanup() {
    rm -f "$mnt"/fsx.*
    service_stop
    unmount_left "$mnt"
    rm -rf "$site"
}
trap cleanup EXIT
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1

status=0
echo "through the preload (maps through the FUSE door):"
timeout 120 env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
    DANAUS_RUNDIR="$site/run" "$fsx" "$mnt/fsx.preload" "$ops" "$seed" ||
    status=1
echo "through the FUSE door alone:"
timeout 120 "$fsx" "$mnt/fsx.fuse" "$ops" "$((seed + 1))" || status=1
[ $status -eq 0 ] || { echo "danausd's log:"; cat "$site/danausd.log"; }
exit $status
