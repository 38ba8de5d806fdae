/*
 * path.c - the name operations under LD_PRELOAD: mkdir, mknod, mkfifo
 * (and glibc's older __xmknod entry points), rmdir, unlink, rename, link,
 * symlink, readlink (with their *at twins and the fortified __*_chk entry
 * points) and realpath.
 *
 * Each call on a Danaus path goes to its danaus_* twin, every other one to
 * libc unchanged. A rename or link between a Danaus path and a kernel one
 * fails with EXDEV, as Linux answers across mounts.
 */
#include "libfs/cwd.h"
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"
#include "libfs/usermem.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

DANAUS_EXPORT int mkdir(const char *path, mode_t mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(mkdir)(route_kernel_path(AT_FDCWD, path, k), mode);
    return danaus_mkdir(path, mode);
}

DANAUS_EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(mkdirat)(dirfd, route_kernel_path(dirfd, path, k), mode);
    return danaus_mkdirat(dirfd, path, mode);
}

DANAUS_EXPORT int mknod(const char *path, mode_t mode, dev_t dev)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(mknod)(route_kernel_path(AT_FDCWD, path, k), mode, dev);
    return danaus_mknod(path, mode, dev);
}

DANAUS_EXPORT int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(mknodat)(dirfd, route_kernel_path(dirfd, path, k), mode,
                             dev);
    return danaus_mknodat(dirfd, path, mode, dev);
}

DANAUS_EXPORT int mkfifo(const char *path, mode_t mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(mkfifo)(route_kernel_path(AT_FDCWD, path, k), mode);
    return danaus_mkfifo(path, mode);
}

DANAUS_EXPORT int mkfifoat(int dirfd, const char *path, mode_t mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(mkfifoat)(dirfd, route_kernel_path(dirfd, path, k), mode);
    return danaus_mkfifoat(dirfd, path, mode);
}

/* Binaries built against glibc before 2.33 call these, with the version of
 * the device number's layout first (_MKNOD_VER, 0 on x86-64). */
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);
int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);

DANAUS_EXPORT int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(__xmknod)(ver, route_kernel_path(AT_FDCWD, path, k), mode,
                              dev);
    if (ver != 0) {
        errno = EINVAL;
        return -1;
    }
    return danaus_mknod(path, mode, *dev);
}

DANAUS_EXPORT int __xmknodat(int ver, int dirfd, const char *path,
                             mode_t mode, dev_t *dev)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(__xmknodat)(ver, dirfd, route_kernel_path(dirfd, path, k),
                                mode, dev);
    if (ver != 0) {
        errno = EINVAL;
        return -1;
    }
    return danaus_mknodat(dirfd, path, mode, *dev);
}

DANAUS_EXPORT int rmdir(const char *path)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(rmdir)(route_kernel_path(AT_FDCWD, path, k));
    return danaus_rmdir(path);
}

DANAUS_EXPORT int unlink(const char *path)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(unlink)(route_kernel_path(AT_FDCWD, path, k));
    return danaus_unlink(path);
}

DANAUS_EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(unlinkat)(dirfd, route_kernel_path(dirfd, path, k), flags);
    return danaus_unlinkat(dirfd, path, flags);
}

/* Where a call on two paths goes: 0 the kernel, 1 Danaus, or -1 with errno
 * EXDEV when one path is Danaus's and the other not. A path that cannot be
 * read goes to the kernel, which reports EFAULT (usermem.h), and so does a
 * path too long to be anyone's: ENAMETOOLONG comes before EXDEV. */
static int route_two(int olddirfd, const char *oldpath, int newdirfd,
                     const char *newpath)
{
    if (!usermem_string(oldpath, DANAUS_PATH_MAX) ||
        !usermem_string(newpath, DANAUS_PATH_MAX) ||
        strnlen(oldpath, DANAUS_PATH_MAX) >= DANAUS_PATH_MAX ||
        strnlen(newpath, DANAUS_PATH_MAX) >= DANAUS_PATH_MAX)
        return 0;
    bool old_ours = route_path(olddirfd, oldpath);
    bool new_ours = route_path(newdirfd, newpath);
    if (old_ours != new_ours) {
        errno = EXDEV;
        return -1;
    }
    return old_ours;
}

DANAUS_EXPORT int rename(const char *oldpath, const char *newpath)
{
    char k1[DANAUS_PATH_MAX], k2[DANAUS_PATH_MAX];
    int ours = route_two(AT_FDCWD, oldpath, AT_FDCWD, newpath);
    if (ours == 0)
        return REAL(rename)(route_kernel_path(AT_FDCWD, oldpath, k1),
                            route_kernel_path(AT_FDCWD, newpath, k2));
    return ours < 0 ? -1 : danaus_rename(oldpath, newpath);
}

DANAUS_EXPORT int renameat(int olddirfd, const char *oldpath, int newdirfd,
                           const char *newpath)
{
    char k1[DANAUS_PATH_MAX], k2[DANAUS_PATH_MAX];
    int ours = route_two(olddirfd, oldpath, newdirfd, newpath);
    if (ours == 0)
        return REAL(renameat)(olddirfd,
                              route_kernel_path(olddirfd, oldpath, k1),
                              newdirfd,
                              route_kernel_path(newdirfd, newpath, k2));
    return ours < 0 ? -1 : danaus_renameat(olddirfd, oldpath, newdirfd,
                                           newpath);
}

DANAUS_EXPORT int renameat2(int olddirfd, const char *oldpath, int newdirfd,
                            const char *newpath, unsigned int flags)
{
    char k1[DANAUS_PATH_MAX], k2[DANAUS_PATH_MAX];
    int ours = route_two(olddirfd, oldpath, newdirfd, newpath);
    if (ours == 0)
        return REAL(renameat2)(olddirfd,
                               route_kernel_path(olddirfd, oldpath, k1),
                               newdirfd,
                               route_kernel_path(newdirfd, newpath, k2),
                               flags);
    return ours < 0 ? -1 : danaus_renameat2(olddirfd, oldpath, newdirfd,
                                            newpath, flags);
}

DANAUS_EXPORT int link(const char *oldpath, const char *newpath)
{
    char k1[DANAUS_PATH_MAX], k2[DANAUS_PATH_MAX];
    int ours = route_two(AT_FDCWD, oldpath, AT_FDCWD, newpath);
    if (ours == 0)
        return REAL(link)(route_kernel_path(AT_FDCWD, oldpath, k1),
                          route_kernel_path(AT_FDCWD, newpath, k2));
    return ours < 0 ? -1 : danaus_link(oldpath, newpath);
}

DANAUS_EXPORT int linkat(int olddirfd, const char *oldpath, int newdirfd,
                         const char *newpath, int flags)
{
    char k1[DANAUS_PATH_MAX], k2[DANAUS_PATH_MAX];
    int ours = route_two(olddirfd, oldpath, newdirfd, newpath);
    if (ours == 0)
        return REAL(linkat)(olddirfd, route_kernel_path(olddirfd, oldpath, k1),
                            newdirfd, route_kernel_path(newdirfd, newpath, k2),
                            flags);
    return ours < 0 ? -1 : danaus_linkat(olddirfd, oldpath, newdirfd,
                                         newpath, flags);
}

/* The target of a symbolic link is only a string: the link's own path
 * decides. */
DANAUS_EXPORT int symlink(const char *target, const char *linkpath)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, linkpath))
        return REAL(symlink)(target, route_kernel_path(AT_FDCWD, linkpath, k));
    return danaus_symlink(target, linkpath);
}

DANAUS_EXPORT int symlinkat(const char *target, int newdirfd,
                            const char *linkpath)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(newdirfd, linkpath))
        return REAL(symlinkat)(target, newdirfd,
                               route_kernel_path(newdirfd, linkpath, k));
    return danaus_symlinkat(target, newdirfd, linkpath);
}

DANAUS_EXPORT ssize_t readlink(const char *path, char *buf, size_t len)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(readlink)(route_kernel_path(AT_FDCWD, path, k), buf, len);
    return danaus_readlink(path, buf, len);
}

DANAUS_EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf,
                                 size_t len)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(readlinkat)(dirfd, route_kernel_path(dirfd, path, k), buf,
                                len);
    return danaus_readlinkat(dirfd, path, buf, len);
}

/* The fortified entry points (_FORTIFY_SOURCE, Debian's default for its
 * packages) check the buffer's real size, buflen, before doing the call;
 * glibc ends the process through __chk_fail when it is too small. */
void __chk_fail(void) __attribute__((noreturn));
ssize_t __readlink_chk(const char *path, char *buf, size_t len,
                       size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len,
                         size_t buflen);
char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);

DANAUS_EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t len,
                                     size_t buflen)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(__readlink_chk)(route_kernel_path(AT_FDCWD, path, k), buf,
                                    len, buflen);
    if (len > buflen)
        __chk_fail();
    return danaus_readlink(path, buf, len);
}

DANAUS_EXPORT ssize_t __readlinkat_chk(int dirfd, const char *path,
                                       char *buf, size_t len, size_t buflen)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(__readlinkat_chk)(dirfd, route_kernel_path(dirfd, path, k),
                                      buf, len, buflen);
    if (len > buflen)
        __chk_fail();
    return danaus_readlinkat(dirfd, path, buf, len);
}

/* realpath walks the path here when any of it may be Danaus's: a Danaus
 * path, or a relative one while the Danaus cwd is set (".." may lead out
 * of the mount, which the kernel's own walk from its cwd cannot see). */
static bool realpath_ours(const char *path)
{
    char cwd[DANAUS_PATH_MAX];
    if (route_path(AT_FDCWD, path))
        return true;
    if (!route_enabled() || !path || path[0] == '/')
        return false;
    int saved = errno;
    bool danaus_cwd = cwd_get(cwd, sizeof cwd) != 0;
    errno = saved;
    return danaus_cwd;
}

DANAUS_EXPORT char *realpath(const char *path, char *resolved)
{
    if (!realpath_ours(path))
        return REAL(realpath)(path, resolved);
    return danaus_realpath(path, resolved);
}

DANAUS_EXPORT char *__realpath_chk(const char *path, char *resolved,
                                   size_t resolvedlen)
{
    if (!realpath_ours(path))
        return REAL(__realpath_chk)(path, resolved, resolvedlen);
    if (resolvedlen < PATH_MAX)
        __chk_fail();
    return danaus_realpath(path, resolved);
}

DANAUS_EXPORT char *canonicalize_file_name(const char *path)
{
    if (!realpath_ours(path))
        return REAL(canonicalize_file_name)(path);
    return danaus_realpath(path, NULL);
}
