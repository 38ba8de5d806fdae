/*
 * fdctl.c - the danaus_* calls that control a descriptor rather than
 * move its data: ioctl, and the space and advice calls (fallocate,
 * posix_fallocate, posix_fadvise).
 *
 * The service has no FALLOCATE call; mode 0 is emulated the way glibc's own
 * posix_fallocate fallback does it on file systems without fallocate: by
 * writing, so a shorter file reaches offset + len with zeros. No space is
 * reserved ahead, and the size check and the write are not atomic against
 * another writer of that last byte (as with glibc's fallback).
 */
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

/* fallocate's checks, in the kernel's order, then mode 0 by writing. */
static int allocate(int fd, int mode, off_t offset, off_t len)
{
    if (offset < 0 || len <= 0) {
        errno = EINVAL;
        return -1;
    }
    int flags = danaus_fcntl(fd, F_GETFL);
    if (flags < 0)
        return -1;
    /* Not writable; or O_APPEND, where a positioned write would land at
     * the end instead (glibc's fallback refuses it the same way). */
    if ((flags & O_ACCMODE) == O_RDONLY || (flags & O_APPEND)) {
        errno = EBADF;
        return -1;
    }
    struct stat st;
    if (danaus_fstat(fd, &st) < 0)
        return -1;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        errno = ENODEV;
        return -1;
    }
    if (offset > INT64_MAX - len) {
        errno = EFBIG;
        return -1;
    }
    if (mode != 0) {
        errno = EOPNOTSUPP;
        return -1;
    }
    if (st.st_size >= offset + len)
        return 0;
    /* A zero as the range's last byte extends the file with zeros. */
    static const unsigned char zero;
    return danaus_pwrite(fd, &zero, 1, offset + len - 1) == 1 ? 0 : -1;
}

DANAUS_EXPORT int danaus_fallocate(int fd, int mode, off_t offset, off_t len)
{
    struct fd_info info;
    if (!fdtable_lookup(fd, &info)) {
        errno = EBADF;
        return -1;
    }
    return allocate(fd, mode, offset, len);
}

DANAUS_EXPORT int danaus_posix_fallocate(int fd, off_t offset, off_t len)
{
    int saved = errno;
    int rc = danaus_fallocate(fd, 0, offset, len) < 0 ? errno : 0;
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
