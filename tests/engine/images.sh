#!/bin/sh
# Images from the tools people already use (issue 14), imported and run:
# a rootfs tarball with special files, a Debian root made by mmdebstrap
# (lighttpd served from a container, fetched with curl), and podman's and
# skopeo's formats (docker-archive, oci-archive, OCI layout directory).
# Usage: images.sh DANAUS BACKEND CACHE [CEPH_CONF], or images.sh
# fill-cache CACHE. The mmdebstrap tarball is kept in CACHE/debian-KEY (KEY:
# its suite, variant and packages), so only the first run fetches Debian
# packages (about 2 minutes here).
# Needs root, /dev/fuse, busybox-static, mmdebstrap, podman, skopeo, curl.
set -u
# The Debian root made by mmdebstrap, cached by suite, variant and packages.
packages=lighttpd
key=$(echo "bookworm essential $packages" | sha256sum | cut -c1-16)
fill_cache() { # fill_cache CACHE: makes CACHE/debian-KEY/rootfs.tar once
    deb=$1/debian-$key/rootfs.tar
    [ -f "$deb" ] && return 0
    mkdir -p "$1/debian-$key"
    # (mmdebstrap picks its output format from the name's extension)
    mmdebstrap -q --variant=essential --include="$packages" bookworm "$1/debian-$key/new.tar" >/dev/null 2>&1 &&
        mv "$1/debian-$key/new.tar" "$deb" && return 0
    echo "FAIL mmdebstrap cannot reach Debian's mirror; in a network namespace, fill the cache first: $0 fill-cache $1"
    return 1
}
if [ "$1" = fill-cache ]; then fill_cache "$2"; exit; fi

danaus=$1 backend=$2 cache=$3
work=$(mktemp -d /tmp/danaus-images-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
podman_() { podman --root "$work/podman/root" --runroot "$work/podman/run" --storage-driver vfs "$@"; }
cleanup() {
    remove_containers_and_pools
    podman_ system reset -f >/dev/null 2>&1
    [ "$backend" = ceph ] && { rm -rf "$work/cephroot$dir"; umount "$work/cephroot"; }
    rm -rf "$work"
}
trap cleanup EXIT

if [ "$backend" = ceph ]; then
    conf=$4 dir=/images-test-$$
    mkdir -p "$work/cephroot"
    ceph-fuse -c "$conf" "$work/cephroot" >/dev/null 2>&1 || exit 1
    mkdir -p "$work/cephroot$dir"
    back="ceph:$conf:$dir"
else
    mkdir -p "$work/back"
    back="local:$work/back"
fi
"$danaus" pool create p --cpus 1 --memory 1G --backend "$back" || exit 1

# A rootfs tarball with every kind of file: nothing may be dropped.
t=$work/tree
mkdir -p "$t/bin" "$t/dev" "$t/data" "$t/etc"
cp /bin/busybox "$t/bin/busybox"
for c in sh stat cat ls wc head; do ln -s busybox "$t/bin/$c"; done
echo from-the-image >"$t/etc/motd"
(cd "$t/data" && mknod chr c 1 5 && mknod blk b 7 0 && mkfifo fifo &&
    echo content >a && ln a hard && truncate -s 100M sparse &&
    echo end >>sparse && cp /bin/busybox suid && chmod 4755 suid &&
    python3 -c "import os; os.setxattr('a', 'user.danaus', b'v1')")
mknod "$t/dev/sda" b 8 0
tar -C "$t" --numeric-owner --xattrs --xattrs-include='*' -S -cf "$work/special.tar" .
"$danaus" image import special "$work/special.tar" || exit 1
out=$("$danaus" run --rm --pool p --image special -- sh -c 'cd /data; for f in *; do stat -c "%n %F %a %h %t:%T" $f; done; cat hard; stat -c %b sparse')
check "special files survive import and unpacking" "a regular file 644 2 0:0
blk block special file 644 1 7:0
chr character special file 644 1 1:5
fifo fifo 644 1 0:0
hard regular file 644 2 0:0
sparse regular file 644 1 0:0
suid regular file 4755 1 0:0
content" "$(echo "$out" | head -n 8)"
# (CephFS reports st_blocks from the size, holes or not: local only)
[ "$backend" = local ] && check "a sparse file stays sparse" yes "$([ "$(echo "$out" | tail -n 1)" -lt 1024 ] && echo yes)"
[ "$backend" = local ] && check "xattrs survive" v1 "$(python3 -c "import os; print(os.getxattr('$work/back/layers/$(sed -n 's/^layers_sha256=//p' "$DANAUS_STATE/images/special/image")/data/a', 'user.danaus').decode())")"
out=$("$danaus" run --rm --pool p --image special -- sh -c 'cd /dev; echo *; head -c 3 /dev/zero | wc -c; echo x >/dev/null && echo null-ok')
check "the container's /dev is the runtime's, not the image's (no sda)" "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero
3
null-ok" "$out"

# podman and skopeo: the same busybox root as docker-archive, oci-archive
# and an OCI layout directory.
tar -C "$t" --exclude=./dev/sda --exclude=./data -cf "$work/bb.tar" .
podman_ import -q "$work/bb.tar" localhost/bb:t >/dev/null || exit 1
podman_ save -q -o "$work/docker.tar" localhost/bb:t || exit 1
podman_ save -q --format oci-archive -o "$work/oci.tar" localhost/bb:t || exit 1
skopeo copy -q "oci-archive:$work/oci.tar" "oci:$work/ocidir:bb" || exit 1
for f in docker:docker.tar ocia:oci.tar ocid:ocidir; do
    "$danaus" image import "${f%%:*}" "$work/${f#*:}"
    check "import of ${f#*:}" 0 $?
    check "a container of ${f#*:} sees the image" from-the-image "$("$danaus" run --rm --pool p --image "${f%%:*}" -- cat /etc/motd)"
done
check "the kinds are recognised" "docker-save oci-archive oci-layout" "$("$danaus" image ls | awk '$1 ~ /^(docker|ocia|ocid)$/ {print $3}' | xargs)"
check "images lists what image ls does" "$("$danaus" image ls)" "$("$danaus" images)"
"$danaus" rmi ocid
check "rmi removes an image as image rm does" "docker ocia" \
    "$("$danaus" images | awk '$1 ~ /^(docker|ocia|ocid)$/ {print $1}' | xargs)"

# A Containerfile's ENTRYPOINT, CMD, ENV, WORKDIR and USER (issue 40), run
# as podman runs them (seen with podman 4.3 here), with docker's overrides.
ctx=$work/ctx
mkdir -p "$ctx/root/bin" "$ctx/root/etc"
cp /bin/busybox "$ctx/root/bin/"
for c in sh id pwd echo; do ln -s busybox "$ctx/root/bin/$c"; done
printf 'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:app:/home/app:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$ctx/root/etc/passwd"
printf 'root:x:0:\napp:x:1000:\nstaff:x:50:app\nnogroup:x:65534:\n' >"$ctx/root/etc/group"
cat >"$ctx/Containerfile" <<'EOF'
FROM scratch
COPY root/ /
ENV G=hi PATH=/usr/bin:/bin
WORKDIR /app
USER app
ENTRYPOINT ["/bin/sh", "-c"]
CMD ["echo G=$G pwd=$(pwd) id=$(id -u):$(id -g) groups=$(id -G) home=$HOME"]
EOF
podman_ build -q -t localhost/cfg:t "$ctx" >/dev/null || exit 1
podman_ save -q -o "$work/cfg-docker.tar" localhost/cfg:t || exit 1
podman_ save -q --format oci-archive -o "$work/cfg-oci.tar" localhost/cfg:t || exit 1
for f in cfgd:cfg-docker.tar cfgo:cfg-oci.tar; do
    "$danaus" image import "${f%%:*}" "$work/${f#*:}" || exit 1
    check "${f#*:}: run with no command runs ENTRYPOINT and CMD with ENV, WORKDIR and USER" \
        "G=hi pwd=/app id=1000:1000 groups=1000 50 home=/home/app" "$("$danaus" run --rm --pool p --image "${f%%:*}" 2>&1)"
done
check "with one pool, run takes it without --pool (docker's IMAGE form)" \
    "G=hi pwd=/app id=1000:1000 groups=1000 50 home=/home/app" "$("$danaus" run --rm cfgd 2>&1)"
run_cfg() { "$danaus" run --rm --pool p --image cfgd "$@" 2>&1; }
check "-u NAME: its passwd entry's ids and home, /etc/group's groups" "G=hi pwd=/app id=65534:65534 groups=65534 home=/nonexistent" "$(run_cfg -u nobody)"
check "-u UID without an entry: group 0, home the working directory" "G=hi pwd=/app id=1234:0 groups=0 home=/app" "$(run_cfg -u 1234)"
check "-u NAME:GROUP: that group alone" "G=hi pwd=/app id=1000:50 groups=50 home=/home/app" "$(run_cfg -u app:staff)"
check "-u 0: root's home from passwd" "G=hi pwd=/app id=0:0 groups=0 home=/root" "$(run_cfg -u 0)"
expect_error "-u an unknown name" 126 "unable to find user nosuch: no matching entries in the container's /etc/passwd" "$danaus" run --rm --pool p --image cfgd -u nosuch
expect_error "-u an unknown group" 126 "unable to find group nosuch: no matching entries in the container's /etc/group" "$danaus" run --rm --pool p --image cfgd -u app:nosuch
check "a command replaces CMD; -e VAR passes the caller's, -e over ENV" "X=from-the-caller Y=unset G=over" "$(X=from-the-caller run_cfg -e X -e Y -e G=over -- 'echo X=$X Y=${Y-unset} G=$G')"
check "--entrypoint replaces ENTRYPOINT and drops CMD" "|a b" "$(run_cfg --entrypoint /bin/echo)|$(run_cfg --entrypoint /bin/echo -- a b)"
check "--entrypoint '' runs the command alone" hi "$(run_cfg --entrypoint '' -- echo hi)"
check "-w over WORKDIR; HOME from -e over passwd's" "/etc /x" "$(run_cfg -w /etc -e HOME=/x -- 'echo $(pwd) $HOME')"
check "docker's order: run [OPTIONS] IMAGE [COMMAND]" positional "$("$danaus" run --rm --pool p cfgd 'echo positional' 2>&1)"

# Broken sources: one line naming what is wrong.
cp -r "$work/ocidir" "$work/evil"
sed -i 's/"digest":"sha256:[0-9a-f]*"/"digest":"sha256:..\/..\/etc"/' "$work/evil/index.json"
expect_error "an OCI digest leaving blobs/" 1 "a bad digest or size" "$danaus" image import evil "$work/evil"
python3 -c "
import io, tarfile
with tarfile.open('$work/clash.tar', 'w') as t:
    for name in ('a', 'a/b'):
        t.addfile(tarfile.TarInfo(name), io.BytesIO(b''))"
"$danaus" image import clash "$work/clash.tar" || exit 1
expect_error "a layer tar cannot unpack names the file and the reason" 125 "a/b: Cannot open: Not a directory" "$danaus" run --pool p --image clash -- true

# Debian by mmdebstrap; lighttpd in a container.
fill_cache "$cache" || exit 1
"$danaus" image import deb "$deb" || exit 1
check "a Debian container runs Debian" "$(tar -xOf "$deb" ./etc/debian_version)" "$("$danaus" run --rm --pool p --image deb -- cat /etc/debian_version)"
port=$((20000 + $$ % 20000))
"$danaus" run -d --pool p --image deb --name web --network host -- sh -c "mkdir -p /srv/www && echo served-by-danaus >/srv/www/index.html && printf 'server.document-root = \"/srv/www\"\nserver.port = $port\nserver.bind = \"127.0.0.1\"\n' >/etc/lighttpd/test.conf && exec lighttpd -D -f /etc/lighttpd/test.conf" >/dev/null
body=
for i in $(seq 50); do body=$(curl -s "http://127.0.0.1:$port/index.html") && [ -n "$body" ] && break; sleep 0.2; done
check "lighttpd in a container serves a file" served-by-danaus "$body"
"$danaus" rm -f web

echo "$failures failures"
[ "$failures" -eq 0 ]
