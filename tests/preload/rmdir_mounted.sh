#!/bin/sh
# rmdir_mounted.sh DANAUSD LIBDANAUS: a preloaded rmdir of a Danaus
# directory that something is mounted on fails with EBUSY, as Linux's
# does, in one process that removed other directories before the mount
# came (libfs/kmounts.c keeps the mount table between calls): on a plain
# name and on one whose mount table entry is escaped (a space); once
# unmounted, the directory goes.
set -u
danausd=$(realpath "$1") lib=$(realpath "$2")
. "$(dirname "$0")/../lib.sh"
site=$(mktemp -d /tmp/danaus-rmdirm-XXXXXX) || exit 1
mnt=$site/mnt
mkdir -p "$site/run" "$site/backing"
printf 'service rmdirm-%s\nrundir %s\nfuse on\nfuse_keep 0\nmount %s local %s\n' \
    $$ "$site/run" "$mnt" "$site/backing" > "$site/danausd.conf"
daemon=
cleanup() {
    umount "$mnt/b" "$mnt/with space" 2>/dev/null
    site_remove
}
trap cleanup EXIT
service_start "$site/danausd.log" "$mnt" "$danausd" -c "$site/danausd.conf" ||
    exit 1
mkdir "$site/backing/a" "$site/backing/b" "$site/backing/with space" \
    "$site/backing/c"

out=$(timeout 30 env LD_PRELOAD="$lib" DANAUS_SERVICE="rmdirm-$$" \
    DANAUS_RUNDIR="$site/run" python3 - "$mnt" <<'PY'
import errno, os, subprocess, sys
m = sys.argv[1]
def rmdir(name):
    try:
        os.rmdir(os.path.join(m, name))
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]
def mount(name):
    subprocess.run(["mount", "-t", "tmpfs", "none", os.path.join(m, name)],
                   check=True)
def umount(name):
    subprocess.run(["umount", os.path.join(m, name)], check=True)
answers = [rmdir("a")]
mount("b")
mount("with space")
answers += [rmdir("b"), rmdir("with space"), rmdir("c")]
umount("b")
umount("with space")
answers += [rmdir("b"), rmdir("with space")]
print(" ".join(answers))
PY
)
expect "rmdir before a mount, of mounted on (plain, escaped), of another;" \
    "ok EBUSY EBUSY ok ok ok" "$out"
expect "after the unmounts, both are gone from the backend" "" \
    "$(ls -A "$site/backing")"
[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
