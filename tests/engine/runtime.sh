#!/bin/sh
# danaus-runtime under podman (issue 40): podman calls it as it calls runc,
# and the container's root is a union served by a pool's danausd, over the
# root podman prepared. Usage: runtime.sh DANAUS_RUNTIME DANAUS
# [CEPH_CONF]; with CEPH_CONF, the checks of a pool on Ceph instead. Needs
# root, /dev/fuse, busybox-static, podman and runc (exit 77 without them).
set -u
runtime=$(realpath "$1")
danaus=$2
for tool in podman runc; do
    command -v $tool >/dev/null ||
        { echo "SKIP: $tool is not installed (deploy/install-deps.sh installs it)"; exit 77; }
done
work=$(mktemp -d /tmp/danaus-runtime-test.XXXXXX)
export DANAUS_STATE=$work/state

. "$(dirname "$0")/checks.sh"
# This machine's root lacks CAP_SYS_RESOURCE, so containers get the
# limits it has, not podman's.
limits="--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"
run() { pm run --network none $limits "$@"; }
ctd= cephdir=
cleanup() {
    [ -n "$ctd" ] && kill "$ctd" && wait "$ctd"
    # (containerd's shims of the test's containerd, by their address)
    for p in $(grep -lF "$work/ctd/sock" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); do
        kill "$p" 2>/dev/null; done
    pm rm -af -t 0 >/dev/null 2>&1
    remove_containers_and_pools
    [ -n "$cephdir" ] && rm -rf "$work/cephroot$cephdir"
    grep -o " $work[^ ]*" /proc/mounts | sort -r | xargs -r umount -l
    # (the runtime's notes of which state directory a container is in)
    grep -lxF "$DANAUS_STATE" /run/danaus-runtime/* 2>/dev/null | xargs -r rm -f
    rm -rf "$work"
}
trap cleanup EXIT

# busybox-static and a few links; a second image of dynamic programs and
# their libraries, for the preload.
img=$work/img
mkdir -p "$img/bin" "$img/etc" "$img/tmp"
cp /bin/busybox "$img/bin/busybox"
for c in sh cat echo ls mkdir mv rm sleep grep awk true; do ln -s busybox "$img/bin/$c"; done
echo from-the-image >"$img/etc/motd"
tar -C "$img" -cf "$work/bb.tar" . && pm import -q "$work/bb.tar" localhost/bb >/dev/null || exit 1
dimg=$work/dimg
mkdir -p "$dimg/usr/bin" "$dimg/bin" "$dimg/etc"
cp /bin/dash "$dimg/bin/sh"
cp /usr/bin/tail /usr/bin/cat /usr/bin/stat "$dimg/usr/bin/"
for lib in $(ldd /bin/dash /usr/bin/tail /usr/bin/cat /usr/bin/stat | grep -o '/[^ ]*' | grep -v ':$' | sort -u); do
    mkdir -p "$dimg$(dirname "$lib")"; cp "$lib" "$dimg$lib"; done
echo from-the-image >"$dimg/etc/motd"
tar -C "$dimg" -cf "$work/dyn.tar" . && pm import -q "$work/dyn.tar" localhost/dyn >/dev/null || exit 1

check "--version names danaus-runtime, then runc" "1 1" \
    "$("$runtime" --version | grep -c '^danaus-runtime version') $("$runtime" --version | grep -c '^runc version')"

# A container's loop through kills of its danausd: it writes, reads back
# and lists its root.
work_loop='i=0; while [ $i -lt 150 ]; do echo line$i >> /w/log || exit 5; n=0; while read -r l; do n=$((n + 1)); done < /w/log; [ "$n" -eq $((i + 1)) ] || { echo "lost at $i: $n"; exit 3; }; set -- /w/*; [ "$1" = /w/log ] || exit 4; i=$((i + 1)); sleep 0.02; done; echo "wrote $n"'
# survive_kills PIDFILE [RUN-OPTION...]: a container "survivor" runs the
# loop through three kills of its pool's danausd, whose pid PIDFILE holds.
survive_kills() {
    pidfile=$1
    shift
    run -d --name survivor "$@" localhost/bb sh -c "mkdir -p /w && $work_loop" >/dev/null
    first=$(cat "$pidfile")
    kill_danausd_thrice "$pidfile"
    check "the container lived through three kills of its danausd" 0 \
        "$(timeout 120 podman --root "$work/storage" --runroot "$work/run" --storage-driver overlay wait survivor)"
    check "it wrote and read back every line" "wrote 150" "$(pm logs survivor | tail -1)"
    check "a fourth danausd serves the pool" new "$([ "$(cat "$pidfile")" != "$first" ] && echo new)"
}
# crun_checks BRANCHES [RUN-OPTION...]: the runtime delegating to crun
# (--danaus-runc, podman's --runtime-flag) instead of runc: the root is
# still the pool's, every later command of the container (start, exec,
# kill, delete, run by podman without the flag) reaches crun, and rm
# removes the branch from BRANCHES, the pool's backend's containers/. On
# a cgroup hybrid host crun needs deploy/cgroup-hybrid.sh first.
crun_checks() {
    branches=$1
    shift
    if ! command -v crun >/dev/null; then
        echo "skip crun: not installed (deploy/install-deps.sh installs it)"
        return
    fi
    "$(dirname "$0")/../../deploy/cgroup-hybrid.sh"
    check "the cgroup step leaves crun no controller in cgroup v2" "" \
        "$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null)"
    crun_run() { pm --runtime-flag danaus-runc=crun run --network none $limits "$@"; }
    out=$(crun_run --rm "$@" localhost/bb sh -c 'echo by-crun > /f; cat /f; grep " / / " /proc/self/mountinfo | sed "s/.* - \([^ ]*\) .*/\1/"' 2>&1)
    check "delegating to crun: the container sees its write on the pool's root" "by-crun
fuse.danaus" "$out"
    crun_run -d --name cr "$@" localhost/bb sh -c 'echo kept > /f; trap "exit 0" TERM; while :; do sleep 0.1; done' >/dev/null
    sleep 0.5
    cid=$(pm inspect -f '{{.Id}}' cr)
    check "crun made the container, runc knows nothing of it" "1 0" \
        "$(crun list -q 2>/dev/null | grep -cx "$cid") $(runc list -q 2>/dev/null | grep -cx "$cid")"
    check "exec reaches crun's container, in the pool's root" kept "$(pm exec cr cat /f 2>&1)"
    check "the write is in the pool's backend" kept "$(cat "$branches/oci-$cid/f" 2>&1)"
    pm stop -t 10 cr >/dev/null
    check "stop reaches crun: the container exits 0" 0 "$(pm inspect -f '{{.State.ExitCode}}' cr)"
    pm rm cr >/dev/null
    run --rm "$@" localhost/bb true
    check "rm leaves crun no container, no root mounted, no branch" "0 0 " \
        "$(crun list -q 2>/dev/null | grep -cx "$cid") $(grep -c "$DANAUS_STATE/runtime" /proc/mounts) $(ls "$branches")"
}

# On Ceph: the writable branch in the pool's Ceph backend, over the root
# podman prepared in a host directory. The pool writes through: its
# survivor below writes without fsync and checks every line after kills.
if [ $# -ge 3 ]; then
    cephdir=/runtime-test-$$
    mkdir -p "$work/cephroot"
    ceph-fuse -c "$3" "$work/cephroot" >/dev/null 2>&1 || exit 1
    mkdir -p "$work/cephroot$cephdir"
    back=$work/cephroot$cephdir
    "$danaus" pool create c --cpus 0 --memory 512M --write-through \
        --backend "ceph:$3:$cephdir" || exit 1
    out=$(run --name w --annotation danaus.pool=c localhost/bb sh -c 'echo on-ceph > /f; cat /f /etc/motd; grep " / / " /proc/self/mountinfo | sed "s/.* - \([^ ]*\) .*/\1/"' 2>&1)
    check "podman run in a Ceph pool: the container sees its write and the image" "on-ceph
from-the-image
fuse.danaus" "$out"
    id=$(pm inspect -f '{{.Id}}' w)
    check "the write is in the Ceph pool's backend, in the container's branch" \
        on-ceph "$(cat "$back/containers/oci-$id/f" 2>&1)"
    check "podman's container layer holds none of it" absent \
        "$(ls "$work"/storage/overlay/*/diff/f 2>/dev/null || echo absent)"
    pm rm w >/dev/null
    run --rm --annotation danaus.pool=c localhost/bb true
    check "rm removes the branch from the Ceph backend" "" "$(ls "$back/containers")"
    # The runtime removes a branch through the pool's store mount; a tree
    # deeper than PATH_MAX, which a path walk cannot name, too.
    d=d123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789
    p=$d/$d/$d/$d/$d/$d/$d/$d/$d/$d
    run --rm --annotation danaus.pool=c localhost/bb sh -c "mkdir -p /tmp/x/$p/$p/$p /tmp/y/$p/$p && echo deep > /tmp/x/$p/$p/$p/f && mv /tmp/x /tmp/y/$p/$p/"
    check "rm removes a branch deeper than PATH_MAX from the Ceph backend" "0 " \
        "$? $(ls "$back/containers")"
    survive_kills "$DANAUS_STATE/pools/c/run/c.pid" --annotation danaus.pool=c
    pm rm -f -t 0 survivor >/dev/null
    run --rm --annotation danaus.pool=c localhost/bb true
    check "rm after the kills leaves no root mounted, no record, no branch" "0 :" \
        "$(grep -c "$DANAUS_STATE/runtime" /proc/mounts) $(ls "$DANAUS_STATE/runtime"):$(ls "$back/containers")"
    crun_checks "$back/containers" --annotation danaus.pool=c
    [ "$failures" -eq 0 ] && echo "all runtime checks passed"
    exit "$failures"
fi

# A pool of the operator's on cpu 0: the default pool gets the others.
mkdir -p "$work/back-p"
"$danaus" pool create p --cpus 0 --memory 256M --backend "local:$work/back-p" || exit 1

# The root is the pool's union: a write lands in the default pool's
# backend (made on first use), in the container's own branch.
# Three first containers at once: one makes the default pool, the others
# wait for it.
for i in 1 2 3; do
    run --rm localhost/bb sh -c "echo hi$i > /f; cat /f" >"$work/first$i" 2>&1 &
done
wait
check "three first containers at once all run" "hi1 hi2 hi3" \
    "$(cat "$work/first1" "$work/first2" "$work/first3" | xargs)"
out=$(run --rm localhost/bb sh -c 'echo hi > /f; cat /f')
check "podman run --rm prints what the container wrote" hi "$out"
backend=$DANAUS_STATE/backends/default
check "the default pool was made on first use, on the free cpus" "default p 1" \
    "$(ls "$DANAUS_STATE/pools" | xargs) $(sed -n 's/^cpus=//p' "$DANAUS_STATE/pools/default/pool")"
check "--rm leaves no branch, no record" ":" "$(ls "$backend/containers"):$(ls "$DANAUS_STATE/runtime")"
out=$(run --name w localhost/bb sh -c 'cat /f 2>/dev/null; echo hi > /f; cat /etc/motd; grep " / / " /proc/self/mountinfo | sed "s/.* - \([^ ]*\) .*/\1/"')
check "the container sees the image, its root is the pool's FUSE mount" "from-the-image
fuse.danaus" "$out"
id=$(pm inspect -f '{{.Id}}' w)
check "the write is in the pool's backend, in the container's branch" hi \
    "$(cat "$backend/containers/oci-$id/f" 2>&1)"
check "podman's container layer holds none of it" absent \
    "$(ls "$work"/storage/overlay/*/diff/f 2>/dev/null || echo absent)"
check "a stopped container keeps its branch; its root is unmounted" "oci-$id 0" \
    "$(ls "$backend/containers") $(grep -c "$DANAUS_STATE/runtime" /proc/mounts)"
pm start -a w >"$work/again" 2>&1
check "podman start runs it again over the same branch" hi \
    "$(head -1 "$work/again")"
pm rm w >/dev/null
# The runtime is not told of rm: its next command removes the branch of a
# stopped container whose bundle podman removed.
run --rm localhost/bb true
check "rm removes the branch and the runtime's record" ":" "$(ls "$backend/containers"):$(ls "$DANAUS_STATE/runtime")"
check "rm leaves no root mounted, no note of the state directory" "0 0" \
    "$(grep -c "$DANAUS_STATE/runtime" /proc/mounts) $(ls /run/danaus-runtime | grep -c "$id")"

# --read-only: the union is served read-only and runc remounts it so;
# podman's tmpfs at /tmp stays writable. The command's exit code is
# podman's.
out=$(run --rm --read-only localhost/bb sh -c '{ echo x > /f; } 2>/dev/null || echo refused; echo y > /tmp/t && echo tmp-ok')
check "podman run --read-only: the root refuses writes, /tmp takes them" "refused
tmp-ok" "$out"
run --rm localhost/bb sh -c 'exit 3'
check "the command's exit code is podman run's" 3 "$?"

# A pool named by annotation; an unknown one is refused.
run --rm --annotation danaus.pool=p localhost/bb sh -c 'echo in-p > /f; ls /f >/dev/null; sleep 0.1' &
pid=$!
tries=0
until ls "$work"/back-p/containers/oci-*/f >/dev/null 2>&1 || [ $tries -gt 200 ]; do
    tries=$((tries + 1)); sleep 0.05; done
check "--annotation danaus.pool=p puts the branch in pool p's backend" in-p \
    "$(cat "$work"/back-p/containers/oci-*/f 2>&1)"
wait $pid
out=$(run --rm --annotation danaus.pool=nope localhost/bb true 2>&1)
check "an unknown pool is refused, naming it" "126 1" \
    "$? $(echo "$out" | grep -c "unknown pool 'nope'")"
out=$(run --rm --annotation danaus.pool=../p localhost/bb true 2>&1)
check "a pool annotation that is not a name is refused, naming it" "126 1" \
    "$? $(echo "$out" | grep -c "pool name '../p'")"
check "a refused create leaves nothing, no note of the state directory" ":0" \
    "$(ls "$DANAUS_STATE/runtime"):$(grep -lxF "$DANAUS_STATE" /run/danaus-runtime/* 2>/dev/null | wc -l)"

# Through the preload, the root (the writable branch, on the pool's
# disk) and the image's directories (podman's overlayfs) show one device,
# the FUSE mount's, as through the kernel: find -xdev, du -x and tar
# --one-file-system stay in the root.
check "the preload's stat gives the root and the image one device, the mount's" \
    1 "$(run --rm localhost/dyn sh -c 'stat -c %d / /etc /usr/bin; LD_PRELOAD= stat -c %d /etc' 2>&1 | sort -u | wc -l)"

# Dynamic programs take the shared-memory path: a file held open is a
# Danaus descriptor (the library's placeholder, /dev/null opened O_PATH)
# and the process maps its area of the pool's service.
run -d --name f1 localhost/dyn tail -f /etc/motd >/dev/null
sleep 0.5
p1=$(pm inspect -f '{{.State.Pid}}' f1)
held=$(for fd in /proc/$p1/fd/*; do
    flags=$(sed -n 's/^flags:[[:space:]]*//p' "/proc/$p1/fdinfo/${fd##*/}")
    case "$(readlink "$fd")" in
    */etc/motd) echo kernel ;;
    */dev/null) [ $(( (0$flags & 010000000) != 0 )) = 1 ] && echo danaus ;;
    esac
done | sort -u | xargs)
check "a file opened in the container is a Danaus descriptor" danaus "$held"
check "the container's process maps its area of the pool's service" 1 \
    "$(grep -c 'memfd:danaus-area' "/proc/$p1/maps")"
check "podman exec gets the preload" "/usr/lib/danaus/libdanaus.so default" \
    "$(pm exec f1 sh -c 'echo $LD_PRELOAD $DANAUS_SERVICE')"
pm rm -f -t 0 f1 >/dev/null

# stop, exec, logs, rm.
run -d --name s localhost/bb sh -c 'trap "echo stopping; exit 0" TERM; echo started; echo data > /f; while :; do sleep 0.1; done' >/dev/null
sleep 0.5
check "podman exec runs in the container's root" data "$(pm exec s cat /f)"
check "podman logs shows its output" started "$(pm logs s)"
# A create of an id the runtime has running is refused and changes nothing.
sid=$(pm inspect -f '{{.Id}}' s)
out=$("$runtime" --danaus-state "$DANAUS_STATE" create \
    --bundle "$work/storage/overlay-containers/$sid/userdata" "$sid" 2>&1)
check "a second create of a running container's id is refused, the container untouched" \
    "1 1 data" "$? $(echo "$out" | grep -c "container $sid exists") $(pm exec s cat /f 2>&1)"
pm stop -t 10 s >/dev/null
check "podman stop: SIGTERM reaches it, it exits 0" "0
started
stopping" "$(pm inspect -f '{{.State.ExitCode}}' s)
$(pm logs s)"
pm rm s >/dev/null
check "stop and rm leave no root mounted" 0 \
    "$(grep -c "$DANAUS_STATE/runtime" /proc/mounts)"

# A killed danausd costs the container a pause, not its root: the keeper
# starts the next one, which takes the FUSE mount and the view over. The
# container writes, reads back and lists its root through three kills;
# a write after them succeeds.
pidfile=$DANAUS_STATE/pools/default/run/default.pid
survive_kills "$pidfile"
run -d --name after localhost/bb sleep 100 >/dev/null
kill -9 "$(cat "$pidfile")"
sleep 1
check "a write after a kill succeeds" "after" "$(pm exec after sh -c 'echo after > /g; cat /g')"
pm rm -f -t 0 after survivor >/dev/null
run --rm localhost/bb true
check "rm after the kills leaves no root mounted, no record" "0 " \
    "$(grep -c "$DANAUS_STATE/runtime" /proc/mounts) $(ls "$DANAUS_STATE/runtime")"

crun_checks "$backend/containers"

# containerd: ctr run with danaus-runtime as its runc binary (containerd
# passes DANAUS_STATE on); its shim unmounts the container's rootfs after
# the runtime's delete, which a pinned mount would refuse (EBUSY).
if command -v containerd >/dev/null && command -v ctr >/dev/null; then
    mkdir -p "$work/ctd"
    containerd --root "$work/ctd/root" --state "$work/ctd/state" \
        --address "$work/ctd/sock" >"$work/ctd/log" 2>&1 &
    ctd=$!
    ctr() { command ctr -a "$work/ctd/sock" "$@"; }
    tries=0
    until ctr version >/dev/null 2>&1 || [ $tries -gt 100 ]; do
        tries=$((tries + 1)); sleep 0.1; done
    pm save -q -o "$work/bb-docker.tar" localhost/bb &&
        ctr images import "$work/bb-docker.tar" >/dev/null
    out=$(timeout 60 ctr -a "$work/ctd/sock" run --rm --runc-binary "$runtime" localhost/bb:latest k1 \
        sh -c 'echo hi > /f; cat /f; grep " / / " /proc/self/mountinfo | sed "s/.* - \([^ ]*\) .*/\1/"' 2>&1
        echo "rc=$?")
    check "containerd runs it on the pool's root and deletes it" "hi
fuse.danaus
rc=0" "$out"
    check "containerd's shim unmounted the container's rootfs" 0 \
        "$(grep -c "$work/ctd/state" /proc/mounts)"
    ctr images rm localhost/bb:latest >/dev/null
    kill "$ctd"
    wait "$ctd"
    ctd=
else
    echo "skip containerd: not installed (deploy/install-deps.sh installs it)"
fi

[ "$failures" -eq 0 ] && echo "all runtime checks passed"
exit "$failures"
