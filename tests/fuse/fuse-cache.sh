#!/bin/sh
# fuse-cache.sh - the FUSE door's caches stay coherent (issue 36): the
# kernel keeps names, missing names, attributes and pages of a FUSE mount
# (fuse_cache_timeout_ms, here 60 s, so that only the service's
# invalidations can make a change visible) and symlinks' targets, and
# each change made through the preload door is seen at once, without
# waiting, by static busybox through FUSE, which has cached what the
# change makes stale; and each change made through FUSE is seen by the
# preload.
#
#   fuse-cache.sh DANAUSD LIBDANAUS LINKS
#
# LINKS is fuse_links.c, rounds of changes through one hard link read at
# once through another.
#
# FUSE_DOOR_CONF, if set, is one more line of the service's configuration
# (the ctest fuse_cache_uring_local: fuse_io_uring on).
#
# Local backend. Prints "ok"/"FAIL" per check; exit 0 when all passed.
set -u

if [ $# -ne 3 ]; then
    echo "usage: fuse-cache.sh DANAUSD LIBDANAUS LINKS" >&2
    exit 2
fi
danausd=$(realpath "$1") lib=$(realpath "$2") links=$(realpath "$3")

site=$(mktemp -d /tmp/danaus-fcache-XXXXXX) || exit 1
mnt=$site/mnt
service="fcache-$$"
mkdir "$site/run" "$site/backing" || exit 1
chmod 755 "$site" # nobody's busybox below walks to the mount
cat > "$site/danausd.conf" <<CONF
service $service
rundir $site/run
fuse_keep 0
fuse_allow_other on
fuse_cache_timeout_ms 60000
${FUSE_DOOR_CONF:-}
mount $mnt local $site/backing
CONF

bb=/usr/bin/busybox
# Static busybox through FUSE, and a preloaded program, each bounded.
plain() { timeout 30 env -u LD_PRELOAD -u DANAUS_SERVICE -u DANAUS_RUNDIR "$bb" "$@"; }
pre() {
    timeout 30 env LD_PRELOAD="$lib" DANAUS_SERVICE="$service" \
        DANAUS_RUNDIR="$site/run" "$@"
}

. "$(dirname "$0")/../lib.sh"
daemon=
trap site_remove EXIT
uring_allow
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1
uring_check "$site/danausd.log"

# Each check makes its own files, has busybox read them (the kernel then
# caches the name, or its absence, the attributes and the pages), changes
# them and reads again at once.
prime() { for f; do plain cat "$f" > /dev/null 2>&1; plain stat "$f" > /dev/null 2>&1; done; }
made() { for f; do pre sh -c "echo 0123456789 > $f"; done; }

prime "$mnt/new"
pre sh -c "echo made > $mnt/new"
expect "preload create: a missing name busybox looked up is found" "made" \
    "$(plain cat "$mnt/new" 2>&1)"
prime "$mnt/d"
pre mkdir "$mnt/d"
expect "preload mkdir: seen by busybox" "dir" \
    "$(plain sh -c "test -d $mnt/d && echo dir" 2>&1)"
made "$mnt/r1"
prime "$mnt/r1" "$mnt/d/r2"
pre mv "$mnt/r1" "$mnt/d/r2"
expect "preload rename: old name gone, new name found by busybox" \
    "gone|0123456789" \
    "$(plain sh -c "test -e $mnt/r1 || echo gone; cat $mnt/d/r2" 2>&1 |
       paste -sd'|')"
made "$mnt/u"
prime "$mnt/u"
pre rm "$mnt/u"
expect "preload unlink: gone for busybox" "gone" \
    "$(plain sh -c "test -e $mnt/u || echo gone" 2>&1)"
prime "$mnt/sym"
pre ln -s target "$mnt/sym"
expect "preload symlink: busybox reads it" "target" \
    "$(plain readlink "$mnt/sym" 2>&1)"
# The kernel keeps a link's target (FUSE_CAP_CACHE_SYMLINKS): read again
# with the service stopped, it answers alone. A link replaced through
# either door is read anew at once.
kill -STOP "$daemon"
expect "a symlink read before: read again while the service is stopped" \
    "target" "$(timeout 5 env -u LD_PRELOAD "$bb" readlink "$mnt/sym" 2>&1)"
kill -CONT "$daemon"
pre ln -sfn retarget "$mnt/sym"
expect "preload ln -sf over a link busybox read: busybox reads the new one" \
    "retarget" "$(plain readlink "$mnt/sym" 2>&1)"
plain ln -sfn third "$mnt/sym"
expect "FUSE ln -sf over it: busybox and the preload read the new one" \
    "third|third" \
    "$({ plain readlink "$mnt/sym"; pre readlink "$mnt/sym"; } 2>&1 | paste -sd'|')"

made "$mnt/a1" "$mnt/a2" "$mnt/a3" "$mnt/a4" "$mnt/a5"
prime "$mnt/a1" "$mnt/a2" "$mnt/a3" "$mnt/a4" "$mnt/a5"
pre chmod 600 "$mnt/a1"
expect "preload chmod: busybox stat sees the mode" "600" \
    "$(plain stat -c %a "$mnt/a1" 2>&1)"
TZ=UTC0 pre touch -d '2001-02-03 04:05:06' "$mnt/a2"
expect "preload utimens: busybox stat sees the mtime" "981173106" \
    "$(plain stat -c %Y "$mnt/a2" 2>&1)"
pre sh -c "printf abc | dd of=$mnt/a3 conv=notrunc 2>/dev/null"
expect "preload same-size write: busybox reads the new bytes" "abc3456789" \
    "$(plain cat "$mnt/a3" 2>&1)"
pre sh -c "echo more >> $mnt/a4"
expect "preload append: busybox reads the longer file" "0123456789|more" \
    "$(plain cat "$mnt/a4" 2>&1 | paste -sd'|')"
pre truncate -s 3 "$mnt/a5"
expect "preload truncate: busybox reads 3 bytes" "012" \
    "$(plain cat "$mnt/a5" 2>&1)"

# The kernel decides some things from the attributes it holds without
# asking again, such as who owns a file in a sticky directory: a change
# of owner through the preload reaches them too.
pre sh -c "mkdir $mnt/sticky && chmod 1777 $mnt/sticky && echo x > $mnt/sticky/f"
prime "$mnt/sticky/f"
pre chown 65534:65534 "$mnt/sticky/f"
expect "preload chown: the new owner renames it out of a sticky directory" \
    "moved" "$(nobody "$bb" sh -c "$bb mv $mnt/sticky/f $mnt/sticky/g && echo moved" 2>&1)"

# Attributes the kernel took from a listing (readdirplus), of names it
# never looked up on its own.
pre mkdir "$mnt/listed"
made "$mnt/listed/l1" "$mnt/listed/l2"
plain ls -l "$mnt/listed" > /dev/null
pre chmod 600 "$mnt/listed/l1"
pre truncate -s 3 "$mnt/listed/l2"
expect "preload chmod, truncate of listed names: busybox stat sees them" \
    "600 11|644 3" \
    "$(plain stat -c '%a %s' "$mnt/listed/l1" "$mnt/listed/l2" 2>&1 |
       paste -sd'|')"

# A file of two names, the second made by the host (no call of the
# service's told of it), the first cached by the kernel: a change through
# the second name reaches the first's attributes. Before any link is made
# through a door below.
echo q > "$site/backing/q1"
ln "$site/backing/q1" "$site/backing/q2"
prime "$mnt/q1"
pre chmod 604 "$mnt/q2"
expect "preload chmod through a name the kernel never saw: the other sees it" \
    "604" "$(plain stat -c %a "$mnt/q1" 2>&1)"

# Listings: the kernel opens directories without asking the door and
# keeps what it listed, checking it only against the directory's mtime
# (fuse_dirs.h). A name made, removed or renamed through the preload is
# in busybox's next listing; then again with the directory's mtime put
# back as it was, which only the door's dropping of the listing shows.
lsd() { plain ls "$1" 2>&1 | paste -sd' '; }
pre sh -c "mkdir $mnt/dir1 && echo x > $mnt/dir1/one && echo x > $mnt/dir1/two"
lsd "$mnt/dir1" > /dev/null
pre sh -c "echo x > $mnt/dir1/three"
expect "preload create: in busybox's next listing" "one three two" \
    "$(lsd "$mnt/dir1")"
pre rm "$mnt/dir1/one"
pre mv "$mnt/dir1/two" "$mnt/dir1/four"
expect "preload unlink, rename: in busybox's next listing" "four three" \
    "$(lsd "$mnt/dir1")"
pre sh -c "mkdir $mnt/dir2 && echo x > $mnt/dir2/one"
lsd "$mnt/dir2" > /dev/null
then=$(plain stat -c %y "$mnt/dir2")
pre sh -c "echo x > $mnt/dir2/two && touch -d '$then' $mnt/dir2"
expect "preload create, the mtime put back: the mtime is the old one" \
    "$then" "$(plain stat -c %y "$mnt/dir2" 2>&1)"
expect "preload create, the mtime put back: in busybox's next listing" \
    "one two" "$(lsd "$mnt/dir2")"
plain sh -c "echo x > $mnt/dir2/three; rm $mnt/dir2/one"
expect "FUSE create, unlink: in busybox's next listing" "three two" \
    "$(lsd "$mnt/dir2")"

# The kernel checks a directory's open, which the door no longer sees:
# a descriptor opened by root and read after the process became nobody
# lists the names, as on any file system.
plain mkdir -m 700 "$mnt/private"
plain touch "$mnt/private/secret"
expect "directory opened by root, read as nobody: its names" "secret" \
    "$(timeout 30 env -u LD_PRELOAD python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
os.setgid(65534)
os.setuid(65534)
print(" ".join(sorted(os.listdir(fd))))' "$mnt/private" 2>&1)"

# A directory open in a process and removed there: its attributes and
# its listing, empty, stay readable, as on any file system.
plain mkdir "$mnt/doomed"
expect "directory removed while open: fstat, then an empty listing" \
    "0 []" \
    "$(timeout 30 env -u LD_PRELOAD python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
os.rmdir(sys.argv[1])
print(os.fstat(fd).st_nlink, os.listdir(fd))' "$mnt/doomed" 2>&1)"

# Hard links are separate nodes: a change through one name reaches the
# other's cached attributes.
made "$mnt/h1" "$mnt/k1" "$mnt/m1"
plain ln "$mnt/k1" "$mnt/k2"
plain ln "$mnt/m1" "$mnt/m2"
prime "$mnt/h1" "$mnt/k1" "$mnt/m1"
plain ln "$mnt/h1" "$mnt/h2"
expect "FUSE link: the first name's link count" "2" \
    "$(plain stat -c %h "$mnt/h1" 2>&1)"
plain chmod 600 "$mnt/k2"
expect "FUSE chmod through one name: seen through the other" "600" \
    "$(plain stat -c %a "$mnt/k1" 2>&1)"
pre rm "$mnt/m2"
expect "preload unlink of a link: the other name's link count" "1" \
    "$(plain stat -c %h "$mnt/m1" 2>&1)"
# The same through FUSE alone, the next call at once after each change:
# the other names are told before the change's reply.
plain mkdir "$mnt/links"
expect "FUSE link, chmod, unlink: every name agrees at once, 300 rounds" \
    "0 disagreements in 300 rounds" \
    "$(timeout 60 env -u LD_PRELOAD "$links" "$mnt/links" 300 | tail -1)"

# The other way: busybox changes through FUSE, the preload sees.
plain sh -c "echo by busybox > $mnt/g; mv $mnt/g $mnt/h; chmod 604 $mnt/h"
expect "FUSE create, rename, chmod: seen by the preload" \
    "gone|604|by busybox" \
    "$(pre sh -c "test -e $mnt/g || echo gone; stat -c %a $mnt/h; cat $mnt/h" |
       paste -sd'|')"
plain rm "$mnt/h"
expect "FUSE unlink: gone for the preload" "gone" \
    "$(pre sh -c "test -e $mnt/h || echo gone")"

echo "$failures failures"
[ $failures -eq 0 ]
