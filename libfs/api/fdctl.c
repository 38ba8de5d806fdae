/*
 * fdctl.c - the danaus_* calls that control a descriptor rather than
 * move its data: ioctl, and the space and advice calls (fallocate,
 * posix_fallocate, posix_fadvise).
 */
#include "libfs/call.h"
#include "libfs/export.h"
#include "libfs/fdtable.h"
#include "libfs/sys.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

/* Bytes between the file offset and the end, as Linux reports FIONREAD for
 * a regular file: the difference, truncated to int, even when negative. */
static int bytes_to_end(int fd, int *out)
{
    struct stat st;
    if (danaus_fstat(fd, &st) < 0)
        return -1;
    if (!S_ISREG(st.st_mode)) {
        errno = ENOTTY;
        return -1;
    }
    off_t pos = danaus_lseek(fd, 0, SEEK_CUR);
    if (pos < 0)
        return -1;
    *out = (int)(st.st_size - pos);
    return 0;
}

static int nonblock_set(int fd, int on)
{
    int flags = danaus_fcntl(fd, F_GETFL);
    if (flags < 0)
        return -1;
    flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
    return danaus_fcntl(fd, F_SETFL, flags);
}

DANAUS_EXPORT int danaus_ioctl(int fd, unsigned long request, ...)
{
    struct fd_info info;
    if (!fdtable_lookup(fd, &info)) {
        errno = EBADF;
        return -1;
    }
    va_list ap;
    va_start(ap, request);
    int rc;
    switch (request) {
    case FIONREAD:
        rc = bytes_to_end(fd, va_arg(ap, int *));
        break;
    case FIOCLEX:
    case FIONCLEX:
        /* The close-on-exec flag is the placeholder's (fdtable.h). */
        rc = sys_fcntl(fd, F_SETFD, request == FIOCLEX ? FD_CLOEXEC : 0);
        break;
    case FIONBIO:
        rc = nonblock_set(fd, *va_arg(ap, int *));
        break;
    default:
        errno = ENOTTY;
        rc = -1;
        break;
    }
    va_end(ap);
    return rc;
}

/* The service checks and answers as fallocate(2) (calls_fd.c). */
DANAUS_EXPORT int danaus_fallocate(int fd, int mode, off_t offset, off_t len)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_FALLOCATE, fd, false) < 0)
        return -1;
    c.desc.arg[0] = mode;
    c.desc.arg[1] = offset;
    c.desc.arg[2] = len;
    return call_send(&c) < 0 ? -1 : 0;
}

/* Where the backend has no mode 0 (EOPNOTSUPP), glibc's own fallback:
 * a file shorter than offset + len gets a zero as the range's last byte.
 * Not on an O_APPEND descriptor, where the write would land at the end
 * (glibc's fallback refuses it the same way). */
static int extend_by_writing(int fd, off_t offset, off_t len)
{
    int flags = danaus_fcntl(fd, F_GETFL);
    if (flags < 0)
        return -1;
    if (flags & O_APPEND) {
        errno = EBADF;
        return -1;
    }
    struct stat st;
    if (danaus_fstat(fd, &st) < 0)
        return -1;
    if (st.st_size >= offset + len)
        return 0;
    static const unsigned char zero;
    return danaus_pwrite(fd, &zero, 1, offset + len - 1) == 1 ? 0 : -1;
}

DANAUS_EXPORT int danaus_posix_fallocate(int fd, off_t offset, off_t len)
{
    int saved = errno;
    int rc = danaus_fallocate(fd, 0, offset, len);
    if (rc < 0 && errno == EOPNOTSUPP)
        rc = extend_by_writing(fd, offset, len);
    rc = rc < 0 ? errno : 0;
    errno = saved;
    return rc;
}

DANAUS_EXPORT int danaus_posix_fadvise(int fd, off_t offset, off_t len,
                                       int advice)
{
    (void)offset;
    struct fd_info info;
    if (!fdtable_lookup(fd, &info))
        return EBADF;
    if (len < 0 || advice < POSIX_FADV_NORMAL || advice > POSIX_FADV_NOREUSE)
        return EINVAL;
    /* Advice only: the service's cache does its own read-ahead. */
    return 0;
}
