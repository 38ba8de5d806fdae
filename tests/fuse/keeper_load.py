#!/usr/bin/env python3
"""keeper_load.py - plain programs on a FUSE mount while its danausd dies
(fuse-keeper.sh). No preload: every call goes through the FUSE door.

  keeper_load.py ops DIR SECONDS
      creates, writes, fsyncs, renames, reads back, lists and unlinks small
      files in DIR (its cwd) for SECONDS; prints "ops N errors E lost L"
      and each error. An fsync that fails with EIO says the write was lost
      (a killed service had it in its cache): the file is dropped and
      counted in L, as a careful program would do before writing again.
  keeper_load.py reader FILE SUM STEP_S
      reads FILE 64 KiB at a time through one descriptor, STEP_S apart,
      and prints "read BYTES sum OK|BAD" against the sha256 SUM.
  keeper_load.py unlinked DIR ROUNDS
      holds DIR/doomed and DIR/kept (1 MiB each) open, unlinks doomed,
      and holds DIR/ro, created read-only (mode 0444) for writing; says
      "ready", then, at each SIGUSR1, prints what reading the first two and
      writing the third gives (OK or the errno name), each time at a
      farther offset (a page the kernel has not cached); ends after
      ROUNDS.
  keeper_load.py kills DIR PIDFILE ROUNDS
      kills the service (SIGKILL, its pid from PIDFILE, waiting until it
      is gone) at one step of writing a file, in turn: after the write
      (every other round), the fsync, the close, the rename, the open for
      reading; the
      keeper starts the next (restart on). An fsync after the kill may
      fail with EIO (the write died with the service), and then the file
      is dropped; anything else must read back whole. Prints "rounds N
      reported R bad B errors E" and each bad or failed round.
"""
import errno
import hashlib
import os
import signal
import sys
import time


def now_ms():
    return int(time.time() * 1000)


def synced(fd, name):
    """fsync(fd); when it says EIO (the write died with a service), drops
    the file (name) as a careful program would: False then."""
    try:
        os.fsync(fd)
        return True
    except OSError as e:
        if e.errno != errno.EIO:
            raise
    os.close(fd)
    os.unlink(name)
    return False


def ops(directory, seconds):
    os.chdir(directory)
    end = time.time() + seconds
    n = errors = lost = 0
    while time.time() < end:
        try:
            name = 'f%d' % (n % 5)
            data = ('%d\n' % n).encode() * 50
            # When each step ended (ms since the epoch), to place a loss
            # among the kills.
            steps = [('begin', now_ms())]
            fd = os.open(name, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
            steps.append(('create', now_ms()))
            os.write(fd, data)
            steps.append(('write', now_ms()))
            if not synced(fd, name):
                lost += 1
                n += 1
                continue
            steps.append(('fsync', now_ms()))
            os.close(fd)
            steps.append(('close', now_ms()))
            os.rename(name, name + '.r')
            steps.append(('rename', now_ms()))
            with open(name + '.r', 'rb') as f:
                steps.append(('open', now_ms()))
                size_before = os.fstat(f.fileno()).st_size
                got = f.read()
                steps.append(('read', now_ms()))
                if got != data:
                    # What came back says which loss it was: nothing (a
                    # lost write or size), or another op's bytes (a stale
                    # page or a mixed-up file); the sizes say whether the
                    # kernel knew the size before reading.
                    raise OSError(errno.EIO, 'read back differs: %d bytes '
                                  'starting %r, wrote %d starting %r; size '
                                  'before the read %d, after %d; steps %s'
                                  % (len(got), got[:12], len(data),
                                     data[:12], size_before,
                                     os.fstat(f.fileno()).st_size,
                                     ' '.join('%s %d' % s for s in steps)))
            if name + '.r' not in os.listdir('.'):
                raise OSError(errno.ENOENT, 'missing from listing')
            os.unlink(name + '.r')
            n += 1
        except OSError as e:
            errors += 1
            # With the wall-clock time (ms), to place it among the kills.
            print('error', n, 'at', int(time.time() * 1000), e, flush=True)
    print('ops', n, 'errors', errors, 'lost', lost, flush=True)


def reader(path, want, step):
    h = hashlib.sha256()
    total = 0
    with open(path, 'rb', buffering=0) as f:
        while True:
            chunk = f.read(65536)
            if not chunk:
                break
            h.update(chunk)
            total += len(chunk)
            time.sleep(step)
    print('read', total, 'sum', 'OK' if h.hexdigest() == want else 'BAD',
          flush=True)


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(') ', 1)[1][0] != 'Z'
    except OSError:
        return False


def kill_service(pidfile, last):
    """SIGKILLs the service running now (not `last`, killed before: the
    pid file names it until the next one starts) and waits until it is
    gone, so that the next call goes to its successor. Its pid."""
    end = time.time() + 30
    while True:
        try:
            with open(pidfile) as f:
                pid = int(f.read())
        except (OSError, ValueError):
            pid = 0
        if pid and pid != last and alive(pid):
            break
        if time.time() > end:
            raise OSError(errno.ETIMEDOUT, 'no service to kill')
        time.sleep(0.001)
    os.kill(pid, signal.SIGKILL)
    while alive(pid):
        time.sleep(0.0005)
    return pid


def kills(directory, pidfile, rounds):
    os.chdir(directory)
    steps = ['write', 'fsync', 'write', 'close', 'write', 'rename', 'write',
             'open']
    last = reported = bad = errors = 0
    for n in range(rounds):
        at = steps[n % len(steps)]
        name = 'k%d' % n
        data = ('%d\n' % n).encode() * 50
        try:
            fd = os.open(name, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
            os.write(fd, data)
            if at == 'write':
                last = kill_service(pidfile, last)
            if not synced(fd, name):
                reported += 1
                continue
            if at == 'fsync':
                last = kill_service(pidfile, last)
            os.close(fd)
            if at == 'close':
                last = kill_service(pidfile, last)
            os.rename(name, name + '.r')
            if at == 'rename':
                last = kill_service(pidfile, last)
            with open(name + '.r', 'rb') as f:
                if at == 'open':
                    last = kill_service(pidfile, last)
                got = f.read()
            if got != data:
                bad += 1
                print('bad', n, 'killed after the', at, 'read', len(got),
                      'bytes of', len(data), flush=True)
            os.unlink(name + '.r')
        except OSError as e:
            errors += 1
            print('error', n, 'killed after the', at, e, flush=True)
    print('rounds', rounds, 'reported', reported, 'bad', bad, 'errors',
          errors, flush=True)


def unlinked(directory, rounds):
    doomed = os.path.join(directory, 'doomed')
    kept = os.path.join(directory, 'kept')
    for p in (doomed, kept):
        with open(p, 'wb') as f:
            f.write(b'x' * (1 << 20))
    fds = [os.open(doomed, os.O_RDONLY), os.open(kept, os.O_RDONLY)]
    ro = os.open(os.path.join(directory, 'ro'),
                 os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o444)
    os.unlink(doomed)
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    print('ready', flush=True)
    for line in range(rounds):
        signal.sigwait([signal.SIGUSR1])
        said = []
        for fd in fds:
            try:
                if len(os.pread(fd, 100, line * 600000)) != 100:
                    raise OSError(errno.EIO, 'short read')
                said.append('OK')
            except OSError as e:
                said.append(errno.errorcode[e.errno])
        try:
            os.pwrite(ro, b'w', line * 4096)
            said.append('OK')
        except OSError as e:
            said.append(errno.errorcode[e.errno])
        print(' '.join(said), flush=True)


if __name__ == '__main__':
    mode = sys.argv[1]
    if mode == 'ops':
        ops(sys.argv[2], float(sys.argv[3]))
    elif mode == 'reader':
        reader(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif mode == 'unlinked':
        unlinked(sys.argv[2], int(sys.argv[3]))
    elif mode == 'kills':
        kills(sys.argv[2], sys.argv[3], int(sys.argv[4]))
