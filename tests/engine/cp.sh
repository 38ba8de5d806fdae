#!/bin/sh
# danaus cp between a container, running or not, and the host (issue 40): files,
# trees and links both ways, as docker cp copies them, and a container
# that made symbolic links pointing at host files: it reads no host file
# through them and has none written through them, on either side.
# Usage: cp.sh DANAUS [CEPH_CONF]: the pool's backend a local directory,
# or with CEPH_CONF a directory of that cluster. Needs root, /dev/fuse,
# busybox-static.
set -u
danaus=$1 ceph_conf=${2:-}
work=$(mktemp -d /tmp/danaus-cp-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
trap 'remove_containers_and_pools; rm -rf "$work"' EXIT

img=$work/img
mkdir -p "$img/bin" "$img/etc" "$img/tmp"
cp /bin/busybox "$img/bin/busybox"
for c in sh cat echo ls ln mkdir rm sleep stat printf readlink chown touch; do
    ln -s busybox "$img/bin/$c"; done
echo from-the-image >"$img/etc/motd"
mkdir -p "$work/back" "$work/out"
back="local:$work/back"
[ -z "$ceph_conf" ] || back="ceph:$ceph_conf:/engine-cp-test-$$"
"$danaus" image import bb "$img" >/dev/null || exit 1
"$danaus" pool create p --cpus 0 --memory 256M --backend "$back" || exit 1
check "the pool's backend is the one asked for" "${back%%:*}" \
    "$(sed -n 's/^backend_kind=//p' "$DANAUS_STATE/pools/p/pool" 2>/dev/null)"
"$danaus" run -d --pool p --image bb --name c -- sleep 1000 >/dev/null || exit 1
in_c() { "$danaus" exec c sh -c "$1"; }

# Out: a file by its own name into a directory, and under a new name.
"$danaus" cp c:/etc/motd "$work/out/"
check "a file into a host directory keeps its name" from-the-image \
    "$(cat "$work/out/motd")"
"$danaus" cp c:/etc/motd "$work/out/renamed"
check "a file to a new host name" from-the-image "$(cat "$work/out/renamed")"

# Out: a tree with a link, modes kept but setuid.
in_c 'mkdir -p /data/t/sub && echo one >/data/t/a && echo two >/data/t/sub/b &&
      ln -s a /data/t/l && chmod 4750 /data/t/a'
"$danaus" cp c:/data/t/ "$work/out"
check "a tree comes out whole" "one two a 750" \
    "$(cat "$work/out/t/a") $(cat "$work/out/t/sub/b") $(readlink "$work/out/t/l") $(stat -c %a "$work/out/t/a")"

# In: a file and a tree, owned by the container's root.
echo from-the-host >"$work/hostfile"
mkdir -p "$work/hosttree/d" && echo deep >"$work/hosttree/d/f"
"$danaus" cp "$work/hostfile" c:/tmp/
"$danaus" cp "$work/hosttree" c:/tmp/tree
check "a file and a tree go in, the container's root's" \
    "from-the-host deep 0" \
    "$(in_c 'cat /tmp/hostfile /tmp/tree/d/f; stat -c %u /tmp/tree/d/f' | xargs)"

# The attacks. The container links to host files: absolute, relative
# climbing out, a directory on the way.
echo host-victim >"$work/victim"
in_c "ln -s /etc/shadow /evil && mkdir -p /x && ln -s ../../../../../../etc/shadow /x/up &&
      ln -s /etc /ln && ln -s $work/victim /x/v"
"$danaus" cp c:/evil "$work/out/evil"
check "a link to /etc/shadow comes out as a link, not the file" \
    "/etc/shadow no" \
    "$(readlink "$work/out/evil") $([ -f "$work/out/evil" ] && [ ! -L "$work/out/evil" ] && echo yes || echo no)"
"$danaus" cp c:/x "$work/out/"
found=no
for f in $(find "$work/out" -type f); do
    cmp -s "$f" /etc/shadow && found="yes: $f"; done
check "no host file is read through the container's links" no "$found"
expect_error "a directory link on the path resolves in the container" 1 \
    "cp: cannot open shadow" "$danaus" cp c:/ln/shadow "$work/out/shadow"
expect_error "'..' stops at the container's root" 1 \
    "cp: cannot open shadow" "$danaus" cp c:/../../../etc/shadow "$work/out/shadow2"
check "nothing was made of them" "" "$(ls "$work/out" | grep shadow)"

# In through the container's links to host paths, a file's and a
# directory's: the links are replaced, what they name is not reached.
mkdir "$work/victimdir"
in_c "ln -s $work/victim /tmp/flink && ln -s $work/victimdir /tmp/dlink"
"$danaus" cp "$work/hostfile" c:/tmp/flink
"$danaus" cp "$work/hostfile" c:/tmp/dlink
"$danaus" cp "$work/hostfile" "c:$work/victim" 2>/dev/null
check "a copy in replaces the container's links" \
    "from-the-host from-the-host" \
    "$(in_c '[ -L /tmp/flink ] || [ -L /tmp/dlink ] || cat /tmp/flink /tmp/dlink' | xargs)"
check "host files are untouched" "host-victim " \
    "$(cat "$work/victim") $(ls "$work/victimdir")"

# Out again over what the first copy made: the host side does not write
# through the link it made (x/v -> the victim) when the container has
# since put a file there, but replaces the link.
in_c 'rm /x/v && echo pwned >/x/v'
"$danaus" cp c:/x "$work/out/"
check "a copy out replaces a link it made before, not what it names" \
    "pwned host-victim" "$(cat "$work/out/x/v") $(cat "$work/victim")"

# A container that does not run: its root is reached all the same, with
# the same defences, and left unmounted after.
in_c "echo while-running >/tmp/kept && ln -s $work/victim /tmp/flink2 &&
      ln -s /etc/shadow /evil2"
"$danaus" stop -t 0 c
mkdir "$work/stopped"
"$danaus" cp c:/tmp/kept "$work/stopped/"
check "a stopped container's file comes out" while-running \
    "$(cat "$work/stopped/kept" 2>&1)"
"$danaus" cp "$work/hosttree" c:/tmp/tree2
"$danaus" cp "$work/hostfile" c:/tmp/flink2
"$danaus" cp c:/evil2 "$work/stopped/evil2"
check "a stopped container's link comes out as a link" /etc/shadow \
    "$(readlink "$work/stopped/evil2")"
expect_error "a stopped container's directory link resolves in it" 1 \
    "cp: cannot open shadow" "$danaus" cp c:/ln/shadow "$work/stopped/shadow"
check "the host file behind its link is untouched" host-victim \
    "$(cat "$work/victim")"
check "its root is not left mounted" 0 \
    "$(grep -c " $DANAUS_STATE/containers/c/root " /proc/self/mountinfo)"
"$danaus" start c >/dev/null
check "what went into the stopped container is there when it runs, the container's root's" \
    "deep 0 from-the-host file" \
    "$(in_c 'cat /tmp/tree2/d/f; stat -c %u /tmp/tree2/d/f; cat /tmp/flink2; [ -L /tmp/flink2 ] && echo link || echo file' | xargs)"

# An ended container's -v directories and volumes are reached as they
# are when it runs, not the root's directories under them.
mkdir "$work/vdir" && echo host-side >"$work/vdir/h"
"$danaus" run --pool p --image bb --name v -v "$work/vdir:/srv/data:ro" \
    -v named:/named -- sh -c 'echo in-vol >/named/x && echo root >/etc/r'
"$danaus" cp "$work/hostfile" v:/named/
"$danaus" cp v:/tmp/../named//x "$work/stopped/"
check "in and out of its volume, however the path is written" \
    "in-vol from-the-host" \
    "$(cat "$work/stopped/x" 2>&1) $("$danaus" run --rm --pool p --image bb -v named:/n -- cat /n/hostfile)"
"$danaus" cp v:/srv "$work/stopped/"
check "a directory above a -v brings what the -v holds" host-side \
    "$(cat "$work/stopped/srv/data/h" 2>&1)"
expect_error "a read-only -v stays read-only" 1 "Read-only file system" \
    "$danaus" cp "$work/hostfile" v:/srv/data/
"$danaus" cp v:/etc/r "$work/stopped/"
check "and the rest of its root" root "$(cat "$work/stopped/r")"
expect_error "its /proc is no host's" 1 "cp: cannot find '/proc/1/cmdline'" \
    "$danaus" cp v:/proc/1/cmdline "$work/stopped/"
check "its volumes are not left mounted" 0 \
    "$(grep -c " $DANAUS_STATE/containers/v/" /proc/self/mountinfo)"
"$danaus" rm v

# -L follows a link given as the source, in its own world; -a keeps
# owners (else the receiver's, as docker does); times are kept.
in_c 'ln -s /etc/motd /tmp/motdlink && echo o >/tmp/owned &&
      chown 1001:1002 /tmp/owned && touch -d @1000000000 /tmp/owned'
"$danaus" cp -L c:/tmp/motdlink "$work/out/"
check "-L copies what a container's link names" "from-the-image no" \
    "$(cat "$work/out/motdlink") $([ -L "$work/out/motdlink" ] && echo yes || echo no)"
expect_error "-L follows a link to /etc/shadow in the container's root" 1 \
    "cp: cannot open '/evil'" "$danaus" cp -L c:/evil "$work/out/evilL"
check "so no host file came out" no \
    "$([ -e "$work/out/evilL" ] && echo yes || echo no)"
ln -s "$work/hostfile" "$work/hostlink"
"$danaus" cp -L "$work/hostlink" c:/tmp/
check "-L copies what a host link names into the container" \
    "from-the-host file" \
    "$(in_c 'cat /tmp/hostlink; [ -L /tmp/hostlink ] && echo link || echo file' | xargs)"
"$danaus" cp c:/tmp/owned "$work/out/"
"$danaus" cp -a c:/tmp/owned "$work/out/owned-a"
check "out: the caller's without -a, the container's ids with it; times kept" \
    "0:0 1001:1002 1000000000" \
    "$(stat -c %u:%g "$work/out/owned") $(stat -c %u:%g "$work/out/owned-a") $(stat -c %Y "$work/out/owned-a")"
echo mine >"$work/mine" && chown 1234:4321 "$work/mine"
"$danaus" cp "$work/mine" c:/tmp/mine
"$danaus" cp -a "$work/mine" c:/tmp/mine-a
check "in: the container's root's without -a, the source's ids with it" \
    "0:0 1234:4321" "$(in_c 'stat -c %u:%g /tmp/mine /tmp/mine-a' | xargs)"
echo far >"$work/far" && chown 70000:70000 "$work/far"
expect_error "-a with ids outside the container's map fails" 1 \
    "cp: cannot give far to 70000:70000" "$danaus" cp -a "$work/far" c:/tmp/
expect_error "an unknown option" 1 "cp: unknown option '-x'" \
    "$danaus" cp -x c:/tmp/mine "$work/out/"

# - : a tar stream out of the container, and one into a directory of it.
"$danaus" cp c:/data/t - >"$work/t.tar"
check "cp NAME:PATH - writes a tar of it" "t/ t/a t/l t/sub/ t/sub/b" \
    "$(tar -tf "$work/t.tar" | sort | xargs)"
check "its members' contents" "one l -> a" \
    "$(tar -xOf "$work/t.tar" t/a) $(tar -tvf "$work/t.tar" t/l | sed 's/.* t\///')"
long=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
in_c "mkdir -p /tmp/long/$long/$long && echo far >/tmp/long/$long/$long/f &&
      mkdir /tmp/long2"
"$danaus" cp c:/tmp/long - | "$danaus" cp - c:/tmp/long2
check "names past ustar's 100 bytes go out and in (pax)" far \
    "$(in_c "cat /tmp/long2/long/$long/$long/f")"
in_c 'mkdir /tmp/fromtar'
tar -C "$work/hosttree" -cf - . | "$danaus" cp - c:/tmp/fromtar
check "cp - NAME:DIR unpacks a tar into DIR" "deep" "$(in_c 'cat /tmp/fromtar/d/f')"
expect_error "cp - into what is not a directory" 1 \
    "cp: '/etc/motd' must be a directory" \
    sh -c "tar -C '$work/hosttree' -cf - . | '$danaus' cp - c:/etc/motd"

# A tar stream is an attacker's: names that climb out, links that point
# out, device nodes, links to pass through (hostile_tar.py writes them).
in_c 'mkdir /tmp/h'
hostile() { # hostile KIND: its archive into c:/tmp/h
    python3 "$(dirname "$0")/hostile_tar.py" "$1" | "$danaus" cp - c:/tmp/h; }
hostile absolute
check "a leading '/' is taken below the directory" "A R" \
    "$(in_c 'cat /tmp/h/abs /tmp/h/rel' | xargs)"
for kind in climb climb-inside hardlink-out; do
    expect_error "a member that climbs out is refused ($kind)" 1 \
        "is outside the directory" hostile "$kind"
done
expect_error "a link pointing out is refused" 1 "points outside the directory" \
    hostile link-out
expect_error "a link is not passed through" 1 "cp: cannot enter s" \
    hostile through-link
check "nothing was made outside the directory" "no no from-the-image" \
    "$(in_c '[ -e /tmp/escape ] && echo yes || echo no; [ -e /escape ] && echo yes || echo no; cat /etc/motd' | xargs)"
devices=$(hostile devices 2>&1 >/dev/null)
check "device nodes and FIFOs are left out, and said" "2 kept no no" \
    "$(echo "$devices" | grep -c 'left out') $(in_c 'cat /tmp/h/kept; [ -e /tmp/h/null ] && echo yes || echo no; [ -e /tmp/h/p ] && echo yes || echo no' | xargs)"
expect_error "what is not a tar archive" 1 "not a tar archive" \
    sh -c "head -c 2048 /dev/urandom | '$danaus' cp - c:/tmp/h"
hostile hardlink
check "a hard link inside is made" "2 H" \
    "$(in_c 'stat -c %h /tmp/h/hl; cat /tmp/h/hl' | xargs)"

# While a cp holds an ended container's root, start and rm refuse it.
"$danaus" stop -t 0 c
(while [ ! -e "$work/go" ]; do sleep 0.1; done # (the archive waits)
 tar -C "$work/hosttree" -cf - .) | "$danaus" cp - c:/tmp/h &
for i in $(seq 100); do
    grep -q " $DANAUS_STATE/containers/c/root " /proc/self/mountinfo && break
    sleep 0.1; done
expect_error "start refuses a container a cp holds" 1 "is being copied" \
    "$danaus" start c
expect_error "rm refuses it too" 1 "is being copied" "$danaus" rm c
touch "$work/go"
wait
"$danaus" start c >/dev/null
check "the copy went in, and the container runs after" deep \
    "$(in_c 'cat /tmp/h/d/f')"

expect_error "a container that does not exist" 1 \
    "container 'nope'" "$danaus" cp nope:/etc/motd "$work/out/"
expect_error "two host paths" 1 "cp: expected CONTAINER:PATH HOSTPATH" \
    "$danaus" cp "$work/hostfile" "$work/out/x"
expect_error "a missing source" 1 "cp: cannot open missing" \
    "$danaus" cp c:/etc/missing "$work/out/"
expect_error "a missing directory of the source" 1 \
    "cp: cannot find '/nodir/x'" "$danaus" cp c:/nodir/x "$work/out/"
expect_error "a missing directory of the destination" 1 \
    "cp: cannot find the directory of '/nodir/x'" \
    "$danaus" cp "$work/hostfile" c:/nodir/x

[ "$failures" -eq 0 ]
