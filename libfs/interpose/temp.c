/*
 * temp.c - temporary files and directories under LD_PRELOAD:
 * the mkstemp family and mkdtemp (libfs/api/temp.c says why glibc's own cannot
 * create on Danaus). A template on a Danaus path goes to its danaus_*
 * twin, every other one to libc unchanged.
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* While a Danaus cwd is set, a relative kernel template is handed to libc
 * as an absolute copy (kernel_path); libc fills in the copy's X's, which
 * are copied back: the last 6 + suffixlen bytes of both strings. */
static void copy_back(char *tmpl, const char *used, int suffixlen)
{
    if (used == tmpl)
        return;
    size_t tail = 6 + (size_t)suffixlen;
    memcpy(tmpl + strlen(tmpl) - tail, used + strlen(used) - tail, tail);
}

static int kernel_mkostemps(char *tmpl, int suffixlen, int flags)
{
    char buf[DANAUS_PATH_MAX];
    char *used = (char *)route_kernel_path(AT_FDCWD, tmpl, buf);
    int fd = REAL(mkostemps)(used, suffixlen, flags);
    if (fd >= 0)
        copy_back(tmpl, used, suffixlen);
    return fd;
}

DANAUS_EXPORT int mkstemp(char *tmpl)
{
    if (!route_path(AT_FDCWD, tmpl))
        return kernel_mkostemps(tmpl, 0, 0);
    return danaus_mkstemp(tmpl);
}

DANAUS_EXPORT int mkstemp64(char *tmpl)
{
    if (!route_path(AT_FDCWD, tmpl))
        return kernel_mkostemps(tmpl, 0, 0);
    return danaus_mkstemp(tmpl);
}

DANAUS_EXPORT int mkostemp(char *tmpl, int flags)
{
    if (!route_path(AT_FDCWD, tmpl))
        return kernel_mkostemps(tmpl, 0, flags);
    return danaus_mkostemp(tmpl, flags);
}

DANAUS_EXPORT int mkostemp64(char *tmpl, int flags)
{
    if (!route_path(AT_FDCWD, tmpl))
        return kernel_mkostemps(tmpl, 0, flags);
    return danaus_mkostemp(tmpl, flags);
}

DANAUS_EXPORT int mkstemps(char *tmpl, int suffixlen)
{
    if (!route_path(AT_FDCWD, tmpl))
        return kernel_mkostemps(tmpl, suffixlen, 0);
    return danaus_mkstemps(tmpl, suffixlen);
}

DANAUS_EXPORT int mkstemps64(char *tmpl, int suffixlen)
{
    if (!route_path(AT_FDCWD, tmpl))
        return kernel_mkostemps(tmpl, suffixlen, 0);
    return danaus_mkstemps(tmpl, suffixlen);
}

DANAUS_EXPORT int mkostemps(char *tmpl, int suffixlen, int flags)
{
    if (!route_path(AT_FDCWD, tmpl))
        return kernel_mkostemps(tmpl, suffixlen, flags);
    return danaus_mkostemps(tmpl, suffixlen, flags);
}

DANAUS_EXPORT int mkostemps64(char *tmpl, int suffixlen, int flags)
{
    if (!route_path(AT_FDCWD, tmpl))
        return kernel_mkostemps(tmpl, suffixlen, flags);
    return danaus_mkostemps(tmpl, suffixlen, flags);
}

DANAUS_EXPORT char *mkdtemp(char *tmpl)
{
    if (!route_path(AT_FDCWD, tmpl)) {
        char buf[DANAUS_PATH_MAX];
        char *used = (char *)route_kernel_path(AT_FDCWD, tmpl, buf);
        if (!REAL(mkdtemp)(used))
            return NULL;
        copy_back(tmpl, used, 0);
        return tmpl;
    }
    return danaus_mkdtemp(tmpl);
}
