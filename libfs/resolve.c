/*
 * resolve.c - the directory a relative path starts from, and routing's
 * resolutions handed to the calls that follow (resolve.h).
 */
#include "resolve.h"

#include "cwd.h"
#include "fdtable.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* The directory a relative path starts from, as an absolute path. */
static int base_directory(int dirfd, char *out, size_t size)
{
    if (dirfd == AT_FDCWD) {
        int danaus = cwd_get(out, size);
        if (danaus != 0)
            return danaus > 0 ? 0 : -1;
        if (!sys_getcwd(out, size))
            return -1; /* ERANGE from getcwd means the path is too long */
        return 0;
    }
    if (fdtable_path(dirfd, out, size) == 0)
        return 0;
    if (errno != EBADF)
        return -1;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = sys_readlink(link, out, size);
    if (n < 0) {
        if (errno == ENOENT)
            errno = EBADF;
        return -1;
    }
    if ((size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    out[n] = '\0';
    if (out[0] != '/') { /* "pipe:[...]", "socket:[...]": not a directory */
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* base gets the directory path starts from, when it is relative. */
static int find_base(int dirfd, const char *path,
                     char base[DANAUS_LONG_PATH_MAX])
{
    if (path[0] == '/' || path[0] == '\0')
        return 0;
    if (base_directory(dirfd, base, DANAUS_LONG_PATH_MAX) < 0) {
        if (errno == ERANGE)
            errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int path_resolve(const struct mount_table *t, int dirfd, const char *path,
                 struct resolved_path *out)
{
    char base[DANAUS_LONG_PATH_MAX];
    if (find_base(dirfd, path, base) < 0)
        return -1;
    return path_resolve_from(t, base, path, out);
}

int path_resolve_name(const struct mount_table *t, int dirfd,
                      const char *path, struct resolved_path *out)
{
    char base[DANAUS_LONG_PATH_MAX];
    if (find_base(dirfd, path, base) < 0)
        return -1;
    return path_resolve_name_from(t, base, path, out);
}

/* What routing last resolved on this thread, until a call takes it or
 * routing decides again. rel is kept as an offset: the record is copied
 * out. The path's bytes are kept too: a record is taken only for the same
 * string at the same address. */
static __thread struct {
    bool valid;
    const struct mount_table *table;
    uint32_t version;
    int dirfd;
    const char *path;
    uint32_t mount;
    size_t rel;
    char abs[DANAUS_LONG_PATH_MAX];
    char text[DANAUS_PATH_MAX];
} routed;

int resolve_routed(const struct mount_table *t, int dirfd, const char *path,
                   struct resolved_path *out)
{
    routed.valid = false;
    if (path_resolve(t, dirfd, path, out) < 0)
        return -1;
    routed.table = t;
    routed.version = t->version;
    routed.dirfd = dirfd;
    routed.path = path;
    routed.mount = out->mount;
    routed.rel = (size_t)(out->rel - out->abs);
    strcpy(routed.abs, out->abs);
    strcpy(routed.text, path); /* path_resolve checked its length */
    routed.valid = true;
    return 0;
}

int resolve_for_call(const struct mount_table *t, int dirfd,
                     const char *path, bool name, struct resolved_path *out)
{
    bool kept = routed.valid && routed.path == path &&
                routed.dirfd == dirfd && routed.table == t &&
                routed.version == t->version &&
                (!name || path_names_itself(path)) &&
                strcmp(routed.text, path) == 0;
    routed.valid = false;
    if (!kept)
        return name ? path_resolve_name(t, dirfd, path, out)
                    : path_resolve(t, dirfd, path, out);
    out->mount = routed.mount;
    strcpy(out->abs, routed.abs);
    out->rel = out->abs + routed.rel;
    return 0;
}
