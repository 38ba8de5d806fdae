/*
 * route.c - deciding, call by call, whether Danaus or the kernel serves it.
 */
#include "route.h"

#include "cwd.h"
#include "fdtable.h"
#include "identity.h"
#include "mounts.h"
#include "resolve.h"
#include "service.h"
#include "usermem.h"

#include <danaus/wire.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* -1 not yet known, then 0 or 1. getenv is safe this early: the
 * environment is in place before any constructor runs. */
static _Atomic int enabled = -1;

bool route_enabled(void)
{
    int e = atomic_load_explicit(&enabled, memory_order_relaxed);
    if (e < 0) {
        const char *name = getenv(DANAUS_ENV_SERVICE);
        e = name && *name;
        atomic_store_explicit(&enabled, e, memory_order_relaxed);
    }
    return e;
}

bool route_fd(int fd)
{
    struct fd_info info;
    return route_enabled() && fdtable_lookup(fd, &info);
}

bool route_path(int dirfd, const char *path)
{
    /* A path that cannot be read is the kernel's, which answers EFAULT. A
     * process that changed its identity since it attached goes through the
     * kernel too, which acts with the identity it has now. */
    if (!route_enabled() || !usermem_string(path, DANAUS_PATH_MAX) ||
        identity_changed())
        return false;
    bool from_danaus_dir =
        path[0] != '/' && dirfd != AT_FDCWD && route_fd(dirfd);
    const struct mount_table *mounts = service_mounts();
    if (!mounts)
        return from_danaus_dir;
    /* Resolution failures (a dirfd that is not a directory, a path too
     * long) are the kernel's to report, with its own errno; from a Danaus
     * directory they are Danaus's, but for a name that leads into what
     * the kernel keeps in the view (a container's /proc, its binds):
     * that is the kernel's, by its absolute path (route_kernel_path). The
     * resolution is kept for the call (resolve.h). */
    int saved = errno;
    struct resolved_path where;
    bool ours = resolve_routed(mounts, dirfd, path, &where) == 0 ||
                (from_danaus_dir && errno != EXDEV);
    errno = saved;
    return ours;
}

bool route_at(int dirfd, const char *path, int flags)
{
    if ((flags & AT_EMPTY_PATH) && usermem_string(path, DANAUS_PATH_MAX) &&
        path[0] == '\0')
        return dirfd == AT_FDCWD ? route_path(AT_FDCWD, ".")
                                 : route_fd(dirfd);
    return route_path(dirfd, path);
}

const char *route_kernel_path(int dirfd, const char *path,
                        char buf[DANAUS_PATH_MAX])
{
    char joined[2 * DANAUS_PATH_MAX];
    if (!route_enabled() || !usermem_string(path, DANAUS_PATH_MAX) ||
        path[0] == '/' || path[0] == '\0')
        return path;
    /* A path too long to join stays as it is: the kernel reports it. */
    if (strnlen(path, DANAUS_PATH_MAX) >= DANAUS_PATH_MAX)
        return path;
    int saved = errno;
    const char *out = path;
    int based = dirfd == AT_FDCWD
                    ? cwd_get(joined, DANAUS_PATH_MAX)
                    : fdtable_path(dirfd, joined, DANAUS_PATH_MAX) == 0;
    if (based == 1) {
        size_t n = strlen(joined);
        joined[n] = '/';
        strcpy(joined + n + 1, path);
        if (path_normalize(joined, buf, DANAUS_PATH_MAX) == 0)
            out = buf;
    }
    errno = saved;
    return out;
}
