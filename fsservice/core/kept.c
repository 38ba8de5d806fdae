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
 * Also the list of what is kept, which the keeper, the service's mirror
 * of it and a claimer each hold.
 */
#include "kept.h"

#include "ipc/ipc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <unistd.h>

static void end(struct kept_list *l, size_t i)
{
    if (l->owned)
        close(l->v[i].fd);
}

int kept_list_apply(struct kept_list *l, const struct kept_write *w, int fd)
{
    bool holds = w->op == KEPT_AREA || w->op == KEPT_FILE;
    if (!holds && w->op != KEPT_FORGET_FILE && w->op != KEPT_FORGET_CLIENT)
        return 0;
    size_t to = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (kept_ends(&l->v[i].w, w))
            end(l, i);
        else
            l->v[to++] = l->v[i];
    }
    l->n = to;
    if (!holds)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct kept_fd *more = realloc(l->v, cap * sizeof *more);
        if (!more) {
            if (l->owned)
                close(fd);
            return -1;
        }
        l->v = more;
        l->cap = cap;
    }
    l->v[l->n++] = (struct kept_fd){*w, fd};
    return 0;
}

void kept_list_clear(struct kept_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        end(l, i);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

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
static int file_of(const struct kept_list *kept, uint32_t client,
                   uint64_t handle)
{
    for (size_t i = 0; i < kept->n; i++) {
        const struct kept_fd *k = &kept->v[i];
        if (k->w.op == KEPT_FILE && k->w.client == client &&
            k->w.handle == handle)
            return k->fd;
    }
    return -1;
}

/* Takes the pages of area a (client w->client's) that name a kept file,
 * into t: how many. */
static uint32_t take(const struct ipc_area *a, const struct kept_write *w,
                     const struct kept_list *kept, struct taken *t)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < a->dirty_pages; i++) {
        struct ipc_dirty_page head;
        if (!ipc_dirty_take(a, i, true, &head))
            continue;
        int fd = file_of(kept, w->client, head.handle);
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
                           const struct kept_list *kept)
{
    struct taken *t = calloc(a->dirty_pages, sizeof *t);
    if (!t)
        return 0;
    uint32_t m = take(a, w, kept, t), written = 0;
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

void kept_hand_on(const struct kept_sink *sink, const struct kept_list *kept)
{
    for (size_t i = 0; sink->keep && i < kept->n; i++)
        sink->keep(sink->arg, &kept->v[i].w, kept->v[i].fd);
}

void kept_let_go(const struct kept_sink *sink, const struct kept_list *kept)
{
    for (size_t i = 0; sink->keep && i < kept->n; i++)
        if (kept->v[i].w.op == KEPT_AREA) {
            struct kept_write gone = {.op = KEPT_FORGET_CLIENT,
                                      .client = kept->v[i].w.client};
            sink->keep(sink->arg, &gone, -1);
        }
}

void kept_recover(const struct ipc_geometry *own, const struct kept_list *kept)
{
    uint32_t clients = 0, pages = 0;
    for (size_t i = 0; i < kept->n; i++) {
        const struct kept_write *w = &kept->v[i].w;
        if (w->op != KEPT_AREA)
            continue;
        struct ipc_geometry g = *own;
        g.nslots = w->nslots;
        g.slot_buf = w->slot_buf;
        g.cache_blocks = w->cache_blocks;
        g.dirty_pages = w->dirty_pages;
        /* A mapping of its own: the descriptor stays the caller's. */
        int fd = dup(kept->v[i].fd);
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
        uint32_t written = write_area(&a, w, kept);
        pages += written;
        clients += written > 0;
        ipc_area_unmap(&a);
    }
    if (pages)
        fprintf(stderr, "danausd: wrote %u pages that %u clients of the "
                "previous service had kept back\n", pages, clients);
}
