#!/bin/sh
# fallocate.sh - fallocate modes through both doors against the kernel's
# client of the same backend (issue 38 item 3).
#
#   fallocate.sh DANAUSD LIBDANAUS FALLOCATE_PROBE local|ceph CEPH_CONF|-
#
# fallocate_probe's transcript (sizes, st_blocks moves, bytes read back,
# errno names) on the reference must be the same under the preload and,
# without collapse and insert (which the kernel's FUSE client does not
# forward), through the FUSE door. The reference is a plain ext4 directory
# for the local backend and a ceph-fuse mount of the same cluster for Ceph
# (whose client supports fewer modes: both must refuse the same ones). A
# punch through the preload after a cached read reads zeros. On a local
# union, a hole punched and a range zeroed in a partial copy-up of a lower
# file read zeros there and the lower bytes elsewhere, through both doors
# and after a restart of the service, and the copy stays partial.
set -u
if [ $# -ne 5 ]; then
    echo "usage: fallocate.sh DANAUSD LIBDANAUS FALLOCATE_PROBE local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") probe=$(realpath "$3")
backend=$4 ceph_conf=$5

. "$(dirname "$0")/lib.sh"
site_make fallocate "$backend" "$ceph_conf" || exit 2
mkdir "$site/upper" "$site/lower" || exit 1
reference_make "$backend" "$ceph_conf" fallocate || exit 1
if [ "$backend" = local ]; then
    echo "union $site/union local $site/upper $site/lower" \
        >> "$site/danausd.conf"
fi
# 64 KiB of 'x': no zero byte anywhere.
head -c 65536 /dev/zero | tr '\0' 'x' > "$site/lower/f"

daemon=
[ -n "${KEEP:-}" ] || trap 'reference_cleanup "$backend"' EXIT
start() {
    service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf"
}
start || exit 1

# The same sequence on the reference, under the preload, through the FUSE
# door.
plain "$probe" "$ref/p" > "$site/ref.txt"
plain "$probe" "$ref/q" fuse > "$site/ref-fuse.txt"
pre "$probe" "$mnt/p" > "$site/preload.txt"
plain "$probe" "$mnt/q" fuse > "$site/fuse.txt"
if cmp -s "$site/ref.txt" "$site/preload.txt"; then
    ok "the preload's transcript is the reference's ($backend)"
else
    fail "the preload's transcript differs from the reference's"
    diff "$site/ref.txt" "$site/preload.txt"
fi
if cmp -s "$site/ref-fuse.txt" "$site/fuse.txt"; then
    ok "the FUSE door's transcript is the reference's ($backend)"
else
    fail "the FUSE door's transcript differs from the reference's"
    diff "$site/ref-fuse.txt" "$site/fuse.txt"
fi

# A read kept in the preload's read cache, then a punch by another
# descriptor: the next read sees the zeros.
expect "a cached read after a punch reads zeros" "4096 zeros" \
    "$(pre python3 -c "
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = os.open(sys.argv[1], os.O_RDONLY)
os.pread(r, 4096, 0)
os.pread(r, 4096, 0)
w = os.open(sys.argv[1], os.O_RDWR)
if libc.fallocate(w, 3, ctypes.c_long(0), ctypes.c_long(4096)) != 0:
    sys.exit(os.strerror(ctypes.get_errno()))
print(os.pread(r, 4096, 0).count(0), 'zeros')" "$mnt/p")"

[ "$backend" = local ] || exit $((failures != 0))

# A union's partial copy-up: the expected bytes made by ext4 from a copy
# of the lower file.
cp "$site/lower/f" "$site/plain/u"
fallocate -p -o 4096 -l 8192 "$site/plain/u"
fallocate -z -o 30000 -l 5000 "$site/plain/u"
expect "punch in a lower file through the preload" 0 \
    "$(pre fallocate -p -o 4096 -l 8192 "$site/union/f"; echo $?)"
expect "zero-range in it through the FUSE door" 0 \
    "$(plain fallocate -z -o 30000 -l 5000 "$site/union/f"; echo $?)"
expect "the upper copy is still partial" yes \
    "$(plain python3 -c "
import os, sys
print('yes' if 'trusted.danaus.copyup' in os.listxattr(sys.argv[1]) else 'no')" \
        "$site/upper/f")"
expect "the preload reads zeros there and the lower bytes elsewhere" 0 \
    "$(pre cmp "$site/union/f" "$site/plain/u"; echo $?)"
expect "so does the FUSE door" 0 \
    "$(plain cmp "$site/union/f" "$site/plain/u"; echo $?)"
service_stop
start || exit 1
expect "and so does the next service" 0 \
    "$(pre cmp "$site/union/f" "$site/plain/u"; echo $?)"

[ "$failures" -eq 0 ]
