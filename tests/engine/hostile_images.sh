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
layer=$work/back/layers/$(sed -n 's/^layers_sha256=//p' "$DANAUS_STATE/images/suid/image")
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

# Item 7. What the links below point at: a host tar (its motd would show
# in a container), and host files a manifest might be.
tar -C "$t" --numeric-owner -cf "$work/bb.tar" .
echo from-the-host >"$t/etc/motd"
tar -C "$t" --numeric-owner -cf "$work/host.tar" .
good=$(sha256sum <"$work/bb.tar" | cut -d' ' -f1)
bad=$(sha256sum <"$work/host.tar" | cut -d' ' -f1)
size=$(stat -c %s "$work/bb.tar")
# hostile KIND VARIANT: an image whose one layer is bb.tar, made hostile as
# VARIANT says (hostile_image.py), in $image: a directory for oci-layout,
# else a tar of it.
hostile() {
    dir=$work/$1-$2 name=evil-$1-$2
    rm -rf "$dir" "$work/host-blobs"
    python3 "$(dirname "$0")/hostile_image.py" "${1%-*}" "$dir" "$2" || exit 1
    image=$dir
    # (members named as docker save names them: no "./")
    [ "$1" = oci-layout ] || { tar -C "$dir" -cf "$dir.tar" $(ls -A "$dir") && image=$dir.tar; }
}
hostile docker good
"$danaus" image import docker-good "$image"
check "a docker archive as docker saves it imports" 0 $?
hostile docker layer-link
expect_error "docker archive: a layer that is a symlink to a host tar" 1 \
    "docker archive layer 1: member l.tar is a symlink, not a file" \
    "$danaus" image import "$name" "$image"
hostile docker manifest-link
expect_error "docker archive: manifest.json a symlink to a host file" 1 \
    "docker archive: member manifest.json is a symlink, not a file" \
    "$danaus" image import "$name" "$image"
hostile docker digest
expect_error "docker archive: blobs/sha256/HEX holding other bytes" 1 \
    "docker archive layer 1: member blobs/sha256/$good does not match its digest (its sha256 is $bad)" \
    "$danaus" image import "$name" "$image"
# Image configurations as an attacker writes them (issue 40): strict JSON,
# each run setting checked at import.
bad_config() { # bad_config WHAT CONFIG MESSAGE-PART
    HOSTILE_CONFIG=$2 hostile docker config
    expect_error "image config: $1" 1 "$3" "$danaus" image import "$name" "$image"
}
bad_config "a trailing comma" '{"config":{"Cmd":["sh",]}}' "image config: not valid JSON: an unknown value at byte 23"
bad_config "a key twice" '{"config":{"User":"0","User":"app"}}' 'image config: "User" appears twice'
bad_config "NUL in a string" '{"config":{"Cmd":["sh\u0000x"]}}' 'image config: not valid JSON: \u0000 in a string'
bad_config "nesting" "$(python3 -c "print('[' * 100 + ']' * 100)")" "image config: not valid JSON: nesting too deep"
bad_config "Cmd not a list" '{"config":{"Cmd":"sh"}}' 'image config: "Cmd" is not a list'
bad_config "Env without NAME=" '{"config":{"Env":["=x"]}}' "image config: \"Env\" entry '=x' is not NAME=VALUE"
bad_config "WorkingDir leaving the root" '{"config":{"WorkingDir":"/app/../../etc"}}' "image config: \"WorkingDir\" '/app/../../etc' is not a plain absolute path"
bad_config "User with a newline" '{"config":{"User":"a\nb"}}' "is not USER[:GROUP]"
check "a refused image leaves nothing" "" "$(ls "$DANAUS_STATE/images" | grep evil-docker-config)"
# -u NAME reads the container's /etc/passwd: a FIFO there (which would
# block a reader) is refused.
cp -a "$t" "$work/fifo-root" && mkfifo "$work/fifo-root/etc/passwd"
tar -C "$work/fifo-root" --numeric-owner -cf "$work/fifo.tar" .
"$danaus" image import user-fifo "$work/fifo.tar" || exit 1
expect_error "a FIFO for /etc/passwd" 126 "the container's /etc/passwd is not a regular file" timeout 20 "$danaus" run --rm --pool p --image user-fifo -u app -- sh -c true
"$danaus" image rm user-fifo
for kind in oci-layout oci-archive; do
    hostile $kind good
    "$danaus" image import $kind-good "$image"
    check "$kind: an image as skopeo writes it imports" 0 $?
    hostile $kind blob-link
    expect_error "$kind: a layer blob that is a symlink to a host tar" 1 \
        "OCI layer 1: member blobs/sha256/$bad is a symlink, not a file" \
        "$danaus" image import "$name" "$image"
    hostile $kind blobs-link
    expect_error "$kind: blobs/sha256 a symlink to a host directory" 1 \
        "OCI manifest: member blobs/sha256/" "$danaus" image import "$name" "$image"
    check "$kind: ... which is named as what it is" 1 "$("$danaus" image import "$name" "$image" 2>&1 | grep -c 'lies under a symlink$')"
    hostile $kind index-link
    expect_error "$kind: index.json a symlink to a host file" 1 \
        "OCI layout: member index.json is a symlink, not a file" \
        "$danaus" image import "$name" "$image"
    hostile $kind digest
    expect_error "$kind: a layer blob holding other bytes than its digest" 1 \
        "OCI layer 1: member blobs/sha256/$good does not match its digest (its sha256 is $bad)" \
        "$danaus" image import "$name" "$image"
    hostile $kind size
    expect_error "$kind: a layer blob of another size than declared" 1 \
        "OCI layer 1: member blobs/sha256/$good is $size bytes, the manifest says $((size + 1))" \
        "$danaus" image import "$name" "$image"
done
check "the good images show the image, not the host" "from-the-image
from-the-image
from-the-image" "$(for i in docker-good oci-layout-good oci-archive-good; do
    "$danaus" run --rm --pool p --image $i -- cat /etc/motd; done)"

# A gzip bomb: 200 MiB of zeros in a few hundred KiB.
mkdir "$work/bomb" && truncate -s 200M "$work/bomb/zeros"
tar -C "$work/bomb" -cf - . | gzip -9 >"$work/bomb.tar.gz"
expect_error "a gzip bomb stops at the decompression limit" 1 \
    "layer 1: unpacks to more than 64 MiB (the decompression limit; --max-layer-size SIZE sets another)" \
    "$danaus" image import bomb "$work/bomb.tar.gz"
"$danaus" image import --max-layer-size 300M big "$work/bomb.tar.gz"
check "--max-layer-size lets a large layer in" 0 $?
check "refused imports leave nothing" \
    "big docker-good oci-archive-good oci-layout-good suid" \
    "$(ls -A "$DANAUS_STATE/images" | xargs)"
check "refused imports leave no layer archive" \
    "$(sed -n 's/^layers_sha256=//p' "$DANAUS_STATE"/images/*/image | tr ' ' '\n' | sort -u | sed 's/$/.tar/' | xargs)" \
    "$(ls -A "$DANAUS_STATE/layers" | xargs)"

# A layer tar refuses: the reason, not tar's notice before it.
python3 -c "
import io, tarfile
with tarfile.open('$work/up.tar', 'w') as t:
    t.addfile(tarfile.TarInfo('../up'), io.BytesIO(b''))"
"$danaus" image import up "$work/up.tar" || exit 1
expect_error "a layer with ../ names the member and the reason" 125 \
    "tar: ../up: Member name contains '..'" \
    "$danaus" run --rm --pool p --image up -- true

echo "$failures failures"
[ "$failures" -eq 0 ]
