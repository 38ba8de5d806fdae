/*
 * resume.c - living through a restart of the service (see resume.h).
 *
 * Every descriptor remembers which service its handle belongs to (the
 * epoch, service.h). Once a restarted service is current, the thread that
 * attached opens the stale descriptors there, one open file at a time,
 * while other threads that need a stale descriptor wait for it to finish
 * (service_wait_resumed). Calls that were in flight come back here from
 * call_send with the dead connection's slot still mapped: its request
 * bytes are copied to the thread's slot of the new connection and sent
 * again, or settled, by the rules in resume.h.
 */
#include "resume.h"

#include "fdtable.h"
#include "heldlocks.h"
#include "thread.h"
#include "writeback.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* The request of a call whose answer overwrites it (resume_keep_request),
 * not replaced while resume_call waits for the next service: the
 * resume's own calls (the opens of stale descriptors) are not kept. */
static __thread unsigned char kept[DANAUS_LONG_PATH_MAX + DANAUS_PATH_MAX + 8];
static __thread uint32_t kept_len;
static __thread bool keeping_paused;

/* Calls whose answer the service writes into the slot buffer, over the
 * request, before it completes them: one killed in between leaves a
 * request that is part answer. An OPEN sent again from such a buffer named
 * a file by the bytes of the first one's inode number: it was created in
 * the mount's root and the program's data went there, while the file it
 * had opened stayed empty (seen under restart_programs' kills). */
static bool answers_over_request(uint32_t call)
{
    switch (call) {
    case DANAUS_CALL_OPEN: /* the file's inode number */
    case DANAUS_CALL_STAT:
    case DANAUS_CALL_READLINK:
    case DANAUS_CALL_STATFS:
    case DANAUS_CALL_GETXATTR:
    case DANAUS_CALL_LISTXATTR:
        return true;
    default:
        return false;
    }
}

void resume_keep_request(const struct call *c)
{
    if (keeping_paused || !answers_over_request(c->desc.call))
        return;
    kept_len = c->pack.len <= sizeof kept ? c->pack.len : UINT32_MAX;
    if (kept_len != UINT32_MAX)
        memcpy(kept, c->pack.buf, kept_len);
}

bool resume_fd_info(int fd, uint32_t id, const struct service **svc,
                    struct fd_info *out)
{
    if (!fdtable_lookup(fd, out)) {
        errno = EBADF;
        return false;
    }
    if (out->handle != FDTABLE_LOST && out->epoch != (*svc)->epoch) {
        service_wait_resumed();
        *svc = service_get();
        if (!*svc)
            return false;
        if (!fdtable_lookup(fd, out)) {
            errno = EBADF;
            return false;
        }
        if (out->epoch != (*svc)->epoch)
            out->handle = FDTABLE_LOST;
    }
    if (out->handle == FDTABLE_LOST ||
        (id == DANAUS_CALL_FSYNC && fdtable_take_lost_writes(fd))) {
        errno = EIO;
        return false;
    }
    return true;
}

/* The index of dead's mount index on now: the mount now has at the same
 * mount point. */
static bool same_mount(const struct service *dead, const struct service *now,
                       uint32_t index, uint32_t *out)
{
    const struct mount_table *from = &dead->mounts;
    for (uint32_t i = 0; i < from->count; i++) {
        const char *rel;
        if (from->index[i] != index)
            continue;
        int found = mount_table_match(&now->mounts, from->path[i], &rel);
        if (found < 0 || rel[0] != '\0')
            return false;
        *out = (uint32_t)found;
        return true;
    }
    return false;
}

/* service_resume, keeping the request kept for the call being moved. */
static const struct service *resume_keeping(const struct service *dead)
{
    bool was = keeping_paused;
    keeping_paused = true;
    const struct service *now = service_resume(dead);
    keeping_paused = was;
    return now;
}

static uint64_t reopen(const struct service *now, const char *path,
                       int flags, uint64_t ino, int64_t pos, uint32_t *mount);

/* Begins q, a seek of the file handle names on mount to pos: 0, or -1. */
static int begin_seek(struct call *q, uint32_t mount, uint64_t handle,
                      int64_t pos)
{
    if (call_begin(q, DANAUS_CALL_LSEEK, mount, handle) < 0)
        return -1;
    q->desc.arg[0] = pos;
    q->desc.arg[1] = SEEK_SET;
    return 0;
}

/* The stat of the file handle names on mount: 0, or -1. */
static int stat_on(uint32_t mount, uint64_t handle, struct danaus_stat *st)
{
    struct call q;
    if (call_begin(&q, DANAUS_CALL_STAT, mount, handle) < 0 ||
        pack_str(&q.pack, "") < 0 || call_send(&q) < 0)
        return -1;
    memcpy(st, call_out(&q), sizeof *st);
    return 0;
}

/* Whether the file of descriptor fd, inode ino, holds bytes at off: read
 * through an open of its own on now, as fd may be open for writing only
 * (and a file this process may not read is not read). */
static bool holds_at(const struct service *now, int fd, uint64_t ino,
                     int64_t off, const void *bytes, uint32_t n)
{
    char path[DANAUS_LONG_PATH_MAX];
    uint32_t mount;
    if (fdtable_path(fd, path, sizeof path) < 0)
        return false;
    uint64_t handle = reopen(now, path, O_RDONLY, ino, 0, &mount);
    if (handle == 0 || handle == FDTABLE_LOST)
        return false;
    struct call q;
    bool same = false;
    if (call_begin(&q, DANAUS_CALL_PREAD, mount, handle) == 0 &&
        n <= call_capacity(&q)) {
        q.desc.arg[0] = n;
        q.desc.arg[1] = off;
        same = call_send(&q) == n && memcmp(call_out(&q), bytes, n) == 0;
    }
    struct fd_info opened = {handle, mount, now->epoch, false};
    call_close(&opened);
    return same;
}

/* Settles c, an append that a dead service had begun (was: its slot
 * there), with the next service, where the file is open as handle on
 * mount: RESUME_DONE (*done: its bytes) when the file holds them where the
 * dead one said they would land, 0 when it was not made (the file still
 * ends there, or the write was never noted), -EIO when that cannot be
 * told. */
static int64_t settle_append(const struct call *c, const struct service *now,
                             const struct ipc_slot *was, uint32_t seq,
                             uint32_t mount, uint64_t handle, int64_t *done)
{
    /* acquire: pairs with note_append's release, so append_at is its. */
    if (atomic_load_explicit(&was->append_seq, memory_order_acquire) != seq)
        return 0;
    int64_t at = was->append_at;
    uint32_t n = c->pack.len;
    struct danaus_stat st;
    if (stat_on(mount, handle, &st) < 0)
        return -EIO;
    if (st.size == at)
        return 0;
    if (st.size < at + (int64_t)n ||
        !holds_at(now, c->fd, st.ino, at, c->pack.buf, n))
        return -EIO;
    if (c->desc.call == DANAUS_CALL_WRITE) {
        struct call q;
        if (begin_seek(&q, mount, handle, at + n) < 0 || call_send(&q) < 0)
            return -EIO;
        fdtable_note_pos(c->fd, at + n);
    }
    *done = n;
    return RESUME_DONE;
}

static bool is_append(const struct call *c)
{
    return (c->desc.call == DANAUS_CALL_WRITE ||
            c->desc.call == DANAUS_CALL_PWRITE) &&
           (fdtable_flags(c->fd) & O_APPEND);
}

/* A collapse or insert moves the file's data: done twice, it would lose
 * or duplicate some. */
static bool shifts(const struct call *c)
{
    return c->desc.call == DANAUS_CALL_FALLOCATE &&
           (c->desc.arg[0] & (FALLOC_FL_COLLAPSE_RANGE |
                              FALLOC_FL_INSERT_RANGE));
}

int64_t resume_call(struct call *c, bool begun, int64_t *done)
{
    uint32_t id = c->desc.call;
    /* The old service's open files died with it. */
    if (id == DANAUS_CALL_CLOSE) {
        *done = 0;
        return RESUME_DONE;
    }
    const struct service *dead = c->svc;
    const struct ipc_slot *was = ipc_slot(&dead->area, c->thread->slot);
    uint32_t seq = c->thread->seq;
    const struct service *now = resume_keeping(dead);
    uint32_t mount;
    uint64_t handle = 0;
    struct thread_state *t;
    for (int successors = 1;; successors++) {
        if (!now)
            return -ENOTCONN;
        if (c->fd >= 0) {
            struct fd_info info;
            if (!resume_fd_info(c->fd, id, &now, &info))
                return -errno;
            mount = info.mount;
            handle = info.handle;
        } else if (c->desc.handle ||
                   !same_mount(dead, now, c->desc.mount, &mount)) {
            return -EIO;
        }
        if ((t = thread_get(now)))
            break;
        /* The successor died too before it gave this thread a slot: on to
         * the next, while dead's slot, which holds the request, is still
         * mapped (service.c keeps the last CONNS connections). */
        if (errno != ENOTCONN || !service_gone(now) ||
            successors == RESUME_SUCCESSORS_MAX)
            return -errno;
        now = resume_keeping(now);
    }
    if (begun && shifts(c))
        return -EIO;
    if (begun && c->fd >= 0 && is_append(c)) {
        bool was_keeping = keeping_paused;
        keeping_paused = true;
        int64_t settled = settle_append(c, now, was, seq, mount, handle,
                                        done);
        keeping_paused = was_keeping;
        if (settled != 0)
            return settled;
        t = thread_get(now);
        if (!t)
            return -errno;
    }
    const unsigned char *request = c->pack.buf;
    if (begun && answers_over_request(id)) {
        if (kept_len == UINT32_MAX)
            return -EIO;
        request = kept;
    }
    if (c->pack.len > now->area.slot_buf)
        return -E2BIG;
    unsigned char *buf = ipc_slot(&now->area, t->slot)->buf;
    memmove(buf, request, c->pack.len);
    c->svc = now;
    c->thread = t;
    c->pack.buf = buf;
    c->pack.cap = now->area.slot_buf;
    c->desc.mount = mount;
    c->desc.handle = handle;
    /* Our first try may have made the file: open it, not EEXIST. */
    if (begun && id == DANAUS_CALL_OPEN &&
        (c->desc.arg[0] & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
        c->desc.arg[0] &= ~O_EXCL;
    return 0;
}

int64_t resume_settle(const struct call *c, int64_t result)
{
    switch (c->desc.call) {
    case DANAUS_CALL_MKDIR:
    case DANAUS_CALL_SYMLINK:
    case DANAUS_CALL_LINK:
    case DANAUS_CALL_MKNOD:
        return result == -EEXIST ? 0 : result;
    case DANAUS_CALL_UNLINK:
    case DANAUS_CALL_RMDIR:
    case DANAUS_CALL_RENAME:
        return result == -ENOENT ? 0 : result;
    case DANAUS_CALL_REMOVEXATTR:
        return result == -ENODATA ? 0 : result;
    case DANAUS_CALL_SETXATTR:
        return result == -EEXIST ? 0 : result;
    default:
        return result;
    }
}

/* Opens path (absolute) on now again with flags, at pos; ino, when known,
 * must be what the open finds (a file replaced at its path meanwhile is
 * another file). The handle, or FDTABLE_LOST when the file cannot be had;
 * 0 when now died too (the descriptor stays stale for the next service). */
static uint64_t reopen(const struct service *now, const char *path,
                       int flags, uint64_t ino, int64_t pos, uint32_t *mount)
{
    const char *rel;
    int index = mount_table_match(&now->mounts, path, &rel);
    if (index < 0)
        return FDTABLE_LOST;
    *mount = (uint32_t)index;
    struct call c;
    if (call_begin(&c, DANAUS_CALL_OPEN, *mount, 0) < 0 || c.svc != now ||
        pack_path(&c.pack, rel) < 0)
        return service_gone(now) ? 0 : FDTABLE_LOST;
    c.desc.arg[0] = flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC);
    int64_t handle = call_send(&c);
    if (handle <= 0)
        return service_gone(now) ? 0 : FDTABLE_LOST;
    uint64_t found;
    memcpy(&found, call_out(&c), sizeof found);
    if (ino && found && found != ino) {
        struct fd_info other = {(uint64_t)handle, *mount, now->epoch, false};
        call_close(&other);
        return FDTABLE_LOST;
    }
    if (pos != 0 && !(flags & O_PATH) &&
        begin_seek(&c, *mount, (uint64_t)handle, pos) == 0 &&
        call_send(&c) < 0)
        return service_gone(now) ? 0 : FDTABLE_LOST;
    return (uint64_t)handle;
}

static int by_origin(const void *a, const void *b)
{
    const struct fd_stale *x = a, *y = b;
    return x->origin < y->origin ? -1 : x->origin > y->origin;
}

/* Opens one open file again (the entries v[0..n), made by dup of one
 * another) and gives every descriptor the one handle. */
static void resume_open_file(const struct service *dead,
                             const struct service *now, struct fd_stale *v,
                             int n)
{
    int latest = 0;
    bool unsynced = false;
    for (int i = 0; i < n; i++) {
        if (v[i].pos_stamp > v[latest].pos_stamp)
            latest = i;
        unsynced |= v[i].unsynced;
    }
    bool lost_writes = unsynced && (dead->flags & DANAUS_HELLO_CACHES_WRITES);
    uint32_t mount = 0;
    uint64_t handle = reopen(now, v[0].path, v[0].flags, v[0].ino,
                             v[latest].pos, &mount);
    if (handle == 0)
        return;
    /* The writes this process kept back and the dead service may not have
     * made, before anything else of ours reaches the file. */
    writeback_resend(dead, v[0].info.handle, mount,
                     handle == FDTABLE_LOST ? 0 : handle);
    struct fd_info h = {handle, mount, now->epoch, false};
    bool used = false;
    for (int i = 0; i < n; i++)
        used |= fdtable_replace(&v[i], &h, lost_writes);
    if (!used)
        call_close(&h);
}

void resume_descriptors(const struct service *dead, const struct service *now)
{
    struct fd_stale *v;
    int n = fdtable_stale(now->epoch, &v);
    if (n <= 0)
        return;
    qsort(v, (size_t)n, sizeof *v, by_origin);
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j].origin == v[i].origin; j++)
            ;
        resume_open_file(dead, now, v + i, j - i);
    }
    fdtable_stale_free(v, n);
    heldlocks_restore();
}
