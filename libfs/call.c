/*
 * call.c - building and sending one request (see call.h).
 *
 * Request bytes always start at offset 0 of the slot buffer, where outputs
 * also go: the service copies a request's strings out before it answers.
 */
#include "call.h"

#include "fdtable.h"
#include "resolve.h"
#include "resume.h"
#include "usermem.h"
#include "writeback.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

/* Appends s and its NUL when s is shorter than max bytes and fits. */
static int pack_below(struct call_pack *p, const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    if (n >= max || n + 1 > p->cap - p->len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(p->buf + p->len, s, n + 1);
    p->len += (uint32_t)(n + 1);
    return 0;
}

int pack_str(struct call_pack *p, const char *s)
{
    return pack_below(p, s, DANAUS_PATH_MAX);
}

int pack_path(struct call_pack *p, const char *rel)
{
    return pack_below(p, rel, DANAUS_LONG_PATH_MAX);
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

/* The service to begin a call on, this thread holding a slot there (a
 * thread's first call on a connection asks the door for one). A service
 * that dies between the hello and the slot is replaced, as one that dies
 * during a call is (resume.h); NULL with errno otherwise. */
static const struct service *service_with_slot(void)
{
    const struct service *svc = service_get();
    while (svc && !thread_get(svc)) {
        if (errno != ENOTCONN || !service_gone(svc))
            return NULL;
        svc = service_resume(svc);
    }
    return svc;
}

/* Begins call id on svc's connection. */
static int begin_on(struct call *c, const struct service *svc,
                    enum danaus_call id, uint32_t mount, uint64_t handle)
{
    c->svc = svc;
    c->thread = thread_get(svc);
    if (!c->thread)
        return -1;
    memset(&c->desc, 0, sizeof c->desc);
    c->desc.call = id;
    c->desc.mount = mount;
    c->desc.handle = handle;
    c->pack.buf = ipc_slot(&svc->area, c->thread->slot)->buf;
    c->pack.cap = svc->area.slot_buf;
    c->pack.len = 0;
    c->fd = -1;
    c->on_bytes = NULL;
    c->fill = NULL;
    c->meanwhile = NULL;
    return 0;
}

int call_begin(struct call *c, enum danaus_call id, uint32_t mount,
               uint64_t handle)
{
    const struct service *svc = service_with_slot();
    return svc ? begin_on(c, svc, id, mount, handle) : -1;
}

/* Packs rel, with a trailing '/' when slash: "link/" and "file/" keep it
 * for the service, which then follows the link and refuses the file
 * (ENOTDIR), as the kernel does. */
static int pack_rel(struct call_pack *p, const char *rel, bool slash)
{
    if (pack_path(p, rel) < 0)
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

/* Begins call id on the path, resolved as a name or not, and packs it.
 * The mount index is the resolving connection's, so the call goes there. */
static int begin_on_path(struct call *c, enum danaus_call id, int dirfd,
                         const char *path, struct resolved_path *where,
                         bool name)
{
    const struct service *svc = service_with_slot();
    if (!svc)
        return -1;
    if (!usermem_string(path, DANAUS_PATH_MAX)) {
        errno = EFAULT;
        return -1;
    }
    if (resolve_for_call(&svc->mounts, dirfd, path, name, where) < 0 ||
        begin_on(c, svc, id, where->mount, 0) < 0)
        return -1;
    /* path_resolve_name keeps the slash in rel itself. */
    bool slash = !name && path[strlen(path) - 1] == '/';
    return pack_rel(&c->pack, where->rel, slash);
}

int call_begin_path(struct call *c, enum danaus_call id, int dirfd,
                    const char *path, struct resolved_path *where)
{
    return begin_on_path(c, id, dirfd, path, where, false);
}

int call_begin_name(struct call *c, enum danaus_call id, int dirfd,
                    const char *path, struct resolved_path *where)
{
    return begin_on_path(c, id, dirfd, path, where, true);
}

int call_begin_fd(struct call *c, enum danaus_call id, int fd, bool with_path)
{
    const struct service *svc = service_with_slot();
    if (!svc)
        return -1;
    struct fd_info info;
    if (!resume_fd_info(fd, id, &svc, &info))
        return -1;
    if (begin_on(c, svc, id, info.mount, info.handle) < 0)
        return -1;
    c->fd = fd;
    return with_path ? pack_str(&c->pack, "") : 0;
}

int call_close(const struct fd_info *info)
{
    return call_close_batch(info, 1);
}

int call_close_batch(const struct fd_info *v, int n)
{
    /* A dead service's open files went with it: a close during an outage
     * has nothing to wait for (service_peek does not wait). */
    const struct service *svc =
        service_connected() ? service_peek() : service_get();
    if (!svc)
        return 0;
    struct call c;
    bool begun = false;
    for (int i = 0; i < n; i++) {
        if (v[i].handle == FDTABLE_LOST || v[i].epoch != svc->epoch)
            continue;
        if (!begun) {
            if (begin_on(&c, svc, DANAUS_CALL_CLOSE, v[i].mount,
                         v[i].handle) < 0)
                return -1;
            begun = true;
        } else if (pack_data(&c.pack, &v[i].handle, sizeof v[i].handle) == 0) {
            c.desc.arg[0]++;
        }
    }
    return begun && call_send(&c) < 0 ? -1 : 0;
}

/* The client's pieces of a large write's input (call.h's fill). */
#define INPUT_PIECE (64u << 10)

/* Copies the rest of c's input into slot s as request seq's, saying after
 * each piece how much is there. Afterwards all of it is packed, for a
 * retry on another service too (resume.c copies pack.len bytes). */
static void fill_input(struct call *c, struct ipc_slot *s, uint32_t seq)
{
    for (uint32_t off = IPC_INPUT_FIRST; off < c->pack.len;) {
        uint32_t n = c->pack.len - off < INPUT_PIECE ? c->pack.len - off
                                                     : INPUT_PIECE;
        c->fill(c->fill_arg, c->pack.buf + off, n);
        off += n;
        ipc_publish_input(s, seq, off);
    }
    c->fill = NULL;
}

/* One try on c->svc: the result (>= 0) or -errno. */
static int64_t send_once(struct call *c)
{
    const struct ipc_segment *seg = &c->svc->seg;
    struct thread_state *t = c->thread;
    struct ipc_slot *s = ipc_slot(&c->svc->area, t->slot);
    struct ipc_bell bell = {c->svc->client_index, t->slot, ++t->seq};
    c->desc.slot = t->slot;
    c->desc.buf_off = 0;
    c->desc.buf_len = c->pack.len;
    resume_keep_request(c);
    void *conn = (void *)c->svc;
    /* A large write's rest goes in after the post only when a service
     * thread asks for pieces (ipc.h); otherwise all of it goes in first.
     * A large input packed whole (a retry) is said to be there whole. */
    bool pieces = c->fill && ipc_slot_takes_pieces(s);
    if (c->fill && !pieces)
        fill_input(c, s, bell.seq);
    else if (!c->fill && c->pack.len > IPC_INPUT_FIRST)
        ipc_publish_input(s, bell.seq, c->pack.len);
    /* -ENOTCONN means the liveness probe found the service gone;
     * service_alive has already recorded that. -EAGAIN (no room for the
     * bell) is no failure: the service's sweep finds the posted request. */
    int sent = ipc_send(seg, ipc_queue(seg, t->queue), s, &c->desc, bell,
                        service_alive, conn);
    if (pieces)
        fill_input(c, s, bell.seq);
    if (sent == -ENOTCONN)
        return -ENOTCONN;
    if (c->meanwhile) {
        c->meanwhile(c->meanwhile_arg);
        c->meanwhile = NULL;
    }
    int64_t result = ipc_await_pieces(s, bell.seq, service_alive, conn,
                                      c->on_bytes, c->on_bytes_arg);
    if (result == -ETIMEDOUT)
        thread_drop_slot();
    return result;
}

/* Whether c moves its descriptor's offset. */
static bool moves_offset(const struct call *c)
{
    switch (c->desc.call) {
    case DANAUS_CALL_READ:
    case DANAUS_CALL_WRITE:
    case DANAUS_CALL_LSEEK:
    case DANAUS_CALL_GETDENTS:
        return c->fd >= 0;
    default:
        return false;
    }
}

/* What the library keeps of a descriptor's state for a restart (fdtable.h),
 * from a call that succeeded. in_slot: its answer is in c's slot, where
 * the offset it moved to is; a call a restart settled (resume_call) has
 * noted that itself, and its slot is the dead service's. */
static void note_success(const struct call *c, bool in_slot)
{
    if (c->fd < 0)
        return;
    const struct ipc_slot *s = ipc_slot(&c->svc->area, c->thread->slot);
    if (in_slot && moves_offset(c))
        fdtable_note_pos(c->fd, s->pos);
    switch (c->desc.call) {
    case DANAUS_CALL_WRITE:
    case DANAUS_CALL_PWRITE:
    case DANAUS_CALL_TRUNCATE:
    case DANAUS_CALL_FALLOCATE:
        fdtable_note_written(c->fd);
        break;
    case DANAUS_CALL_FSYNC:
        fdtable_note_synced(c->fd);
        break;
    case DANAUS_CALL_SETFL:
        fdtable_note_flags(c->fd, (int)c->desc.arg[0]);
        break;
    default:
        break;
    }
}

/* Whether the service made the flush that c, just answered with result
 * in its slot, carried (wire.h DANAUS_DESC_FLUSH). */
static bool flush_made(const struct call *c, int64_t result)
{
    if (result == -ENOTCONN || result == -ETIMEDOUT)
        return false;
    const struct ipc_slot *s = ipc_slot(&c->svc->area, c->thread->slot);
    return s->flushed == c->thread->seq;
}

int64_t call_send(struct call *c)
{
    bool begun_before = false, in_slot = true;
    int64_t result;
    /* Whatever the call asks or changes comes after this process's kept
     * writes (writeback.h): the service writes them first. */
    uint64_t pending =
        c->desc.call == DANAUS_CALL_FLUSH ? 0 : writeback_pending();
    if (pending)
        c->desc.flags |= DANAUS_DESC_FLUSH;
    for (;;) {
        result = send_once(c);
        if (pending && flush_made(c, result))
            writeback_flushed(pending);
        if (result != -ENOTCONN || !service_gone(c->svc))
            break;
        const struct ipc_slot *s = ipc_slot(&c->svc->area, c->thread->slot);
        uint32_t seq = c->thread->seq;
        /* Acquire pairs with ipc_complete: result is valid. */
        if (atomic_load_explicit(&s->done, memory_order_acquire) == seq) {
            result = s->result;
            break;
        }
        bool begun = atomic_load_explicit(&s->begun,
                                          memory_order_acquire) == seq;
        int64_t done;
        int64_t moved = resume_call(c, begun, &done);
        if (moved != 0) {
            result = moved == RESUME_DONE ? done : moved;
            in_slot = false;
            break;
        }
        begun_before |= begun;
    }
    if (begun_before)
        result = resume_settle(c, result);
    if (result < 0 && moves_offset(c))
        fdtable_offset_unknown(c->fd); /* a timed-out call may still land */
    if (result < 0) {
        errno = result >= -4095 ? (int)-result : EIO;
        return -1;
    }
    note_success(c, in_slot);
    return result;
}
