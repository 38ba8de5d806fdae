/*
 * mounts.c - mount table and path resolution (see mounts.h).
 *
 * Normalization is lexical, as the kernel's own resolution is not available
 * for paths the kernel never sees: "a/link/.." drops "link" even if it is a
 * symlink. The service resolves symlinks inside the instance.
 */
#include "mounts.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* Appends the components of s to out, which holds *n bytes without a
 * trailing '/': "." and empty ones dropped, ".." dropping the last one
 * (none left: it stays at "/"). 0, or -1 with errno ENAMETOOLONG. */
static int append_components(char *out, size_t *np, size_t size,
                             const char *s)
{
    size_t n = *np;
    const char *p = s;
    while (*p) {
        while (*p == '/')
            p++;
        const char *start = p;
        while (*p && *p != '/')
            p++;
        size_t len = (size_t)(p - start);
        if (len == 0 || (len == 1 && start[0] == '.'))
            continue;
        if (len == 2 && start[0] == '.' && start[1] == '.') {
            while (n > 0 && out[n - 1] != '/')
                n--;
            if (n > 0)
                n--; /* the '/' before the dropped component */
            continue;
        }
        if (n + 1 + len + 1 > size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        out[n++] = '/';
        memcpy(out + n, start, len);
        n += len;
    }
    *np = n;
    return 0;
}

/* The lexical normal form of base (absolute) joined with path (NULL:
 * none), as path_normalize gives it, without joining them first. */
static int normalize_joined(const char *base, const char *path, char *out,
                            size_t size)
{
    if (base[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    if (size < 2) {
        errno = ENAMETOOLONG;
        return -1;
    }
    size_t n = 0;
    if (append_components(out, &n, size, base) < 0 ||
        (path && append_components(out, &n, size, path) < 0))
        return -1;
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    return 0;
}

int path_normalize(const char *abs, char *out, size_t size)
{
    return normalize_joined(abs, NULL, out, size);
}

int mount_table_add(struct mount_table *t, const char *path, uint32_t index)
{
    char norm[DANAUS_PATH_MAX];
    if (t->count >= DANAUS_MAX_MOUNTS) {
        errno = EINVAL;
        return -1;
    }
    if (path_normalize(path, norm, sizeof norm) < 0)
        return -1;
    size_t len = strlen(norm);
    if (len + 1 > sizeof t->store - t->used) {
        errno = ENOSPC;
        return -1;
    }
    char *copy = t->store + t->used;
    memcpy(copy, norm, len + 1);
    t->used += len + 1;
    t->path[t->count] = copy;
    t->len[t->count] = len;
    t->index[t->count] = index;
    t->count++;
    return 0;
}

void mount_table_clear(struct mount_table *t)
{
    t->version++;
    t->count = 0;
    t->used = 0;
}

int mount_table_match(const struct mount_table *t, const char *norm,
                      const char **rel)
{
    int best = -1;
    size_t best_len = 0;
    for (uint32_t i = 0; i < t->count; i++) {
        const char *m = t->path[i];
        size_t len = t->len[i];
        bool is_root = len == 1; /* "/" prefixes every path */
        if (!is_root &&
            (strncmp(norm, m, len) != 0 ||
             (norm[len] != '\0' && norm[len] != '/')))
            continue;
        if (best < 0 || len > best_len) {
            best = (int)i;
            best_len = len;
        }
    }
    if (best < 0 || t->index[best] == DANAUS_MOUNT_KERNEL) {
        errno = EXDEV;
        return -1;
    }
    const char *r = norm + (best_len == 1 ? 0 : best_len);
    while (*r == '/')
        r++;
    *rel = r;
    return (int)t->index[best];
}

int path_resolve_from(const struct mount_table *t, const char *base,
                      const char *path, struct resolved_path *out)
{
    if (path[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
    /* The kernel's rule on one path argument; the directory a relative
     * one starts from may be deeper (a descriptor opened by a long path),
     * up to what the wire carries. */
    if (strnlen(path, DANAUS_PATH_MAX) >= DANAUS_PATH_MAX ||
        (path[0] != '/' &&
         strnlen(base, DANAUS_LONG_PATH_MAX) >= DANAUS_LONG_PATH_MAX)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int rc = path[0] == '/'
                 ? path_normalize(path, out->abs, sizeof out->abs)
                 : normalize_joined(base, path, out->abs, sizeof out->abs);
    if (rc < 0)
        return -1;
    int m = mount_table_match(t, out->abs, &out->rel);
    if (m < 0)
        return -1;
    out->mount = (uint32_t)m;
    return 0;
}

/* Where path's last component starts, its length, whether it is "." or
 * "..", and whether a '/' follows it. */
static bool last_is_dots(const char *path, size_t *start, size_t *len,
                         bool *slash)
{
    size_t end = strlen(path), stop = end;
    while (stop > 0 && path[stop - 1] == '/')
        stop--;
    size_t first = stop;
    while (first > 0 && path[first - 1] != '/')
        first--;
    *start = first;
    *len = stop - first;
    *slash = stop > 0 && stop < end;
    return (*len == 1 && path[first] == '.') ||
           (*len == 2 && path[first] == '.' && path[first + 1] == '.');
}

bool path_names_itself(const char *path)
{
    size_t start, len;
    bool slash;
    return !last_is_dots(path, &start, &len, &slash) && !slash;
}

int path_resolve_name_from(const struct mount_table *t, const char *base,
                           const char *path, struct resolved_path *out)
{
    if (path_resolve_from(t, base, path, out) < 0)
        return -1;
    size_t start, len;
    bool slash;
    bool dots = last_is_dots(path, &start, &len, &slash);
    if (!dots && !slash)
        return 0;
    uint32_t mount = out->mount;
    if (dots) {
        /* The directory the dots are in, resolved as usual. */
        char parent[DANAUS_PATH_MAX];
        memcpy(parent, path, start);
        strcpy(parent + start, start == 0 ? "." : "");
        if (path_resolve_from(t, base, parent, out) < 0 ||
            out->mount != mount)
            return path_resolve_from(t, base, path, out);
    }
    size_t n = strlen(out->abs), rel = (size_t)(out->rel - out->abs);
    if (n + 1 + len + 2 > sizeof out->abs) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (dots) {
        bool at_root = out->rel[0] == '\0';
        if (out->abs[n - 1] != '/')
            out->abs[n++] = '/';
        if (at_root)
            rel = n; /* the dots are all of the instance-relative path */
        memcpy(out->abs + n, path + start, len);
        n += len;
    }
    if (slash && n > rel)
        out->abs[n++] = '/';
    out->abs[n] = '\0';
    out->rel = out->abs + rel;
    return 0;
}

int path_moved(const char *path, const char *from, const char *to, char *out,
               size_t size)
{
    size_t lf = strlen(from);
    if (strncmp(path, from, lf) != 0 || (path[lf] != '\0' && path[lf] != '/'))
        return 0;
    size_t lt = strlen(to), rest = strlen(path + lf);
    if (lt + rest >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memmove(out + lt, path + lf, rest + 1); /* out may be path */
    memcpy(out, to, lt);
    return 1;
}
