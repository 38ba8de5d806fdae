/*
 * store.h - what the engine keeps in a pool's backend, written through the
 * pool's danausd (helper.h) so it is the same for every backend:
 *
 *   BACKEND/images/IMAGE/N   layer N of an image, unpacked once per pool
 *                            (marked by pools/POOL/images/IMAGE)
 *   BACKEND/containers/NAME  a container's private writable branch
 */
#ifndef ENGINE_STORE_H
#define ENGINE_STORE_H

#include <stddef.h>

/* Unpacks the image's layers into the pool's backend unless done before. */
int store_publish(const char *pool, const char *image, int nlayers);
/* Removes the image's copies from every pool that has one. */
int store_unpublish_everywhere(const char *image);
int store_branch_create(const char *pool, const char *container);
int store_branch_remove(const char *pool, const char *container);

#endif
