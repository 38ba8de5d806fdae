/*
 * fstable.h - the service's mount table: mount point -> file-system instance.
 *
 * Every request names its mount by index, so lookups happen on every path
 * call; they read an RCU-published snapshot without locks. Adding a mount
 * publishes a new snapshot (the engine adds container roots at run time).
 * Indices are stable: a mount keeps its index, and its instance lives, for
 * the service's life, so a request may use an instance after leaving the
 * read-side section it looked it up in. Indices are never reused, so a
 * service holds at most DANAUS_MAX_INSTANCES over its life (wire.h).
 */
#ifndef DANAUS_FSTABLE_H
#define DANAUS_FSTABLE_H

#include "fsservice/libservice/libservice.h"

#include <pthread.h>
#include <stdint.h>

struct fs_snapshot;

struct fstable {
    pthread_mutex_t lock;
    struct fs_snapshot *snap; /* RCU-published */
};

void fstable_init(struct fstable *t);
/* Takes ownership of inst. Returns the new mount's index or -errno
 * (-ENOSPC after DANAUS_MAX_INSTANCES, -EEXIST for a live mount point). */
int fstable_add(struct fstable *t, const char *mountpoint,
                struct ls_instance *inst);
/* Takes a mount out of service (the engine removing a container's root):
 * its index is never reused, lookups of it give NULL, and the hello list
 * leaves it out. The instance lives on until
 * fstable_destroy, since a request may still use it. Returns the index,
 * or -ENOENT. */
int fstable_remove(struct fstable *t, const char *mountpoint);
/* Inside an RCU read-side section: the instance of mount i, or NULL. */
struct ls_instance *fstable_get(struct fstable *t, uint32_t i);
/* The live mounts as hello entries (wire.h), oldest first, at most
 * DANAUS_MAX_MOUNTS of them. Returns the byte count written (<= cap) and
 * the number of entries in *n. */
size_t fstable_list(struct fstable *t, char *out, size_t cap, uint32_t *n);
/* Writes one hello entry; its length, or 0 when it does not fit in cap. */
size_t fstable_entry(char *out, size_t cap, uint32_t index, const char *path);
/* The index of the live mount at mountpoint, or -ENOENT. */
int fstable_find(struct fstable *t, const char *mountpoint);
/* Copies the mount point of live mount i into out (cap bytes): 0, or
 * -ENOENT (removed or unknown), -ENAMETOOLONG. */
int fstable_mountpoint(struct fstable *t, uint32_t i, char *out, size_t cap);
/* Destroys every instance; no request may be running. */
void fstable_destroy(struct fstable *t);

#endif
