/*
 * cachesize.h - the backends' own caches of file data sized from what the
 * mounts' reads need (cache_auto): the sum of the knees of every mount's
 * hit-ratio curve (hrc.h; a container's root is a mount, so each
 * container counts once), above a floor for metadata and written data,
 * up to the operator's bound. Looked at every CACHE_SIZE_PERIOD_S from
 * the sweeper and set (ls_backends_resize_cache) only when it moved by
 * more than an eighth, so that a knee wandering between two sizes does
 * not resize the cache each time. Counting the curves costs every read a
 * hash and a probe (hrc.h), which a pool that sizes by them pays from
 * its start.
 */
#ifndef DANAUS_CACHESIZE_H
#define DANAUS_CACHESIZE_H

#include "hrc.h"

#include <stddef.h>
#include <stdint.h>

#define CACHE_SIZE_PERIOD_S 5
#define CACHE_SIZE_FLOOR (8ull << 20)

struct cache_size {
    uint64_t bound;   /* cache_auto: the most it may be; 0: off */
    uint64_t size;    /* the size last set; 0: none yet */
    uint64_t next_ns; /* when to look again */
};

/* Sizing up to bound bytes (0: off), from the floor (or bound, when
 * less) now, once the mounts' backends are ready; counting starts at the
 * first tick. 0, or -1 with a line for the operator in err: no backend
 * has a cache of its own, or one refused the size. */
int cache_size_start(struct cache_size *s, uint64_t bound, char *err,
                     size_t errlen);

/* The size the curves of t ask for now, within the floor and bound:
 * bytes, and in *mounts how many curves had a knee. */
uint64_t cache_size_wanted(struct hrc_table *t, uint64_t bound,
                           uint32_t *mounts);

/* From the sweeper: at most once a period, sizes the caches by
 * cache_size_wanted, saying so on stderr when the size changes. */
void cache_size_tick(struct cache_size *s, struct hrc_table *t,
                     uint64_t now_ns);

#endif
