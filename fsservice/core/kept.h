/*
 * kept.h - what a kill of danausd must not lose of the writes its clients
 * keep back (writeback.h): handed, as they come and go, to a process that
 * outlives the service (its keeper, doors/fuse_keeper.h), and handed back
 * by it to the next service, which writes the pages before it lets any
 * client in (writeback_recover).
 *
 * Two things are kept: a client's area, whose write-back pages live in
 * it, and, for each handle the client may keep writes of, a descriptor
 * of the file open for writing (ls_ops.write_fd). A page names its handle,
 * and only those descriptors; so a successor writes a client's bytes only
 * into files that client had open for writing, as the live service would,
 * and needs no path, no reopen and no check of who the client was.
 */
#ifndef DANAUS_KEPT_H
#define DANAUS_KEPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kept_op {
    KEPT_AREA = 1,      /* client's area, with its descriptor */
    KEPT_FILE,          /* client's handle's file, with its descriptor */
    KEPT_FORGET_FILE,   /* client's handle closed */
    KEPT_FORGET_CLIENT, /* client gone: its area and files */
};

struct kept_write {
    uint32_t op;
    uint32_t client;      /* its id, unique over the service's life */
    uint64_t handle;      /* FILE, FORGET_FILE */
    uint32_t uid, gid;    /* AREA: whom the client's writes are made as */
    /* AREA: the area's geometry (ipc.h), for the successor to map it */
    uint32_t nslots, slot_buf, cache_blocks, dirty_pages;
};

/* Whether change ends what held says is kept: the same client's area, or
 * file of the same handle, kept anew or forgotten, or the client gone. */
static inline bool kept_ends(const struct kept_write *held,
                             const struct kept_write *change)
{
    if (held->client != change->client)
        return false;
    switch (change->op) {
    case KEPT_AREA:
        return held->op == KEPT_AREA;
    case KEPT_FILE:
    case KEPT_FORGET_FILE:
        return held->op == KEPT_FILE && held->handle == change->handle;
    default:
        return true;
    }
}

/* Where the service hands them; NULL fields nowhere (no keeper). Called
 * in the order the changes happen, with fd -1 but for AREA and FILE. */
struct kept_sink {
    void (*keep)(void *arg, const struct kept_write *w, int fd);
    void *arg;
};

/* One of them, with its descriptor. */
struct kept_fd {
    struct kept_write w;
    int fd;
};

/* What is kept now, as the changes so far leave it: the keeper's own
 * (owned: it closes a descriptor as its entry leaves), the service's
 * mirror of it (borrowed descriptors), or what a successor claimed. */
struct kept_list {
    struct kept_fd *v;
    size_t n, cap;
    bool owned;
};

/* Applies change w: drops the entries it ends (kept_ends) and, for an
 * AREA or FILE, adds it with fd. 0, or -1 when out of memory (fd, if
 * owned, closed). Other ops change nothing. */
int kept_list_apply(struct kept_list *l, const struct kept_write *w, int fd);
/* Drops every entry (closing owned descriptors) and the memory. */
void kept_list_clear(struct kept_list *l);

struct ipc_geometry;

/* Writes the pages of every area kept through the files kept of the same
 * client, in the order the client made them; own is this service's
 * geometry of areas, kept's areas giving their own sizes. Says on stderr
 * what it wrote and what it could not. */
void kept_recover(const struct ipc_geometry *own, const struct kept_list *kept);

/* Around kept_recover, for a successor with a keeper of its own (sink):
 * what it claimed is handed on before the pages are written, so that a
 * kill meanwhile leaves them to the next service, and forgotten after
 * (a page left unwritten is its client's to send again). No client of
 * this service is in yet, so the dead service's client ids meet none of
 * its own. */
void kept_hand_on(const struct kept_sink *sink, const struct kept_list *kept);
void kept_let_go(const struct kept_sink *sink, const struct kept_list *kept);

#endif
