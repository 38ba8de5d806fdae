#!/bin/bash
# passed_files.sh - a read-only branch's file opened for reading through
# the preload comes back as itself (wire.h danaus_pass): the program's
# descriptor is the kernel's, on a read-only mount. What a program relies
# on must hold as through the service: the bytes, offsets shared by dup,
# fork and exec, positioned reads, maps, fstat's numbers, and the old
# contents after a copy-up elsewhere. A file of the writable branch is
# never passed (its data may change under the descriptor).
#
#   passed_files.sh DANAUSD LIBDANAUS
set -u
if [ $# -ne 2 ]; then
    echo "usage: passed_files.sh DANAUSD LIBDANAUS" >&2
    exit 2
fi
danausd=$(realpath "$1")
lib=$(realpath "$2")
site=$(mktemp -d /tmp/danaus-passed-XXXXXX) || exit 1
mnt=$site/mnt
mkdir "$site/run" "$site/up" "$site/low" "$mnt"
printf '%s\n' "service passed-$$" "rundir $site/run" "fuse off" \
    "union $mnt local $site/up $site/low" > "$site/danausd.conf"
# Larger than the smallest file a service passes (calls_fd.c).
seq 1 40000 > "$site/low/image-file"
seq 1 40000 > "$site/up/own-file"

. "$(dirname "$0")/../lib.sh"
daemon=
trap site_remove EXIT
service_start "$site/danausd.log" "" "$danausd" -c "$site/danausd.conf" ||
    exit 1
preloaded() {
    DANAUS_SERVICE=passed-$$ DANAUS_RUNDIR=$site/run LD_PRELOAD=$lib "$@"
}

cat > "$site/probe.py" <<'PY'
import mmap, os, sys
mnt, host = sys.argv[1], sys.argv[2]
def say(*a): print(*a, flush=True)
def kernel_sees(fd): return os.readlink("/proc/self/fd/%d" % fd)
want = open(host + "/low/image-file", "rb").read()

fd = os.open(mnt + "/image-file", os.O_RDONLY)
say("passed", kernel_sees(fd) != "/dev/null")
own = os.open(mnt + "/own-file", os.O_RDONLY)
say("own file through the service", kernel_sees(own) == "/dev/null")
os.close(own)
got = b""
while True:
    b = os.read(fd, 10240)
    if not b: break
    got += b
say("bytes", got == want)
say("pread", os.pread(fd, 7, 100) == want[100:107], os.lseek(fd, 0, os.SEEK_CUR) == len(want))
os.lseek(fd, 50, os.SEEK_SET)
d = os.dup(fd)
os.read(d, 10)
say("dup shares the offset", os.lseek(fd, 0, os.SEEK_CUR) == 60)
st, pst = os.fstat(fd), os.stat(mnt + "/image-file")
say("fstat", (st.st_ino, st.st_dev, st.st_size) == (pst.st_ino, pst.st_dev, len(want)))
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
say("map", m[:4096] == want[:4096]); m.close()
pid = os.fork()
if pid == 0:
    os._exit(0 if os.read(fd, 5) == want[60:65] else 1)
_, status = os.waitpid(pid, 0)
say("fork shares the offset", status == 0 and os.lseek(fd, 0, os.SEEK_CUR) == 65)
# A copy-up by another open leaves this descriptor on the image's file.
w = os.open(mnt + "/image-file", os.O_WRONLY | os.O_TRUNC)
os.write(w, b"changed\n"); os.close(w)
say("copy-up leaves it", os.pread(fd, 4, 0) == want[:4],
    open(mnt + "/image-file", "rb").read() == b"changed\n")
# Across exec, the new image knows the descriptor as Danaus's (fstat
# answers for the mount) and reads on from the same offset.
os.set_inheritable(fd, True)
os.lseek(fd, 1000, os.SEEK_SET)
rd, wr = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(wr, 1)
    os.execv(sys.executable, [sys.executable, "-c",
             "import os; print(os.fstat(%d).st_dev, os.read(%d, 8).hex())" % (fd, fd)])
os.close(wr)
r = b"".join(iter(lambda: os.read(rd, 4096), b"")).decode().split()
os.waitpid(pid, 0)
say("exec shares the offset", r == [str(pst.st_dev), want[1000:1008].hex()],
    os.lseek(fd, 0, os.SEEK_CUR) == 1008)
PY
out=$(preloaded timeout 60 python3 "$site/probe.py" "$mnt" "$site" 2>&1)
for check in "passed True" "own file through the service True" "bytes True" \
             "pread True True" "dup shares the offset True" "fstat True" \
             "map True" "fork shares the offset True" \
             "copy-up leaves it True True" "exec shares the offset True True"; do
    expect "${check%% True*}" "$check" \
        "$(grep -x -- "${check%% True*} [TF].*" <<<"$out" || echo "$out" | tail -3)"
done

echo "$failures failures"
[ $failures -eq 0 ]
