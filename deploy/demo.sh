#!/bin/sh
# The main job on the embedded default backend: builds Danaus, starts a
# danausd serving /mnt/danaus from a host directory (no Ceph cluster), and
# runs a program that uses it through the danaus_* API; then the container
# engine runs a container whose root file system a pool danausd serves.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
"$top/deploy/build.sh"

work=$(mktemp -d /tmp/danaus-demo.XXXXXX)
mkdir -p "$work/data" "$work/run"
cat >"$work/danausd.conf" <<CONF
service demo
rundir $work/run
mount /mnt/danaus local $work/data
CONF

"$build/fsservice/danausd" -c "$work/danausd.conf" 2>"$work/danausd.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
for _ in $(seq 50); do
    grep -q ready "$work/danausd.log" && break
    kill -0 $pid 2>/dev/null || { cat "$work/danausd.log"; exit 1; }
    sleep 0.1
done
cat "$work/danausd.log"

DANAUS_SERVICE=demo DANAUS_RUNDIR="$work/run" "$build/examples/danaus-demo" /mnt/danaus
echo "files the service wrote, seen on the host: $(find "$work/data" | wc -l) entries (cleaned up by the demo)"

# The container engine: a pool on the same embedded backend (a host
# directory), an image from busybox-static, and a container whose root file
# system that pool's danausd serves.
state=$work/engine
mkdir -p "$work/pool-data"
danaus() { "$build/engine/danaus" --state "$state" "$@"; }
trap 'danaus pool rm demo 2>/dev/null; kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/image/bin" "$work/image/etc"
cp "$(command -v busybox)" "$work/image/bin/busybox"
ln -s busybox "$work/image/bin/sh"
echo "hello from a Danaus root file system" >"$work/image/etc/motd"
danaus image import busybox "$work/image"
danaus pool create demo --cpus 0 --memory 256M --backend local:"$work/pool-data"
danaus run --pool demo --image busybox --name hello -- \
    sh -c 'busybox cat /etc/motd; echo "pid $$ on $(busybox hostname)"'
danaus rm hello
