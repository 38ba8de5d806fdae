#!/bin/sh
# special-files.sh - FIFOs, devices and sockets in a Danaus instance (issue
# 17), on one backend, through the preload and the FUSE door.
#
#   special-files.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|-
#
# mknod and mkfifo make the node in the instance; opening it gives the
# kernel's data path (through the FUSE door), so a FIFO carries bytes from
# one preloaded process to another and a device node made for /dev/null or
# /dev/zero reads and writes as the real device. Prints ok/FAIL per check;
# exit 0 when every check passed.
set -u

if [ $# -ne 4 ]; then
    echo "usage: special-files.sh DANAUSD LIBDANAUS local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") backend=$3 ceph_conf=$4

. "$(dirname "$0")/lib.sh"
site_make special "$backend" "$ceph_conf" || exit 2
echo "owner 65534:65534" >> "$site/danausd.conf" # root attaches too
if [ "$backend" = local ]; then
    mkdir "$site/upper" "$site/lower" &&
        mkfifo -m 0640 "$site/lower/fifo" || exit 1
    echo "union $site/union local $site/upper $site/lower" \
        >> "$site/danausd.conf"
fi

daemon=
cleanup() {
    plain rm -rf "$mnt"/* 2>/dev/null
    service_stop
    unmount_left "$mnt" "$site/union"
    rm -rf "$site"
}
[ -n "${KEEP:-}" ] || trap cleanup EXIT
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1

# A FIFO made through the preload, written by one preloaded process and
# read by another; both block in open until the other end is there.
pre mkfifo "$mnt/fifo"
expect "mkfifo makes a FIFO" "fifo" "$(pre stat -c %F "$mnt/fifo")"
pre sh -c "echo through-the-fifo > $mnt/fifo" &
writer=$!
expect "a preloaded reader gets a preloaded writer's bytes" \
    "through-the-fifo" "$(pre cat "$mnt/fifo")"
wait $writer
expect "the writer's open and write succeeded" 0 $?
expect "mkfifo on an existing name" "EEXIST" \
    "$(pre /usr/bin/python3 -c "
import errno, os
try: os.mkfifo('$mnt/fifo')
except OSError as e: print(errno.errorcode[e.errno])")"

# The same FIFO between a preloaded writer and a reader without the
# preload (through the FUSE door only).
pre sh -c "echo across-doors > $mnt/fifo" &
writer=$!
expect "a FIFO joins a preloaded writer and a plain reader" \
    "across-doors" "$(plain cat "$mnt/fifo")"
wait $writer

# Device nodes answer as the devices they name.
pre mknod "$mnt/null" c 1 3
pre mknod "$mnt/zero" c 1 5
expect "mknod c 1 3 makes a character device 1:3" "character special file 1:3" \
    "$(pre stat -c '%F %t:%T' "$mnt/null")"
expect "writing to the null node succeeds" "0" \
    "$(pre sh -c "echo discarded > $mnt/null; echo \$?")"
expect "reading the null node gives end of file" "0" \
    "$(pre sh -c "wc -c < $mnt/null")"
expect "the zero node reads zeros" "00000000" \
    "$(pre sh -c "head -c 4 $mnt/zero | od -An -tx1 | tr -d ' '")"
expect "a device and a FIFO made without the preload show through it" \
    "fifo|character special file" \
    "$(plain mknod "$mnt/fifo2" p && plain mknod "$mnt/null2" c 1 3 &&
       pre stat -c %F "$mnt/fifo2" "$mnt/null2" | paste -sd'|')"

expect "a plain unprivileged open of a device it may not write: EACCES" \
    "EACCES" \
    "$(plain setpriv --reuid=65534 --regid=65534 --clear-groups \
       /usr/bin/python3 -c "
import errno, os
try: os.open('$mnt/null', os.O_WRONLY)
except OSError as e: print(errno.errorcode[e.errno])")"

# What Linux refuses, refused with its errno.
expect "mknod of a directory type: EPERM; of a socket: made" "EPERM|socket" \
    "$(pre /usr/bin/python3 -c "
import errno, os, stat
try: os.mknod('$mnt/d', stat.S_IFDIR | 0o755)
except OSError as e: print(errno.errorcode[e.errno])
os.mknod('$mnt/sock', stat.S_IFSOCK | 0o644)
print('socket' if stat.S_ISSOCK(os.lstat('$mnt/sock').st_mode) else 'not')" |
       paste -sd'|')"
pre chmod 1777 "$mnt"
expect "an unprivileged client: mknod of a device EPERM, of a FIFO made" \
    "EPERM|fifo" \
    "$(pre setpriv --reuid=65534 --regid=65534 --clear-groups \
       /usr/bin/python3 -c "
import errno, os, stat
try: os.mknod('$mnt/dev2', stat.S_IFCHR | 0o644, os.makedev(1, 3))
except OSError as e: print(errno.errorcode[e.errno])
os.mknod('$mnt/fifo3', stat.S_IFIFO | 0o644)
print('fifo' if stat.S_ISFIFO(os.lstat('$mnt/fifo3').st_mode) else 'not')" |
       paste -sd'|')"
expect "an unprivileged open of a FIFO it may not write: EACCES" "EACCES" \
    "$(pre setpriv --reuid=65534 --regid=65534 --clear-groups \
       /usr/bin/python3 -c "
import errno, os
try: os.open('$mnt/fifo', os.O_WRONLY | os.O_NONBLOCK)
except OSError as e: print(errno.errorcode[e.errno])")"

# A union copies a FIFO of a lower branch up as a FIFO when it changes.
if [ "$backend" = local ]; then
    pre chmod 0600 "$site/union/fifo"
    expect "a union copies a lower FIFO up as a FIFO" "fifo 600" \
        "$(stat -c '%F %a' "$site/upper/fifo")"
    pre mkfifo "$site/union/fifo2"
    expect "a union makes a new FIFO in its writable branch" "fifo" \
        "$(stat -c %F "$site/upper/fifo2")"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed; danausd's log:"
    cat "$site/danausd.log"
    exit 1
fi
echo "all special-file checks passed ($backend)"
