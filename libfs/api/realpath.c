/*
 * realpath.c - danaus_realpath: the canonical absolute path of a file,
 * with every ".", ".." and symbolic link resolved, as realpath(3) gives it.
 *
 * The kernel cannot resolve a path that crosses into a Danaus mount, and the
 * service sees only its own instances, so the walk is done here one
 * component at a time: a prefix on a Danaus mount is examined through the
 * service (lstat, readlink), any other prefix through the kernel. A link may
 * lead from one side to the other.
 */
#include "libfs/cwd.h"
#include "libfs/export.h"
#include "libfs/mounts.h"
#include "libfs/service.h"
#include "libfs/sys.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Linux's limit on links followed in one resolution (MAXSYMLINKS). */

static bool on_danaus(const char *abs)
{
    const struct mount_table *mounts = service_mounts();
    const char *rel;
    int saved = errno;
    bool ours = mounts && mount_table_match(mounts, abs, &rel) >= 0;
    errno = saved;
    return ours;
}

static int lstat_any(const char *abs, struct stat *st)
{
    return on_danaus(abs) ? danaus_lstat(abs, st) : sys_lstat(abs, st);
}

static ssize_t readlink_any(const char *abs, char *buf, size_t size)
{
    return on_danaus(abs) ? danaus_readlink(abs, buf, size)
                          : sys_readlink(abs, buf, size);
}

/* Drops the last component of the absolute path out (n bytes); "/" stays. */
static size_t drop_last(char *out, size_t n)
{
    while (n > 1 && out[n - 1] != '/')
        n--;
    if (n > 1)
        n--;
    out[n] = '\0';
    return n;
}

/* Follows the link at out (n bytes): its target, then what remained after
 * it, become the rest to walk; out drops the link's name (or becomes "/"
 * for an absolute target). Returns out's new length, or -1 with errno. */
static ssize_t follow(char *out, size_t n, char *rest, const char *after)
{
    char target[PATH_MAX];
    ssize_t len = readlink_any(out, target, sizeof target - 1);
    if (len < 0)
        return -1;
    /* after is empty or starts with the '/' that followed the link. */
    size_t tail = strlen(after);
    if ((size_t)len + tail + 1 > PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(target + len, after, tail + 1);
    strcpy(rest, target);
    if (rest[0] == '/') {
        out[1] = '\0';
        return 1;
    }
    return (ssize_t)drop_last(out, n);
}

/* The walk: out starts as the directory a relative path starts from. */
static int resolve(const char *path, char out[PATH_MAX])
{
    char rest[PATH_MAX];
    int links = 0;
    size_t n;
    if (strlen(path) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(rest, path);
    if (path[0] == '/') {
        strcpy(out, "/");
    } else {
        int danaus = cwd_get(out, PATH_MAX);
        if (danaus < 0 || (danaus == 0 && !sys_getcwd(out, PATH_MAX)))
            return -1;
    }
    n = strlen(out);
    const char *p = rest;
    for (;;) {
        while (*p == '/')
            p++;
        if (*p == '\0')
            return 0;
        const char *name = p;
        while (*p && *p != '/')
            p++;
        size_t len = (size_t)(p - name);
        if (len == 1 && name[0] == '.')
            continue;
        if (len == 2 && name[0] == '.' && name[1] == '.') {
            n = drop_last(out, n);
            continue;
        }
        if (n + 1 + len + 1 > PATH_MAX) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (n > 1)
            out[n++] = '/';
        memcpy(out + n, name, len);
        n += len;
        out[n] = '\0';
        struct stat st;
        if (lstat_any(out, &st) < 0)
            return -1;
        if (S_ISLNK(st.st_mode)) {
            if (++links > DANAUS_MAX_SYMLINKS) {
                errno = ELOOP;
                return -1;
            }
            char after[PATH_MAX];
            strcpy(after, p);
            ssize_t m = follow(out, n, rest, after);
            if (m < 0)
                return -1;
            n = (size_t)m;
            p = rest;
        } else if (!S_ISDIR(st.st_mode) && *p != '\0') {
            errno = ENOTDIR; /* "file/" or "file/more" */
            return -1;
        }
    }
}

DANAUS_EXPORT char *danaus_realpath(const char *path, char *resolved_path)
{
    char out[PATH_MAX];
    if (!path) {
        errno = EINVAL;
        return NULL;
    }
    if (path[0] == '\0') {
        errno = ENOENT;
        return NULL;
    }
    if (!service_get() || resolve(path, out) < 0)
        return NULL;
    if (!resolved_path)
        return strdup(out);
    return strcpy(resolved_path, out);
}
