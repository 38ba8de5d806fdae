#!/bin/sh
# Images written by an attacker (issue 34, items 6 and 7): archives whose
# members are symbolic links to host files, blobs that do not match their
# digests or declared sizes, a gzip bomb, a layer tar cannot unpack; and an
# image's setuid-root program and device node, and a container's setuid
# file, tried by an unprivileged host user in the pool's backend.
# Usage: hostile_images.sh DANAUS. Needs root, /dev/fuse, busybox-static,
# python3, setpriv.
set -u
danaus=$1
work=$(mktemp -d /tmp/danaus-hostile-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
trap 'remove_containers_and_pools; rm -rf "$work"' EXIT

# The backend where an operator would keep it: host users may traverse to
# it (mktemp made $work 0700).
chmod 755 "$work"
mkdir -m 755 "$work/back"
"$danaus" pool create p --cpus 0 --memory 256M --backend "local:$work/back" || exit 1

# nobody, as a host user is: setpriv keeps root's capabilities until its
# exec (setpriv(1)), so the program under test is exec'ed by a shell.
as_host_user() {
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
        sh -c '"$@"' sh "$@" 2>&1
}

# A busybox root every image below starts from.
t=$work/tree
mkdir -p "$t/bin" "$t/etc" "$t/dev"
cp /bin/busybox "$t/bin/busybox"
for c in sh cat cp chmod stat; do ln -s busybox "$t/bin/$c"; done
echo from-the-image >"$t/etc/motd"

# Item 6. The image: a setuid-root cat, a file only root may read, a
# device node anyone may open.
cp /bin/cat "$t/bin/suidcat" && chmod 4755 "$t/bin/suidcat"
echo top-secret >"$t/etc/secret" && chmod 600 "$t/etc/secret"
mknod -m 666 "$t/dev/null2" c 1 3
tar -C "$t" --numeric-owner -cf "$work/suid.tar" .
rm "$t/bin/suidcat" "$t/etc/secret" "$t/dev/null2"
"$danaus" image import suid "$work/suid.tar" || exit 1
"$danaus" run --pool p --image suid --name w -v vol:/vol -- sh -c \
    'cp /bin/suidcat /made && chmod 4755 /made && cp /bin/suidcat /vol/made && chmod 4755 /vol/made'
check "a container makes setuid files" 0 $?
layer=$work/back/images/suid/0
check "the container still sees the image's setuid program" 4755 \
    "$("$danaus" run --rm --pool p --image suid -- stat -c %a /bin/suidcat)"
check "a host user cannot run the image's setuid-root program in the backend" \
    "sh: 1: $layer/bin/suidcat: Permission denied" \
    "$(as_host_user "$layer/bin/suidcat" "$layer/etc/secret")"
check "a host user cannot open the image's device node in the backend" \
    "cat: $layer/dev/null2: Permission denied" \
    "$(as_host_user cat "$layer/dev/null2")"
check "a host user cannot run a container's setuid file in the backend" \
    "sh: 1: $work/back/containers/w/made: Permission denied" \
    "$(as_host_user "$work/back/containers/w/made" /etc/hostname)"
check "a host user cannot run a volume's setuid file in the backend" \
    "sh: 1: $work/back/volumes/vol/made: Permission denied" \
    "$(as_host_user "$work/back/volumes/vol/made" /etc/hostname)"
check "a host user cannot list the containers' files in the backend" \
    "ls: cannot open directory '$work/back/containers': Permission denied" \
    "$(as_host_user ls "$work/back/containers")"
check "a container's non-root user still reads its root" from-the-image \
    "$("$danaus" run --rm --pool p --image suid -u 1000 -- cat /etc/motd)"
"$danaus" rm -f w >/dev/null

echo "$failures failures"
[ "$failures" -eq 0 ]
