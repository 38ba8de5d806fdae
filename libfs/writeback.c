/*
 * writeback.c - writes kept back in this process's area (writeback.h).
 *
 * A kept write claims a free page, fills and commits it, then looks at
 * the handle's generation and at whether the service is gone: if neither
 * moved, the service will find the page (ipc.h). If one did, the page is
 * taken back and the write sent; if the service took it first, the write
 * waits until the service has written it, or, the service gone, leaves it
 * for the resend on the next one. The commit's store and both looks are
 * sequentially consistent, as are the service's setting of the generation
 * and its take, and a resume's store of gone: so of a store and a look on
 * either side, one sees the other.
 *
 * Dirty is counted, not tracked: committed counts kept writes, flushed
 * how many of them a FLUSH that returned was sent after.
 */
#include "writeback.h"

#include "call.h"
#include "fdtable.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t committed, flushed, next_seq;
static __thread uint32_t cursor;

bool writeback_dirty(void)
{
    return atomic_load(&committed) != atomic_load(&flushed);
}

static bool may_keep(int fd, const struct service *svc, struct fd_info *info,
                     uint32_t *gen)
{
    int flags = fdtable_flags(fd);
    if (!svc || !svc->area.dirty_pages || !fdtable_lookup(fd, info) ||
        info->epoch != svc->epoch || info->handle == FDTABLE_LOST ||
        (flags & O_ACCMODE) == O_RDONLY ||
        (flags & (O_APPEND | O_SYNC | O_DSYNC | O_DIRECT | O_PATH)) ||
        !service_seen_alive(svc))
        return false;
    *gen = ipc_cache_gen(&svc->area, info->handle);
    return *gen & IPC_GEN_WRITES_BACK;
}

/* Keeps n bytes (at most a page's worth) of handle at off in a page of
 * the area: true when kept (or taken and written by the service). */
static bool keep_piece(const struct service *svc, uint64_t handle,
                       uint32_t gen, const void *buf, size_t n, off_t off)
{
    const struct ipc_area *a = &svc->area;
    int32_t page = ipc_dirty_claim(a, &cursor);
    if (page < 0)
        return false;
    ipc_dirty_commit(a, (uint32_t)page, handle,
                     atomic_fetch_add(&next_seq, 1), buf, (uint32_t)n,
                     (uint64_t)off);
    bool kept = ipc_cache_gen(a, handle) == gen &&
                !atomic_load(&svc->gone);
    if (!kept && ipc_dirty_retract(a, (uint32_t)page))
        return false;
    /* Kept, or taken by the service: written once it is not TAKEN. */
    while (!kept && ipc_dirty_taken(a, (uint32_t)page) &&
           !atomic_load(&svc->gone) && service_alive((void *)svc))
        sched_yield();
    atomic_fetch_add(&committed, 1);
    return true;
}

ssize_t writeback_pwrite(int fd, const void *buf, size_t n, off_t off)
{
    if (n == 0 || n > WRITEBACK_MAX_PIECES * IPC_CACHE_BLOCK || off < 0 ||
        (uint64_t)off > (uint64_t)INT64_MAX - n)
        return -1;
    int saved = errno;
    const struct service *svc = service_get();
    struct fd_info info;
    uint32_t gen;
    bool keep = may_keep(fd, svc, &info, &gen);
    errno = saved;
    if (!keep)
        return -1;
    /* Piece by piece, in order. Pieces kept before one that could not
     * be are flushed before the caller sends the whole write (its call
     * carries the flush), which then writes the same bytes again. */
    for (size_t done = 0; done < n; done += IPC_CACHE_BLOCK) {
        size_t len = n - done < IPC_CACHE_BLOCK ? n - done : IPC_CACHE_BLOCK;
        if (!keep_piece(svc, info.handle, gen, (const char *)buf + done, len,
                        off + (off_t)done))
            return -1;
    }
    fdtable_note_written(fd);
    return (ssize_t)n;
}

uint64_t writeback_pending(void)
{
    uint64_t upto = atomic_load(&committed);
    return upto == atomic_load(&flushed) ? 0 : upto;
}

void writeback_flushed(uint64_t upto)
{
    uint64_t was = atomic_load(&flushed);
    while (was < upto && !atomic_compare_exchange_weak(&flushed, &was, upto))
        ;
}

int writeback_flush(void)
{
    uint64_t upto = writeback_pending();
    if (!upto)
        return 0;
    struct call c;
    if (call_begin(&c, DANAUS_CALL_FLUSH, 0, 0) < 0 || call_send(&c) < 0)
        return -1;
    writeback_flushed(upto);
    return 0;
}

void writeback_forget(void)
{
    atomic_store(&flushed, atomic_load(&committed));
}

/* A page taken from a dead service's area, to send again. */
struct resent {
    struct ipc_dirty_page head;
    uint32_t page;
};

static int by_seq(const void *a, const void *b)
{
    const struct resent *x = a, *y = b;
    return x->head.seq < y->head.seq ? -1 : x->head.seq > y->head.seq;
}

static void send_page(const struct ipc_area *a, uint32_t page,
                      const struct ipc_dirty_page *head, uint32_t mount,
                      uint64_t handle)
{
    struct call c;
    if (call_begin(&c, DANAUS_CALL_PWRITE, mount, handle) < 0)
        return;
    c.pack.len = head->len;
    ipc_dirty_copy(a, page, c.pack.buf, head->len);
    c.desc.arg[1] = (int64_t)head->off;
    call_send(&c);
}

void writeback_resend(const struct service *dead, uint64_t old,
                      uint32_t mount, uint64_t handle)
{
    const struct ipc_area *a = &dead->area;
    if (!a->dirty_pages)
        return;
    struct resent *v = calloc(a->dirty_pages, sizeof *v);
    uint32_t n = 0;
    for (uint32_t i = 0; v && i < a->dirty_pages; i++)
        if (__atomic_load_n(&a->dirty_heads[i].handle, __ATOMIC_RELAXED) ==
                old &&
            ipc_dirty_take(a, i, true, &v[n].head) && v[n].head.handle == old)
            v[n++].page = i;
    if (v)
        qsort(v, n, sizeof *v, by_seq);
    for (uint32_t k = 0; k < n; k++) {
        const struct ipc_dirty_page *head = &v[k].head;
        if (handle && head->len <= IPC_CACHE_BLOCK &&
            head->off <= (uint64_t)INT64_MAX - head->len)
            send_page(a, v[k].page, head, mount, handle);
        ipc_dirty_release(a, v[k].page);
    }
    free(v);
}

/* A process that exits flushes what it kept: on a live service its death
 * would too, but one that died meanwhile is waited for here. */
__attribute__((destructor)) static void writeback_at_exit(void)
{
    writeback_flush();
}
