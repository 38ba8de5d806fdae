/*
 * writeback.c - writing the pages clients kept back (writeback.h).
 *
 * The area is the client's: a page counts only as the copy taken of it
 * (ipc_dirty_take), its data is copied once into the service's memory and
 * handed to the backend, and its handle is looked up in that client's own
 * table, so a client writes nothing but its own bytes into files it has
 * open for writing, at offsets the backend takes from anyone. One client's
 * flushes take their pages one at a time (writeback_lock); a flush's
 * pages go in units, one per handle, each written by one thread in the
 * order the client numbered them, and up to writeback_flushers threads
 * write units at once: the flushing thread and the service threads that
 * come to flush the same client meanwhile (the seed: ext4's parallel
 * checkpointing, where the threads waiting for the checkpoint take
 * buffers off its list). Units of different handles name different
 * files, since a handle keeps pages only while its file has no other
 * open (the backend's hold) and another open writes them first, so two
 * writes of one range land in the order they were made (and a page
 * rewritten later is not written at all). A flush takes each page once:
 * a client that makes a page COMMITTED again costs one more write of its
 * own bytes.
 */
#include "writeback.h"

#include "request.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#define CMP(f) (x->head.f < y->head.f ? -1 : x->head.f > y->head.f)

static int by_handle(const void *a, const void *b)
{
    const struct writeback_page *x = a, *y = b;
    int c = CMP(handle);
    return c ? c : CMP(seq);
}

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

/* Pages of one run at most: a run of adjacent pages is one backend
 * write of their bytes copied together. */
#define RUN_PAGES 16

/* Writes the pages t[0..n) (taken from c's area, of one handle, in the
 * order the client numbered them) through of, each run of pages that
 * follow each other in the file and in that order as one write, into buf
 * (RUN_PAGES pages; NULL: one page a write). A run moves a page's write
 * later only past pages of its handle that later pages replace, so two
 * writes of one range still land in the order they were made. */
static void write_unit(struct client *c, struct open_file *of,
                       const struct writeback_page *t, uint32_t n,
                       unsigned char *buf)
{
    unsigned char page[IPC_CACHE_BLOCK];
    uint32_t most = buf ? RUN_PAGES : 1;
    uint32_t k = 0;
    while (k < n) {
        if (t[k].superseded) {
            ipc_dirty_release(&c->area, t[k++].page);
            continue;
        }
        if (!page_fits(of, &t[k].head)) {
            atomic_store(&of->writeback_error, EIO);
            ipc_dirty_release(&c->area, t[k++].page);
            continue;
        }
        unsigned char *data = buf ? buf : page;
        uint64_t off = t[k].head.off;
        size_t len = 0;
        uint32_t pages = 0, j = k;
        for (; j < n && pages < most; j++) {
            if (t[j].superseded)
                continue;
            if (t[j].head.off != off + len || !page_fits(of, &t[j].head))
                break;
            ipc_dirty_copy(&c->area, t[j].page, data + len, t[j].head.len);
            len += t[j].head.len;
            pages++;
        }
        off_t end;
        ssize_t w = of->file->inst->ops->pwrite(of->file, &c->cred, data, len,
                                                (off_t)off, &end);
        if (w != (ssize_t)len)
            atomic_store(&of->writeback_error, w < 0 ? (int)-w : EIO);
        /* Only now: a writer that found its page taken waits for it to be
         * free, and then takes it as written (libfs/writeback.c). */
        for (; k < j; k++)
            ipc_dirty_release(&c->area, t[k].page);
    }
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

/* Writes units of c's flush being written while one is left to take and
 * fewer than its writers are at it. Called and returns with the work's
 * lock held. */
static void write_units(struct client *c)
{
    struct writeback_work *w = &c->writeback_work;
    unsigned char *buf = NULL;
    while (w->next < w->nunits && w->writers < w->max_writers) {
        const struct writeback_unit *u = &c->writeback_units[w->next++];
        w->writers++;
        pthread_mutex_unlock(&w->lock);
        if (!buf)
            buf = malloc(RUN_PAGES * IPC_CACHE_BLOCK);
        if (u->of)
            write_unit(c, u->of, &c->writeback_taken[u->first], u->count, buf);
        else
            for (uint32_t k = 0; k < u->count; k++)
                ipc_dirty_release(&c->area,
                                  c->writeback_taken[u->first + k].page);
        pthread_mutex_lock(&w->lock);
        w->writers--;
        w->written++;
        pthread_cond_broadcast(&w->done);
    }
    free(buf);
}

/* Takes c's committed pages (of handle only, unless 0) into
 * writeback_taken, each handle's together in the client's order; returns
 * how many. */
static uint32_t take_pages(struct client *c, uint64_t handle)
{
    const struct ipc_area *a = &c->area;
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
    qsort(c->writeback_taken, n, sizeof c->writeback_taken[0], by_handle);
    return n;
}

void writeback_flush(void *arg, struct client *c, uint64_t handle)
{
    struct service *svc = arg;
    struct writeback_work *w = &c->writeback_work;
    /* A flush of the client being written: help it first, as the seed's
     * waiting threads take buffers off the checkpoint list. */
    pthread_mutex_lock(&w->lock);
    write_units(c);
    pthread_mutex_unlock(&w->lock);

    pthread_mutex_lock(&c->writeback_lock);
    uint32_t n = take_pages(c, handle), nunits = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t h = c->writeback_taken[k].head.handle;
        struct writeback_unit *u = &c->writeback_units[nunits];
        if (nunits && h == c->writeback_taken[u[-1].first].head.handle) {
            u[-1].count++;
            continue;
        }
        u->first = k;
        u->count = 1;
        u->of = handle_get(&c->handles, h);
        if (u->of && !handle)
            readcache_writing_back(&svc->readcache, c, h);
        nunits++;
    }
    pthread_mutex_lock(&w->lock);
    w->next = w->written = w->writers = 0;
    w->max_writers = svc->cfg.writeback_flushers;
    w->nunits = nunits;
    for (write_units(c); w->written < w->nunits; write_units(c))
        pthread_cond_wait(&w->done, &w->lock);
    w->nunits = 0;
    pthread_mutex_unlock(&w->lock);
    for (uint32_t k = 0; k < nunits; k++)
        written(svc, c, c->writeback_units[k].of, handle != 0);
    pthread_mutex_unlock(&c->writeback_lock);
}
