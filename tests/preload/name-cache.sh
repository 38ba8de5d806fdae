#!/bin/bash
# name-cache.sh - the preload's name and attribute cache stays coherent
# (libfs/namecache.h): a long-lived preloaded process (namecache_probe)
# stats names, which it then holds in its cache, and each change another
# process makes (preloaded, or a plain program through the FUSE door) is
# seen by its next stat, at once; in a union (a container's root) a write
# through a descriptor drops the answers of that file alone.
# fuse_cache_timeout_ms is 60 s, so only
# the service's announcements can make a change visible. Also: a cached
# answer is served while the service is stopped (the cache is used at
# all), a directory's search permission taken away is seen below it, and
# a process that changes its uid does not keep the answers of the old one;
# an fstat is kept and dropped as a stat is; a listing's attributes
# (readdirplus) are kept and dropped as a stat's, and a process that walks
# a tree as find does gets its directories' with its listings.
#
#   name-cache.sh DANAUSD LIBDANAUS PROBE
#
# Local backend, run as root. Prints "ok"/"FAIL" per check; exit 0 when
# all passed.
set -u

if [ $# -ne 3 ]; then
    echo "usage: name-cache.sh DANAUSD LIBDANAUS PROBE" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") probe=$(realpath "$3")

site=$(mktemp -d /tmp/danaus-ncache-XXXXXX) || exit 1
chmod 755 "$site"
mnt=$site/mnt
umnt=$site/umnt
service="ncache-$$"
mkdir "$site/run" "$site/backing" "$site/up" "$site/low" || exit 1
chmod 755 "$site/backing" "$site/up" "$site/low"
cat > "$site/danausd.conf" <<CONF
service $service
owner 1000:1000
rundir $site/run
fuse_keep 0
fuse_cache_timeout_ms 60000
mount $mnt local $site/backing
union $umnt local $site/up $site/low
CONF

pre() {
    timeout 30 env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}
# A plain program: through the FUSE door.
plain() { timeout 30 env -u LD_PRELOAD -u DANAUS_SERVICE -u DANAUS_RUNDIR "$@"; }

. "$(dirname "$0")/../lib.sh"
daemon=
cleanup() {
    [ -n "${USER_PID:-}" ] && kill "$USER_PID" 2>/dev/null
    [ -n "${ROOT_PID:-}" ] && kill "$ROOT_PID" 2>/dev/null
    [ -n "$daemon" ] && kill -CONT "$daemon" 2>/dev/null
    service_stop
    grep -q " $umnt fuse" /proc/mounts && umount -l "$umnt"
    site_remove
}
trap cleanup EXIT
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1

# Two observers, each fed through fifos: one as uid 1000 (search
# permission applies to it), one as root (which may change its uid).
# observe NAME COMMAND...: starts one; sets NAME_IN, NAME_OUT, NAME_PID.
observe() {
    local name=$1
    shift
    mkfifo "$site/$name.in" "$site/$name.out"
    "$@" < "$site/$name.in" > "$site/$name.out" &
    eval "${name}_PID=$!"
    exec {in}> "$site/$name.in"
    exec {out}< "$site/$name.out"
    eval "${name}_IN=$in ${name}_OUT=$out"
}
observe USER pre setpriv --reuid=1000 --regid=1000 --clear-groups "$probe"
observe ROOT pre "$probe"
# ask user|root COMMAND...: the observer's answer line.
ask() {
    local in out line
    if [ "$1" = user ]; then in=$USER_IN out=$USER_OUT; else
        in=$ROOT_IN out=$ROOT_OUT; fi
    shift
    echo "$*" >&"$in"
    read -r -t 20 line <&"$out" || line="(no answer)"
    echo "$line"
}
field() { echo "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2; }
# stopped user|root COMMAND...: the observer's answer while the service is
# stopped (so from its caches); with none, its late answer is read after
# the service goes on, so the next question gets its own.
stopped() {
    local answer late out=$USER_OUT
    [ "$1" = root ] && out=$ROOT_OUT
    kill -STOP "$daemon"
    answer=$(ask "$@")
    kill -CONT "$daemon"
    [ "$answer" = "(no answer)" ] && read -r -t 20 late <&"$out"
    echo "$answer"
}

t=$mnt/t
pre mkdir -m 777 "$t"

# rename: the old name goes, the new one comes.
pre sh -c "echo x > $t/a"
ask user stat "$t/a" > /dev/null
ask user stat "$t/b" > /dev/null
pre mv "$t/a" "$t/b"
expect "rename: old name gone at once" "errno=ENOENT" "$(ask user stat "$t/a")"
expect "rename: new name found at once" "2" \
    "$(field "$(ask user stat "$t/b")" size)"

# unlink.
pre rm "$t/b"
expect "unlink: gone at once" "errno=ENOENT" "$(ask user stat "$t/b")"

# create after a negative lookup.
ask user stat "$t/n" > /dev/null
pre sh -c "echo made > $t/n"
expect "create after a negative lookup: found at once" "5" \
    "$(field "$(ask user stat "$t/n")" size)"

# A write through an open descriptor changes size and mtime.
pre sh -c "printf 1 > $t/w"
touch -d @1000000000 "$site/backing/t/w"
before=$(ask user stat "$t/w")
pre sh -c "printf 23456789 >> $t/w"
after=$(ask user stat "$t/w")
expect "write: size seen at once" "9" "$(field "$after" size)"
[ "$(field "$before" mtime)" != "$(field "$after" mtime)" ] &&
    ok "write: mtime seen at once" || fail "write: mtime unchanged: $after"

# chmod of a file, by path and through a descriptor.
ask user stat "$t/n" > /dev/null
pre chmod 600 "$t/n"
expect "chmod: mode seen at once" "600" "$(field "$(ask user stat "$t/n")" mode)"
pre python3 -c "import os; fd = os.open('$t/n', os.O_RDONLY); os.fchmod(fd, 0o640)"
expect "fchmod: mode seen at once" "640" "$(field "$(ask user stat "$t/n")" mode)"

# A directory's search permission taken away hides what is below it.
pre mkdir -m 755 "$t/d"
pre sh -c "echo g > $t/d/g"
expect "search permission: file found" "2" \
    "$(field "$(ask user stat "$t/d/g")" size)"
pre chmod 700 "$t/d"
expect "search permission removed from the parent: EACCES at once" \
    "errno=EACCES" "$(ask user stat "$t/d/g")"

# Changes made through the FUSE door by a plain program.
pre sh -c "echo h > $t/h"
ask user stat "$t/h" > /dev/null
ask user stat "$t/h2" > /dev/null
plain mv "$t/h" "$t/h2"
expect "FUSE rename: old name gone at once" "errno=ENOENT" \
    "$(ask user stat "$t/h")"
expect "FUSE rename: new name found at once" "2" \
    "$(field "$(ask user stat "$t/h2")" size)"
plain chmod 604 "$t/h2"
expect "FUSE chmod: mode seen at once" "604" \
    "$(field "$(ask user stat "$t/h2")" mode)"
plain sh -c "echo longer >> $t/h2"
expect "FUSE write: size seen at once" "9" \
    "$(field "$(ask user stat "$t/h2")" size)"

# The cache is used: a name seen a moment ago is answered while the
# service is stopped.
pre sh -c "echo s > $t/s"
ask user stat "$t/s" > /dev/null
answer=$(stopped user stat "$t/s")
expect "a cached name is answered without the service" "2" \
    "$(field "$answer" size)"

# A listing brings its names' attributes: a name listed, never stat'ed,
# is answered while the service is stopped, and each change to a listed
# name is seen by the next stat all the same.
pre mkdir "$t/l"
pre sh -c "echo 1 > $t/l/a; echo 22 > $t/l/b; echo 333 > $t/l/c; ln -s a $t/l/s"
expect "list" "entries=6" "$(ask user list "$t/l")"
answer=$(stopped user lstat "$t/l/b")
expect "a listed name is answered without the service" "3" \
    "$(field "$answer" size)"
pre chmod 600 "$t/l/a"
expect "listed, then chmod by another process: seen at once" "600" \
    "$(field "$(ask user lstat "$t/l/a")" mode)"
plain sh -c "echo more >> $t/l/c"
expect "listed, then a FUSE-door append: seen at once" "9" \
    "$(field "$(ask user stat "$t/l/c")" size)"
pre rm "$t/l/b"
expect "listed, then removed: gone at once" "errno=ENOENT" \
    "$(ask user lstat "$t/l/b")"
expect "a listed symlink is followed by stat" "600" \
    "$(field "$(ask user stat "$t/l/s")" mode)"

# A process that, as find does, looks up the directories it lists and
# nothing else has its listings bring directories' attributes (once it
# has listed enough names to tell): a listed directory, never stat'ed, is
# answered while the service is stopped.
pre sh -c "for i in \$(seq 30); do mkdir -p $t/walk/d\$i/sub;
    for j in \$(seq 12); do : > $t/walk/d\$i/f\$j; done; done"
expect "walk" "dirs=60" "$(ask user walk "$t/walk")"
pre mkdir -p "$t/walk2/x"
pre touch "$t/walk2/y"
expect "list after the walk" "entries=4" "$(ask user list "$t/walk2")"
answer=$(stopped user lstat "$t/walk2/x")
expect "a listed directory is answered without the service" "755" \
    "$(field "$answer" mode)"

# A process that changes its uid does not keep the answers of the old
# one: root's cached answer below a 0700 directory is refused to uid 1000.
expect "root sees below a 0700 directory" "2" \
    "$(field "$(ask root stat "$t/d/g")" size)"
expect "seteuid 1000" "ok" "$(ask root seteuid 1000)"
expect "after seteuid 1000: EACCES" "errno=EACCES" "$(ask root stat "$t/d/g")"
expect "seteuid 0" "ok" "$(ask root seteuid 0)"
expect "back to root: found again" "2" \
    "$(field "$(ask root stat "$t/d/g")" size)"

# The read cache through a descriptor open for reading and writing: a
# 4 KiB pread is answered from the cache (while the service is stopped),
# and the process's own write, another process's and one through the
# FUSE door are each seen by its next pread.
pre sh -c "head -c 8192 /dev/zero | tr '\\0' a > $t/r"
expect "open O_RDWR" "ok" "$(ask root open "$t/r")"
expect "pread" "aaaaaaaa" "$(ask root pread 0)"
ask root pread 0 > /dev/null
answer=$(stopped root pread 0)
expect "an O_RDWR pread is answered from the read cache" "aaaaaaaa" "$answer"
expect "own pwrite" "ok" "$(ask root pwrite 0 bbbb)"
expect "own write seen by the next pread" "bbbbaaaa" "$(ask root pread 0)"
ask root pread 0 > /dev/null
pre sh -c "printf cccc | dd of=$t/r conv=notrunc status=none"
expect "another process's write seen at once" "ccccaaaa" "$(ask root pread 0)"
ask root pread 0 > /dev/null
plain sh -c "printf dddd | dd of=$t/r conv=notrunc status=none"
expect "a FUSE-door write seen at once" "ddddaaaa" "$(ask root pread 0)"

# fstat of that descriptor: answered from the cache (while the service is
# stopped), and each change of its file seen by the next fstat: its own
# write, another process's, one through the FUSE door, a chmod by path.
expect "fstat" "8192" "$(field "$(ask root fstat -)" size)"
answer=$(stopped root fstat -)
expect "an fstat is answered from the cache" "8192" "$(field "$answer" size)"
expect "own pwrite past the end" "ok" "$(ask root pwrite 8192 e)"
expect "own write: size seen by the next fstat" "8193" \
    "$(field "$(ask root fstat -)" size)"
pre sh -c "printf ff >> $t/r"
expect "another process's append: size seen by the next fstat" "8195" \
    "$(field "$(ask root fstat -)" size)"
plain sh -c "printf gg >> $t/r"
expect "a FUSE-door append: size seen by the next fstat" "8197" \
    "$(field "$(ask root fstat -)" size)"
pre chmod 604 "$t/r"
expect "chmod by path: mode seen by the next fstat" "604" \
    "$(field "$(ask root fstat -)" mode)"
plain chmod 606 "$t/r"
expect "FUSE chmod: mode seen by the next fstat" "606" \
    "$(field "$(ask root fstat -)" mode)"

# An open for reading answers with the file's attributes: the first fstat
# needs no call, and a change after the open is seen by it all the same.
pre sh -c "echo 12345 > $t/o"
expect "open O_RDONLY" "ok" "$(ask root openr "$t/o")"
answer=$(stopped root fstat -)
expect "the fstat after an open is answered with the open's attributes" \
    "6" "$(field "$answer" size)"
expect "open O_RDONLY again" "ok" "$(ask root openr "$t/o")"
pre sh -c "echo 678 >> $t/o"
expect "a change after the open: seen by the first fstat" "10" \
    "$(field "$(ask root fstat -)" size)"

# A child's own open may take a handle its parent had for another file
# before the fork: the parent's fstat of that one is not the child's.
pre sh -c "echo aaaa > $t/fa; echo bbbbbbbbbb > $t/fb"
expect "a forked child's fstat is of its own file" "11" "$(pre python3 -c "
import os
fd = os.open('$t/fa', os.O_RDONLY); os.fstat(fd); os.close(fd)
pid = os.fork()
if pid == 0:
    print(os.fstat(os.open('$t/fb', os.O_RDONLY)).st_size, flush=True)
    os._exit(0)
os.waitpid(pid, 0)")"

# In a union, a write through a descriptor is announced under the number
# stat reports for the file, as on a plain mount: another file's cached
# answer stays, the written file's goes.
u=$umnt
pre sh -c "echo a > $u/ua; echo b > $u/ub"
expect "union: open O_RDWR" "ok" "$(ask root open "$u/ub")"
ask user stat "$u/ua" > /dev/null
ask user stat "$u/ub" > /dev/null
expect "union: pwrite" "ok" "$(ask root pwrite 0 xyz)"
answer=$(stopped user stat "$u/ua")
expect "union: another file's cached answer stays after a write" "2" \
    "$(field "$answer" size)"
expect "union: the written file's size seen at once" "3" \
    "$(field "$(ask user stat "$u/ub")" size)"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
