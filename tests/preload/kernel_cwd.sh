#!/bin/sh
# kernel_cwd.sh DANAUSD LIBDANAUS [CEPH_CONF]: the kernel's current
# directory follows a preloaded chdir into a Danaus directory
# (libfs/interpose/cwd.c), so calls the preload does not wrap resolve
# relative names there too: an AF_UNIX socket bound by a relative name
# (pjdfstest's way, and PostgreSQL's) lands in the Danaus directory, plain
# processes connect to it, a raw openat system call and inotify_add_watch
# name what is there, static programs run from there write there. Without
# a FUSE door at the same path, the kernel's directory is one that was
# removed: such calls fail with ENOENT instead of reaching the host
# directory the shell started in. The mounts are local directories, or
# with CEPH_CONF directories of that cluster.
set -u
danausd=$(realpath "$1") lib=$(realpath "$2") ceph_conf=${3:-}
. "$(dirname "$0")/../lib.sh"
site=$(mktemp -d /tmp/danaus-kcwd-XXXXXX) || exit 1
start=$site/start # where the shells start: nothing may appear here
mkdir -p "$start" "$site/run" "$site/b-fuse" "$site/b-plain"
write_conf() { # NAME FUSE
    if [ -n "$ceph_conf" ]; then
        printf 'ceph_conf %s\nmount %s ceph /kcwd-%s-%s\n' "$ceph_conf" \
            "$site/m-$1" "$(hostname)" "$$-$1"
    else
        printf 'mount %s local %s\n' "$site/m-$1" "$site/b-$1"
    fi >"$site/$1.conf"
    printf 'service %s\nrundir %s\nfuse %s\nfuse_keep 0\n' \
        "kcwd-$1-$$" "$site/run" "$2" >>"$site/$1.conf"
}
write_conf fuse on
write_conf plain off
pids=
cleanup() {
    for p in $pids; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$site"
}
trap cleanup EXIT
for n in fuse plain; do
    mnt=$site/m-$n
    [ $n = fuse ] || mnt=""
    service_start "$site/$n.log" "$mnt" "$danausd" -c "$site/$n.conf" || exit 1
    pids="$pids $daemon"
done
in_danaus() { # NAME COMMAND: a preloaded shell, started in $start
    (cd "$start" && timeout 30 env LD_PRELOAD="$lib" \
        DANAUS_SERVICE="kcwd-$1-$$" DANAUS_RUNDIR="$site/run" sh -c "$2")
}
bind_rel='python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"rel.sock\")"'
# openat(AT_FDCWD, NAME) as a raw system call, which no libc wrapper sees;
# and inotify_add_watch of NAME, which libdanaus does not wrap: each says
# ok or the errno's name.
cat >"$site/raw.py" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
name = sys.argv[2].encode()
if sys.argv[1] == "openat":  # SYS_openat on x86_64; AT_FDCWD is -100
    r = libc.syscall(257, -100, name, os.O_CREAT | os.O_WRONLY, 0o644)
else:
    fd = libc.inotify_init()
    r = libc.inotify_add_watch(fd, name, 0x100) if fd >= 0 else -1  # IN_CREATE
print("ok" if r >= 0 else errno.errorcode[ctypes.get_errno()])
PY
# The Danaus directory s, made through each service's preload.
for n in fuse plain; do in_danaus $n "mkdir -p $site/m-$n/s/w"; done

out=$(in_danaus fuse "cd $site/m-fuse/s && $bind_rel && readlink /proc/self/cwd && pwd")
expect "a preloaded chdir moves the kernel's directory too" \
    "$site/m-fuse/s $site/m-fuse/s" "$(echo $out)"
expect "a socket bound by a relative name lands in the Danaus directory" \
    "socket" "$(in_danaus fuse "stat -c %F $site/m-fuse/s/rel.sock" 2>&1 | cut -d' ' -f1)"
expect "a raw openat by a relative name makes the file in the Danaus directory" \
    "ok yes" "$(in_danaus fuse "cd $site/m-fuse/s && python3 $site/raw.py openat raw.txt && [ -f $site/m-fuse/s/raw.txt ] && echo yes" | xargs)"
expect "inotify_add_watch by a relative name watches the Danaus directory's" \
    "ok ENOENT" "$(in_danaus fuse "cd $site/m-fuse/s && python3 $site/raw.py watch w; python3 $site/raw.py watch absent" | xargs)"
expect "a plain process connects to a socket bound through the preload" ok \
    "$(in_danaus fuse "cd $site/m-fuse/s && python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.bind('live.sock'); s.listen(); import subprocess,os; os.environ.pop('LD_PRELOAD'); subprocess.run(['python3','-c','import socket; socket.socket(socket.AF_UNIX).connect(\\\"$site/m-fuse/s/live.sock\\\"); print(\\\"ok\\\")'])\"")"
in_danaus fuse "cd $site/m-fuse/s && busybox touch from-static"
expect "a static program run after the chdir writes in the Danaus directory" \
    yes "$(in_danaus fuse "[ -f $site/m-fuse/s/from-static ] && echo yes")"

out=$(in_danaus plain "cd $site/m-plain/s && pwd && $bind_rel" 2>&1)
expect "without a FUSE door, a relative bind fails with ENOENT" \
    "$site/m-plain/s FileNotFoundError: [Errno 2] No such file or directory" \
    "$(echo "$out" | sed -n '1p;$p' | xargs)"
expect "without a FUSE door, a raw openat and a watch fail with ENOENT" \
    "ENOENT ENOENT" "$(in_danaus plain "cd $site/m-plain/s && python3 $site/raw.py openat raw.txt; python3 $site/raw.py watch w" | xargs)"
expect "and nothing lands in the directory the shell started in" "" \
    "$(ls -A "$start")"

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "all kernel-cwd checks passed"
