#!/bin/sh
# fuse-idmap.sh - a pool's id map at both doors (fsservice/core/idmap.h),
# on the local backend.
#
#   fuse-idmap.sh DANAUSD LIBDANAUS
#
# Starts a root danausd with "idmap 0:200000:65536" and checks, as the
# host users a pool's containers are (200000 + n) and one outside the
# range (300000):
#  - host uid 201000 creating through the socket door (preload) and
#    through the FUSE door makes files owned 1000:1000 in the backend;
#    the preload shows them as 1000 (the client's own ids, inside its
#    namespace), FUSE as 201000 (the kernel maps them for the container);
#  - host root is the pool's root: its files are 0 in the backend,
#    200000 through FUSE; its chown through FUSE to 201005 stores 1005;
#  - every host uid of the range attaches to the socket door, not only
#    the owner (the socket is everyone's; its directory decides who
#    reaches it);
#  - host uid 300000 is refused at the socket door, so its preload leaves
#    its calls to the kernel, and is an "other" at the FUSE door: it
#    cannot read a 0640 file of 1000, reads a 0604 one, and what it
#    creates is 65534's in the backend (through FUSE, the pool's 65534:
#    host 265534).
# Exit 0 when every check passed.
set -u

if [ $# -ne 2 ]; then
    echo "usage: fuse-idmap.sh DANAUSD LIBDANAUS" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2")

site=$(mktemp -d /tmp/danaus-idmap-XXXXXX) || exit 1
chmod 0755 "$site"
mnt=$site/mnt back=$site/backing
service="idmap-$$"
mkdir "$site/run" "$back" || exit 1
cat > "$site/danausd.conf" <<CONF
service $service
rundir $site/run
fuse_keep 0
fuse_allow_other on
owner 201000:201000
idmap 0:200000:65536
mount $mnt local $back
CONF

. "$(dirname "$0")/../lib.sh"
# as UID PRELOAD(yes|no) COMMAND...: runs COMMAND as host uid and gid UID.
as() {
    _uid=$1 _pre=$2
    shift 2
    if [ "$_pre" = yes ]; then
        set -- env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
            DANAUS_RUNDIR="$site/run" DANAUS_RESTART_WAIT_MS=0 "$@"
    else
        set -- env -u LD_PRELOAD -u DANAUS_SERVICE "$@"
    fi
    timeout 30 setpriv --reuid "$_uid" --regid "$_uid" --clear-groups "$@"
}
owner() { stat -c %u:%g "$1" 2>&1; }
daemon=
trap site_remove EXIT

service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1
chmod 0777 "$back"

as 201000 yes sh -c "echo pre > $mnt/pre"
expect "socket door: host 201000 creates a file of 1000 in the backend" \
    1000:1000 "$(owner "$back/pre")"
expect "socket door: the preload shows it as 1000 (pool ids)" \
    1000:1000 "$(as 201000 yes stat -c %u:%g "$mnt/pre" 2>&1)"
as 201000 no sh -c "echo fuse > $mnt/fuse"
expect "FUSE door: host 201000 creates a file of 1000 in the backend" \
    1000:1000 "$(owner "$back/fuse")"
expect "FUSE door: the kernel shows it as 201000" \
    201000:201000 "$(owner "$mnt/fuse")"

echo root > "$mnt/root"
expect "host root is the pool's root: 0 in the backend" 0:0 \
    "$(owner "$back/root")"
expect "... 200000 through FUSE" 200000:200000 "$(owner "$mnt/root")"
chown 201005:201006 "$mnt/root"
expect "chown through FUSE to host ids stores pool ids" 1005:1006 \
    "$(owner "$back/root")"

expect "socket door: host 201001 of the range attaches, not only the owner" \
    1 "$(as 201001 yes grep -c danaus-area /proc/self/maps 2>&1)"
expect "socket door: an outsider reaches the socket and is refused" 0 \
    "$(as 300000 yes grep -c danaus-area /proc/self/maps 2>&1)"
echo secret > "$back/private" && chown 1000:1000 "$back/private" &&
    chmod 0640 "$back/private"
echo open > "$back/public" && chown 1000:1000 "$back/public" &&
    chmod 0604 "$back/public"
expect "an outsider's preload leaves its calls to FUSE (host ids shown)" \
    201000 "$(as 300000 yes stat -c %u "$mnt/public" 2>&1)"
expect "FUSE door: an outsider cannot read 0640 of 1000" \
    "Permission denied" \
    "$(as 300000 no cat "$mnt/private" 2>&1 | sed 's/.*: //')"
expect "FUSE door: an outsider reads what others may" open \
    "$(as 300000 no cat "$mnt/public" 2>&1)"
as 300000 no sh -c ": > $mnt/out-fuse"
expect "FUSE door: an outsider's file is 65534's" 65534:65534 \
    "$(owner "$back/out-fuse")"
expect "... which the host sees as the pool's 65534, not the outsider" \
    265534:265534 "$(owner "$mnt/out-fuse")"

[ "$failures" -eq 0 ] && echo "all idmap checks passed"
exit "$failures"
