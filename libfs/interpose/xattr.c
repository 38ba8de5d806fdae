/*
 * xattr.c - extended attributes under LD_PRELOAD: get, set, list
 * and remove, each on a path, on a symbolic link itself (l*) and on a
 * descriptor (f*). Calls on Danaus paths and descriptors go to their
 * danaus_* twins, every other one to libc unchanged.
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <fcntl.h>
#include <sys/xattr.h>

DANAUS_EXPORT ssize_t getxattr(const char *path, const char *name,
                               void *value, size_t size)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(getxattr)(route_kernel_path(AT_FDCWD, path, k), name, value,
                              size);
    return danaus_getxattr(path, name, value, size);
}

DANAUS_EXPORT ssize_t lgetxattr(const char *path, const char *name,
                                void *value, size_t size)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(lgetxattr)(route_kernel_path(AT_FDCWD, path, k), name,
                               value, size);
    return danaus_lgetxattr(path, name, value, size);
}

DANAUS_EXPORT ssize_t fgetxattr(int fd, const char *name, void *value,
                                size_t size)
{
    if (!route_fd(fd))
        return REAL(fgetxattr)(fd, name, value, size);
    return danaus_fgetxattr(fd, name, value, size);
}

DANAUS_EXPORT int setxattr(const char *path, const char *name,
                           const void *value, size_t size, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(setxattr)(route_kernel_path(AT_FDCWD, path, k), name, value,
                              size, flags);
    return danaus_setxattr(path, name, value, size, flags);
}

DANAUS_EXPORT int lsetxattr(const char *path, const char *name,
                            const void *value, size_t size, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(lsetxattr)(route_kernel_path(AT_FDCWD, path, k), name,
                               value, size, flags);
    return danaus_lsetxattr(path, name, value, size, flags);
}

DANAUS_EXPORT int fsetxattr(int fd, const char *name, const void *value,
                            size_t size, int flags)
{
    if (!route_fd(fd))
        return REAL(fsetxattr)(fd, name, value, size, flags);
    return danaus_fsetxattr(fd, name, value, size, flags);
}

DANAUS_EXPORT ssize_t listxattr(const char *path, char *list, size_t size)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(listxattr)(route_kernel_path(AT_FDCWD, path, k), list,
                               size);
    return danaus_listxattr(path, list, size);
}

DANAUS_EXPORT ssize_t llistxattr(const char *path, char *list, size_t size)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(llistxattr)(route_kernel_path(AT_FDCWD, path, k), list,
                                size);
    return danaus_llistxattr(path, list, size);
}

DANAUS_EXPORT ssize_t flistxattr(int fd, char *list, size_t size)
{
    if (!route_fd(fd))
        return REAL(flistxattr)(fd, list, size);
    return danaus_flistxattr(fd, list, size);
}

DANAUS_EXPORT int removexattr(const char *path, const char *name)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(removexattr)(route_kernel_path(AT_FDCWD, path, k), name);
    return danaus_removexattr(path, name);
}

DANAUS_EXPORT int lremovexattr(const char *path, const char *name)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(lremovexattr)(route_kernel_path(AT_FDCWD, path, k), name);
    return danaus_lremovexattr(path, name);
}

DANAUS_EXPORT int fremovexattr(int fd, const char *name)
{
    if (!route_fd(fd))
        return REAL(fremovexattr)(fd, name);
    return danaus_fremovexattr(fd, name);
}
