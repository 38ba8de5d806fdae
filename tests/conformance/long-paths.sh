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
# reference, and the door resolves nothing itself. On the local backend
# a union does the same over a lower branch that holds the directories
# already, and a file at the chain's end, written through either door,
# is copied up whole (too deep for a partial copy's record).
set -u
if [ $# -ne 5 ]; then
    echo "usage: long-paths.sh DANAUSD LIBDANAUS LONGPATH_PROBE local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") probe=$(realpath "$3")
backend=$4 ceph_conf=$5

. "$(dirname "$0")/lib.sh"
site_make longpaths "$backend" "$ceph_conf" || exit 2
daemon=
[ -n "${KEEP:-}" ] || trap 'reference_cleanup "$backend"' EXIT
reference_make "$backend" "$ceph_conf" longpaths || exit 1
echo "host secret" > "$site/secret"

# deep RUN DIR ACTION: with RUN (plain or pre), from DIR (two levels
# below $site) goes 12 levels down, makes the probe's chain of 3,764
# bytes below (what is there already kept) and acts at its end: "make"
# makes a file "lowfile" holding "lower bytes"; "append" adds "more" to
# it; "read" prints it; "escape" makes symbolic links out ("up" climbs
# 29 levels, to $site, and names $site/secret, outside any instance;
# "abs" names $site/secret; "root" names "/") and prints what opening
# each (and $site/secret through "root") reads, or its errno name.
cat > "$site/deep.py" <<'EOF'
import errno, os, sys
top, action, secret = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(top, exist_ok=True)
os.chdir(top)
for _ in range(12):
    os.makedirs('d' * 250, exist_ok=True)
    os.chdir('d' * 250)
chain = '/'.join(['c' * 250] * 15)
part = ''
for name in chain.split('/'):
    part = part + '/' + name if part else name
    os.makedirs(part, exist_ok=True)
path = chain + '/lowfile'
if action == 'make':
    with open(path, 'w') as f:
        f.write('lower bytes\n')
elif action == 'append':
    with open(path, 'a') as f:
        f.write('more\n')
elif action == 'read':
    with open(path) as f:
        print(f.read().replace('\n', ' ').strip())
else:
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
deep() { $1 python3 "$site/deep.py" "$2" "$3" "$site/secret"; }
if [ "$backend" = local ]; then
    mkdir "$site/upper" "$site/lower" || exit 1
    echo "union $site/union local $site/upper $site/lower" \
        >> "$site/danausd.conf"
    for d in "$site/lower/pre" "$site/lower/fuse" "$ref/ut"; do
        deep plain "$d" make || exit 1
    done
fi

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

flat() { tr '\n' ' ' < "$1" | sed 's/ $//'; }
# The host's kernel follows each link out, on the reference and through
# the FUSE door (which answers lookups of names and never sees a climb).
kernel="up host secret abs host secret root host secret"
if [ "$backend" = local ]; then
    deep plain "$ref/t" escape > "$site/ref-escape.txt" 2>&1
    expect "the kernel follows the links out of the reference" "$kernel" \
        "$(flat "$site/ref-escape.txt")"
fi
deep plain "$mnt/fuse" escape > "$site/fuse-escape.txt" 2>&1
expect "the FUSE door's links lead where the kernel's do" "$kernel" \
    "$(flat "$site/fuse-escape.txt")"
# Through the preload no link leads out of the instance. The local
# backend refuses a climb above, or an absolute link in, the part of a
# path past PATH_MAX (ENAMETOOLONG, as before it resolved such paths);
# Ceph's walk, one name at a time, stops a climb at the instance's root
# and starts an absolute link there (ENOENT: no secret in the instance).
deep pre "$mnt/pre" escape > "$site/preload-escape.txt" 2>&1
if [ "$backend" = local ]; then refused=ENAMETOOLONG; else refused=ENOENT; fi
expect "no link past PATH_MAX leads the preload out of the instance" \
    "up $refused abs $refused root $refused" \
    "$(flat "$site/preload-escape.txt")"

# A tree deeper than PATH_MAX removed as programs remove one: GNU rm
# walks it with descriptors (*at calls), under the preload.
deep pre "$mnt/pre" make
expect "rm -rf of a tree past PATH_MAX through the preload" "0 gone" \
    "$(pre rm -rf "$mnt/pre"; echo $? "$(plain ls "$mnt" | grep -c '^pre$' |
        sed 's/^0$/gone/')")"

[ "$backend" = local ] || exit $((failures != 0))

# The union: the probe over directories its lower branch holds.
plain "$probe" "$ref/ut" > "$site/ref-union.txt"
pre "$probe" "$site/union/pre" > "$site/union-preload.txt"
plain "$probe" "$site/union/fuse" > "$site/union-fuse.txt"
for door in preload fuse; do
    if cmp -s "$site/ref-union.txt" "$site/union-$door.txt"; then
        ok "a union's transcript is the reference's ($door)"
    else
        fail "a union's transcript differs from the reference's ($door)"
        diff "$site/ref-union.txt" "$site/union-$door.txt"
    fi
done
# The lower file at the chain's end, written through one door and read
# through the other: copied up, the lower branch's own unchanged.
deep pre "$site/union/pre" append
expect "a union's file past PATH_MAX written through the preload" \
    "lower bytes more" "$(deep plain "$site/union/pre" read)"
deep plain "$site/union/fuse" append
expect "a union's file past PATH_MAX written through the FUSE door" \
    "lower bytes more" "$(deep pre "$site/union/fuse" read)"
expect "the lower branch's files are as they were" \
    "lower bytes lower bytes" \
    "$(deep plain "$site/lower/pre" read) $(deep plain "$site/lower/fuse" read)"
# The union walks links itself: a climb stops at its root, an absolute
# link starts there (ENOENT: no secret in the union).
deep pre "$site/union/pre" escape > "$site/union-escape.txt" 2>&1
expect "no link past PATH_MAX leads a union out" \
    "up ENOENT abs ENOENT root ENOENT" "$(flat "$site/union-escape.txt")"

[ "$failures" -eq 0 ]
