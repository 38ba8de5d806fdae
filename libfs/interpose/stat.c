/*
 * stat.c - the stat family under LD_PRELOAD: stat, lstat, fstat,
 * fstatat and their 64 twins, the __xstat entry points of binaries built
 * before glibc 2.33, statx, access and faccessat, statfs and statvfs,
 * pathconf and fpathconf.
 *
 * Each call on a Danaus path or descriptor goes to its danaus_* twin, every
 * other one to libc unchanged. On x86-64 the "64" structures are the plain
 * ones under another name (checked below), so the 64 twins share the
 * danaus_* calls and copy the result across.
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"
#include "libfs/usermem.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

_Static_assert(sizeof(struct stat) == sizeof(struct stat64),
               "struct stat64 is struct stat on x86-64");
_Static_assert(sizeof(struct statfs) == sizeof(struct statfs64),
               "struct statfs64 is struct statfs on x86-64");
_Static_assert(sizeof(struct statvfs) == sizeof(struct statvfs64),
               "struct statvfs64 is struct statvfs on x86-64");

/* Copies a result into its same-layout 64 twin when rc says it is there;
 * EFAULT when the caller's buffer is not (usermem.h). */
static int copy_64(int rc, void *dst, const void *src, size_t n)
{
    if (rc != 0)
        return rc;
    if (!usermem_range(dst, n)) {
        errno = EFAULT;
        return -1;
    }
    memcpy(dst, src, n);
    return 0;
}

#define COPY_64(rc, dst, src) copy_64((rc), (dst), &(src), sizeof(src))

DANAUS_EXPORT int stat(const char *path, struct stat *buf)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(stat)(route_kernel_path(AT_FDCWD, path, k), buf);
    return danaus_stat(path, buf);
}

DANAUS_EXPORT int lstat(const char *path, struct stat *buf)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(lstat)(route_kernel_path(AT_FDCWD, path, k), buf);
    return danaus_lstat(path, buf);
}

DANAUS_EXPORT int fstat(int fd, struct stat *buf)
{
    if (!route_fd(fd))
        return REAL(fstat)(fd, buf);
    return danaus_fstat(fd, buf);
}

DANAUS_EXPORT int fstatat(int dirfd, const char *path, struct stat *buf,
                          int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_at(dirfd, path, flags))
        return REAL(fstatat)(dirfd, route_kernel_path(dirfd, path, k), buf,
                             flags);
    return danaus_fstatat(dirfd, path, buf, flags);
}

DANAUS_EXPORT int stat64(const char *path, struct stat64 *buf)
{
    char k[DANAUS_PATH_MAX];
    struct stat st;
    if (!route_path(AT_FDCWD, path))
        return REAL(stat64)(route_kernel_path(AT_FDCWD, path, k), buf);
    return COPY_64(danaus_stat(path, &st), buf, st);
}

DANAUS_EXPORT int lstat64(const char *path, struct stat64 *buf)
{
    char k[DANAUS_PATH_MAX];
    struct stat st;
    if (!route_path(AT_FDCWD, path))
        return REAL(lstat64)(route_kernel_path(AT_FDCWD, path, k), buf);
    return COPY_64(danaus_lstat(path, &st), buf, st);
}

DANAUS_EXPORT int fstat64(int fd, struct stat64 *buf)
{
    struct stat st;
    if (!route_fd(fd))
        return REAL(fstat64)(fd, buf);
    return COPY_64(danaus_fstat(fd, &st), buf, st);
}

DANAUS_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *buf,
                            int flags)
{
    char k[DANAUS_PATH_MAX];
    struct stat st;
    if (!route_at(dirfd, path, flags))
        return REAL(fstatat64)(dirfd, route_kernel_path(dirfd, path, k), buf,
                               flags);
    return COPY_64(danaus_fstatat(dirfd, path, &st, flags), buf, st);
}

/* Binaries built against glibc before 2.33 call these, with the layout
 * version of struct stat first. glibc 2.36 still exports them but no
 * longer declares them. */
int __xstat(int ver, const char *path, struct stat *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf,
               int flags);
int __xstat64(int ver, const char *path, struct stat64 *buf);
int __lxstat64(int ver, const char *path, struct stat64 *buf);
int __fxstat64(int ver, int fd, struct stat64 *buf);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf,
                 int flags);

/* x86-64's _STAT_VER_KERNEL (0) and _STAT_VER_LINUX (1) both mean today's
 * struct stat; glibc answers EINVAL to any other (measured). */
static bool stat_ver_ok(int ver)
{
    if (ver == 0 || ver == 1)
        return true;
    errno = EINVAL;
    return false;
}

DANAUS_EXPORT int __xstat(int ver, const char *path, struct stat *buf)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(__xstat)(ver, route_kernel_path(AT_FDCWD, path, k), buf);
    return stat_ver_ok(ver) ? danaus_stat(path, buf) : -1;
}

DANAUS_EXPORT int __lxstat(int ver, const char *path, struct stat *buf)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(__lxstat)(ver, route_kernel_path(AT_FDCWD, path, k), buf);
    return stat_ver_ok(ver) ? danaus_lstat(path, buf) : -1;
}

DANAUS_EXPORT int __fxstat(int ver, int fd, struct stat *buf)
{
    if (!route_fd(fd))
        return REAL(__fxstat)(ver, fd, buf);
    return stat_ver_ok(ver) ? danaus_fstat(fd, buf) : -1;
}

DANAUS_EXPORT int __fxstatat(int ver, int dirfd, const char *path,
                             struct stat *buf, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_at(dirfd, path, flags))
        return REAL(__fxstatat)(ver, dirfd, route_kernel_path(dirfd, path, k),
                                buf, flags);
    return stat_ver_ok(ver) ? danaus_fstatat(dirfd, path, buf, flags) : -1;
}

DANAUS_EXPORT int __xstat64(int ver, const char *path, struct stat64 *buf)
{
    char k[DANAUS_PATH_MAX];
    struct stat st;
    if (!route_path(AT_FDCWD, path))
        return REAL(__xstat64)(ver, route_kernel_path(AT_FDCWD, path, k), buf);
    return stat_ver_ok(ver) ? COPY_64(danaus_stat(path, &st), buf, st) : -1;
}

DANAUS_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *buf)
{
    char k[DANAUS_PATH_MAX];
    struct stat st;
    if (!route_path(AT_FDCWD, path))
        return REAL(__lxstat64)(ver, route_kernel_path(AT_FDCWD, path, k), buf);
    return stat_ver_ok(ver) ? COPY_64(danaus_lstat(path, &st), buf, st) : -1;
}

DANAUS_EXPORT int __fxstat64(int ver, int fd, struct stat64 *buf)
{
    struct stat st;
    if (!route_fd(fd))
        return REAL(__fxstat64)(ver, fd, buf);
    return stat_ver_ok(ver) ? COPY_64(danaus_fstat(fd, &st), buf, st) : -1;
}

DANAUS_EXPORT int __fxstatat64(int ver, int dirfd, const char *path,
                               struct stat64 *buf, int flags)
{
    char k[DANAUS_PATH_MAX];
    struct stat st;
    if (!route_at(dirfd, path, flags))
        return REAL(__fxstatat64)(ver, dirfd, route_kernel_path(dirfd, path, k),
                                  buf, flags);
    if (!stat_ver_ok(ver))
        return -1;
    return COPY_64(danaus_fstatat(dirfd, path, &st, flags), buf, st);
}

DANAUS_EXPORT int statx(int dirfd, const char *path, int flags,
                        unsigned int mask, struct statx *buf)
{
    char k[DANAUS_PATH_MAX];
    if (!route_at(dirfd, path, flags))
        return REAL(statx)(dirfd, route_kernel_path(dirfd, path, k), flags,
                           mask, buf);
    return danaus_statx(dirfd, path, flags, mask, buf);
}

DANAUS_EXPORT int access(const char *path, int mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(access)(route_kernel_path(AT_FDCWD, path, k), mode);
    return danaus_access(path, mode);
}

DANAUS_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(faccessat)(dirfd, route_kernel_path(dirfd, path, k), mode,
                               flags);
    return danaus_faccessat(dirfd, path, mode, flags);
}

DANAUS_EXPORT int euidaccess(const char *path, int mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(euidaccess)(route_kernel_path(AT_FDCWD, path, k), mode);
    return danaus_euidaccess(path, mode);
}

DANAUS_EXPORT int eaccess(const char *path, int mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(eaccess)(route_kernel_path(AT_FDCWD, path, k), mode);
    return danaus_euidaccess(path, mode);
}

DANAUS_EXPORT int statfs(const char *path, struct statfs *buf)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(statfs)(route_kernel_path(AT_FDCWD, path, k), buf);
    return danaus_statfs(path, buf);
}

DANAUS_EXPORT int fstatfs(int fd, struct statfs *buf)
{
    if (!route_fd(fd))
        return REAL(fstatfs)(fd, buf);
    return danaus_fstatfs(fd, buf);
}

DANAUS_EXPORT long pathconf(const char *path, int name)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(pathconf)(route_kernel_path(AT_FDCWD, path, k), name);
    return danaus_pathconf(path, name);
}

DANAUS_EXPORT long fpathconf(int fd, int name)
{
    if (!route_fd(fd))
        return REAL(fpathconf)(fd, name);
    return danaus_fpathconf(fd, name);
}

DANAUS_EXPORT int statfs64(const char *path, struct statfs64 *buf)
{
    char k[DANAUS_PATH_MAX];
    struct statfs sf;
    if (!route_path(AT_FDCWD, path))
        return REAL(statfs64)(route_kernel_path(AT_FDCWD, path, k), buf);
    return COPY_64(danaus_statfs(path, &sf), buf, sf);
}

DANAUS_EXPORT int fstatfs64(int fd, struct statfs64 *buf)
{
    struct statfs sf;
    if (!route_fd(fd))
        return REAL(fstatfs64)(fd, buf);
    return COPY_64(danaus_fstatfs(fd, &sf), buf, sf);
}

DANAUS_EXPORT int statvfs(const char *path, struct statvfs *buf)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(statvfs)(route_kernel_path(AT_FDCWD, path, k), buf);
    return danaus_statvfs(path, buf);
}

DANAUS_EXPORT int fstatvfs(int fd, struct statvfs *buf)
{
    if (!route_fd(fd))
        return REAL(fstatvfs)(fd, buf);
    return danaus_fstatvfs(fd, buf);
}

DANAUS_EXPORT int statvfs64(const char *path, struct statvfs64 *buf)
{
    char k[DANAUS_PATH_MAX];
    struct statvfs sv;
    if (!route_path(AT_FDCWD, path))
        return REAL(statvfs64)(route_kernel_path(AT_FDCWD, path, k), buf);
    return COPY_64(danaus_statvfs(path, &sv), buf, sv);
}

DANAUS_EXPORT int fstatvfs64(int fd, struct statvfs64 *buf)
{
    struct statvfs sv;
    if (!route_fd(fd))
        return REAL(fstatvfs64)(fd, buf);
    return COPY_64(danaus_fstatvfs(fd, &sv), buf, sv);
}
