#!/bin/sh
# Syncs in a container's root (issue 36): the writable branch of a run --rm
# container goes with it, so its fsyncs and O_DSYNC writes are answered
# without reaching the disk, as podman's overlay mounts for --rm
# (fsync=volatile); any other container's, and a volume's, reach it. The
# disk's word is the flushes a loop device under the pool's backend
# completes (/sys/block/loopN/stat). Static programs take the FUSE door,
# dynamic ones the preload; podman's run --rm through danaus-runtime as
# well, where podman and runc are installed. Usage: volatile.sh DANAUS
# DANAUS_RUNTIME. Needs root, /dev/fuse, busybox-static, a loop device.
set -u
danaus=$1
runtime=$(realpath "$2")
work=$(mktemp -d /tmp/danaus-volatile-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
podman=$(command -v podman >/dev/null && command -v runc >/dev/null && echo 1)
cleanup() {
    [ -n "$podman" ] && pm rm -af -t 0 >/dev/null 2>&1
    remove_containers_and_pools
    grep -o " $work[^ ]*" /proc/mounts | sort -r | xargs -r umount -l
    grep -lxF "$DANAUS_STATE" /run/danaus-runtime/* 2>/dev/null | xargs -r rm -f
    rm -rf "$work"
}
trap cleanup EXIT

# No journal commit on a timer (commit=600) and no lazy initialization:
# nothing but the containers' syncs flushes while they run.
truncate -s 64M "$work/disk.img" &&
    mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$work/disk.img" &&
    mkdir "$work/disk" &&
    mount -o loop,commit=600 "$work/disk.img" "$work/disk" || exit 1
dev=$(basename "$(findmnt -n -o SOURCE "$work/disk")")
flushes() { awk '{print $16}' "/sys/block/$dev/stat"; }

busybox_image bb sh dd cat wc || exit 1
dimg=$work/dimg
mkdir -p "$dimg/bin" "$dimg/usr/bin"
cp /bin/dash "$dimg/bin/sh"
for p in dd cat wc; do cp "/usr/bin/$p" "$dimg/usr/bin/$p"; done
for lib in $(ldd /bin/dash /usr/bin/dd /usr/bin/cat /usr/bin/wc | grep -v ':$' | grep -o '/[^ ]*' | sort -u); do
    mkdir -p "$dimg$(dirname "$lib")"; cp "$lib" "$dimg$lib"; done
"$danaus" image import dyn "$dimg" >/dev/null || exit 1
mkdir "$work/disk/back"
"$danaus" pool create p --cpus 0 --memory 256M --backend "local:$work/disk/back" ||
    exit 1
# The layers go into the backend on a pool's first run of an image.
"$danaus" run --rm --pool p --image bb -- sh -c :
"$danaus" run --rm --pool p --image dyn -- sh -c :

# Ten 4 KiB files in DIR, each fsync'd, and one written O_DSYNC where dd
# has it; then their bytes.
writes='for i in 0 1 2 3 4 5 6 7 8 9; do
    dd if=/dev/zero of=$1/f$i bs=4096 count=1 conv=fsync 2>/dev/null || exit 1
done
[ "$2" = bb ] || dd if=/dev/zero of=$1/s bs=4096 count=4 oflag=dsync 2>/dev/null || exit 1
cat $1/f* | wc -c'
# synced WHAT IMAGE DIR RUN-OPTIONS...: writes in DIR of a new container
# of IMAGE, checked; the disk's flushes meanwhile in $n.
synced() {
    what=$1 image=$2 dir=$3; shift 3
    before=$(flushes)
    check "$what: the files are written" 40960 \
        "$("$danaus" run --pool p "$@" --image "$image" -- sh -c "$writes" sh "$dir" "$image")"
    n=$(($(flushes) - before))
}
at_least() { [ "$2" -ge "$1" ] && echo "$1 or more" || echo "$2"; }

synced "run --rm, FUSE door" bb "" --rm
check "run --rm, FUSE door: no flush" 0 "$n"
synced "run --rm, preload" dyn "" --rm
check "run --rm, preload: no flush" 0 "$n"
synced "a kept container, FUSE door" bb "" --name kb
check "a kept container, FUSE door: a flush per fsync" "10 or more" \
    "$(at_least 10 "$n")"
synced "a kept container, preload" dyn "" --name kd
check "a kept container, preload: a flush per fsync and O_DSYNC write" \
    "14 or more" "$(at_least 14 "$n")"
synced "a volume of a run --rm container" dyn /v --rm -v vol:/v
check "a volume of a run --rm container: a flush per sync" "14 or more" \
    "$(at_least 14 "$n")"

if [ -n "$podman" ]; then
    tar -C "$dimg" -cf "$work/dyn.tar" . &&
        pm import -q "$work/dyn.tar" localhost/dyn >/dev/null || exit 1
    prun() {
        pm run --network none --ulimit nofile=1024:1024 \
            --ulimit nproc=1024:1024 --annotation danaus.pool=p "$@"
    }
    prun --rm localhost/dyn sh -c :
    before=$(flushes)
    check "podman run --rm: the files are written" 40960 \
        "$(prun --rm localhost/dyn sh -c "$writes" sh "" dyn)"
    check "podman run --rm: no flush" 0 $(($(flushes) - before))
    before=$(flushes)
    check "podman run: the files are written" 40960 \
        "$(prun --name pk localhost/dyn sh -c "$writes" sh "" dyn)"
    check "podman run: a flush per fsync and O_DSYNC write" "14 or more" \
        "$(at_least 14 $(($(flushes) - before)))"
else
    echo "skip podman run --rm: podman or runc is not installed"
fi

[ "$failures" -eq 0 ]
