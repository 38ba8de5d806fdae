/*
 * lock.c - record locks on Danaus descriptors: fcntl's F_GETLK,
 * F_SETLK, F_SETLKW and their F_OFD_ twins (through danaus_fcntl), flock
 * and lockf. The locks live in the service (LOCK in wire.h), shared by all
 * its clients; this file turns a struct flock into an absolute range and
 * does the waiting.
 *
 * Waiting: the service never holds a thread for a lock. A request that
 * conflicts answers EAGAIN, and a waiting caller (F_SETLKW, flock without
 * LOCK_NB, lockf F_LOCK) asks again after a pause that doubles up to
 * WAIT_MAX_NS. The pause is a read of a timerfd, because that read, like
 * the kernel's own lock wait, is restarted after a signal handler installed
 * with SA_RESTART and fails with EINTR after any other; a futex or
 * nanosleep with a timeout would fail with EINTR either way. What is lost
 * against the kernel: waiters are not served in order, and a release is
 * seen up to WAIT_MAX_NS late.
 */
#include "libfs/call.h"
#include "libfs/export.h"
#include "libfs/heldlocks.h"
#include "libfs/lock.h"
#include "libfs/sys.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define WAIT_MIN_NS 200000LL   /* first pause: 0.2 ms */
#define WAIT_MAX_NS 20000000LL /* longest pause: 20 ms */

struct lock_args {
    int cmd;  /* DANAUS_LOCK_SET, DANAUS_LOCK_TEST */
    int kind; /* DANAUS_LOCK_POSIX, _OFD, _FLOCK */
    int type; /* F_RDLCK, F_WRLCK, F_UNLCK */
    int64_t start, len;
    bool wait;
};

/* One LOCK request; a TEST's answer goes to *out. 0 or -1 with errno. */
static int lock_once(int fd, const struct lock_args *a, struct danaus_lock *out)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_LOCK, fd, false) < 0)
        return -1;
    c.desc.arg[0] = a->cmd;
    c.desc.arg[1] = a->type;
    c.desc.arg[2] = a->start;
    c.desc.arg[3] = a->len;
    c.desc.arg[4] = a->kind;
    c.desc.arg[5] = a->wait;
    if (call_send(&c) < 0)
        return -1;
    if (out)
        memcpy(out, call_out(&c), sizeof *out);
    return 0;
}

/* Sleeps ns on timer (see the top of the file). 0, or -1 with EINTR. */
static int pause_on(int timer, int64_t ns)
{
    struct itimerspec it = {.it_value = {ns / 1000000000, ns % 1000000000}};
    if (syscall(SYS_timerfd_settime, timer, 0, &it, NULL) < 0)
        return -1;
    uint64_t expirations;
    return sys_read(timer, &expirations, sizeof expirations) < 0 ? -1 : 0;
}

/* Sets a lock, retrying while it conflicts if a->wait says so; the process
 * keeps a copy of what it was granted (heldlocks.h). */
static int lock_set(int fd, const struct lock_args *a)
{
    int rc = lock_once(fd, a, NULL);
    if (rc == 0)
        heldlocks_note(fd, a->kind, a->type, a->start, a->len);
    if (rc == 0 || errno != EAGAIN || !a->wait)
        return rc;
    int timer = (int)syscall(SYS_timerfd_create, CLOCK_MONOTONIC,
                             TFD_CLOEXEC);
    if (timer < 0)
        return -1;
    int64_t ns = WAIT_MIN_NS;
    do {
        rc = pause_on(timer, ns);
        if (rc == 0)
            rc = lock_once(fd, a, NULL);
        ns = ns * 2 < WAIT_MAX_NS ? ns * 2 : WAIT_MAX_NS;
    } while (rc < 0 && errno == EAGAIN);
    if (rc == 0)
        heldlocks_note(fd, a->kind, a->type, a->start, a->len);
    int saved = errno;
    sys_close(timer);
    errno = saved;
    return rc;
}

/* The absolute range of fl on fd, checked as Linux checks it: start and
 * length end up non-negative, len 0 meaning to the end of the file. */
static int flock_range(int fd, const struct flock *fl, struct lock_args *a)
{
    int64_t base;
    struct stat st;
    switch (fl->l_whence) {
    case SEEK_SET:
        base = 0;
        break;
    case SEEK_CUR:
        base = danaus_lseek(fd, 0, SEEK_CUR);
        if (base < 0)
            return -1;
        break;
    case SEEK_END:
        if (danaus_fstat(fd, &st) < 0)
            return -1;
        base = st.st_size;
        break;
    default:
        errno = EINVAL;
        return -1;
    }
    if (fl->l_start > INT64_MAX - base) {
        errno = EOVERFLOW;
        return -1;
    }
    int64_t start = base + fl->l_start;
    if (start < 0 || (fl->l_len < 0 && start + fl->l_len < 0)) {
        errno = EINVAL;
        return -1;
    }
    /* A negative length locks the bytes before start. */
    a->start = fl->l_len < 0 ? start + fl->l_len : start;
    a->len = fl->l_len < 0 ? -fl->l_len : fl->l_len;
    return 0;
}

int lock_restore(int fd, int kind, int type, int64_t start, int64_t len)
{
    struct lock_args a = {.cmd = DANAUS_LOCK_SET, .kind = kind, .type = type,
                          .start = start, .len = len};
    return lock_once(fd, &a, NULL);
}

void lock_drop_posix(int fd)
{
    int saved = errno;
    struct lock_args a = {.cmd = DANAUS_LOCK_SET, .kind = DANAUS_LOCK_POSIX,
                          .type = F_UNLCK};
    lock_once(fd, &a, NULL);
    errno = saved;
}

int lock_fcntl(int fd, int cmd, struct flock *fl)
{
    bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK ||
               cmd == F_OFD_SETLKW;
    struct lock_args a = {
        .cmd = cmd == F_GETLK || cmd == F_OFD_GETLK ? DANAUS_LOCK_TEST
                                                    : DANAUS_LOCK_SET,
        .kind = ofd ? DANAUS_LOCK_OFD : DANAUS_LOCK_POSIX,
        .type = fl->l_type,
        .wait = cmd == F_SETLKW || cmd == F_OFD_SETLKW,
    };
    if (flock_range(fd, fl, &a) < 0)
        return -1;
    /* Linux keeps l_pid of OFD requests for later use: it must be 0. */
    if (ofd && fl->l_pid != 0) {
        errno = EINVAL;
        return -1;
    }
    if (a.cmd == DANAUS_LOCK_SET)
        return lock_set(fd, &a);
    struct danaus_lock held;
    if (lock_once(fd, &a, &held) < 0)
        return -1;
    fl->l_type = (short)held.type;
    if (held.type != F_UNLCK) {
        fl->l_whence = SEEK_SET;
        fl->l_start = held.start;
        fl->l_len = held.len;
        fl->l_pid = held.pid;
    }
    return 0;
}

DANAUS_EXPORT int danaus_flock(int fd, int operation)
{
    struct lock_args a = {.cmd = DANAUS_LOCK_SET, .kind = DANAUS_LOCK_FLOCK};
    switch (operation & ~LOCK_NB) {
    case LOCK_SH:
        a.type = F_RDLCK;
        break;
    case LOCK_EX:
        a.type = F_WRLCK;
        break;
    case LOCK_UN:
        a.type = F_UNLCK;
        break;
    default:
        errno = EINVAL;
        return -1;
    }
    a.wait = !(operation & LOCK_NB);
    return lock_set(fd, &a);
}

/* glibc's lockf: a write lock from the file offset on len bytes (before it
 * when negative), taken through fcntl. */
DANAUS_EXPORT int danaus_lockf(int fd, int cmd, off_t len)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_CUR, .l_len = len};
    switch (cmd) {
    case F_TEST:
        fl.l_type = F_RDLCK;
        if (lock_fcntl(fd, F_GETLK, &fl) < 0)
            return -1;
        if (fl.l_type == F_UNLCK || fl.l_pid == getpid())
            return 0;
        errno = EACCES;
        return -1;
    case F_ULOCK:
        fl.l_type = F_UNLCK;
        return lock_fcntl(fd, F_SETLK, &fl);
    case F_TLOCK:
        return lock_fcntl(fd, F_SETLK, &fl);
    case F_LOCK:
        return lock_fcntl(fd, F_SETLKW, &fl);
    default:
        errno = EINVAL;
        return -1;
    }
}
