/*
 * hostpath.c - a host path resolved once, following only root's symlinks
 * (hostpath.h).
 */
#include "hostpath.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Moves the first component of *rest into name: 1, 0 when none is left,
 * -1 (ENAMETOOLONG) for one longer than a name can be. */
static int next_component(char **rest, char *name)
{
    char *p = *rest;
    while (*p == '/')
        p++;
    size_t len = strcspn(p, "/");
    if (len == 0)
        return 0;
    if (len > NAME_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(name, p, len);
    name[len] = '\0';
    *rest = p + strcspn(p, "/");
    return 1;
}

/* Replaces what is left to walk with target followed by rest (which may
 * lie in walk: it is joined in a buffer of its own first). */
static int join_rest(char *walk, size_t size, const char *target,
                     const char *rest)
{
    char joined[2 * PATH_MAX];
    int n = snprintf(joined, sizeof joined, "%s/%s", target, rest);
    if (n < 0 || (size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(walk, joined, (size_t)n + 1);
    return 0;
}

int hostpath_open(const char *path)
{
    if (path[0] != '/')
        return fail("%s: expected an absolute path", path);
    char walk[2 * PATH_MAX], name[NAME_MAX + 1];
    snprintf(walk, sizeof walk, "%s", path);
    char *rest = walk;
    int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int links = 0, more = 0;
    while (dir >= 0 && (more = next_component(&rest, name)) > 0) {
        int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
            int err = errno;
            if (fd >= 0)
                close(fd);
            close(dir);
            errno = err;
            return fail_errno("%s", path);
        }
        if (!S_ISLNK(st.st_mode)) {
            close(dir);
            dir = fd;
            continue;
        }
        /* Another user's link could be pointed anywhere the user cannot
         * go, with root following it: refused, not followed. */
        char target[PATH_MAX];
        ssize_t n = st.st_uid == 0 && ++links <= DANAUS_MAX_SYMLINKS
                        ? readlinkat(fd, "", target, sizeof target - 1)
                        : -1;
        close(fd);
        if (st.st_uid != 0 || n < 0) {
            close(dir);
            if (st.st_uid != 0)
                return fail("%s: a component (%s) is a symbolic link owned "
                            "by uid %u; only root's are followed",
                            path, name, (unsigned)st.st_uid);
            return fail_errno("%s", path);
        }
        target[n] = '\0';
        if (join_rest(walk, sizeof walk, target, rest) < 0) {
            close(dir);
            return fail_errno("%s", path);
        }
        rest = walk;
        if (target[0] == '/') {
            close(dir);
            dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
    }
    if (dir >= 0 && more < 0) {
        close(dir);
        dir = -1;
    }
    if (dir < 0)
        return fail_errno("%s", path);
    return dir;
}
