/*
 * at.c - routing helpers of the path and metadata interposers
 * (see at.h).
 */
#include "at.h"

#include "libfs/cwd.h"
#include "libfs/mounts.h"
#include "libfs/route.h"
#include "libfs/usermem.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

bool route_at(int dirfd, const char *path, int flags)
{
    if ((flags & AT_EMPTY_PATH) && usermem_string(path, DANAUS_PATH_MAX) &&
        path[0] == '\0')
        return dirfd == AT_FDCWD ? route_path(AT_FDCWD, ".")
                                 : route_fd(dirfd);
    return route_path(dirfd, path);
}

const char *kernel_path(int dirfd, const char *path,
                        char buf[DANAUS_PATH_MAX])
{
    char joined[2 * DANAUS_PATH_MAX];
    if (!route_enabled() || dirfd != AT_FDCWD ||
        !usermem_string(path, DANAUS_PATH_MAX) || path[0] == '/' ||
        path[0] == '\0')
        return path;
    /* A path too long to join stays as it is: the kernel reports it. */
    if (strnlen(path, DANAUS_PATH_MAX) >= DANAUS_PATH_MAX)
        return path;
    int saved = errno;
    const char *out = path;
    if (cwd_get(joined, DANAUS_PATH_MAX) == 1) {
        size_t n = strlen(joined);
        joined[n] = '/';
        strcpy(joined + n + 1, path);
        if (path_normalize(joined, buf, DANAUS_PATH_MAX) == 0)
            out = buf;
    }
    errno = saved;
    return out;
}
