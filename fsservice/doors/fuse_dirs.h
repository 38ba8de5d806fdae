/*
 * fuse_dirs.h - the directory listings the FUSE door keeps open itself.
 *
 * The door answers OPENDIR with ENOSYS (FUSE_NO_OPENDIR_SUPPORT): the
 * kernel then opens and releases directories without asking, which
 * spares two of the four requests a small directory's listing costs, and
 * its READDIR requests carry no handle, only the node and the cookie to
 * resume from. The door opens the directory at a listing's first read
 * and keeps it, by node and the cookie its next read starts from, until
 * the listing ends or its slot is needed: a listing's reads find their
 * open directory again, so a backend whose cookies hold only for one
 * open (the union's, an index into the listing taken at its start) lists
 * each name once even while names are removed (rm -rf reads a directory
 * while it empties it). A read that finds nothing kept (a slot reused, a
 * new service after a crash) opens the directory again and resumes at
 * the cookie, as a directory handle adopted from a dead service is.
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
        uint64_t node;
        off_t next; /* the cookie its next read starts from */
        uint64_t kept_at;
    } kept[FUSE_DIRS_KEPT];
    uint64_t *listed; /* FUSE_DIRS_LISTED node ids; 0: none */
};

/* 0, or -ENOMEM; fuse_dirs_free either way. */
int fuse_dirs_init(struct fuse_dirs *d);
/* Closes every listing kept. */
void fuse_dirs_free(struct fuse_dirs *d);

/* The directory kept for node's listing that resumes at cookie at (or,
 * at a cookie other than 0, the one read last of node's), taken out of d
 * (no other read can use it meanwhile); NULL when none is. */
struct ls_file *fuse_dirs_take(struct fuse_dirs *d, uint64_t node, off_t at);
/* Keeps dir, open on node, for the read that resumes at cookie next;
 * closes the least recently kept listing when d is full. */
void fuse_dirs_keep(struct fuse_dirs *d, uint64_t node, off_t next,
                    struct ls_file *dir);

/* The kernel got node's listing from its start, which it may cache. */
void fuse_dirs_listed(struct fuse_dirs *d, uint64_t node);
/* Whether node was listed since it was last asked; forgets it. */
bool fuse_dirs_unlist(struct fuse_dirs *d, uint64_t node);

#endif
