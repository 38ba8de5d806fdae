/*
 * query.h - the questions engine commands ask about each other's records:
 * does this pool, image or container exist, what does its record say, who
 * uses it. One home for them, so pool.c, image.c and container.c read the
 * state directory (state.h) here and never call one another.
 */
#ifndef ENGINE_QUERY_H
#define ENGINE_QUERY_H

#include "record.h"

#include <stddef.h>

/* The record file of a pool, image or container named name. */
void query_pool_path(const char *name, char *out);
void query_image_path(const char *name, char *out);
void query_container_path(const char *name, char *out);
/* Load the record of an existing pool / container; an invalid name or an
 * unknown one is an error (fail.h). 0 or -1. */
int query_pool(const char *name, struct record *rec);
int query_container(const char *name, struct record *rec);
/* Load the record of an existing image with at least one layer; 0 or -1
 * (fail.h: unknown, or a broken record). */
int query_image(const char *name, struct record *rec);
/* What an image's layers are published under in a pool's backend: its
 * import's id (a new one each import), or its name for an image imported
 * before images had ids. */
const char *query_image_id(const struct record *rec, const char *name);
/* Calls fn with each pool whose record loads (fn may change the record;
 * it is not saved). -1 when some fn returned -1, else 0. */
int query_each_pool(int (*fn)(const char *pool, struct record *rec));
/* Containers (any state) whose record has field = value (e.g. "pool",
 * "image"), listed as "a, b" in out; their count. */
int query_container_users(const char *field, const char *value, char *out,
                          size_t size);

#endif
