/*
 * fuse_dirs.h - the directory listings the FUSE door keeps open itself.
 *
 * The door answers OPENDIR with ENOSYS (FUSE_NO_OPENDIR_SUPPORT): the
 * kernel then opens and releases directories without asking, which
 * spares two of the four requests a small directory's listing costs, and
 * its READDIR requests carry no handle, only the node and the cookie to
 * resume from. The door opens the directory at a listing's first read
 * and keeps it, by node and the cookie its next read starts from, while
 * its slot is not needed, past the listing's end too: the kernel may drop
 * its cached copy (below) in the middle of a reader's listing and ask
 * again from a cookie of it. A read that finds nothing kept (a slot
 * reused, a new service after a crash) opens the directory again and
 * resumes at the cookie, as a directory handle adopted from a dead
 * service is, which the backends' cookies allow (the union's are hashes
 * of the names). A directory removed through the door is kept open
 * across its removal, as the kernel may hold it open: its attributes and
 * its empty listing stay readable while it is kept.
 *
 * The kernel also caches the listings of directories it opens without
 * asking, which it checks only against the directory's mtime and
 * i_version when a listing starts: the door drops a cached listing when
 * the directory changes by another way (fuse_inval.c), and when the
 * kernel asks again for the directory's own entry (a lookup, its
 * parent's listing): its names' entries are then as old as that one, and
 * a listing from the cache would make the kernel look up every name
 * again where one readdirplus refreshes them all. The door remembers
 * which directories it listed for that; after a crash, every directory
 * the dead service knew may have been listed, so each of its nodes gets
 * one drop.
 */
#ifndef DANAUS_FUSE_DIRS_H
#define DANAUS_FUSE_DIRS_H

#include "fsservice/libservice/libservice.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Listings kept open at once per mount; the least recently read goes
 * first. */
#define FUSE_DIRS_KEPT 64
/* Directories remembered as listed, by node id modulo this: one that
 * collides is forgotten, and its cached listing outlives its names. */
#define FUSE_DIRS_LISTED 16384

struct fuse_dirs {
    pthread_mutex_t lock;
    uint64_t clock; /* counts keeps: a slot's age */
    struct fuse_kept_dir {
        struct ls_file *dir; /* NULL: the slot is free */
        uint64_t node, ino; /* ino: the node's inode when it was kept */
        off_t next; /* the cookie its next read starts from */
        uint64_t kept_at;
    } kept[FUSE_DIRS_KEPT];
    uint64_t *listed; /* FUSE_DIRS_LISTED node ids; 0: none */
    /* A bit per node id below inherited_top, the ids a dead predecessor
     * gave out: set until the node's first drop. */
    uint8_t *inherited;
    uint64_t inherited_top;
};

/* With inherited_top the node ids a dead predecessor gave out (0 for a
 * new mount), which count as listed. 0, or -ENOMEM; fuse_dirs_free
 * either way. */
int fuse_dirs_init(struct fuse_dirs *d, uint64_t inherited_top);
/* Closes every listing kept. */
void fuse_dirs_free(struct fuse_dirs *d);

/* A node's id is used again once the kernel forgot it: what is kept is
 * kept for node as of inode ino (fuse_nodes_ino, which must not be 0),
 * and found only by both. The inode of a directory held open cannot be
 * freed, so its number is not another's meanwhile. */

/* The directory kept for node's listing that resumes at cookie at (or,
 * at a cookie other than 0, the one read last of node's), taken out of d
 * (no other read can use it meanwhile); NULL when none is. */
struct ls_file *fuse_dirs_take(struct fuse_dirs *d, uint64_t node,
                               uint64_t ino, off_t at);
/* Keeps dir, open on node, for the read that resumes at cookie next;
 * closes the least recently kept listing when d is full. */
void fuse_dirs_keep(struct fuse_dirs *d, uint64_t node, uint64_t ino,
                    off_t next, struct ls_file *dir);

/* Calls fn on a directory kept open on node, under d's lock (fstat of a
 * removed directory): fn's result, or -ESTALE when there is none. */
int fuse_dirs_on_node(struct fuse_dirs *d, uint64_t node, uint64_t ino,
                      int (*fn)(struct ls_file *, void *), void *arg);

/* The kernel got node's listing from its start, which it may cache. */
void fuse_dirs_listed(struct fuse_dirs *d, uint64_t node);
/* Whether node was listed since it was last asked; forgets it. */
bool fuse_dirs_unlist(struct fuse_dirs *d, uint64_t node);

#endif
