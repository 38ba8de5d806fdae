/*
 * cachesize.h - the pool's caches of file data sized from what the mounts'
 * reads need (cache_auto): the sum of the knees of every mount's hit-ratio
 * curve (hrc.h; a container's root is a mount, so each container counts
 * once), above a floor for metadata, read-ahead and written data, up to
 * the operator's bound. The backend's own cache keeps the floor; the
 * pool's page cache (poolcache.h) the knees, each mount's reserved for it
 * while the reserves fit (those that buy the most hits per page first),
 * so that a container flooding the cache cannot push another below its
 * knee. Looked at every CACHE_SIZE_PERIOD_S from the sweeper; the size is
 * set only when it moved by more than an eighth, so that a knee wandering
 * between two sizes does not resize the cache each time. Counting the
 * curves costs every read a hash and a probe (hrc.h), which a pool that
 * sizes by them pays from its start.
 */
#ifndef DANAUS_CACHESIZE_H
#define DANAUS_CACHESIZE_H

#include "hrc.h"
#include "poolcache.h"

#include <stddef.h>
#include <stdint.h>

#define CACHE_SIZE_PERIOD_S 5
#define CACHE_SIZE_FLOOR (8ull << 20)

struct cache_size {
    uint64_t bound;   /* cache_auto: the most it may be; 0: off */
    struct poolcache *pool;
    uint64_t size;    /* the size last set; 0: none yet */
    uint64_t next_ns; /* when to look again */
};

/* Sizing up to bound bytes (0: off): the backends' caches to the floor
 * (or bound, when less) now, once the mounts' backends are ready, and
 * pool's from the first tick, when counting starts. 0, or -1 with a line
 * for the operator in err: no backend has a cache of its own, or one
 * refused the size. */
int cache_size_start(struct cache_size *s, uint64_t bound,
                     struct poolcache *pool, char *err, size_t errlen);

/* The size the curves of t ask for now, within the floor and bound:
 * bytes, and in *mounts how many curves had a knee. */
uint64_t cache_size_wanted(struct hrc_table *t, uint64_t bound,
                           uint32_t *mounts);

/* A mount's knee: its pages (0: none) and the hits it buys there. */
struct cache_knee {
    uint32_t mount;
    uint64_t pages;
    double hits;
};

/* The reserves of n mounts in a pool cache of capacity pages: by hits per
 * page, most first, each its knee while the capacity lasts (the one it
 * runs out in, the rest). reserve[i] gets knee[i]'s. */
void cache_size_reserves(const struct cache_knee *knee, uint32_t n,
                         uint64_t capacity, uint64_t *reserve);

/* From the sweeper: at most once a period, sizes the pool's cache by
 * cache_size_wanted, saying so on stderr when the size changes, and sets
 * its mounts' reserves. */
void cache_size_tick(struct cache_size *s, struct hrc_table *t,
                     uint64_t now_ns);

#endif
