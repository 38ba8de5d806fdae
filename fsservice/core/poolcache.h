/*
 * poolcache.h - the pool's page cache: file data of backends the kernel
 * does not cache for the service (those whose hold answers LS_HOLD_POOL:
 * Ceph's), kept in danausd's memory for every mount of the pool, in 4 KiB
 * pages, and partitioned by mount, that is by container (docs/cache.md,
 * "A container kept at its knee").
 *
 * Each page is charged to the mount whose read brought it in and sits on
 * that mount's LRU list. Each mount has a reserve, set from its hit-ratio
 * curve's knee (cachesize.h). When the cache is full, the page given up
 * is the least recent one of the mount farthest above its reserve, so a
 * container streaming a file through recycles its own pages and cannot
 * push another below its knee (CvHRC's allocation).
 *
 * Coherence: pages are read and filled only through an open file its
 * backend holds (a Ceph read delegation), and the backend announces every
 * change before it takes effect (poolcache_changed drops the file's
 * pages). Between holds nobody announces: the first read through each open
 * file compares the file's size and times with those its pages were read
 * under (poolcache_check), and drops them when they differ. A fill that
 * raced with an announcement is not kept: it carries the change count of
 * its key's bucket from before its backend read.
 *
 * One mutex guards it all; reads copy pages under it.
 */
#ifndef DANAUS_POOLCACHE_H
#define DANAUS_POOLCACHE_H

#include <danaus/wire.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POOLCACHE_PAGE 4096u
#define POOLCACHE_CHANGE_BUCKETS 1024

/* What a file's pages were read under: they count while it stays. */
struct poolcache_version {
    int64_t size, mtime_sec, ctime_sec;
    uint32_t mtime_nsec, ctime_nsec;
};

struct pc_page;
struct pc_file;
struct pc_mount;

struct poolcache_mount_stats {
    uint64_t pages, reserve, hits, misses;
};

struct poolcache {
    pthread_mutex_t lock;
    uint64_t capacity; /* pages; 0: nothing is kept */
    uint64_t used;
    uint32_t page_buckets, file_buckets; /* powers of two */
    struct pc_page **pages;
    struct pc_file **files;
    struct pc_mount *mounts[DANAUS_MAX_INSTANCES]; /* made on first use */
    uint32_t made[DANAUS_MAX_INSTANCES];           /* which, in order */
    uint32_t nmade;
    _Atomic uint32_t changes[POOLCACHE_CHANGE_BUCKETS];
};

/* A cache that may grow to bound bytes (0: off, every call below is then
 * a no-op or a miss). 0, or -ENOMEM. */
int poolcache_init(struct poolcache *pc, uint64_t bound);
void poolcache_free(struct poolcache *pc);
bool poolcache_on(const struct poolcache *pc);

/* Holds at most bytes from now on, giving pages up as the rule says. */
void poolcache_resize(struct poolcache *pc, uint64_t bytes);

/* Mount's reserve: pages no other mount's reads take from it. */
void poolcache_reserve(struct poolcache *pc, uint32_t mount,
                       uint64_t pages);

/* Mount is gone: its pages stay (another mount may read the same file)
 * but have no reserve, and its counts start again. */
void poolcache_forget_mount(struct poolcache *pc, uint32_t mount);

/* The first read through an open file of key, held, whose file is v now:
 * pages read under another version are dropped. */
void poolcache_check(struct poolcache *pc, uint64_t key,
                     const struct poolcache_version *v);

/* Copies len bytes at off of key into out when every page they lie in is
 * kept, counting a hit for mount: the bytes copied (fewer at the file's
 * end), or -1 (a miss, counted). */
int64_t poolcache_read(struct poolcache *pc, uint32_t mount, uint64_t key,
                       uint64_t off, uint64_t len, void *out);

/* Before the backend read a fill will keep: the change count it must
 * still find. */
uint32_t poolcache_fill_begin(struct poolcache *pc, uint64_t key);

/* The backend read len bytes of key at off (a page boundary), through an
 * open file checked under v, for mount; eof: the read ended at the file's
 * end, so its last partial page is kept too. Nothing is kept when key
 * changed since poolcache_fill_begin returned seen. */
void poolcache_fill(struct poolcache *pc, uint32_t mount, uint64_t key,
                    uint32_t seen, const struct poolcache_version *v,
                    uint64_t off, const void *data, uint64_t len, bool eof);

/* Key's data is about to change (an announcement): its pages go. */
void poolcache_changed(struct poolcache *pc, uint64_t key);

struct poolcache_mount_stats poolcache_stats(struct poolcache *pc,
                                             uint32_t mount);

#endif
