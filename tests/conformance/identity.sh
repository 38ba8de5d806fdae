#!/bin/sh
# identity.sh - a preloaded process that changes its identity after it
# attached (issue 17): its calls must act with the identity it has now,
# not the one the service learned at attach.
#
#   identity.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|-
#
# As root, a preloaded Python makes a directory 0755 and a file 0600 in
# the instance, then seteuid/setegid to nobody: creating in the directory,
# reading the file and chmod of it must fail with EACCES/EPERM; back as
# root, they succeed. Prints ok/FAIL per check; exit 0 when all passed.
set -u

if [ $# -ne 4 ]; then
    echo "usage: identity.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") backend=$3 ceph_conf=$4

. "$(dirname "$0")/lib.sh"
site_make ident "$backend" "$ceph_conf" || exit 2
daemon=
cleanup() {
    rm -rf "$mnt"/* 2>/dev/null
    service_stop
    unmount_left "$mnt"
    rm -rf "$site"
}
trap cleanup EXIT
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1

got=$(timeout 30 env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
      DANAUS_RUNDIR="$site/run" /usr/bin/python3 -c "
import errno, os
def attempt(what, fn):
    try:
        fn(); print(what, 'ok')
    except OSError as e:
        print(what, errno.errorcode[e.errno])
os.mkdir('$mnt/d', 0o755)
fd = os.open('$mnt/secret', os.O_CREAT | os.O_WRONLY, 0o600); os.close(fd)
os.setgroups([]); os.setegid(65534); os.seteuid(65534)
attempt('nobody creates', lambda: os.close(os.open('$mnt/d/f', os.O_CREAT | os.O_WRONLY, 0o644)))
attempt('nobody reads', lambda: os.close(os.open('$mnt/secret', os.O_RDONLY)))
attempt('nobody chmods', lambda: os.chmod('$mnt/secret', 0o644))
os.seteuid(0); os.setegid(0)
attempt('root again creates', lambda: os.close(os.open('$mnt/d/f', os.O_CREAT | os.O_WRONLY, 0o644)))
attempt('root again reads', lambda: os.close(os.open('$mnt/secret', os.O_RDONLY)))
" 2>&1 | paste -sd'|')
want="nobody creates EACCES|nobody reads EACCES|nobody chmods EPERM|root again creates ok|root again reads ok"
if [ "$got" = "$want" ]; then
    echo "ok: calls after seteuid act as the new identity ($backend)"
    exit 0
fi
echo "FAIL: expected [$want]"
echo "           got [$got]"
cat "$site/danausd.log"
exit 1
