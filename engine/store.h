/*
 * store.h - what the engine keeps in a pool's backend, written through the
 * pool's danausd (helper.h) so it is the same for every backend:
 *
 *   BACKEND/images/ID/N      layer N of an image, unpacked once per pool
 *                            (marked by pools/POOL/images/ID); ID is the
 *                            import's (query_image_id), never reused: a
 *                            pool's danausd keeps the branch instances of
 *                            read-only directories it has served, by path,
 *                            so an image imported again under the same
 *                            name needs a path of its own
 *   BACKEND/containers/NAME  a container's private writable branch
 *                            (pools/POOL/stale/NAME: one to remove later)
 */
#ifndef ENGINE_STORE_H
#define ENGINE_STORE_H

#include <stddef.h>

/* Unpacks the layers of the image (published as id) into the pool's
 * backend unless done before. In a nosuid pool (its danausd strips setuid
 * and setgid bits and refuses device nodes) the layers' device nodes are
 * left out, and said so. */
int store_publish(const char *pool, const char *image, const char *id,
                  int nlayers, int nosuid);
/* Removes the copies published as id from every pool that has one. */
int store_unpublish_everywhere(const char *id);
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
