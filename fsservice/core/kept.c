/*
 * kept.c - the next service's side of kept writes (kept.h): the pages a
 * dead service's clients kept back, written through the descriptors its
 * keeper held, before any client is let in.
 *
 * The areas are the clients' memory, and a client may still run: a page
 * counts only as the copy taken of it (ipc_dirty_take, which also takes
 * a page the dead service had taken and maybe not written), its bytes are
 * copied once, and its handle is looked up among the files kept for that
 * client alone. A page this cannot write stays TAKEN, which a client that
 * lives sends again itself through the next service (libfs/writeback.c).
 */
#include "kept.h"

#include "ipc/ipc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <unistd.h>

struct taken {
    struct ipc_dirty_page head;
    uint32_t page;
    int fd;
};

static int by_seq(const void *a, const void *b)
{
    const struct taken *x = a, *y = b;
    return x->head.seq < y->head.seq ? -1 : x->head.seq > y->head.seq;
}

/* The descriptor kept of client's handle, or -1. */
static int file_of(const struct kept_fd *kept, size_t n, uint32_t client,
                   uint64_t handle)
{
    for (size_t i = 0; i < n; i++)
        if (kept[i].w.op == KEPT_FILE && kept[i].w.client == client &&
            kept[i].w.handle == handle)
            return kept[i].fd;
    return -1;
}

/* Takes the pages of area a (client w->client's) that name a kept file,
 * into t: how many. */
static uint32_t take(const struct ipc_area *a, const struct kept_write *w,
                     const struct kept_fd *kept, size_t n, struct taken *t)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < a->dirty_pages; i++) {
        struct ipc_dirty_page head;
        if (!ipc_dirty_take(a, i, true, &head))
            continue;
        int fd = file_of(kept, n, w->client, head.handle);
        if (fd < 0 || head.len == 0 || head.len > IPC_CACHE_BLOCK ||
            head.off > (uint64_t)INT64_MAX - head.len)
            continue;
        t[m++] = (struct taken){head, i, fd};
    }
    qsort(t, m, sizeof *t, by_seq);
    return m;
}

/* Writes client w->client's pages in the order it made them, as the
 * client (a write by someone else might keep a setuid bit its own would
 * drop); returns how many were written. */
static uint32_t write_area(const struct ipc_area *a, const struct kept_write *w,
                           const struct kept_fd *kept, size_t n)
{
    struct taken *t = calloc(a->dirty_pages, sizeof *t);
    if (!t)
        return 0;
    uint32_t m = take(a, w, kept, n, t), written = 0;
    uid_t uid = (uid_t)setfsuid((uid_t)-1);
    gid_t gid = (gid_t)setfsgid((gid_t)-1);
    setfsgid(w->gid);
    setfsuid(w->uid);
    unsigned char data[IPC_CACHE_BLOCK];
    for (uint32_t k = 0; k < m; k++) {
        const struct ipc_dirty_page *h = &t[k].head;
        ipc_dirty_copy(a, t[k].page, data, h->len);
        ssize_t done = pwrite(t[k].fd, data, h->len, (off_t)h->off);
        if (done == (ssize_t)h->len) {
            ipc_dirty_release(a, t[k].page);
            written++;
        } else {
            fprintf(stderr, "danausd: a page client %u kept back could not "
                    "be written: %s\n", w->client,
                    done < 0 ? strerror(errno) : "short write");
        }
    }
    setfsuid(uid);
    setfsgid(gid);
    free(t);
    return written;
}

void kept_recover(const struct ipc_geometry *own, const struct kept_fd *kept,
                  size_t n)
{
    uint32_t clients = 0, pages = 0;
    for (size_t i = 0; i < n; i++) {
        const struct kept_write *w = &kept[i].w;
        if (w->op != KEPT_AREA)
            continue;
        struct ipc_geometry g = *own;
        g.nslots = w->nslots;
        g.slot_buf = w->slot_buf;
        g.cache_blocks = w->cache_blocks;
        g.dirty_pages = w->dirty_pages;
        /* A mapping of its own: the descriptor stays the caller's. */
        int fd = dup(kept[i].fd);
        struct ipc_area a;
        int rc = fd < 0 ? -errno : ipc_area_map(fd, &g, &a);
        if (rc < 0) {
            if (fd >= 0)
                close(fd);
            fprintf(stderr, "danausd: the area of client %u of the previous "
                    "service cannot be read: %s\n", w->client,
                    strerror(-rc));
            continue;
        }
        uint32_t written = write_area(&a, w, kept, n);
        pages += written;
        clients += written > 0;
        ipc_area_unmap(&a);
    }
    if (pages)
        fprintf(stderr, "danausd: wrote %u pages that %u clients of the "
                "previous service had kept back\n", pages, clients);
}
