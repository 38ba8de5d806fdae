/*
 * path.c - in-root path resolution for the local backend.
 *
 * glibc 2.36 has no openat2 wrapper, so it is called through syscall(2).
 * Measured here (kernel 6.18): with RESOLVE_IN_ROOT, "abs -> /etc" and
 * "rel -> ../../../etc" both resolve inside the root (ENOENT for
 * "abs/passwd"), a self-referencing symlink gives ELOOP, and the empty path
 * gives ENOENT, which is why "" is sent as ".".
 */
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int local_open_in_root(int root_fd, const char *path, int flags, mode_t mode)
{
    struct open_how how = {
        .flags = (unsigned long long)flags,
        .mode = mode,
        .resolve = RESOLVE_IN_ROOT,
    };
    long fd = syscall(SYS_openat2, root_fd, *path ? path : ".", &how,
                      sizeof how);
    return fd < 0 ? -errno : (int)fd;
}

int local_name_resolve(int root_fd, const char *path, struct local_name *out)
{
    size_t end = strlen(path);
    while (end > 0 && path[end - 1] == '/')
        end--;
    if (end == 0) {
        out->dir_fd = -1;
        out->kind = LOCAL_LAST_ROOT;
        out->name = path;
        return 0;
    }

    size_t start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    const char *last = path + start;
    size_t len = end - start;
    if (len == 1 && last[0] == '.')
        out->kind = LOCAL_LAST_DOT;
    else if (len == 2 && last[0] == '.' && last[1] == '.')
        out->kind = LOCAL_LAST_DOTDOT;
    else
        out->kind = LOCAL_LAST_NAME;
    out->name = last;

    char parent[PATH_MAX];
    if (start >= sizeof parent)
        return -ENAMETOOLONG;
    memcpy(parent, path, start);
    parent[start] = '\0';
    int fd = local_open_in_root(root_fd, parent,
                                O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0)
        return fd;
    out->dir_fd = fd;
    return 0;
}

void local_name_release(struct local_name *name)
{
    if (name->dir_fd >= 0)
        close(name->dir_fd);
    name->dir_fd = -1;
}
