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
 *
 * A container that does not run has no namespaces to join: its root
 * and volumes are mounted as start mounts them (the pool's danausd
 * serving the union of its writable branch over its layers) for the
 * length of the copy, and the child builds a mount namespace as run
 * builds the container's (its -v bound, pivot_root into the root; no
 * /dev, /proc or /sys: ns.h), then enters a user namespace mapped as the
 * container's, so it is the container's root there as well. The
 * container's directory is locked meanwhile (cp_check_idle), so that
 * start and rm do not take the mounts away.
 *
 * `-` on the host's side is a tar stream (tar_stream.h) in place of the
 * host's path: read from stdin into a directory of the container, or
 * written to stdout.
 */
#include "cp.h"
#include "container.h"
#include "fail.h"
#include "json.h"
#include "ns.h"
#include "query.h"
#include "record.h"
#include "runinfo.h"
#include "service.h"
#include "state.h"
#include "tar_stream.h"
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
#include <sys/file.h>
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

/* cp's options (cp.h), and CP_TAR_IN: the source is a tar stream, to
 * be unpacked into the container's directory. */
#define CP_TAR_IN 0x100
static unsigned options;

/* What goes wrong before the stream starts is told to the other end
 * too: the sender's failure in place of its entry, the receiver's in
 * place of its answer. */
static int send_side(int sock, const struct side *s)
{
    char path[PATH_MAX], dir[PATH_MAX];
    size_t len = strlen(s->path);
    while (len > 1 && s->path[len - 1] == '/')
        len--; /* "DIR/" is DIR */
    snprintf(path, sizeof path, "%.*s", (int)len, s->path);
    const char *name = split(path, dir, sizeof dir);
    int fd = -1;
    if (check_last(s->path, name) < 0)
        return tree_send_end(sock, -1);
    if (options & CP_FOLLOW) { /* -L: what it names, in its own world */
        fd = side_open(s, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
        return fd < 0 ? tree_send_end(sock, fail_errno("cp: cannot open "
                                                       "'%s'", s->path))
                      : tree_send_fd(sock, fd, name);
    }
    if ((fd = side_open(s, dir, O_PATH | O_DIRECTORY)) < 0)
        return tree_send_end(sock,
                             fail_errno("cp: cannot find '%s'", s->path));
    int rc = tree_send(sock, fd, name, name);
    close(fd);
    return rc;
}

/* Into the destination when it is a directory, else as its name; a tar
 * stream's members into the directory it must be (as docker's). */
static int receive_side(int sock, const struct side *s)
{
    int fd = side_open(s, s->path, O_RDONLY | O_DIRECTORY);
    const char *name = NULL;
    char dir[PATH_MAX];
    if (options & CP_TAR_IN) {
        if (fd < 0) {
            fail_errno("cp: '%s' must be a directory", s->path);
            tree_fail(sock, fail_message());
            return -1;
        }
        int rc = tree_receive(sock, fd, NULL,
                              TREE_CONTENTS |
                                  (options & CP_ARCHIVE ? TREE_ARCHIVE : 0));
        close(fd);
        return rc;
    }
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
        name = split(s->path, dir, sizeof dir);
        if (check_last(s->path, name) < 0) {
            tree_fail(sock, fail_message());
            return -1;
        }
        fd = side_open(s, dir, O_RDONLY | O_DIRECTORY);
    }
    if (fd < 0) {
        fail_errno("cp: cannot find the directory of '%s'", s->path);
        tree_fail(sock, fail_message());
        return -1;
    }
    int rc = tree_receive(sock, fd, name,
                          options & CP_ARCHIVE ? TREE_ARCHIVE : 0);
    close(fd);
    return rc;
}

/* How the child reaches the container: the namespaces of a running
 * one (opened by the engine: the child may not reach the host's /proc
 * once it joined one), or the root of one that does not run, mounted
 * for the copy, and a user namespace mapped as its own. */
struct reach {
    int mnt, user; /* -1: none (no user: the pool shares the host's ids) */
    int lock;      /* a stopped one's directory, locked (cp_check_idle) */
    char root[STATE_PATH_MAX]; /* a stopped one's root, mounted */
    struct json *info;         /* what run saved of it (runinfo.h) */
    struct ns_bind *binds;     /* its -v, volumes mounted, nbinds */
    int nbinds;
    struct record rec;
};

/* The child: joins the container (its mount namespace, or a stopped
 * one's root, then its user namespace, which gives up the host's
 * rights), opens its root, and does the container's side. Not dumpable,
 * so the container's processes, of the same user now, cannot trace it. */
static void container_side(int sock, const struct reach *r, const char *path,
                           int sending)
{
    prctl(PR_SET_DUMPABLE, 0);
    int rc = 0;
    if (r->mnt >= 0 && setns(r->mnt, CLONE_NEWNS) < 0)
        rc = fail_errno("cp: cannot join the container's mount namespace");
    else if (r->mnt < 0 && unshare(CLONE_NEWNS) < 0)
        rc = fail_errno("cp: cannot make a mount namespace");
    else if (r->mnt < 0) /* as run builds it, but the kernel's parts */
        rc = ns_enter_root_for_copy(r->root, r->binds, r->nbinds, r->user);
    if (rc == 0 && r->user >= 0)
        rc = userns_join(r->user);
    /* Nothing of the host's stays open: the socket only. */
    close_range(3, (unsigned)sock - 1, 0);
    close_range((unsigned)sock + 1, ~0u, 0);
    struct side s = {path, -1};
    if (rc == 0 && (s.root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        rc = fail_errno("cp: cannot open the container's root");
    if (rc < 0) {
        tree_fail(sock, fail_message());
        _exit(1);
    }
    rc = sending ? send_side(sock, &s) : receive_side(sock, &s);
    _exit(rc < 0);
}

static void reach_close(struct reach *r)
{
    if (r->mnt >= 0)
        close(r->mnt);
    if (r->user >= 0)
        close(r->user);
    r->mnt = r->user = -1;
}

/* The container's directory, locked; -1 (fail.h) when a cp holds it. */
static int lock_container(const char *name)
{
    char dir[STATE_PATH_MAX];
    state_path(dir, "containers/%s", name);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return fail_errno("cannot open %s", dir);
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    close(fd);
    return fail("container '%s' is being copied to or from (danaus cp)",
                name);
}

int cp_check_idle(const char *name)
{
    int fd = lock_container(name);
    if (fd < 0)
        return -1;
    close(fd); /* (the lock goes with it) */
    return 0;
}

static int reach_running(const char *name, struct reach *r)
{
    pid_t pid = (pid_t)record_num(&r->rec, "pid", 0);
    int own_user = record_num(&r->rec, "userns_base", 0) != 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
    r->mnt = open(path, O_RDONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
    if (own_user)
        r->user = open(path, O_RDONLY | O_CLOEXEC);
    if (r->mnt < 0 || (own_user && r->user < 0))
        return fail_errno("cannot open the namespaces of container '%s'",
                          name);
    return 0;
}

static int reach_stopped(const char *name, struct reach *r)
{
    uint32_t base = (uint32_t)record_num(&r->rec, "userns_base", 0);
    state_path(r->root, "containers/%s/root", name);
    r->info = runinfo_load(name);
    fail_clear(); /* (one run before configurations were saved: no -v) */
    if (r->info && !(r->binds = runinfo_binds(r->info, &r->nbinds)))
        return fail("out of memory");
    if ((r->lock = lock_container(name)) < 0 ||
        container_mount_root(name, &r->rec, r->binds, r->nbinds) < 0)
        return -1;
    if (base && (r->user = userns_open_mapped(base)) < 0)
        return -1;
    return 0;
}

/* Opens the way to the container: 0, or -1 (fail.h). */
static int reach(const char *name, struct reach *r)
{
    if (query_container(name, &r->rec) < 0)
        return -1;
    const char *status = record_get(&r->rec, "status");
    int up = status && strcmp(status, "running") == 0 &&
             service_alive(&r->rec);
    return up ? reach_running(name, r) : reach_stopped(name, r);
}

/* Undoes reach: the stopped container's root is unmounted, its lock
 * dropped. */
static void leave(const char *name, struct reach *r)
{
    reach_close(r);
    if (r->lock >= 0) {
        container_unmount_root(name, &r->rec);
        close(r->lock);
    }
    free(r->binds);
    json_free(r->info);
    record_free(&r->rec);
}

int container_cp(const char *src, const char *dst, unsigned flags)
{
    int tar_out = strcmp(dst, "-") == 0;
    options = flags | (strcmp(src, "-") == 0 ? CP_TAR_IN : 0);
    if (tar_out) /* a reader gone: EPIPE, said, not the engine killed */
        signal(SIGPIPE, SIG_IGN);
    char name[NAME_MAX + 1];
    const char *from = container_path(src, name, sizeof name);
    const char *to = from ? NULL : container_path(dst, name, sizeof name);
    if ((from && container_path(dst, name, sizeof name)) || (!from && !to))
        return fail("cp: expected CONTAINER:PATH HOSTPATH|- or HOSTPATH|- "
                    "CONTAINER:PATH");
    struct reach r = {.mnt = -1, .user = -1, .lock = -1};
    int sock[2] = {-1, -1};
    if (reach(name, &r) < 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) < 0) {
        if (!fail_message())
            fail_errno("cp: cannot start");
        leave(name, &r);
        return -1;
    }
    state_unlock();
    pid_t child = fork();
    if (child == 0)
        container_side(sock[1], &r, from ? from : to, from != NULL);
    close(sock[1]);
    reach_close(&r);
    struct side host = {from ? dst : src, -1};
    int rc;
    if (child < 0)
        rc = fail_errno("cp: fork");
    else if (from)
        rc = tar_out ? tar_receive(sock[0], 1) : receive_side(sock[0], &host);
    else
        rc = options & CP_TAR_IN ? tar_send(0, sock[0])
                                 : send_side(sock[0], &host);
    /* Closed before the wait: a child still sending stops. */
    close(sock[0]);
    while (child > 0 && waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    state_lock();
    leave(name, &r);
    return rc;
}
