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
 * A handle open for writing may get a generation with IPC_GEN_WRITES_BACK
 * (ipc.h) when its backend's hold says so (LS_HOLD_WRITES): its client
 * then keeps small writes in its area. An announcement of the file then
 * has them flushed (readcache_flush_key) after the generation went to 0,
 * and the backend lets the other opener go only once they are
 * written.
 *
 * One mutex guards it: only PREADs that were not served from a cache,
 * PWRITEs of write-back handles, announcements and closes take it, and
 * never across a backend call but a write-back flush (announcements
 * arrive with backend locks held; a backend that lets writes be kept
 * back announces in a thread of its own that holds none).
 */
#ifndef DANAUS_READCACHE_H
#define DANAUS_READCACHE_H

#include "kept.h"
#include "fsservice/libservice/libservice.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct client;
struct readcache_reader;

#define READCACHE_BUCKETS 4096

struct readcache {
    pthread_mutex_t lock;
    uint32_t readers; /* handles registered */
    struct readcache_reader *by_key[READCACHE_BUCKETS];
    struct readcache_reader *by_handle[READCACHE_BUCKETS];
    /* Writes c's write-back pages of handle (0: all of them) to the
     * backend; set by the service (writeback.h). Called without the lock;
     * with a handle, every generation of its file is 0 already. */
    void (*flush)(void *arg, struct client *c, uint64_t handle);
    void *flush_arg;
    /* Told of each client area and file that holds write-back pages,
     * under the lock and before the generation that lets the client keep
     * any, so that a kill of the service loses none (kept.h); set by
     * whoever outlives the service, or not at all. */
    struct kept_sink kept;
    uint32_t flushing;      /* flushes under way: their clients stay */
    pthread_cond_t flushed; /* signalled as they end */
};

void readcache_init(struct readcache *rc);
void readcache_free(struct readcache *rc);

/* Before a PREAD of handle (of c, on file, open for reading), or after a
 * PWRITE through it: the generation its cached data counts under, 0 when
 * its data may not be cached; with IPC_GEN_WRITES_BACK when writes_back
 * and the backend lets a holder keep writes back. */
uint32_t readcache_begin(struct readcache *rc, struct client *c,
                         uint64_t handle, struct ls_file *file,
                         bool writes_back);

/* The handle closed; the client leaves (before its area goes). */
void readcache_forget(struct readcache *rc, struct client *c,
                      uint64_t handle);
void readcache_forget_client(struct readcache *rc, struct client *c);

/* c is gone: its write-back pages are written (before its handles close). */
void readcache_flush_client(struct readcache *rc, struct client *c);

/* The data backends name key is about to change (ls_change_sink): every
 * handle's generation goes to 0; then (flush) the pages of write-back
 * handles of it are written. */
void readcache_changed(void *rc, uint64_t key);
void readcache_flush_key(void *rc, uint64_t key);

/* c is about to write pages it kept back of handle: every handle of the
 * file gets generation 0 (nothing is flushed). */
void readcache_writing_back(struct readcache *rc, struct client *c,
                            uint64_t handle);

/* Client c changed the data of the file handle names through it, which
 * its backend does not announce (ls_ops.cache_hold): as an announcement
 * of that file, before the change's reply; and before the change, so that
 * pages kept back by another client sharing the open file land first. */
void readcache_wrote(struct readcache *rc, struct client *c,
                     uint64_t handle);

#endif
