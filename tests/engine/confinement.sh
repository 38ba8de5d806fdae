#!/bin/sh
# A hostile tenant against the engine's confinement (issue 34, items 1-5,
# 8 and 9): a process in a container tries the escapes of the issue with
# tests/engine/attacker.c, an image's author plants symbolic links on the
# engine's mount targets, and a host user plants one in a -v source.
# Usage: confinement.sh DANAUS. Needs root, /dev/fuse, busybox-static, cc.
set -u
danaus=$1
work=$(mktemp -d /tmp/danaus-confinement-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
listener=
cleanup() {
    [ -n "$listener" ] && kill "$listener" 2>/dev/null
    remove_containers_and_pools
    rm -rf "$work"
}
trap cleanup EXIT

cc -static -O2 -o "$work/attacker" "$(dirname "$0")/attacker.c" || exit 1
img=$work/img
mkdir -p "$img/bin" "$img/etc" "$img/tmp"
cp /bin/busybox "$img/bin/busybox"
for c in sh cat ls grep sleep wc; do ln -s busybox "$img/bin/$c"; done
cp "$work/attacker" "$img/bin/attacker"
mknod "$img/xfuse" c 10 229 # an image's own copy of /dev/fuse
"$danaus" image import bb "$img" || exit 1
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
check "inspect shows the container's limits" \
    '  "Security": {"CapEff": "00000000800405fb", "CapBnd": "00000000800405fb", "NoNewPrivs": true, "Seccomp": "filter",
    "Namespaces": ["mnt", "pid", "uts", "ipc", "net", "cgroup"]},
  "Limits": {"Memory": 268435456, "PoolPids": 16384, "Pids": 2048},' \
    "$("$danaus" inspect dv | grep -A2 '"Security"')"
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

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "all confinement checks passed"
