#!/bin/sh
# Installs, from Debian's packages, everything Danaus needs to build, test and
# benchmark on a fresh Debian 12 machine. Safe to run again: apt skips what is
# already installed. Runs apt-get update only when the package lists are absent
# or older than a day.
set -eu

packages="
  build-essential cmake pkg-config
  libcephfs-dev libfuse3-dev liburcu-dev liburing-dev libcmocka-dev libssl-dev
  ceph-mon ceph-mgr ceph-osd ceph-mds ceph-common ceph-fuse
  fuse3 unionfs-fuse busybox-static python3-dev
  uuid-runtime procps acl libcap2-bin iproute2 iptables
  python3 sqlite3 git tar rocksdb-tools libjemalloc2
  podman skopeo crun runc containerd mmdebstrap curl
  gnuplot-nox groff-base man-db systemd
"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
        || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

stamp=/var/lib/apt/periodic/update-success-stamp
lists=$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)
if [ -z "$lists" ]; then
    $sudo apt-get update -q
fi
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
