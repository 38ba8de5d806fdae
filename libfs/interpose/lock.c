/*
 * lock.c - the lock family of interposers: flock(2), and lockf(3)
 * with lockf64. fcntl's lock commands go through the fcntl interposer
 * (fd.c); lockf needs its own because glibc's lockf calls its
 * internal fcntl, which no interposer sees (the placeholder descriptor
 * would answer EBADF).
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <sys/file.h>
#include <unistd.h>

DANAUS_EXPORT int flock(int fd, int operation)
{
    if (!route_fd(fd))
        return REAL(flock)(fd, operation);
    return danaus_flock(fd, operation);
}

DANAUS_EXPORT int lockf(int fd, int cmd, off_t len)
{
    if (!route_fd(fd))
        return REAL(lockf)(fd, cmd, len);
    return danaus_lockf(fd, cmd, len);
}

DANAUS_EXPORT int lockf64(int fd, int cmd, off64_t len)
{
    if (!route_fd(fd))
        return REAL(lockf64)(fd, cmd, len);
    return danaus_lockf(fd, cmd, len);
}
