/*
 * door_client.c - control calls into a pool's danausd (door_client.h).
 */
#include "door_client.h"
#include "fail.h"
#include "service.h"
#include "state.h"

#include <danaus/wire.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Sends op and arg with the strings after the header and receives a
 * reply of size bytes (whose first field is its error); with ns_fd >= 0,
 * the caller enters that mount namespace between connect and send (the
 * service looks at the peer's namespace when the message comes). 0, or
 * -1 (fail.h). */
static int exchange_arg(const char *pool, int ns_fd, uint32_t op,
                        uint32_t arg, const char *const *strings, int n,
                        void *reply, size_t size)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    char dir[STATE_PATH_MAX], path[STATE_PATH_MAX + NAME_MAX_LEN + 8];
    service_door_dir(pool, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s.sock", dir, pool);
    if (strlen(path) >= sizeof sa.sun_path)
        return fail("pool %s: socket path %s is too long", pool, path);
    strcpy(sa.sun_path, path);
    size_t len = sizeof(struct danaus_door_msg);
    for (int i = 0; i < n; i++)
        len += strlen(strings[i]) + 1;
    char *buf = calloc(1, len);
    struct danaus_door_msg *m = (struct danaus_door_msg *)buf;
    m->op = op;
    m->version = DANAUS_WIRE_VERSION;
    m->arg = arg;
    char *p = buf + sizeof *m;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(strings[i]) + 1;
        memcpy(p, strings[i], l);
        p += l;
    }
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    int rc = 0;
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        rc = fail_errno("pool %s: cannot reach danausd at %s", pool, path);
    else if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNS) < 0)
        rc = fail_errno("cannot enter the container's mount namespace");
    else if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len ||
             recv(fd, reply, size, 0) != (ssize_t)size)
        rc = fail_errno("pool %s: danausd did not answer", pool);
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

/* The same, for a message whose arg is the count of its strings. */
static int exchange_in(const char *pool, int ns_fd, uint32_t op,
                       const char *const *strings, int n, void *reply,
                       size_t size)
{
    return exchange_arg(pool, ns_fd, op, (uint32_t)n, strings, n, reply,
                        size);
}

static int exchange(const char *pool, uint32_t op, const char *const *strings,
                    int n, void *reply, size_t size)
{
    return exchange_in(pool, -1, op, strings, n, reply, size);
}

/* Sends op with the strings after the header; the reply's error or -1. */
static int call_in(const char *pool, int ns_fd, uint32_t op,
                   const char *const *strings, int n)
{
    struct danaus_door_reply r;
    return exchange_in(pool, ns_fd, op, strings, n, &r, sizeof r) < 0
               ? -1
               : r.error;
}

static int call(const char *pool, uint32_t op, const char *const *strings,
                int n)
{
    return call_in(pool, -1, op, strings, n);
}

int door_mount_add(const char *pool, const char *mountpoint,
                   const char *backend, const char *writable,
                   const char *lower, enum door_mount_mode mode)
{
    return door_union_add(pool, mountpoint, backend, writable, NULL, lower,
                          mode);
}

int door_union_add(const char *pool, const char *mountpoint,
                   const char *backend, const char *writable,
                   const char *lower_backend, const char *lower,
                   enum door_mount_mode mode)
{
    static const char *const modes[] = {
        [DOOR_MOUNT_RW] = "rw",
        [DOOR_MOUNT_RO] = "ro",
        [DOOR_MOUNT_VOLATILE] = "volatile",
    };
    const char *s[] = {mountpoint, backend, writable, lower, modes[mode],
                       lower_backend};
    int rc = call(pool, DANAUS_DOOR_MOUNT_ADD, s, lower_backend ? 6 : 5);
    if (rc > 0) {
        errno = rc;
        return fail_errno("pool %s: danausd cannot mount %s", pool,
                          mountpoint);
    }
    return rc;
}

int door_branch_forget(const char *pool, const char *backend,
                       const char *dir)
{
    const char *s[] = {backend, dir};
    int rc = call(pool, DANAUS_DOOR_BRANCH_FORGET, s, 2);
    if (rc > 0 && rc != EBUSY) {
        errno = rc;
        return fail_errno("pool %s: danausd cannot forget %s", pool, dir);
    }
    return rc;
}

int door_mount_remove(const char *pool, const char *mountpoint)
{
    const char *s[] = {mountpoint};
    int rc = call(pool, DANAUS_DOOR_MOUNT_REMOVE, s, 1);
    if (rc > 0 && rc != ENOENT) {
        errno = rc;
        return fail_errno("pool %s: danausd cannot unmount %s", pool,
                          mountpoint);
    }
    return rc < 0 ? -1 : 0;
}

int door_view_in(const char *pool, int ns_fd, const char *root,
                 const char *const *kernel, int nkernel)
{
    const char *s[DANAUS_MAX_MOUNTS];
    if (nkernel + 1 > DANAUS_MAX_MOUNTS)
        return fail("pool %s: too many paths in a container's view", pool);
    s[0] = root;
    for (int i = 0; i < nkernel; i++)
        s[i + 1] = kernel[i];
    int rc = call_in(pool, ns_fd, DANAUS_DOOR_VIEW, s, nkernel + 1);
    if (rc > 0) {
        errno = rc;
        return fail_errno("pool %s: danausd cannot give the container its "
                          "view of %s", pool, root);
    }
    return rc;
}

int door_view(const char *pool, const char *root, const char *const *kernel,
              int nkernel)
{
    return door_view_in(pool, -1, root, kernel, nkernel);
}

int door_hrc(const char *pool, uint32_t i, struct danaus_hrc_reply *out)
{
    if (exchange_arg(pool, -1, DANAUS_DOOR_HRC, i, NULL, 0, out,
                     sizeof *out) < 0)
        return -1;
    out->mountpoint[sizeof out->mountpoint - 1] = '\0';
    if (out->error == ENOENT || out->error == ESTALE)
        return out->error;
    if (out->error) {
        errno = out->error;
        return fail_errno("pool %s: no hit-ratio curves", pool);
    }
    return 0;
}

int door_stats(const char *pool, const char *mountpoint,
               struct danaus_stats_reply *out)
{
    const char *s[] = {mountpoint};
    if (exchange(pool, DANAUS_DOOR_STATS, s, 1, out, sizeof *out) < 0)
        return -1;
    if (out->error) {
        errno = out->error;
        return fail_errno("pool %s: no statistics for %s", pool,
                          *mountpoint ? mountpoint : "the service");
    }
    return 0;
}
