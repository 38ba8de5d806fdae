#!/bin/sh
# A hostile tenant against the engine's confinement (issue 34, items 1-5,
# 8 and 9): a process in a container tries the escapes of the issue with
# tests/engine/attacker.c, an image's author plants symbolic links on the
# engine's mount targets, and a host user plants one in a -v source.
# Last, the pool's user namespace: the container's root is host uid BASE,
# not root, and still owns its own files through both doors.
# Usage: confinement.sh DANAUS. Needs root, /dev/fuse, busybox-static, cc.
set -u
danaus=$1
work=$(mktemp -d /tmp/danaus-confinement-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
listener= outside=
cleanup() {
    [ -n "$listener" ] && kill "$listener" 2>/dev/null
    [ -n "$outside" ] && rm -rf "$outside"
    remove_containers_and_pools
    rm -rf "$work"
}
trap cleanup EXIT

cc -static -O2 -I "$(dirname "$0")/../../include" -o "$work/attacker" \
    "$(dirname "$0")/attacker.c" || exit 1
img=$work/img
mkdir -p "$img/bin" "$img/etc" "$img/tmp"
cp /bin/busybox "$img/bin/busybox"
for c in sh cat ls grep sleep wc stat touch chown chmod cp id ip nc; do
    ln -s busybox "$img/bin/$c"; done
cp "$work/attacker" "$img/bin/attacker"
mknod "$img/xfuse" c 10 229 # an image's own copy of /dev/fuse
cp "$work/attacker" "$img/bin/suidroot" && chmod 4755 "$img/bin/suidroot"
echo layer >"$img/etc/owned" && chown 1234:4321 "$img/etc/owned"
"$danaus" image import bb "$img" || exit 1
# Dynamic programs, which reach the root over the preload.
dimg=$work/dimg
mkdir -p "$dimg/bin" "$dimg/usr/bin" "$dimg/etc"
cp /bin/dash "$dimg/bin/sh"
for p in stat touch chown chmod mknod grep sleep; do cp "/usr/bin/$p" "$dimg/usr/bin/$p"; done
cp "$work/attacker" "$dimg/bin/attacker"
tools="/usr/bin/setfacl /usr/bin/getfacl /usr/sbin/setcap /usr/sbin/getcap"
mkdir -p "$dimg/usr/sbin" && for p in $tools; do cp "$p" "$dimg$p"; done
for lib in $(ldd /bin/dash /usr/bin/stat /usr/bin/touch /usr/bin/chown \
             /usr/bin/chmod /usr/bin/mknod /usr/bin/grep /usr/bin/sleep $tools | grep -o '/[^ ]*' | sort -u); do
    mkdir -p "$dimg$(dirname "$lib")"; cp "$lib" "$dimg$lib"; done
echo layer >"$dimg/etc/owned" && chown 1234:4321 "$dimg/etc/owned"
"$danaus" image import dyn "$dimg" || exit 1
mkdir -p "$work/back"
"$danaus" pool create cf --cpus 0 --memory 256M --backend "local:$work/back" || exit 1
in_container() { "$danaus" run --rm --pool cf --image bb "$@"; }

# 1. Handles that reach past a mount's root, on the host's file systems
# bound in (the door's directory, a -v volume).
mkdir -p "$work/vol"
check "open_by_handle_at on the door's directory is refused" EPERM \
    "$(in_container -- attacker handle /run/danaus)"
check "open_by_handle_at on a -v volume is refused" EPERM \
    "$(in_container -v "$work/vol:/v" -- attacker handle /v)"
check "the container holds podman's capabilities, no more" \
    "CapEff:	00000000800405fb CapBnd:	00000000800405fb NoNewPrivs:	1 Seccomp:	2" \
    "$(in_container -- grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status | xargs -d '\n')"
check "a new user namespace is refused" EPERM "$(in_container -- attacker unshare)"

# 2. Of the service's run directory only the door's socket, read-only.
check "the container sees the door's socket only" cf.sock "$(in_container -- ls /run/danaus)"
check "the door's directory takes no file" EROFS \
    "$(in_container -- attacker write /run/danaus/cf.pid.new x)"

# Every user of the pool's containers attaches to the door (the service
# maps each one's ids); no one else reaches it.
check "a container's non-root user attaches to the door" "ok|1" \
    "$("$danaus" run --rm --pool cf --image dyn -u 1000:1000 -- sh -c \
        'attacker hello /run/danaus/cf.sock; grep -c danaus-area /proc/self/maps' |
        paste -sd'|')"
outside=$(mktemp -d /tmp/danaus-confinement-outside.XXXXXX) && chmod 0755 "$outside"
cp "$work/attacker" "$outside/attacker"
door=$DANAUS_STATE/pools/cf/door
as_host_user() { setpriv --reuid "$1" --regid "$1" --clear-groups "$outside/attacker" hello "$2"; }
check "a host user cannot reach the door's socket" "connect EACCES" \
    "$(as_host_user 4242 "$door/cf.sock")"
check "... nor attach when handed its directory" EACCES \
    "$(as_host_user 4242 /proc/self/fd/3/cf.sock 3<"$door")"
"$danaus" run -d --name dr --pool cf --image bb -- sleep 60 >/dev/null
pid=$(sed -n 's/^pid=//p' "$DANAUS_STATE/containers/dr/container")
check "... nor through a container's /proc/PID/root" "connect EACCES" \
    "$(as_host_user 4242 "/proc/$pid/root/run/danaus/cf.sock")"
"$danaus" rm -f dr
rm -rf "$outside"

# 3. A network namespace of its own: the host's loopback is not its.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -c "import socket, time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', $port)); s.listen(); time.sleep(300)" &
listener=$!
sleep 0.5
check "a container cannot reach the host's 127.0.0.1" ECONNREFUSED \
    "$(in_container -- attacker connect 127.0.0.1 "$port")"
check "--network host reaches it" ok \
    "$(in_container --network host -- attacker connect 127.0.0.1 "$port")"
check "its only interface is its loopback" lo \
    "$(in_container -- sh -c 'tail -n +3 /proc/net/dev' | cut -d: -f1 | xargs)"
# --network bridge: tests/engine/network.sh.
expect_error "--network with a bad value" 125 "expected none, host or bridge" \
    "$danaus" run --rm --pool cf --image bb --network other -- true

# 4. Cgroups, kernel tunables, /proc and tasks.
check "mounting the cgroup hierarchy is refused" EPERM \
    "$(in_container -- sh -c 'mkdir -p /cg; attacker mount cgroup /cg')"
check "mounting proc is refused" EPERM \
    "$(in_container -- sh -c 'mkdir -p /p; attacker mount proc /p')"
check "its cgroups are its own root" "pids:/ devices:/ memory:/" \
    "$(in_container -- grep -E ':(pids|devices|memory):' /proc/self/cgroup | cut -d: -f2- | xargs)"
check "/proc/sys is read-only" EROFS \
    "$(in_container -- attacker write /proc/sys/vm/drop_caches 3)"
check "/proc/timer_list and /proc/keys are hidden" "0 0" \
    "$(in_container -- sh -c 'cat /proc/timer_list | wc -c; cat /proc/keys | wc -c' | xargs)"
check "/sys is read-only, its firmware hidden" "EROFS 0" \
    "$(in_container -- sh -c 'attacker write /sys/kernel/uevent_helper x; ls /sys/firmware | wc -l' | xargs)"
check "--pids-limit bounds the container's tasks" "49 EAGAIN" \
    "$(in_container --pids-limit 50 -- attacker fork 100)"
check "the default task limit is podman's" "2047 EAGAIN" \
    "$(in_container -- attacker fork 3000)"
expect_error "--pids-limit not a number" 125 "expected a number of tasks" \
    "$danaus" run --pool cf --image bb --pids-limit x -- true

# 5. Devices: none made, none of the image's opened.
check "mknod in /dev is refused" EPERM "$(in_container -- attacker mknod /dev/xfuse)"
check "mknod in the root is refused" EPERM "$(in_container -- attacker mknod /xfuse2)"
check "the image's device node does not open" EACCES "$(in_container -- attacker open /xfuse)"
check "the container's /dev/null still works" ok "$(in_container -- attacker open /dev/null)"
"$danaus" run -d --name dv --pool cf --image bb -- sleep 60 >/dev/null
check "the container's device group allows only the runtime's devices" \
    "c *:* m|b *:* m|c 1:3 rwm|c 1:5 rwm|c 1:7 rwm|c 1:8 rwm|c 1:9 rwm|c 5:0 rwm|c 5:2 rwm|c 136:* rwm" \
    "$(cat /sys/fs/cgroup/devices/danaus-*/cf/dv/devices.list 2>/dev/null | paste -sd'|')"
check "exec runs under the same limits" "CapEff:	00000000800405fb Seccomp:	2" \
    "$("$danaus" exec dv grep -E '^(CapEff|Seccomp):' /proc/self/status | xargs -d '\n')"
check "exec cannot open handles either" EPERM "$("$danaus" exec dv attacker handle /run/danaus)"
base=$(sed -n 's/^userns_base=//p' "$DANAUS_STATE/pools/cf/pool")
check "inspect shows the container's limits" \
    '{"CapEff": "00000000800405fb", "CapBnd": "00000000800405fb", "NoNewPrivs": true, "Seccomp": "filter", "Namespaces": ["mnt", "pid", "uts", "ipc", "net", "cgroup", "user"], "UidMap": "0 '$base' 65536", "GidMap": "0 '$base' 65536"}
{"Memory": 268435456, "PoolPids": 16384, "Pids": 2048}' \
    "$("$danaus" inspect dv | python3 -c 'import json, sys; c = json.load(sys.stdin)[0]; print(json.dumps(c["Security"])); print(json.dumps(c["Limits"]))')"
"$danaus" rm -f dv

# 8. An image whose mount targets are symbolic links to host paths.
evil=$work/evil-target # a host directory the image's links name
mkdir -p "$img/usr/lib" "$evil"
ln -s "$evil/lib" "$img/usr/lib/danaus"
ln -s "$evil" "$img/run"
ln -s "$evil/data" "$img/data"
"$danaus" image import links "$img" || exit 1
out=$("$danaus" run --rm --pool cf --image links -v "$work/vol:/data" -- sh -c 'ls /usr/lib/danaus; ls /run/danaus; ls -d /data/.')
check "an image's links on the mount targets lead inside the container" \
    "libdanaus.so cf.sock /data/." "$(echo "$out" | xargs)"
check "and nothing is made on the host" "" "$(ls -A "$evil")"

# 9. A host user's symbolic link in a -v source is not followed.
mkdir -p "$work/home" "$work/secret" && chmod 0700 "$work/secret"
chown 65534 "$work/home"
ln -s "$work/secret" "$work/home/data" && chown -h 65534 "$work/home/data"
expect_error "-v through another user's symbolic link" 125 \
    "a component (data) is a symbolic link owned by uid 65534" \
    "$danaus" run --rm --pool cf --image bb -v "$work/home/data:/d" -- true
ln -s "$work/vol" "$work/rootlink"
echo via-root >"$work/vol/f"
check "-v through root's own symbolic link works" via-root \
    "$(in_container -v "$work/rootlink:/d" -- cat /d/f)"

# 10. The pool's user namespace: container root is host uid BASE.
check "the pool has a range of its own, away from /etc/subuid" 1 \
    "$([ "${base:-0}" -ge 1048576 ] && echo 1)"
check "the container's uid map is the pool's" "0 $base 65536" \
    "$(in_container -- cat /proc/self/uid_map | xargs)"
mkdir -p "$work/uvol" && chmod 0777 "$work/uvol"
echo host-secret >"$work/uvol/secret" && chmod 0600 "$work/uvol/secret"
in_container -v "$work/uvol:/v" -- sh -c 'echo x >/v/made'
check "a file its root makes in a -v directory is host uid BASE's" \
    "$base:$base" "$(stat -c %u:%g "$work/uvol/made")"
check "its root cannot read a host root's 0600 file in a -v directory" \
    "EACCES" "$(in_container -v "$work/uvol:/v" -- attacker read /v/secret)"
check "... nor through /proc/1/root" "EACCES" \
    "$(in_container -v "$work/uvol:/v" -- attacker read /proc/1/root/v/secret)"
check "... though it holds CAP_DAC_OVERRIDE in its namespace" 1 \
    "$(in_container -- grep -c '^CapEff:.*00000000800405fb' /proc/self/status)"
check "host root's files in a -v directory show as nobody" "65534:65534" \
    "$(in_container -v "$work/uvol:/v" -- stat -c %u:%g /v/secret)"
"$danaus" run -d --name un --pool cf --image bb -- sleep 60 >/dev/null
"$danaus" exec un sh -c 'cp /bin/attacker /suid && chmod 4755 /suid'
root="$DANAUS_STATE/containers/un/root"
pid=$(sed -n 's/^pid=//p' "$DANAUS_STATE/containers/un/container")
check "its first process is host uid BASE" "$base" "$(ps -o uid= -p "$pid" | xargs)"
check "its setuid-root binary is host uid BASE's on the host" \
    "$base 4755" "$(stat -c '%u %a' "$root/suid")"
mkdir -p "$work/suidview" && mount --bind "$root" "$work/suidview" &&
    mount -o remount,bind,suid "$work/suidview"
check "run setuid by a host user it is euid BASE, not 0" "$base|4242" \
    "$(for f in suid bin/attacker; do
           setpriv --reuid 4242 --regid 4242 --clear-groups "$work/suidview/$f" euid
       done | paste -sd'|')"
umount "$work/suidview"
check "exec runs in the same user namespace" "0 $base 65536|0" \
    "$("$danaus" exec un sh -c 'cat /proc/self/uid_map | xargs; id -u' | paste -sd'|')"
"$danaus" rm -f un
check "its root owns, chowns and chmods its own files (FUSE door)" \
    "0:0 644|7:8 600" \
    "$(in_container -- sh -c 'touch /f; stat -c "%u:%g %a" /f; chown 7:8 /f; chmod 600 /f; stat -c "%u:%g %a" /f' | paste -sd'|')"
check "an image's files keep their owners inside (FUSE door)" 1234:4321 \
    "$(in_container -- stat -c %u:%g /etc/owned)"
check "... through the preload too" "1234:4321|0:0|7:8|1" \
    "$("$danaus" run --rm --pool cf --image dyn -- sh -c 'stat -c %u:%g /etc/owned; touch /f; stat -c %u:%g /f; chown 7:8 /f; stat -c %u:%g /f; grep -c danaus-area /proc/self/maps' | paste -sd'|')"
# POSIX ACLs and v3 file capabilities name ids too: each door maps them
# as it maps owners, so both doors and the backend agree on pool ids.
# (LD_PRELOAD= takes a program to the FUSE door.)
"$danaus" run -d --name ac --pool cf --image dyn -- sleep 60 >/dev/null
acl() { "$danaus" exec ac sh -c "$1" 2>&1 | grep -E '^(user|group):[0-9]|cap_|rootid|Value' | paste -sd' '; }
"$danaus" exec ac sh -c 'touch /f1 /f2 /f3 /f4
    LD_PRELOAD= setfacl -m u:1000:r,g:1001:w /f1; setfacl -m u:1002:r,g:1003:w /f2
    LD_PRELOAD= setcap -n 1000 cap_net_raw+ep /f3; setcap -n 1004 cap_net_admin+ep /f4'
check "an ACL set through FUSE reads the same through the preload" \
    "user:1000:r-- group:1001:-w-" "$(acl 'getfacl -nc /f1')"
check "an ACL set through the preload reads the same through FUSE" \
    "user:1002:r-- group:1003:-w-" "$(acl 'LD_PRELOAD= getfacl -nc /f2')"
check "... and the backend holds pool ids" \
    "user:1000:r-- group:1001:-w- user:1002:r-- group:1003:-w-" \
    "$(getfacl -nc "$work/back/containers/ac/f1" "$work/back/containers/ac/f2" 2>&1 |
       grep -E '^(user|group):[0-9]' | paste -sd' ')"
check "a v3 capability's root id set through FUSE reads the same through the preload" \
    "/f3 cap_net_raw=ep [rootid=1000]" "$(acl 'getcap -n /f3')"
check "... set through the preload reads the same through FUSE" \
    "/f4 cap_net_admin=ep [rootid=1004]" "$(acl 'LD_PRELOAD= getcap -n /f4')"
check "... and the backend holds the pool's root id" 1000 \
    "$(python3 -c 'import os, struct, sys
print(struct.unpack("<I", os.getxattr(sys.argv[1], "security.capability")[20:24])[0])' \
        "$work/back/containers/ac/f3")"
"$danaus" rm -f ac
check "a named volume is the pool's root's: 0 inside, for its files too" \
    "0:0|0:0" \
    "$(in_container -v uvol:/data -- sh -c 'stat -c %u:%g /data; touch /data/x; stat -c %u:%g /data/x' | paste -sd'|')"
check "... BASE through the FUSE door, 0 (the pool's ids) in the backend" \
    "$base:$base|0:0" \
    "$(stat -c %u:%g "$DANAUS_STATE/pools/cf/store/volumes/uvol/x" "$work/back/volumes/uvol/x" | paste -sd'|')"
# -v HOSTDIR:DIR:idmap (podman's :idmap): the bind is idmapped to the
# pool's user namespace, so host id n is the container's n both ways.
mkdir -p "$work/idv"
echo root >"$work/idv/rootfile"
echo user >"$work/idv/userfile" && chown 1000:1000 "$work/idv/userfile"
check "-v without idmap: host ids outside the range are nobody's" "65534:65534|EACCES" \
    "$(in_container -v "$work/idv:/v" -- sh -c 'stat -c %u:%g /v/rootfile; attacker write /v/made x' | paste -sd'|')"
check "-v :idmap: the host's ids are the container's" "0:0|1000:1000" \
    "$(in_container -v "$work/idv:/v:ro,idmap" -- stat -c %u:%g /v/rootfile /v/userfile | paste -sd'|')"
in_container -v "$work/idv:/v:idmap" -- sh -c 'attacker write /v/made x; chown 1000:1000 /v/rootfile' >/dev/null
check "... what its root makes there is host root's, its chown to 1000 host uid 1000's" \
    "0:0|1000:1000" "$(stat -c %u:%g "$work/idv/made" "$work/idv/rootfile" | paste -sd'|')"
"$danaus" run -d --name idm --pool cf --image bb -v "$work/idv:/v:idmap" -- sleep 60 >/dev/null
"$danaus" stop -t 0 idm && "$danaus" start idm >/dev/null
check "... kept by start" 1000:1000 "$("$danaus" exec idm stat -c %u:%g /v/userfile)"
"$danaus" rm -f idm >/dev/null
check "... and :ro,idmap is read-only" EROFS \
    "$(in_container -v "$work/idv:/v:ro,idmap" -- attacker write /v/other x)"
expect_error "-v :idmap of a named volume" 125 "idmap is for a host directory" \
    "$danaus" run --rm --pool cf --image bb -v uvol:/data:idmap -- true
mkdir -p "$work/hback"
expect_error "--userns with a bad value" 1 "expected host or private" \
    "$danaus" pool create bad --cpus 1 --memory 256M --userns=maybe \
    --backend "local:$work/hback"
"$danaus" pool create hostns --cpus 1 --memory 256M --userns=host \
    --backend "local:$work/hback" || exit 1
check "--userns=host: the host's ids, its root the host's" \
    "0 0 4294967295" \
    "$("$danaus" run --rm --pool hostns --image bb -- cat /proc/self/uid_map | xargs)"
mkdir -p "$work/idv"
expect_error "-v :idmap in a pool of the host's ids" 125 "shares the host's ids" \
    "$danaus" run --rm --pool hostns --image bb -v "$work/idv:/v:idmap" -- true
"$danaus" pool rm hostns
"$danaus" pool create cf2 --cpus 1 --memory 256M --backend "local:$work/hback" ||
    exit 1
check "a second pool gets the next range, apart from the first" \
    "$((base + 65536))" "$(sed -n 's/^userns_base=//p' "$DANAUS_STATE/pools/cf2/pool")"
"$danaus" pool rm cf2

# 6. A --nosuid pool: no setuid, setgid or device file reaches its
# backend, from its images or from its containers, through either door.
check "a pool without --nosuid keeps the image's setuid bit (inside)" 4755 \
    "$(in_container -- stat -c %a /bin/suidroot)"
mkdir -p "$work/nback"
"$danaus" pool create ns --cpus 1 --memory 256M --nosuid \
    --backend "local:$work/nback" || exit 1
in_ns() { "$danaus" run --rm --pool ns "$@"; }
check "--nosuid: the image's setuid bit and device node are left out" \
    "755|missing" "$(in_ns --image bb -- sh -c 'stat -c %a /bin/suidroot;
        [ -e /xfuse ] || echo missing' 2>/dev/null | paste -sd'|')"
check "--nosuid: chmod 6755 through the FUSE door keeps 755" 755 \
    "$(in_ns --image bb -- sh -c 'touch /a; chmod 6755 /a; stat -c %a /a')"
"$danaus" run -d --name nk --pool ns --image dyn -- sleep 60 >/dev/null
check "--nosuid: chmod 4755 through the preload keeps 755; mknod EPERM" \
    "755|1|mknod: /n: Operation not permitted" \
    "$("$danaus" exec nk sh -c 'touch /b; chmod 4755 /b; stat -c %a /b;
        grep -c danaus-area /proc/self/maps; mknod /n c 1 3 2>&1' |
        paste -sd'|')"
check "--nosuid: the backend holds no setuid, setgid or device file" "" \
    "$(find "$work/nback" \( -perm /6000 -o -type c -o -type b \) -print)"
"$danaus" rm -f nk
"$danaus" pool rm ns

# 7. Pool ranges keep away from host users and groups (DANAUS_ETC names
# the tests' copies of /etc's account files).
etc=$work/etc && mkdir -p "$etc"
for f in passwd group subuid subgid; do cp "/etc/$f" "$etc/$f" 2>/dev/null || : >"$etc/$f"; done
echo "late:x:$((base + 65536 + 5)):100::/nonexistent:/bin/false" >>"$etc/passwd"
echo "lategrp:x:$((base + 2 * 65536 + 7)):" >>"$etc/group"
echo "sub:$((base + 3 * 65536 + 100)):10" >>"$etc/subgid"
export DANAUS_ETC="$etc"
"$danaus" pool create ids --cpus 1 --memory 256M \
    --backend "local:$work/hback" || exit 1
check "a new pool's range holds no host user's, group's or subgid's ids" \
    "$((base + 4 * 65536))" "$(sed -n 's/^userns_base=//p' "$DANAUS_STATE/pools/ids/pool")"
"$danaus" pool rm ids
echo "intruder:x:$((base + 1000)):$((base + 1000))::/nonexistent:/bin/false" >>"$etc/passwd"
expect_error "a host user added inside a pool's range" 125 \
    "intruder in $etc/passwd holds one" \
    "$danaus" run --rm --pool cf --image bb -- sh -c :
unset DANAUS_ETC

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "all confinement checks passed"
