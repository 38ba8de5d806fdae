/*
 * views.c - per-container mount views (views.h).
 *
 * A mount namespace is named by the device and inode of its nsfs file,
 * /proc/PID/ns/mnt (namespaces(7): two processes are in the same namespace
 * exactly when these are equal). Inode numbers of nsfs are reused once a
 * namespace is gone, which is why a view holds its namespace open.
 *
 * Whose namespace: the connecting process's, through a pidfd of it (the
 * socket's SO_PEERPIDFD, door.c), never through a pid number, which the
 * process may leave and another take (connect, fork, exit: the child's
 * hello once named a pid nobody had, whose namespace could not be read,
 * and got every mount). From Linux 6.11 the pidfd gives the namespace
 * itself (PIDFD_GET_MNT_NAMESPACE); before, /proc/PID/ns/mnt is opened
 * and then the pidfd must still refer to a live process, so that PID was
 * its pid throughout.
 */
#include "views.h"
#include "fsservice/core/fstable.h"

#include <danaus/wire.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PIDFD_GET_MNT_NAMESPACE
#define PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3) /* linux/pidfd.h, 6.11 */
#endif

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

/* The pid of the process pidfd refers to (its fdinfo's Pid line): > 0,
 * or -ESRCH once it has exited, or -errno. */
static pid_t pidfd_pid(int pidfd)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -EIO;
    buf[n] = '\0';
    const char *line = strstr(buf, "\nPid:");
    int pid;
    if (!line || sscanf(line + 5, "%d", &pid) != 1)
        return -EIO;
    return pid > 0 ? pid : -ESRCH;
}

int views_pidfd_ns(int pidfd)
{
    int ns = ioctl(pidfd, PIDFD_GET_MNT_NAMESPACE, 0);
    if (ns >= 0) {
        fcntl(ns, F_SETFD, FD_CLOEXEC);
        return ns;
    }
    if (errno != ENOTTY && errno != EINVAL && errno != EOPNOTSUPP)
        return -errno;
    pid_t pid = pidfd_pid(pidfd);
    if (pid < 0)
        return pid;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
    ns = open(path, O_RDONLY | O_CLOEXEC);
    if (ns < 0)
        return errno == ENOENT ? -ESRCH : -errno;
    /* Alive now, so pid was its pid when the namespace was opened. */
    if (pidfd_send_signal(pidfd, 0, NULL, 0) < 0) {
        int e = errno;
        close(ns);
        return -e;
    }
    return ns;
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

long views_hello(struct views *v, int ns_fd, char *out, size_t cap,
                 uint32_t *n)
{
    struct stat st;
    if (fstat(ns_fd, &st) < 0)
        return -errno;
    struct view *w = find(v, &st);
    if (!w)
        return -ENOENT;
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
