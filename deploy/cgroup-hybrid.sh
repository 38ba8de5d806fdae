#!/bin/sh
# cgroup-hybrid.sh - lets crun run on a cgroup hybrid host: v1 hierarchies
# under /sys/fs/cgroup, the v2 one at /sys/fs/cgroup/unified.
#
# crun refuses such a host while its v2 hierarchy holds a controller
# ("cgroups in hybrid mode not supported, drop all controllers from
# cgroupv2"). A controller is in v2 when no v1 hierarchy has it: systemd
# mounts every controller as v1 on a hybrid host, a smaller init may leave
# one out (hugetlb on the machines this was written on). This step mounts
# each controller v2 holds as a v1 hierarchy at /sys/fs/cgroup/NAME, which
# takes it out of v2, as systemd would have. The mount stays: it is the
# host's setup, like the other v1 mounts (`umount /sys/fs/cgroup/NAME`
# gives the controller back to v2 once its hierarchy has no cgroups).
#
# Nothing the engine uses moves: its pools' cgroups are in the v1 cpuset,
# memory, pids and devices hierarchies, or in v2 only on a pure v2 host
# (engine/cgroup.c), which this step leaves alone, as it leaves a pure v1
# host and a hybrid one whose v2 holds nothing. Running it again changes
# nothing. As root. Exit 0 when v2 holds no controller after it, else 1
# (the kernel refuses to move a controller a v2 cgroup enables).
#
#   deploy/cgroup-hybrid.sh
set -u

root=/sys/fs/cgroup
unified=$root/unified
[ "$(stat -f -c %T "$root" 2>/dev/null)" != cgroup2fs ] &&
    [ "$(stat -f -c %T "$unified" 2>/dev/null)" = cgroup2fs ] || exit 0

rc=0
for c in $(cat "$unified/cgroup.controllers"); do
    mkdir -p "$root/$c" &&
        mount -t cgroup -o "$c" cgroup "$root/$c" &&
        echo "cgroup-hybrid: mounted the $c controller at $root/$c (v1)" >&2 ||
        { echo "cgroup-hybrid: cannot move $c out of cgroup v2" >&2; rc=1; }
done
exit "$rc"
