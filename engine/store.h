/*
 * store.h - what the engine keeps in a pool's backend, written through the
 * pool's danausd (helper.h) so it is the same for every backend:
 *
 *   BACKEND/images/IMAGE/N   layer N of an image, unpacked once per pool
 *                            (marked by pools/POOL/images/IMAGE)
 *   BACKEND/containers/NAME  a container's private writable branch
 *                            (pools/POOL/stale/NAME: one to remove later)
 */
#ifndef ENGINE_STORE_H
#define ENGINE_STORE_H

#include <stddef.h>

/* Unpacks the image's layers into the pool's backend unless done before. */
int store_publish(const char *pool, const char *image, int nlayers);
/* Removes the image's copies from every pool that has one. */
int store_unpublish_everywhere(const char *image);
/* A new, empty branch (whatever an earlier container of that name left is
 * removed first). */
int store_branch_create(const char *pool, const char *container);
/* The directory of volume `name` in the pool's backend, made if absent
 * (it outlives the containers that use it). 0 or -1 (fail.h). */
int store_volume_create(const char *pool, const char *name);
int store_branch_remove(const char *pool, const char *container);
/* Notes that the branch is to be removed once the pool's danausd runs
 * again (pools/POOL/stale/CONTAINER); store_sweep removes the noted ones.
 * 0 or -1 (fail.h). */
int store_branch_defer(const char *pool, const char *container);
int store_sweep(const char *pool);

#endif
