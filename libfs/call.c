/*
 * call.c - building and sending one request (see call.h).
 *
 * Request bytes always start at offset 0 of the slot buffer, where outputs
 * also go: the service copies a request's strings out before it answers.
 */
#include "call.h"

#include "fdtable.h"
#include "usermem.h"

#include <errno.h>
#include <string.h>

int pack_str(struct call_pack *p, const char *s)
{
    size_t n = strnlen(s, DANAUS_PATH_MAX);
    if (n >= DANAUS_PATH_MAX || n + 1 > p->cap - p->len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(p->buf + p->len, s, n + 1);
    p->len += (uint32_t)(n + 1);
    return 0;
}

int pack_data(struct call_pack *p, const void *data, size_t n)
{
    if (n > p->cap - p->len) {
        errno = E2BIG;
        return -1;
    }
    memcpy(p->buf + p->len, data, n);
    p->len += (uint32_t)n;
    return 0;
}

int call_begin(struct call *c, enum danaus_call id, uint32_t mount,
               uint64_t handle)
{
    c->svc = service_get();
    if (!c->svc)
        return -1;
    c->thread = thread_get(c->svc);
    if (!c->thread)
        return -1;
    memset(&c->desc, 0, sizeof c->desc);
    c->desc.call = id;
    c->desc.mount = mount;
    c->desc.handle = handle;
    c->pack.buf = ipc_slot(&c->svc->area, c->thread->slot)->buf;
    c->pack.cap = c->svc->area.slot_buf;
    c->pack.len = 0;
    return 0;
}

/* Packs rel, with a trailing '/' when slash: "link/" and "file/" keep it
 * for the service, which then follows the link and refuses the file
 * (ENOTDIR), as the kernel does. */
static int pack_rel(struct call_pack *p, const char *rel, bool slash)
{
    if (pack_str(p, rel) < 0)
        return -1;
    if (!slash || rel[0] == '\0')
        return 0;
    if (p->len + 1 > p->cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    p->buf[p->len - 1] = '/';
    p->buf[p->len++] = '\0';
    return 0;
}

/* Begins call id on the path, resolved by resolve, and packs it. */
static int begin_on_path(struct call *c, enum danaus_call id, int dirfd,
                         const char *path, struct resolved_path *where,
                         int (*resolve)(const struct mount_table *, int,
                                        const char *, struct resolved_path *))
{
    const struct service *svc = service_get();
    if (!svc)
        return -1;
    if (!usermem_string(path, DANAUS_PATH_MAX)) {
        errno = EFAULT;
        return -1;
    }
    if (resolve(&svc->mounts, dirfd, path, where) < 0 ||
        call_begin(c, id, where->mount, 0) < 0)
        return -1;
    /* path_resolve_name keeps the slash in rel itself. */
    bool slash = resolve == path_resolve && path[strlen(path) - 1] == '/';
    return pack_rel(&c->pack, where->rel, slash);
}

int call_begin_path(struct call *c, enum danaus_call id, int dirfd,
                    const char *path, struct resolved_path *where)
{
    return begin_on_path(c, id, dirfd, path, where, path_resolve);
}

int call_begin_name(struct call *c, enum danaus_call id, int dirfd,
                    const char *path, struct resolved_path *where)
{
    return begin_on_path(c, id, dirfd, path, where, path_resolve_name);
}

int call_begin_fd(struct call *c, enum danaus_call id, int fd, bool with_path)
{
    struct fd_info info;
    if (!fdtable_lookup(fd, &info)) {
        errno = EBADF;
        return -1;
    }
    if (call_begin(c, id, info.mount, info.handle) < 0)
        return -1;
    return with_path ? pack_str(&c->pack, "") : 0;
}

int64_t call_send(struct call *c)
{
    const struct ipc_segment *seg = &c->svc->seg;
    struct thread_state *t = c->thread;
    struct ipc_slot *s = ipc_slot(&c->svc->area, t->slot);
    struct ipc_bell bell = {c->svc->client_index, t->slot, ++t->seq};
    c->desc.slot = t->slot;
    c->desc.buf_off = 0;
    c->desc.buf_len = c->pack.len;
    ipc_post(s, &c->desc, bell.seq);
    /* -ENOTCONN means the liveness probe found the service gone;
     * service_alive has already recorded that. -EAGAIN (no room for the
     * bell) is no failure: the service's sweep finds the posted request. */
    int rc = ipc_ring(seg, ipc_queue(seg, t->queue), bell, service_alive,
                      NULL);
    if (rc == -ENOTCONN) {
        errno = -rc;
        return -1;
    }
    int64_t result = ipc_await(s, bell.seq, service_alive, NULL);
    if (result == -ETIMEDOUT)
        thread_drop_slot();
    if (result < 0) {
        errno = result >= -4095 ? (int)-result : EIO;
        return -1;
    }
    return result;
}
