/*
 * views.c - per-container mount views (views.h).
 *
 * A mount namespace is named by the device and inode of its nsfs file,
 * /proc/PID/ns/mnt (namespaces(7): two processes are in the same namespace
 * exactly when these are equal). Inode numbers of nsfs are reused once a
 * namespace is gone, which is why a view holds its namespace open.
 */
#include "views.h"
#include "fsservice/core/fstable.h"

#include <danaus/wire.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct view {
    dev_t dev;
    ino_t ino;
    int ns_fd;        /* pins the namespace */
    uint32_t index;   /* the root instance */
    uint32_t n;       /* more entries: */
    char **paths;
    uint32_t *indices; /* an instance, or DANAUS_MOUNT_KERNEL */
    struct view *next;
};

int views_open_ns(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static int ns_of(pid_t pid, struct stat *st)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
    return stat(path, st) < 0 ? -errno : 0;
}

static struct view *find(struct views *v, const struct stat *st)
{
    for (struct view *w = v->list; w; w = w->next)
        if (w->dev == st->st_dev && w->ino == st->st_ino)
            return w;
    return NULL;
}

static void free_view(struct view *w)
{
    for (uint32_t i = 0; i < w->n; i++)
        free(w->paths[i]);
    free(w->paths);
    free(w->indices);
    if (w->ns_fd >= 0)
        close(w->ns_fd);
    free(w);
}

int views_set(struct views *v, int ns_fd, uint32_t index,
              const char *const *paths, const uint32_t *indices, uint32_t n)
{
    /* A view's entries must fit one hello reply, "/" included. */
    if (n >= DANAUS_MAX_MOUNTS)
        return -EINVAL;
    size_t bytes = sizeof(uint32_t) + 2;
    for (uint32_t i = 0; i < n; i++) {
        if (paths[i][0] != '/')
            return -EINVAL;
        bytes += sizeof(uint32_t) + strlen(paths[i]) + 1;
    }
    if (bytes > DANAUS_MOUNTS_BYTES)
        return -EINVAL;
    struct stat mine, st;
    int rc = ns_of(getpid(), &mine);
    if (rc < 0)
        return rc;
    if (fstat(ns_fd, &st) < 0)
        return -errno;
    rc = st.st_dev == mine.st_dev && st.st_ino == mine.st_ino ? -EBUSY
         : find(v, &st)                                       ? -EEXIST
                                                              : 0;
    struct view *w = rc == 0 ? calloc(1, sizeof *w) : NULL;
    if (rc == 0 && (!w || !(w->paths = calloc(n + 1, sizeof(char *))) ||
                    !(w->indices = calloc(n + 1, sizeof(uint32_t)))))
        rc = -ENOMEM;
    if (rc < 0) {
        if (w) {
            free(w->paths);
            free(w->indices);
        }
        free(w);
        return rc;
    }
    w->dev = st.st_dev;
    w->ino = st.st_ino;
    w->ns_fd = ns_fd;
    w->index = index;
    memcpy(w->indices, indices, n * sizeof *indices);
    for (; w->n < n; w->n++)
        if (!(w->paths[w->n] = strdup(paths[w->n]))) {
            w->ns_fd = -1; /* still the caller's */
            free_view(w);
            return -ENOMEM;
        }
    w->next = v->list;
    v->list = w;
    return 0;
}

long views_hello(struct views *v, pid_t pid, char *out, size_t cap,
                 uint32_t *n)
{
    struct stat st;
    struct view *w = v->list && ns_of(pid, &st) == 0 ? find(v, &st) : NULL;
    if (!w)
        return -1;
    /* views_set checked that every entry fits. */
    size_t used = fstable_entry(out, cap, w->index, "/");
    for (uint32_t i = 0; i < w->n; i++)
        used += fstable_entry(out + used, cap - used, w->indices[i],
                              w->paths[i]);
    *n = w->n + 1;
    return (long)used;
}

void views_drop_index(struct views *v, uint32_t index)
{
    for (struct view **p = &v->list; *p;) {
        struct view *w = *p;
        if (w->index != index) {
            p = &w->next;
            continue;
        }
        *p = w->next;
        free_view(w);
    }
}

void views_destroy(struct views *v)
{
    while (v->list) {
        struct view *w = v->list;
        v->list = w->next;
        free_view(w);
    }
}
