/*
 * path.c - in-root path resolution for the local backend.
 *
 * glibc 2.36 has no openat2 wrapper, so it is called through syscall(2).
 * Measured here (kernel 6.18): with RESOLVE_IN_ROOT, "abs -> /etc" and
 * "rel -> ../../../etc" both resolve inside the root (ENOENT for
 * "abs/passwd"), a self-referencing symlink gives ELOOP, and the empty path
 * gives ENOENT, which is why "" is sent as ".". openat2 refuses a path of
 * PATH_MAX bytes or more (ENAMETOOLONG), which is why longer ones are
 * resolved in pieces (path.h).
 */
#include "path.h"
#include "fsservice/libservice/libservice.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_how(int root_fd, const char *path, int flags, mode_t mode,
                    unsigned long long resolve)
{
    struct open_how how = {
        .flags = (unsigned long long)flags,
        .mode = mode,
        .resolve = resolve,
    };
    long fd = syscall(SYS_openat2, root_fd, *path ? path : ".", &how,
                      sizeof how);
    return fd < 0 ? -errno : (int)fd;
}

/* Appends "/" and len bytes of name to out (an in-root path). */
static int append(char *out, const char *name, size_t len)
{
    size_t n = strlen(out);
    if (n + 1 + len >= PATH_MAX)
        return -ENAMETOOLONG;
    out[n] = '/';
    memcpy(out + n + 1, name, len);
    out[n + 1 + len] = '\0';
    return 0;
}

/*
 * Rewrites path into out, a path from the root with no symlink in it (but
 * the last component when follow_last is false), walking it one component
 * at a time as the kernel would and treating an absolute target under the
 * mount point as a path from the instance root. Only components that exist
 * are walked: from the first missing one on, the rest is copied as it is,
 * for the final call to fail on as the kernel's walk would.
 */
static int canonical(int root_fd, const char *prefix, const char *path,
                     bool follow_last, char *out)
{
    char todo[2 * PATH_MAX];
    if (strlen(path) >= sizeof todo / 2)
        return -ENAMETOOLONG;
    strcpy(todo, path);
    out[0] = '\0';
    int links = 0;
    const char *p = todo;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p) /* a trailing slash keeps its meaning: a directory */
            return p > todo && p[-1] == '/' ? append(out, "", 0) : 0;
        size_t len = strcspn(p, "/");
        const char *after = p + len;
        const char *q = after;
        while (*q == '/')
            q++;
        bool last = !*q;
        if (len == 1 && p[0] == '.') {
            p = after;
            continue;
        }
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            char *slash = strrchr(out, '/');
            *(slash ? slash : out) = '\0';
            p = after;
            continue;
        }
        size_t base = strlen(out);
        int rc = append(out, p, len);
        if (rc < 0)
            return rc;
        if (last && !follow_last && *after != '/')
            return 0;
        int fd = open_how(root_fd, out, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0,
                          RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISLNK(st.st_mode)) {
            close(fd);
            p = after;
            continue;
        }
        char target[PATH_MAX];
        ssize_t n = fd < 0 ? -1 : readlinkat(fd, "", target, sizeof target);
        if (fd >= 0)
            close(fd);
        if (n < 0 || (size_t)n >= sizeof target) {
            /* Missing: the rest as it is, for the final call to refuse. */
            if (strlen(out) + strlen(after) >= PATH_MAX)
                return -ENAMETOOLONG;
            strcat(out, after);
            return 0;
        }
        target[n] = '\0';
        if (++links > DANAUS_MAX_SYMLINKS)
            return -ELOOP;
        const char *next = target;
        if (target[0] == '/') {
            next = ls_link_target(prefix, target);
            out[0] = '\0';
        } else {
            out[base] = '\0';
        }
        char rest[PATH_MAX];
        if (strlen(after) >= sizeof rest)
            return -ENAMETOOLONG;
        strcpy(rest, after);
        if (snprintf(todo, sizeof todo, "%s%s", next, rest) >=
            (int)sizeof todo)
            return -ENAMETOOLONG;
        p = todo;
    }
}

/* Opens path, which holds a symbolic link (RESOLVE_NO_SYMLINKS refused it). */
static int open_through_links(int root_fd, const char *link_prefix,
                              const char *path, int flags, mode_t mode)
{
    if (!link_prefix)
        return open_how(root_fd, path, flags, mode, RESOLVE_IN_ROOT);
    bool follow_last = !(flags & O_NOFOLLOW) &&
                       !((flags & O_CREAT) && (flags & O_EXCL));
    char walked[PATH_MAX];
    int rc = canonical(root_fd, link_prefix, path, follow_last, walked);
    if (rc < 0)
        return rc;
    return open_how(root_fd, walked, flags, mode, RESOLVE_IN_ROOT);
}

/* Where the next piece of a long path ends: its last '/' below PATH_MAX,
 * or 0 when there is none (a name longer than NAME_MAX). */
static size_t piece_end(const char *path)
{
    size_t cut = PATH_MAX - 1;
    while (cut > 0 && path[cut] != '/')
        cut--;
    return cut;
}

/* The directory the first piece of path leads to in the root, or the
 * next piece beneath dir_fd; -EXDEV from beneath becomes -ENAMETOOLONG:
 * the piece needed a directory above the one it starts from. */
static int open_piece(int root_fd, const char *link_prefix, int dir_fd,
                      const char *piece, int flags, mode_t mode)
{
    if (dir_fd < 0) {
        bool via_links;
        return local_open_dir_in_root(root_fd, link_prefix, piece,
                                      &via_links);
    }
    int fd = open_how(dir_fd, piece, flags, mode, RESOLVE_BENEATH);
    return fd == -EXDEV ? -ENAMETOOLONG : fd;
}

/* open of path, PATH_MAX bytes or longer, piece by piece (path.h). */
static int open_long(int root_fd, const char *link_prefix, const char *path,
                     int flags, mode_t mode)
{
    char piece[PATH_MAX];
    int dir_fd = -1;
    for (;;) {
        if (dir_fd >= 0 && strlen(path) < PATH_MAX) {
            int fd = open_piece(root_fd, link_prefix, dir_fd, path, flags,
                                mode);
            close(dir_fd);
            return fd;
        }
        size_t cut = piece_end(path);
        if (cut == 0) {
            if (dir_fd >= 0)
                close(dir_fd);
            return -ENAMETOOLONG;
        }
        memcpy(piece, path, cut);
        piece[cut] = '\0';
        int next = open_piece(root_fd, link_prefix, dir_fd, piece,
                              O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
        if (dir_fd >= 0)
            close(dir_fd);
        if (next < 0)
            return next;
        dir_fd = next;
        /* The rest without its leading slashes; "" (the path ended in
         * slashes) is the directory itself. */
        path += cut;
        while (*path == '/')
            path++;
    }
}

int local_open_in_root(int root_fd, const char *link_prefix, const char *path,
                       int flags, mode_t mode)
{
    if (strnlen(path, PATH_MAX) >= PATH_MAX)
        return open_long(root_fd, link_prefix, path, flags, mode);
    if (!link_prefix)
        return open_how(root_fd, path, flags, mode, RESOLVE_IN_ROOT);
    /* Most paths hold no symlink: one call. */
    int fd = open_how(root_fd, path, flags, mode,
                      RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS);
    if (fd != -ELOOP)
        return fd;
    return open_through_links(root_fd, link_prefix, path, flags, mode);
}

int local_open_dir_in_root(int root_fd, const char *link_prefix,
                           const char *path, bool *via_links)
{
    int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    if (strnlen(path, PATH_MAX) >= PATH_MAX) {
        *via_links = true; /* as far as anyone can tell */
        return open_long(root_fd, link_prefix, path, flags, 0);
    }
    int fd = open_how(root_fd, path, flags, 0,
                      RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS);
    *via_links = fd == -ELOOP;
    if (!*via_links)
        return fd;
    return open_through_links(root_fd, link_prefix, path, flags, 0);
}
