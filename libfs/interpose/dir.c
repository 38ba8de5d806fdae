/*
 * dir.c - directory streams: opendir, fdopendir, readdir and the
 * rest, scandir and getdents64.
 *
 * glibc's opendir and scandir open and read through its internal calls, so
 * these are interposed themselves. A stream opened on a Danaus directory is
 * a Danaus DIR; the calls that take a DIR ask dirstream_owns (which reads
 * nothing behind the pointer) whose it is. dirfd of a Danaus DIR is its
 * Danaus descriptor, so fstatat and openat on it route to Danaus too.
 */
#include "libfs/dirstream.h"
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>

/* readdir64 and friends hand out our struct dirent as a struct dirent64:
 * on x86-64 (and every LP64 Linux) they are the same layout. */
_Static_assert(sizeof(struct dirent) == sizeof(struct dirent64) &&
                   offsetof(struct dirent, d_name) ==
                       offsetof(struct dirent64, d_name) &&
                   offsetof(struct dirent, d_off) ==
                       offsetof(struct dirent64, d_off),
               "struct dirent and struct dirent64 differ");

DANAUS_EXPORT DIR *opendir(const char *name)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, name))
        return REAL(opendir)(route_kernel_path(AT_FDCWD, name, k));
    return danaus_opendir(name);
}

DANAUS_EXPORT DIR *fdopendir(int fd)
{
    if (!route_fd(fd))
        return REAL(fdopendir)(fd);
    return danaus_fdopendir(fd);
}

DANAUS_EXPORT struct dirent *readdir(DIR *dirp)
{
    if (!dirstream_owns(dirp))
        return REAL(readdir)(dirp);
    return danaus_readdir(dirp);
}

DANAUS_EXPORT struct dirent64 *readdir64(DIR *dirp)
{
    if (!dirstream_owns(dirp))
        return REAL(readdir64)(dirp);
    return (struct dirent64 *)danaus_readdir(dirp);
}

/* readdir_r is deprecated in glibc's headers; programs still call it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
DANAUS_EXPORT int readdir_r(DIR *restrict dirp, struct dirent *restrict entry,
                            struct dirent **restrict result)
{
    if (!dirstream_owns(dirp))
        return REAL(readdir_r)(dirp, entry, result);
    return danaus_readdir_r(dirp, entry, result);
}

DANAUS_EXPORT int readdir64_r(DIR *restrict dirp,
                              struct dirent64 *restrict entry,
                              struct dirent64 **restrict result)
{
    if (!dirstream_owns(dirp))
        return REAL(readdir64_r)(dirp, entry, result);
    return danaus_readdir_r(dirp, (struct dirent *)entry,
                            (struct dirent **)result);
}
#pragma GCC diagnostic pop

DANAUS_EXPORT int closedir(DIR *dirp)
{
    if (!dirstream_owns(dirp))
        return REAL(closedir)(dirp);
    return danaus_closedir(dirp);
}

DANAUS_EXPORT void rewinddir(DIR *dirp)
{
    if (!dirstream_owns(dirp))
        REAL(rewinddir)(dirp);
    else
        danaus_rewinddir(dirp);
}

DANAUS_EXPORT void seekdir(DIR *dirp, long int loc)
{
    if (!dirstream_owns(dirp))
        REAL(seekdir)(dirp, loc);
    else
        danaus_seekdir(dirp, loc);
}

DANAUS_EXPORT long int telldir(DIR *dirp)
{
    if (!dirstream_owns(dirp))
        return REAL(telldir)(dirp);
    return danaus_telldir(dirp);
}

DANAUS_EXPORT int dirfd(DIR *dirp)
{
    if (!dirstream_owns(dirp))
        return REAL(dirfd)(dirp);
    return danaus_dirfd(dirp);
}

DANAUS_EXPORT int scandir(const char *restrict dir,
                          struct dirent ***restrict namelist,
                          int (*selector)(const struct dirent *),
                          int (*cmp)(const struct dirent **,
                                     const struct dirent **))
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, dir))
        return REAL(scandir)(route_kernel_path(AT_FDCWD, dir, k), namelist,
                             selector, cmp);
    return danaus_scandir(dir, namelist, selector, cmp);
}

DANAUS_EXPORT int scandirat(int dfd, const char *restrict dir,
                            struct dirent ***restrict namelist,
                            int (*selector)(const struct dirent *),
                            int (*cmp)(const struct dirent **,
                                       const struct dirent **))
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dfd, dir))
        return REAL(scandirat)(dfd, route_kernel_path(dfd, dir, k), namelist,
                               selector, cmp);
    return danaus_scandirat(dfd, dir, namelist, selector, cmp);
}

/* The 64 variants pass callbacks on struct dirent64 where ours take struct
 * dirent: the same layout (asserted above), as glibc itself treats them on
 * x86-64, where scandir64 is an alias of scandir. The casts go through
 * void (*)(void), the generic function pointer type. */
typedef int (*selector_fn)(const struct dirent *);
typedef int (*cmp_fn)(const struct dirent **, const struct dirent **);

DANAUS_EXPORT int scandir64(const char *restrict dir,
                            struct dirent64 ***restrict namelist,
                            int (*selector)(const struct dirent64 *),
                            int (*cmp)(const struct dirent64 **,
                                       const struct dirent64 **))
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, dir))
        return REAL(scandir64)(route_kernel_path(AT_FDCWD, dir, k), namelist,
                               selector, cmp);
    return danaus_scandir(dir, (struct dirent ***)namelist,
                          (selector_fn)(void (*)(void))selector,
                          (cmp_fn)(void (*)(void))cmp);
}

DANAUS_EXPORT int scandirat64(int dfd, const char *restrict dir,
                              struct dirent64 ***restrict namelist,
                              int (*selector)(const struct dirent64 *),
                              int (*cmp)(const struct dirent64 **,
                                         const struct dirent64 **))
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(dfd, dir))
        return REAL(scandirat64)(dfd, route_kernel_path(dfd, dir, k),
                                 namelist, selector, cmp);
    return danaus_scandirat(dfd, dir, (struct dirent ***)namelist,
                            (selector_fn)(void (*)(void))selector,
                            (cmp_fn)(void (*)(void))cmp);
}

DANAUS_EXPORT ssize_t getdents64(int fd, void *buffer, size_t length)
{
    if (!route_fd(fd))
        return REAL(getdents64)(fd, buffer, length);
    return danaus_getdents64(fd, buffer, length);
}
