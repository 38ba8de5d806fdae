/*
 * stdio.c - fopen, fdopen and freopen. glibc's fopen opens
 * through its internal open, so a stream on a Danaus file is made here, by
 * danaus_fopen and friends (libfs/api/stdio.c: fopencookie streams whose fileno
 * is the Danaus descriptor). Everything else on a FILE (fprintf, fgets,
 * fseek, fclose, fileno, ...) then works through glibc unchanged.
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

DANAUS_EXPORT FILE *fopen(const char *restrict filename,
                          const char *restrict modes)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, filename))
        return REAL(fopen)(route_kernel_path(AT_FDCWD, filename, k), modes);
    return danaus_fopen(filename, modes);
}

DANAUS_EXPORT FILE *fopen64(const char *restrict filename,
                            const char *restrict modes)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, filename))
        return REAL(fopen64)(route_kernel_path(AT_FDCWD, filename, k), modes);
    return danaus_fopen(filename, modes);
}

DANAUS_EXPORT FILE *fdopen(int fd, const char *modes)
{
    if (!route_fd(fd))
        return REAL(fdopen)(fd, modes);
    return danaus_fdopen(fd, modes);
}

/* Danaus's when the new file is a Danaus path, or, with no path, when the
 * stream is on a Danaus file already (fileno of a stream danaus_fopen made
 * is its Danaus descriptor). */
static bool freopen_is_danaus(const char *filename, FILE *stream)
{
    if (filename)
        return route_path(AT_FDCWD, filename);
    if (!route_enabled())
        return false;
    int saved = errno;
    bool ours = route_fd(fileno(stream));
    errno = saved;
    return ours;
}

DANAUS_EXPORT FILE *freopen(const char *restrict filename,
                            const char *restrict modes,
                            FILE *restrict stream)
{
    char k[DANAUS_PATH_MAX];
    if (!freopen_is_danaus(filename, stream))
        return REAL(freopen)(route_kernel_path(AT_FDCWD, filename, k), modes,
                             stream);
    return danaus_freopen(filename, modes, stream);
}

DANAUS_EXPORT FILE *freopen64(const char *restrict filename,
                              const char *restrict modes,
                              FILE *restrict stream)
{
    char k[DANAUS_PATH_MAX];
    if (!freopen_is_danaus(filename, stream))
        return REAL(freopen64)(route_kernel_path(AT_FDCWD, filename, k), modes,
                               stream);
    return danaus_freopen(filename, modes, stream);
}
