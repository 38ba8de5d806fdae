#!/bin/sh
# kernel_cwd.sh DANAUSD LIBDANAUS: the kernel's current directory follows
# a preloaded chdir into a Danaus directory (libfs/interpose/cwd.c), so
# calls the preload does not wrap resolve relative names there too: an
# AF_UNIX socket bound by a relative name (pjdfstest's way, and
# PostgreSQL's) lands in the Danaus directory, plain processes connect to
# it, static programs run from there write there. Without a FUSE door at
# the same path, the kernel's directory is one that was removed: such
# calls fail with ENOENT instead of writing into the host directory the
# shell started in.
set -u
danausd=$(realpath "$1") lib=$(realpath "$2")
. "$(dirname "$0")/../lib.sh"
site=$(mktemp -d /tmp/danaus-kcwd-XXXXXX) || exit 1
start=$site/start # where the shells start: nothing may appear here
mkdir -p "$start" "$site/run" "$site/b-fuse/s" "$site/b-plain/s"
write_conf() { # NAME FUSE
    printf 'service %s\nrundir %s\nfuse %s\nfuse_keep 0\nmount %s local %s\n' \
        "kcwd-$1-$$" "$site/run" "$2" "$site/m-$1" "$site/b-$1" \
        >"$site/$1.conf"
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

out=$(in_danaus fuse "cd $site/m-fuse/s && $bind_rel && readlink /proc/self/cwd && pwd")
expect "a preloaded chdir moves the kernel's directory too" \
    "$site/m-fuse/s $site/m-fuse/s" "$(echo $out)"
expect "a socket bound by a relative name lands in the Danaus directory" \
    "socket" "$(stat -c %F "$site/b-fuse/s/rel.sock" 2>&1 | cut -d' ' -f1)"
expect "a plain process connects to a socket bound through the preload" ok \
    "$(in_danaus fuse "cd $site/m-fuse/s && python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.bind('live.sock'); s.listen(); import subprocess,os; os.environ.pop('LD_PRELOAD'); subprocess.run(['python3','-c','import socket; socket.socket(socket.AF_UNIX).connect(\\\"$site/m-fuse/s/live.sock\\\"); print(\\\"ok\\\")'])\"")"
in_danaus fuse "cd $site/m-fuse/s && busybox touch from-static"
expect "a static program run after the chdir writes in the Danaus directory" \
    yes "$([ -f "$site/b-fuse/s/from-static" ] && echo yes)"

out=$(in_danaus plain "cd $site/m-plain/s && pwd && $bind_rel" 2>&1)
expect "without a FUSE door, a relative bind fails with ENOENT" \
    "$site/m-plain/s FileNotFoundError: [Errno 2] No such file or directory" \
    "$(echo "$out" | sed -n '1p;$p' | xargs)"
expect "and nothing lands in the directory the shell started in" "" \
    "$(ls -A "$start")"

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "all kernel-cwd checks passed"
