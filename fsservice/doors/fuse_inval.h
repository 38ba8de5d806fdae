/*
 * fuse_inval.h - keeping what the kernel caches of a FUSE export (names,
 * negative names, attributes, data pages; fuse_door.h) true when the
 * instance changes by another way than the kernel's own requests: the
 * preload door's calls, and, through FUSE, a change to a file that the
 * kernel also knows under other names (hard links are separate nodes).
 *
 * Each invalidation is a notification written to the FUSE connection,
 * made after the change and outside every lock of the door's tables: the
 * kernel may wait, before it drops a name, for a request on its directory
 * that a loop thread is serving, and may write a dirty page of a shared
 * mapping back through the door before it drops the page. A FUSE
 * request's change drops the other names' attributes before its reply,
 * so that the requester's next call cannot find them stale: dropping an
 * inode's attributes waits for no lock (dropping a name would wait for
 * the directory the request itself holds, so names are dropped only for
 * the preload's changes).
 */
#ifndef DANAUS_FUSE_INVAL_H
#define DANAUS_FUSE_INVAL_H

#include "fuse_export.h"
#include "fsservice/core/service.h"

#include <stdbool.h>
#include <stdint.h>

/* Drops the attributes the kernel holds for the other nodes (but
 * `except`) of inode ino, and with data their cached pages too. */
void fuse_inval_inode(struct fuse_export *ex, uint64_t ino, uint64_t except,
                      bool data);

/* The kernel is told of a file of mode with nlink names (an entry's or
 * attributes' reply): remembered if it has more than one. */
void fuse_inval_told(struct fuse_export *ex, uint32_t mode, uint64_t nlink);

/* The kernel is told that name is missing in directory node parent, and
 * may remember it so for the export's timeout: a name made there must
 * be dropped from its cache. Call before the answer goes out. */
void fuse_inval_told_missing(struct fuse_export *ex, uint64_t parent,
                             const char *name);

/* Drops the listing the kernel caches of directory node (fuse_dirs.h),
 * and its attributes. */
void fuse_inval_listing(struct fuse_export *ex, uint64_t node);

/* The preload door changed the instance (service.h's changed hook): drops
 * what that made stale and keeps the node table's names true. Never from
 * a FUSE request of this export: the kernel may hold the locks that
 * dropping a name waits for. */
void fuse_inval_changed(struct fuse_export *ex, enum service_change what,
                        const char *path, const char *path2,
                        struct ls_file *file, const struct ls_cred *cred);

#endif
