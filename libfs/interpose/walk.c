/*
 * walk.c - ftw and nftw. glibc's walk opens, reads and stats through its
 * internal calls, so a walk that starts on a Danaus mount is done by
 * danaus_ftw and danaus_nftw (libfs/api/walk.c); any other goes to libc.
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

DANAUS_EXPORT int ftw(const char *dir, __ftw_func_t func, int descriptors)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, dir))
        return REAL(ftw)(route_kernel_path(AT_FDCWD, dir, k), func,
                         descriptors);
    return danaus_ftw(dir, func, descriptors);
}

DANAUS_EXPORT int nftw(const char *dir, __nftw_func_t func, int descriptors,
                       int flag)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, dir))
        return REAL(nftw)(route_kernel_path(AT_FDCWD, dir, k), func,
                          descriptors, flag);
    return danaus_nftw(dir, func, descriptors, flag);
}

/* The 64 variants' callbacks take struct stat64, which on x86-64 is struct
 * stat (glibc makes ftw64 an alias of ftw there). The casts go through
 * void (*)(void), the generic function pointer type. */
_Static_assert(sizeof(struct stat) == sizeof(struct stat64),
               "struct stat and struct stat64 differ");

DANAUS_EXPORT int ftw64(const char *dir, __ftw64_func_t func, int descriptors)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, dir))
        return REAL(ftw64)(route_kernel_path(AT_FDCWD, dir, k), func,
                           descriptors);
    return danaus_ftw(dir, (__ftw_func_t)(void (*)(void))func, descriptors);
}

DANAUS_EXPORT int nftw64(const char *dir, __nftw64_func_t func,
                         int descriptors, int flag)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, dir))
        return REAL(nftw64)(route_kernel_path(AT_FDCWD, dir, k), func,
                            descriptors, flag);
    return danaus_nftw(dir, (__nftw_func_t)(void (*)(void))func, descriptors,
                       flag);
}
