/*
 * readcache.h - the service's side of the clients' read caches (ipc.h):
 * which handles of which clients may hold cached data of which file, and
 * the generations that make those copies count.
 *
 * A handle gets a generation at a PREAD when its backend lets the file be
 * cached (ls_ops.cache_hold); the answer carries it and the client keeps
 * the data under it. When the backend announces that the file's data is
 * about to change (readcache_changed, in the backend's own thread), every
 * handle on that file gets generation 0 in its client's area, so nothing
 * kept before counts; a later PREAD asks the backend again and hands out a
 * new generation. A handle that closes, and a client that leaves, forget
 * theirs.
 *
 * A generation is handed out only if no announcement for the file came
 * between asking the backend for its hold and registering the handle to
 * hear the next one: the handle is registered as pending first, the hold
 * asked for (again), and an announcement meanwhile clears the pending mark.
 *
 * One mutex guards it: only PREADs that were not served from a cache,
 * announcements and closes take it, and never across a backend call
 * (announcements arrive with backend locks held).
 */
#ifndef DANAUS_READCACHE_H
#define DANAUS_READCACHE_H

#include "fsservice/libservice/libservice.h"

#include <pthread.h>
#include <stdint.h>

struct client;
struct readcache_reader;

#define READCACHE_BUCKETS 4096

struct readcache {
    pthread_mutex_t lock;
    uint32_t readers; /* handles registered */
    struct readcache_reader *by_key[READCACHE_BUCKETS];
    struct readcache_reader *by_handle[READCACHE_BUCKETS];
};

void readcache_init(struct readcache *rc);
void readcache_free(struct readcache *rc);

/* Before a PREAD of handle (of c, on file, open for reading): the
 * generation the answer carries, 0 when its data may not be cached. */
uint32_t readcache_begin(struct readcache *rc, struct client *c,
                         uint64_t handle, struct ls_file *file);

/* The handle closed; the client leaves (before its area goes). */
void readcache_forget(struct readcache *rc, struct client *c,
                      uint64_t handle);
void readcache_forget_client(struct readcache *rc, struct client *c);

/* The data backends name key is about to change (ls_change_sink). */
void readcache_changed(void *rc, uint64_t key);

/* Client c changed the data of the file handle names through it, which
 * its backend does not announce (ls_ops.cache_hold): as an announcement
 * of that file, before the change's reply. */
void readcache_wrote(struct readcache *rc, struct client *c,
                     uint64_t handle);

#endif
