/*
 * writeback.c - writing the pages clients kept back (writeback.h).
 *
 * The area is the client's: a page counts only as the copy taken of it
 * (ipc_dirty_take), its data is copied once into the service's memory and
 * handed to the backend, and its handle is looked up in that client's own
 * table, so a client writes nothing but its own bytes into files it has
 * open for writing, at offsets the backend takes from anyone. One client's
 * flushes run one at a time (writeback_lock), each writing what it took
 * in the order the client numbered it, so two writes of one range land in
 * the order they were made (and a page rewritten later is not written at
 * all). A flush takes each page once: a client that makes a page
 * COMMITTED again costs one more write of its own bytes.
 */
#include "writeback.h"

#include "request.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

static int by_seq(const void *a, const void *b)
{
    const struct writeback_page *x = a, *y = b;
    return x->head.seq < y->head.seq ? -1 : x->head.seq > y->head.seq;
}

#define CMP(f) (x->head.f < y->head.f ? -1 : x->head.f > y->head.f)

static int by_range(const void *a, const void *b)
{
    const struct writeback_page *x = a, *y = b;
    int c = CMP(handle);
    c = c ? c : CMP(off);
    c = c ? c : CMP(len);
    return c ? c : CMP(seq);
}

/* Marks each page that a later page of exactly its range replaces: a
 * program rewriting one block (a database's header, a counter) costs one
 * backend write per flush, not one per write. */
static void mark_superseded(struct writeback_page *t, uint32_t n)
{
    qsort(t, n, sizeof *t, by_range);
    for (uint32_t k = 0; k + 1 < n; k++) {
        const struct ipc_dirty_page *x = &t[k].head, *y = &t[k + 1].head;
        t[k].superseded = x->handle == y->handle && x->off == y->off &&
                          x->len == y->len;
    }
    if (n)
        t[n - 1].superseded = false;
}

/* Whether of may take the page's bytes: open for writing, a file, the
 * range within what the backend can address. */
static bool page_fits(const struct open_file *of, const struct ipc_dirty_page *p)
{
    int flags = atomic_load(&of->flags);
    return (flags & O_ACCMODE) != O_RDONLY && !(flags & O_PATH) &&
           !of->file->is_dir && !of->file->inst->read_only && p->len > 0 &&
           p->len <= IPC_CACHE_BLOCK && p->off <= (uint64_t)INT64_MAX - p->len;
}

/* Writes page t (taken from c's area) through of. */
static void write_page(struct client *c, struct open_file *of,
                       const struct writeback_page *t)
{
    unsigned char data[IPC_CACHE_BLOCK];
    if (!page_fits(of, &t->head)) {
        atomic_store(&of->writeback_error, EIO);
        return;
    }
    ipc_dirty_copy(&c->area, t->page, data, t->head.len);
    off_t end;
    ssize_t n = of->file->inst->ops->pwrite(of->file, &c->cred, data,
                                            t->head.len, (off_t)t->head.off,
                                            &end);
    if (n != (ssize_t)t->head.len)
        atomic_store(&of->writeback_error, n < 0 ? (int)-n : EIO);
}

/* Done with of (NULL: nothing): its change announced to the name caches
 * and, unless the backend is announcing it (a lease break, whose opener
 * the FUSE door may be serving), to the door as dispatch does a write's. */
static void written(struct service *svc, struct client *c,
                    struct open_file *of, bool breaking)
{
    if (!of)
        return;
    announce_file(&svc->announce, of->file);
    if (!breaking && svc->changed)
        svc->changed(svc->fuse, of->mount, CHANGED_DATA, NULL, NULL, of->file,
                     &c->cred);
    open_file_put(of);
}

void writeback_flush(void *arg, struct client *c, uint64_t handle)
{
    struct service *svc = arg;
    const struct ipc_area *a = &c->area;
    pthread_mutex_lock(&c->writeback_lock);
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->dirty_pages; i++) {
        struct writeback_page *t = &c->writeback_taken[n];
        /* The handle word is a hint to skip other files' pages; the copy
         * taken is what is checked. */
        if (handle && __atomic_load_n(&a->dirty_heads[i].handle,
                                      __ATOMIC_RELAXED) != handle)
            continue;
        if (!ipc_dirty_take(a, i, false, &t->head))
            continue;
        if (handle && t->head.handle != handle) {
            ipc_dirty_release(a, i);
            continue;
        }
        t->page = i;
        n++;
    }
    mark_superseded(c->writeback_taken, n);
    qsort(c->writeback_taken, n, sizeof c->writeback_taken[0], by_seq);
    struct open_file *of = NULL;
    uint64_t of_handle = 0;
    for (uint32_t k = 0; k < n; k++) {
        const struct writeback_page *t = &c->writeback_taken[k];
        if (!of || t->head.handle != of_handle) {
            written(svc, c, of, handle != 0);
            of_handle = t->head.handle;
            of = handle_get(&c->handles, of_handle);
            if (of && !handle)
                readcache_writing_back(&svc->readcache, c, of_handle);
        }
        if (of && !t->superseded)
            write_page(c, of, t);
        ipc_dirty_release(a, t->page);
    }
    written(svc, c, of, handle != 0);
    pthread_mutex_unlock(&c->writeback_lock);
}
