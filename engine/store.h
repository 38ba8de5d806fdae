/*
 * store.h - what the engine keeps in a pool's backend, written through the
 * pool's danausd so it is the same for every backend: layers by helper
 * processes (helper.h), writable branches by the caller itself through
 * the pool's store mount (the danausd's FUSE door):
 *
 *   BACKEND/layers/HEX       a layer (layers.h), unpacked once per pool
 *                            and shared by every image that names it
 *                            (marked by pools/POOL/layers/HEX). A copy
 *                            no image names is removed once the pool's
 *                            danausd has forgotten its branch instance
 *                            (kept by path), which it refuses while a
 *                            mounted union uses it: its mark then names
 *                            that danausd, and a later sweep asks again
 *   BACKEND/images/ID/N      layer N of an image imported before layers
 *                            were shared (pools/POOL/images/ID)
 *   BACKEND/containers/NAME  a container's private writable branch
 *                            (pools/POOL/stale/NAME: one to remove later)
 */
#ifndef ENGINE_STORE_H
#define ENGINE_STORE_H

#include "layers.h"
#include "record.h"

#include <stddef.h>

/* Unpacks the layers into the pool's backend unless done before (a kept
 * copy no image named is taken back). In a nosuid pool (its danausd
 * strips setuid and setgid bits and refuses device nodes) the layers'
 * device nodes are left out, and said so. 0 or -1 (fail.h). */
int store_publish(const char *pool, const struct layer_list *layers,
                  int nosuid);
/* Removes the copies of an image imported before layers were shared
 * (published as id) from every pool that has one. */
int store_unpublish_everywhere(const char *id);
/* A new, empty branch (whatever an earlier container of that name left is
 * removed first). */
int store_branch_create(const char *pool, const char *container);
/* The directory of volume `name` in the pool's backend, made if absent
 * (it outlives the containers that use it). 0 or -1 (fail.h). */
int store_volume_create(const char *pool, const char *name);
int store_branch_remove(const char *pool, const char *container);
/* Notes that the branch is to be removed once the pool's danausd runs
 * again (pools/POOL/stale/CONTAINER). 0 or -1 (fail.h). */
int store_branch_defer(const char *pool, const char *container);
/* With the pool's danausd running (pool: its record): removes the noted
 * branches and the layer copies no image names that no mounted union
 * uses; marks those one uses with the danausd's pid. 0 or -1 (fail.h). */
int store_sweep(const char *pool, const struct record *rec);
/* store_sweep for every pool whose danausd runs. */
int store_sweep_everywhere(void);
#endif
