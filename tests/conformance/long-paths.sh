#!/bin/sh
# long-paths.sh - relative paths the kernel accepts whose join with the
# current directory is longer than PATH_MAX, through both doors, against
# the kernel's client of the same backend (issue 38 item 2).
#
#   long-paths.sh DANAUSD LIBDANAUS LONGPATH_PROBE local|ceph CEPH_CONF|-
#
# longpath_probe's transcript (3,012 bytes deep, calls with relative paths
# up to 4,095 bytes, 4,096 refused) on the reference must be the same
# under the preload and through the FUSE door. The reference is a plain
# ext4 directory for the local backend and a ceph-fuse mount of the same
# cluster for Ceph. Then symbolic links past PATH_MAX try to lead out of
# the instance (a relative target climbing above its root, an absolute
# one to the host): through the preload neither reads the host's file;
# through the FUSE door the host's kernel follows them, as on the
# reference, and the door resolves nothing itself.
set -u
if [ $# -ne 5 ]; then
    echo "usage: long-paths.sh DANAUSD LIBDANAUS LONGPATH_PROBE local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") probe=$(realpath "$3")
backend=$4 ceph_conf=$5

. "$(dirname "$0")/lib.sh"
site_make longpaths "$backend" "$ceph_conf" || exit 2
reference_make "$backend" "$ceph_conf" longpaths || exit 1
echo "host secret" > "$site/secret"

daemon=
cleanup() {
    service_stop
    reference_remove "$backend"
    unmount_left "$mnt"
    rm -rf "$site"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1

plain mkdir "$ref/t" "$mnt/pre" "$mnt/fuse" || exit 1
plain "$probe" "$ref/t" > "$site/ref.txt"
pre "$probe" "$mnt/pre" > "$site/preload.txt"
plain "$probe" "$mnt/fuse" > "$site/fuse.txt"
grep -q '^mkdir of each level = 0$' "$site/ref.txt" ||
    fail "the reference could not make the chain"
if cmp -s "$site/ref.txt" "$site/preload.txt"; then
    ok "the preload's transcript is the reference's ($backend)"
else
    fail "the preload's transcript differs from the reference's"
    diff "$site/ref.txt" "$site/preload.txt"
fi
if cmp -s "$site/ref.txt" "$site/fuse.txt"; then
    ok "the FUSE door's transcript is the reference's ($backend)"
else
    fail "the FUSE door's transcript differs from the reference's"
    diff "$site/ref.txt" "$site/fuse.txt"
fi

# escape RUN DIR: with RUN (plain or pre), from DIR's deep directory (the
# probe's; DIR is two levels below $site), makes a chain of 3,764 bytes, at its end symbolic links: "up"
# climbs 29 levels, to $site, and names $site/secret, outside any
# instance; "abs" names $site/secret, "root" names "/". Prints what
# opening each (and $site/secret through "root") reads, or its errno.
escape() {
    $1 python3 - "$2" "$site/secret" <<'EOF'
import errno, os, sys
top, secret = sys.argv[1], sys.argv[2]
os.chdir(top)
for _ in range(12):
    os.chdir('d' * 250)
chain = '/'.join(['c' * 250] * 15)
part = ''
for name in chain.split('/'):
    part = part + '/' + name if part else name
    os.mkdir(part)
os.symlink('../' * 29 + 'secret', chain + '/up')
os.symlink(secret, chain + '/abs')
os.symlink('/', chain + '/root')
for what, path in (('up', chain + '/up'), ('abs', chain + '/abs'),
                   ('root', chain + '/root' + secret)):
    try:
        with open(path) as f:
            print(what, f.read().strip())
    except OSError as e:
        print(what, errno.errorcode[e.errno])
EOF
}
flat() { tr '\n' ' ' < "$1" | sed 's/ $//'; }
# The host's kernel follows each link out, on the reference and through
# the FUSE door (which answers lookups of names and never sees a climb).
kernel="up host secret abs host secret root host secret"
if [ "$backend" = local ]; then
    escape plain "$ref/t" > "$site/ref-escape.txt" 2>&1
    expect "the kernel follows the links out of the reference" "$kernel" \
        "$(flat "$site/ref-escape.txt")"
fi
escape plain "$mnt/fuse" > "$site/fuse-escape.txt" 2>&1
expect "the FUSE door's links lead where the kernel's do" "$kernel" \
    "$(flat "$site/fuse-escape.txt")"
# Through the preload no link leads out of the instance. The local
# backend refuses a climb above, or an absolute link in, the part of a
# path past PATH_MAX (ENAMETOOLONG, as before it resolved such paths);
# Ceph's walk, one name at a time, stops a climb at the instance's root
# and starts an absolute link there (ENOENT: no secret in the instance).
escape pre "$mnt/pre" > "$site/preload-escape.txt" 2>&1
if [ "$backend" = local ]; then refused=ENAMETOOLONG; else refused=ENOENT; fi
expect "no link past PATH_MAX leads the preload out of the instance" \
    "up $refused abs $refused root $refused" \
    "$(flat "$site/preload-escape.txt")"

[ "$failures" -eq 0 ]
