#!/bin/sh
# A build without Ceph (DANAUS_CEPH=OFF, or no libcephfs-dev): the engine
# and danausd refuse a ceph backend by name, in one line, before anything
# is made. Usage: no_ceph.sh DANAUS DANAUSD. Needs root.
set -u
danaus=$1
danausd=$2
work=$(mktemp -d /tmp/danaus-noceph-test.XXXXXX)
export DANAUS_STATE=$work/state

. "$(dirname "$0")/checks.sh"
trap 'rm -rf "$work"' EXIT

printf '[global]\n' >"$work/ceph.conf"
back="ceph:$work/ceph.conf:/tenants/a"
expect_error "pool create on ceph" 1 \
    "backend '$back': this danaus was built without Ceph" \
    "$danaus" pool create a --cpus 0 --memory 64M --backend "$back"
check "nothing of the pool was made" "" "$(ls "$DANAUS_STATE/pools" 2>/dev/null)"

printf 'service noceph-%s\nmount /a ceph /\n' $$ >"$work/danausd.conf"
expect_error "danausd with a ceph mount" 1 "unknown backend 'ceph' (local)" \
    "$danausd" -c "$work/danausd.conf" --check
printf 'service noceph-%s\nceph_conf %s\n' $$ "$work/ceph.conf" \
    >"$work/danausd.conf"
expect_error "danausd with a Ceph setting" 1 \
    "unknown setting 'ceph_conf' (backends built in: local)" \
    "$danausd" -c "$work/danausd.conf" --check

[ "$failures" -eq 0 ]
