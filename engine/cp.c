/*
 * cp.c - danaus cp (cp.h).
 *
 * The container's side of a copy is a child that has joined the
 * container's mount namespace and then its user namespace: it is the
 * container's root, sees the container's mounts and none of the host's,
 * and resolves the container's path with openat2(RESOLVE_IN_ROOT) from
 * the container's root, so that no symbolic link the container made can
 * lead it elsewhere. The host's side is the engine itself, as whoever
 * called it, on the path the caller named. A socket runs between them
 * (tree_stream.h), and each end trusts nothing the other sends: a
 * container can lead neither end to a host file.
 */
#include "cp.h"
#include "fail.h"
#include "query.h"
#include "record.h"
#include "service.h"
#include "state.h"
#include "tree_stream.h"
#include "userns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* One end of the copy: a path, and on the container's side the
 * container's root to resolve it in. */
struct side {
    const char *path;
    int root; /* -1: the host's path, the caller's own */
};

/* "NAME:PATH" names a container's path; a host path with a ':' before
 * its first '/' is written ./a:b, as docker wants it. */
static const char *container_path(const char *arg, char *name, size_t size)
{
    const char *colon = strchr(arg, ':');
    if (!colon || colon == arg || memchr(arg, '/', (size_t)(colon - arg)) ||
        (size_t)(colon - arg) >= size)
        return NULL;
    snprintf(name, size, "%.*s", (int)(colon - arg), arg);
    return colon + 1;
}

/* The side's path (or "" for its start) opened with flags: in the
 * container's root, or the caller's path as the caller names it. */
static int side_open(const struct side *s, const char *path, int flags)
{
    if (s->root < 0)
        return open(*path ? path : ".", flags | O_CLOEXEC);
    struct open_how how = {
        .flags = (unsigned long long)(flags | O_CLOEXEC),
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, s->root, *path ? path : ".", &how,
                        sizeof how);
}

/* path split at its last '/' into its directory (in dir) and name. */
static const char *split(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return snprintf(dir, size, "%s", ""), path;
    snprintf(dir, size, "%.*s", (int)(slash - path + 1), path);
    return slash + 1;
}

/* The name the last component gives an entry: one plain component. */
static int check_last(const char *path, const char *name)
{
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
        strlen(name) > NAME_MAX)
        return fail("cp: '%s': name a file, directory or link, without a "
                    "trailing '/', '.' or '..'", path);
    return 0;
}

static int send_side(int sock, const struct side *s)
{
    char path[PATH_MAX], dir[PATH_MAX];
    size_t len = strlen(s->path);
    while (len > 1 && s->path[len - 1] == '/')
        len--; /* "DIR/" is DIR */
    snprintf(path, sizeof path, "%.*s", (int)len, s->path);
    const char *name = split(path, dir, sizeof dir);
    if (check_last(s->path, name) < 0)
        return -1;
    int fd = side_open(s, dir, O_PATH | O_DIRECTORY);
    if (fd < 0)
        return fail_errno("cp: cannot find '%s'", s->path);
    int rc = tree_send(sock, fd, name, name);
    close(fd);
    return rc;
}

/* Into the destination when it is a directory, else as its name. */
static int receive_side(int sock, const struct side *s)
{
    int fd = side_open(s, s->path, O_RDONLY | O_DIRECTORY);
    const char *name = NULL;
    char dir[PATH_MAX];
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
        name = split(s->path, dir, sizeof dir);
        if (check_last(s->path, name) < 0)
            return -1;
        fd = side_open(s, dir, O_RDONLY | O_DIRECTORY);
    }
    if (fd < 0)
        return fail_errno("cp: cannot find the directory of '%s'", s->path);
    int rc = tree_receive(sock, fd, name);
    close(fd);
    return rc;
}

/* The child: joins the container (mount namespace, then user namespace,
 * which gives up the host's rights), opens its root, and does the
 * container's side. Not dumpable, so the container's processes, of the
 * same user now, cannot trace it. */
static void container_side(int sock, int mnt, int user, const char *path,
                           int sending)
{
    prctl(PR_SET_DUMPABLE, 0);
    int rc = setns(mnt, CLONE_NEWNS) < 0
                 ? fail_errno("cp: cannot join the container's mount "
                              "namespace")
                 : 0;
    if (rc == 0 && user >= 0)
        rc = userns_join(user);
    /* Nothing of the host's stays open: the socket only. */
    close_range(3, (unsigned)sock - 1, 0);
    close_range((unsigned)sock + 1, ~0u, 0);
    struct side s = {path, -1};
    if (rc == 0 && (s.root = open("/", O_PATH | O_DIRECTORY)) < 0)
        rc = fail_errno("cp: cannot open the container's root");
    if (rc < 0) {
        tree_fail(sock, fail_message());
        _exit(1);
    }
    rc = sending ? send_side(sock, &s) : receive_side(sock, &s);
    _exit(rc < 0);
}

/* The container's namespaces, opened by the engine (the child may not
 * reach the host's /proc once it joined one). */
static int open_namespaces(const char *name, int *mnt, int *user)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    const char *status = record_get(&rec, "status");
    int up = status && strcmp(status, "running") == 0 && service_alive(&rec);
    pid_t pid = (pid_t)record_num(&rec, "pid", 0);
    int own_user = record_num(&rec, "userns_base", 0) != 0;
    record_free(&rec);
    if (!up)
        return fail("container '%s' is not running", name);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
    *mnt = open(path, O_RDONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
    *user = own_user ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (*mnt < 0 || (own_user && *user < 0))
        return fail_errno("cannot open the namespaces of container '%s'",
                          name);
    return 0;
}

int container_cp(const char *src, const char *dst)
{
    char name[NAME_MAX + 1];
    const char *from = container_path(src, name, sizeof name);
    const char *to = from ? NULL : container_path(dst, name, sizeof name);
    if ((from && container_path(dst, name, sizeof name)) || (!from && !to))
        return fail("cp: expected CONTAINER:PATH HOSTPATH or HOSTPATH "
                    "CONTAINER:PATH");
    int mnt = -1, user = -1, sock[2];
    if (open_namespaces(name, &mnt, &user) < 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) < 0) {
        fail_errno("cp: cannot start");
        if (mnt >= 0)
            close(mnt);
        if (user >= 0)
            close(user);
        return -1;
    }
    state_unlock();
    pid_t child = fork();
    if (child == 0)
        container_side(sock[1], mnt, user, from ? from : to, from != NULL);
    close(sock[1]);
    close(mnt);
    if (user >= 0)
        close(user);
    int rc = child < 0 ? fail_errno("cp: fork")
             : from    ? receive_side(sock[0], &(struct side){dst, -1})
                       : send_side(sock[0], &(struct side){src, -1});
    /* Closed before the wait: a child still sending stops. */
    close(sock[0]);
    while (child > 0 && waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    state_lock();
    return rc;
}
