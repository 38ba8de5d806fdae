#!/bin/sh
# fuse-door.sh - the FUSE door end to end (issue 5), on one backend.
#
#   fuse-door.sh DANAUSD LIBDANAUS MMAP_TEST HELLO GREET_LIB PYEXT_C \
#                local|ceph CEPH_CONF|-
#
# Starts danausd on a fresh mount point (a unique temporary directory) and
# checks, printing "ok"/"FAIL" per check:
#  - the instance is FUSE-mounted there;
#  - a binary stored in the instance runs from it, with and without the
#    preload (which survives the exec), dlopens a library stored there, and
#    python3 imports a C extension stored there; a running program's file
#    cannot be truncated by an open (ETXTBSY), nor opened for writing or
#    truncated through the preload;
#  - static busybox (no preload possible) writes files a preloaded program
#    reads at once, and the other way round, including an overwrite of the
#    same size while busybox holds the file open;
#  - stat and readdir agree between the doors (device, inode, size,
#    mtime, mode); a symlink replaced on the host is read anew once the
#    kernel's entry times out;
#  - mmap through the preload (MMAP_TEST), its MAP_SHARED write read back
#    through the FUSE door;
#  - another user's write to a setuid file it may write takes the setuid
#    and setgid bits, as on ext4; its chmod of one it may not write fails;
#  - SIGTERM with a process inside the mount: prompt exit, no mount left;
#    SIGKILL with fuse_keep 0: the keeper detaches the mount at once;
#    SIGKILL of service and keeper: the next start detaches the stale mount
#    and serves. (Mounts kept over a crash: fuse-keeper.sh.)
# FUSE_DOOR_CONF, if set, is one more line of the service's
# configuration (the ctest fuse_door_uring_local: fuse_io_uring on).
# Exit 0 when every check passed.
set -u

if [ $# -ne 8 ]; then
    echo "usage: fuse-door.sh DANAUSD LIBDANAUS MMAP_TEST HELLO GREET_LIB PYEXT_C local|ceph CEPH_CONF|-" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") mmap_test=$(realpath "$3")
hello=$(realpath "$4") greet=$(realpath "$5") pyext=$(realpath "$6")
backend=$7 ceph_conf=$8

site=$(mktemp -d /tmp/danaus-fuse-XXXXXX) || exit 1
mnt=$site/mnt
service="fuse-$$"
mkdir "$site/run" "$site/backing" "$site/build" || exit 1
chmod 755 "$site" # nobody's programs below walk to the mount
{
    echo "service $service"
    echo "rundir $site/run"
    echo "fuse_keep 0"
    echo "fuse_allow_other on"
    [ -n "${FUSE_DOOR_CONF:-}" ] && echo "$FUSE_DOOR_CONF"
    case $backend in
    local) echo "mount $mnt local $site/backing" ;;
    ceph) echo "ceph_conf $ceph_conf"
          echo "mount $mnt ceph /fuse-door-$(hostname)-$$" ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
    esac
} > "$site/danausd.conf"


# Programs touching the mount without the preload, bounded: a broken door
# must fail the test, not hang it.
plain() { timeout 30 env -u LD_PRELOAD -u DANAUS_SERVICE -u DANAUS_RUNDIR "$@"; }
pre() {
    timeout 30 env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
mounted() { grep -q " $mnt fuse" /proc/mounts; }

. "$(dirname "$0")/../lib.sh"
daemon=
start() {
    : > "$site/danausd.log"
    service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf"
}
# stop SIGNAL: signals the service and waits up to 10 s for it to end.
stop() {
    kill "-$1" "$daemon" 2>/dev/null
    tries=0
    while kill -0 "$daemon" 2>/dev/null; do
        tries=$((tries + 1))
        [ $tries -gt 100 ] && return 1
        sleep 0.1
    done
    wait "$daemon" 2>/dev/null
    return 0
}
cleanup() {
    if [ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null; then
        [ "$backend" = ceph ] && plain rm -rf "$mnt"/* 2>/dev/null
        stop TERM || kill -KILL "$daemon"
    fi
    # A keeper outlives nothing; a mount outlives nobody.
    mounted && umount -l "$mnt"
    rm -rf "$site"
}
trap cleanup EXIT
uring_allow

start || exit 1
uring_check "$site/danausd.log"
if mounted; then ok "instance FUSE-mounted at its mount point"; else
    fail "no FUSE mount at $mnt"; cat "$site/danausd.log"; exit 1; fi

# Programs and libraries stored in the instance.
plain mkdir "$mnt/bin" "$mnt/py"
plain cp "$hello" "$mnt/bin/hello"
plain cp "$greet" "$mnt/bin/libgreet.so"
expect "exec and dlopen from the mount, no preload" \
    "hello|preload no|greet from a library on Danaus" \
    "$(plain "$mnt/bin/hello" "$mnt/bin/libgreet.so" | paste -sd'|')"
expect "exec and dlopen from the mount, preloaded (preload survives exec)" \
    "hello|preload yes|greet from a library on Danaus" \
    "$(pre "$mnt/bin/hello" "$mnt/bin/libgreet.so" | paste -sd'|')"
expect "preloaded shell runs a binary stored in the mount" \
    "hello|preload yes" "$(pre sh -c "cd $mnt/bin && ./hello" | paste -sd'|')"

# A running program's file may not be written: an open that would
# truncate it fails with ETXTBSY and leaves it whole.
plain cp /bin/sleep "$mnt/bin/sleeper"
txt="import errno, os, subprocess
p = subprocess.Popen(['$mnt/bin/sleeper', '30'])
try:
    os.open('$mnt/bin/sleeper', os.O_RDONLY | os.O_TRUNC)
    print('opened')
except OSError as e:
    print(errno.errorcode[e.errno])
p.kill()
p.wait()
print(os.stat('$mnt/bin/sleeper').st_size == os.stat('/bin/sleep').st_size)"
expect "O_RDONLY|O_TRUNC of a running program: ETXTBSY, file whole" \
    "ETXTBSY|True" "$(plain python3 -c "$txt" 2>&1 | paste -sd'|')"
# The same through the preload, which asks the FUSE door: an open for
# writing with and without O_TRUNC, and a truncate by path.
txt="import errno, os, subprocess, time
p = subprocess.Popen(['$mnt/bin/sleeper', '30'])
time.sleep(0.5)
def tried(f):
    try:
        f()
        return 'done'
    except OSError as e:
        return errno.errorcode[e.errno]
print(tried(lambda: os.open('$mnt/bin/sleeper', os.O_WRONLY)))
print(tried(lambda: os.open('$mnt/bin/sleeper', os.O_RDWR | os.O_TRUNC)))
print(tried(lambda: os.truncate('$mnt/bin/sleeper', 0)))
p.kill()
p.wait()
print(os.stat('$mnt/bin/sleeper').st_size == os.stat('/bin/sleep').st_size)"
expect "preloaded writes to a running program: ETXTBSY, file whole" \
    "ETXTBSY|ETXTBSY|ETXTBSY|True" \
    "$(pre python3 -c "$txt" 2>&1 | paste -sd'|')"

pyinc=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
pysuffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
cc -shared -fPIC -I"$pyinc" -o "$site/build/fuse_pyext$pysuffix" "$pyext" ||
    fail "cannot build the Python extension"
plain cp "$site/build/fuse_pyext$pysuffix" "$mnt/py/"
pyrun="import sys; sys.path.insert(0, '$mnt/py'); import fuse_pyext; print(fuse_pyext.answer(), fuse_pyext.__file__.startswith('$mnt'))"
expect "python3 imports a C extension from the mount" "42 True" \
    "$(plain python3 -c "$pyrun" 2>&1)"
expect "python3 imports a C extension from the mount, preloaded" "42 True" \
    "$(pre python3 -c "$pyrun" 2>&1)"

# A static program and a preloaded one, each seeing the other's writes.
bb=/usr/bin/busybox
plain $bb sh -c "echo written by static busybox > $mnt/s.txt"
expect "preloaded cat reads what static busybox wrote" \
    "written by static busybox" "$(pre cat "$mnt/s.txt")"
pre sh -c "echo written preloaded > $mnt/d.txt"
expect "static busybox reads what a preloaded program wrote" \
    "written preloaded" "$(plain $bb cat "$mnt/d.txt")"
pre sh -c "echo WRITTEN PRELOADED > $mnt/d.txt"
expect "same-size overwrite through the preload, busybox reads it" \
    "WRITTEN PRELOADED" "$(plain $bb cat "$mnt/d.txt")"
# busybox holds d.txt open through FUSE (its pages cached) while the
# preload overwrites it in place; busybox then reads on its descriptor.
expect "overwrite seen on a descriptor held open through FUSE" \
    "xyzTTEN PRELOADED" "$(plain $bb sh -c "exec 3< $mnt/d.txt
        $bb head -c 4 <&3 > /dev/null
        env LD_PRELOAD=$lib DANAUS_SERVICE=$service DANAUS_RUNDIR=$site/run \
            sh -c 'printf xyz | dd of=$mnt/d.txt conv=notrunc 2>/dev/null'
        $bb cat $mnt/d.txt")"
plain $bb sh -c "echo appended by busybox >> $mnt/d.txt"
pre sh -c "echo appended preloaded >> $mnt/d.txt"
expect "appends through both doors" \
    "xyzTTEN PRELOADED|appended by busybox|appended preloaded" \
    "$(plain $bb cat "$mnt/d.txt" | paste -sd'|')"
plain $bb rm "$mnt/s.txt"
expect "unlink through FUSE seen by the preload" "gone" \
    "$(pre sh -c "test -e $mnt/s.txt || echo gone")"

# Attributes and listings agree.
pre touch -d '2001-02-03 04:05:06.789' "$mnt/d.txt"
pre chmod 640 "$mnt/d.txt"
fmt='%n %d %i %s %Y %y %a %F'
expect "stat agrees between the doors" \
    "$(pre stat -c "$fmt" "$mnt/d.txt" "$mnt/bin" "$mnt/bin/hello")" \
    "$(plain stat -c "$fmt" "$mnt/d.txt" "$mnt/bin" "$mnt/bin/hello")"
expect "readdir agrees between the doors (names, inodes)" \
    "$(pre ls -ai "$mnt" "$mnt/bin" | sort)" \
    "$(plain ls -ai "$mnt" "$mnt/bin" | sort)"

# A symlink replaced on the host behind the service, under the same inode
# number (ext4 gives a freed number again): once the kernel's entry times
# out (fuse_cache_timeout_ms, 1 s by default) its next lookup brings a new
# node, and the new target, not the one the kernel kept for the old link.
if [ "$backend" = local ]; then
    ln -s first "$site/backing/hl"
    was=$(stat -c %i "$site/backing/hl")
    plain $bb readlink "$mnt/hl" > /dev/null
    rm "$site/backing/hl"
    ln -s second "$site/backing/hl"
    number=other
    [ "$(stat -c %i "$site/backing/hl")" = "$was" ] && number=same
    sleep 1.5
    expect "a symlink replaced on the host ($number inode number): its new target" \
        "second" "$(plain $bb readlink "$mnt/hl" 2>&1)"
fi

# mmap through the preload, then the file through the FUSE door.
if pre "$mmap_test" "$mnt/m.dat"; then ok "mmap through the preload"; else
    fail "mmap through the preload"; fi
expect "MAP_SHARED write seen through the FUSE door" "mapped!" \
    "$(plain dd if="$mnt/m.dat" bs=1 skip=100 count=7 2>/dev/null)"
expect "preload pwrite seen through the FUSE door" "pwrite" \
    "$(plain dd if="$mnt/m.dat" bs=1 skip=200 count=6 2>/dev/null)"

# A write by another user takes the setuid and setgid bits (the kernel asks
# the door for that as a chmod by the writer); a chmod of a file that user
# may not write does not.
plain sh -c "echo x > $mnt/suid && chmod 6777 $mnt/suid &&
             echo x > $mnt/suid-ro && chmod 4755 $mnt/suid-ro"
expect "another user's write takes setuid and setgid" "1 777" \
    "$(echo y | nobody dd of="$mnt/suid" conv=notrunc status=none &&
       echo 1) $(plain stat -c %a "$mnt/suid")"
expect "another user's chmod of a setuid file it may not write" \
    "refused 4755" \
    "$(nobody chmod 755 "$mnt/suid-ro" 2>/dev/null || echo refused) $(plain stat -c %a "$mnt/suid-ro")"

# Stop with a process inside the mount: prompt exit, no mount left.
(cd "$mnt" && exec sleep 60) &
squatter=$!
sleep 0.2
if stop TERM; then ok "SIGTERM with a busy mount: service exits"; else
    fail "SIGTERM with a busy mount: service still running after 10 s"
    kill -KILL "$daemon"
fi
kill "$squatter"
if mounted; then fail "mount left after SIGTERM"; else
    ok "no mount left after SIGTERM"; fi

# Restart, then a crash: the keeper, told to keep nothing, detaches.
start || exit 1
expect "restart serves the same files" "hello|preload no" \
    "$(plain "$mnt/bin/hello" | paste -sd'|')"
stop KILL
tries=0
while mounted && [ $tries -lt 50 ]; do tries=$((tries + 1)); sleep 0.1; done
if mounted; then fail "mount left 5 s after SIGKILL"; else
    ok "keeper detached the mount after SIGKILL"; fi

# A crash of service and keeper together: the next start detaches.
start || exit 1
# The keeper stopped first: dying at once, it could still detach the mount
# (fuse_keep 0) or be replaced by the service (fuse_keeper.h).
keeper=$(pgrep -P "$daemon")
kill -STOP $keeper
kill -KILL "$daemon" $keeper
wait "$daemon" 2>/dev/null
if plain stat "$mnt" > /dev/null 2>&1; then
    fail "no stale mount after killing service and keeper"
else ok "stale mount after killing service and keeper"; fi
start || exit 1
if grep -q 'detached a stale FUSE mount' "$site/danausd.log" && mounted; then
    ok "next start detached the stale mount and mounted"
else fail "next start: $(cat "$site/danausd.log")"; fi
expect "and serves" "hello|preload no" \
    "$(plain "$mnt/bin/hello" | paste -sd'|')"

echo "$failures failures"
[ $failures -eq 0 ]
