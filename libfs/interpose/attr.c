/*
 * attr.c - permissions, owners and times under LD_PRELOAD:
 * chmod, chown and the utime/utimes/utimensat families.
 *
 * Each call on a Danaus path or descriptor goes to its danaus_* twin, every
 * other one to libc unchanged. The older time calls take seconds and
 * microseconds; they become utimensat's timespecs here.
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

DANAUS_EXPORT int chmod(const char *path, mode_t mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(chmod)(route_kernel_path(AT_FDCWD, path, k), mode);
    return danaus_chmod(path, mode);
}

DANAUS_EXPORT int fchmod(int fd, mode_t mode)
{
    if (!route_fd(fd))
        return REAL(fchmod)(fd, mode);
    return danaus_fchmod(fd, mode);
}

DANAUS_EXPORT int fchmodat(int dirfd, const char *path, mode_t mode,
                           int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(fchmodat)(dirfd, route_kernel_path(dirfd, path, k), mode,
                              flags);
    return danaus_fchmodat(dirfd, path, mode, flags);
}

DANAUS_EXPORT int chown(const char *path, uid_t owner, gid_t group)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(chown)(route_kernel_path(AT_FDCWD, path, k), owner, group);
    return danaus_chown(path, owner, group);
}

DANAUS_EXPORT int lchown(const char *path, uid_t owner, gid_t group)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(lchown)(route_kernel_path(AT_FDCWD, path, k), owner, group);
    return danaus_lchown(path, owner, group);
}

DANAUS_EXPORT int fchown(int fd, uid_t owner, gid_t group)
{
    if (!route_fd(fd))
        return REAL(fchown)(fd, owner, group);
    return danaus_fchown(fd, owner, group);
}

DANAUS_EXPORT int fchownat(int dirfd, const char *path, uid_t owner,
                           gid_t group, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_at(dirfd, path, flags))
        return REAL(fchownat)(dirfd, route_kernel_path(dirfd, path, k), owner,
                              group, flags);
    return danaus_fchownat(dirfd, path, owner, group, flags);
}

/* glibc's utimensat refuses a NULL path with EINVAL (measured; the system
 * call would act on dirfd), so such calls go to it. */
DANAUS_EXPORT int utimensat(int dirfd, const char *path,
                            const struct timespec times[2], int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(utimensat)(dirfd, route_kernel_path(dirfd, path, k), times,
                               flags);
    return danaus_utimensat(dirfd, path, times, flags);
}

DANAUS_EXPORT int futimens(int fd, const struct timespec times[2])
{
    if (!route_fd(fd))
        return REAL(futimens)(fd, times);
    return danaus_futimens(fd, times);
}

/* tv as timespecs in ts; NULL stays NULL (now). 0, or -1 with EINVAL for
 * microseconds out of range, as the kernel's utimes answers. */
static int to_timespecs(const struct timeval tv[2], struct timespec ts[2],
                        const struct timespec **out)
{
    *out = NULL;
    if (!tv)
        return 0;
    for (int i = 0; i < 2; i++) {
        if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000) {
            errno = EINVAL;
            return -1;
        }
        ts[i].tv_sec = tv[i].tv_sec;
        ts[i].tv_nsec = tv[i].tv_usec * 1000;
    }
    *out = ts;
    return 0;
}

/* The time calls of timevals on Danaus: on dirfd's file itself when path
 * is NULL (futimes, futimesat), else on path. */
static int danaus_timevals(int dirfd, const char *path,
                           const struct timeval tv[2], int flags)
{
    struct timespec ts[2];
    const struct timespec *t;
    if (to_timespecs(tv, ts, &t) < 0)
        return -1;
    if (!path)
        return danaus_futimens(dirfd, t);
    return danaus_utimensat(dirfd, path, t, flags);
}

DANAUS_EXPORT int utimes(const char *path, const struct timeval tv[2])
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(utimes)(route_kernel_path(AT_FDCWD, path, k), tv);
    return danaus_timevals(AT_FDCWD, path, tv, 0);
}

DANAUS_EXPORT int lutimes(const char *path, const struct timeval tv[2])
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(lutimes)(route_kernel_path(AT_FDCWD, path, k), tv);
    return danaus_timevals(AT_FDCWD, path, tv, AT_SYMLINK_NOFOLLOW);
}

DANAUS_EXPORT int futimes(int fd, const struct timeval tv[2])
{
    if (!route_fd(fd))
        return REAL(futimes)(fd, tv);
    return danaus_timevals(fd, NULL, tv, 0);
}

/* A NULL path means fd's own file (glibc passes it on to the kernel). */
DANAUS_EXPORT int futimesat(int dirfd, const char *path,
                            const struct timeval tv[2])
{
    char k[DANAUS_PATH_MAX];
    if (path ? !route_path(dirfd, path) : !route_fd(dirfd))
        return REAL(futimesat)(dirfd, route_kernel_path(dirfd, path, k), tv);
    return danaus_timevals(dirfd, path, tv, 0);
}

DANAUS_EXPORT int utime(const char *path, const struct utimbuf *times)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(utime)(route_kernel_path(AT_FDCWD, path, k), times);
    if (!times)
        return danaus_utimensat(AT_FDCWD, path, NULL, 0);
    struct timespec ts[2] = {{times->actime, 0}, {times->modtime, 0}};
    return danaus_utimensat(AT_FDCWD, path, ts, 0);
}
