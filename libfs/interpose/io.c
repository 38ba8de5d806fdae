/*
 * io.c - the data family of interposers: read and write in their
 * plain, positioned, vectored and fortified forms.
 *
 * These sit on every read and write of the process, so the kernel path is
 * one route_fd question (a load when no service is configured, a lock-free
 * table lookup otherwise) before libc's own call.
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* glibc's fortified entry points and its failure report; its headers
 * declare them only for _FORTIFY_SOURCE builds. */
extern ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
extern ssize_t __pread_chk(int fd, void *buf, size_t nbytes, off_t offset,
                           size_t buflen);
extern ssize_t __pread64_chk(int fd, void *buf, size_t nbytes,
                             off64_t offset, size_t buflen);
extern void __chk_fail(void) __attribute__((__noreturn__));

DANAUS_EXPORT ssize_t read(int fd, void *buf, size_t count)
{
    if (!route_fd(fd))
        return REAL(read)(fd, buf, count);
    return danaus_read(fd, buf, count);
}

DANAUS_EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
    if (!route_fd(fd))
        return REAL(write)(fd, buf, count);
    return danaus_write(fd, buf, count);
}

DANAUS_EXPORT ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
    if (!route_fd(fd))
        return REAL(pread)(fd, buf, count, offset);
    return danaus_pread(fd, buf, count, offset);
}

DANAUS_EXPORT ssize_t pread64(int fd, void *buf, size_t count,
                              off64_t offset)
{
    if (!route_fd(fd))
        return REAL(pread64)(fd, buf, count, offset);
    return danaus_pread(fd, buf, count, offset);
}

DANAUS_EXPORT ssize_t pwrite(int fd, const void *buf, size_t count,
                             off_t offset)
{
    if (!route_fd(fd))
        return REAL(pwrite)(fd, buf, count, offset);
    return danaus_pwrite(fd, buf, count, offset);
}

DANAUS_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t count,
                               off64_t offset)
{
    if (!route_fd(fd))
        return REAL(pwrite64)(fd, buf, count, offset);
    return danaus_pwrite(fd, buf, count, offset);
}

DANAUS_EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
    if (!route_fd(fd))
        return REAL(readv)(fd, iov, iovcnt);
    return danaus_readv(fd, iov, iovcnt);
}

DANAUS_EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    if (!route_fd(fd))
        return REAL(writev)(fd, iov, iovcnt);
    return danaus_writev(fd, iov, iovcnt);
}

DANAUS_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int iovcnt,
                             off_t offset)
{
    if (!route_fd(fd))
        return REAL(preadv)(fd, iov, iovcnt, offset);
    return danaus_preadv(fd, iov, iovcnt, offset);
}

DANAUS_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int iovcnt,
                               off64_t offset)
{
    if (!route_fd(fd))
        return REAL(preadv64)(fd, iov, iovcnt, offset);
    return danaus_preadv(fd, iov, iovcnt, offset);
}

DANAUS_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt,
                              off_t offset)
{
    if (!route_fd(fd))
        return REAL(pwritev)(fd, iov, iovcnt, offset);
    return danaus_pwritev(fd, iov, iovcnt, offset);
}

DANAUS_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt,
                                off64_t offset)
{
    if (!route_fd(fd))
        return REAL(pwritev64)(fd, iov, iovcnt, offset);
    return danaus_pwritev(fd, iov, iovcnt, offset);
}

DANAUS_EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt,
                              off_t offset, int flags)
{
    if (!route_fd(fd))
        return REAL(preadv2)(fd, iov, iovcnt, offset, flags);
    return danaus_preadv2(fd, iov, iovcnt, offset, flags);
}

DANAUS_EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov,
                                 int iovcnt, off64_t offset, int flags)
{
    if (!route_fd(fd))
        return REAL(preadv64v2)(fd, iov, iovcnt, offset, flags);
    return danaus_preadv2(fd, iov, iovcnt, offset, flags);
}

DANAUS_EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt,
                               off_t offset, int flags)
{
    if (!route_fd(fd))
        return REAL(pwritev2)(fd, iov, iovcnt, offset, flags);
    return danaus_pwritev2(fd, iov, iovcnt, offset, flags);
}

DANAUS_EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov,
                                  int iovcnt, off64_t offset, int flags)
{
    if (!route_fd(fd))
        return REAL(pwritev64v2)(fd, iov, iovcnt, offset, flags);
    return danaus_pwritev2(fd, iov, iovcnt, offset, flags);
}

/* The fortified reads: glibc calls __chk_fail (which reports a buffer
 * overflow and aborts) when more is asked for than the buffer holds. */
DANAUS_EXPORT ssize_t __read_chk(int fd, void *buf, size_t nbytes,
                                 size_t buflen)
{
    if (!route_fd(fd))
        return REAL(__read_chk)(fd, buf, nbytes, buflen);
    if (nbytes > buflen)
        __chk_fail();
    return danaus_read(fd, buf, nbytes);
}

DANAUS_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t nbytes,
                                  off_t offset, size_t buflen)
{
    if (!route_fd(fd))
        return REAL(__pread_chk)(fd, buf, nbytes, offset, buflen);
    if (nbytes > buflen)
        __chk_fail();
    return danaus_pread(fd, buf, nbytes, offset);
}

DANAUS_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t nbytes,
                                    off64_t offset, size_t buflen)
{
    if (!route_fd(fd))
        return REAL(__pread64_chk)(fd, buf, nbytes, offset, buflen);
    if (nbytes > buflen)
        __chk_fail();
    return danaus_pread(fd, buf, nbytes, offset);
}
