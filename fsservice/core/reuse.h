/*
 * reuse.h - a sampled reuse-distance estimator: the hit-ratio curve of an
 * LRU cache of pages (hit ratio against cache size) from a stream of page
 * reads, in a fixed amount of memory whatever the stream.
 *
 * The idea is SHARDS's (Waldspurger et al., FAST 2015), fixed-size
 * variant: a page is sampled when a keyed hash of it falls at or below a
 * threshold, so a page is either always sampled or never; the reuse
 * distance of a sampled read (the number of distinct sampled pages read
 * since the page's previous read) is scaled by the sampling rate. At most
 * REUSE_SAMPLES pages are held: when one more comes, the page with the
 * largest hash goes and the threshold falls to it, and what was counted
 * so far is scaled down to the new rate.
 *
 * A few hot pages carry most reads at small distances, and a sample of
 * pages catches them or not by chance: so the REUSE_NEAR pages read last
 * are kept exactly (an LRU stack of their hashes), which gives the curve
 * up to that size exactly. The sample gives the rest: the reads that are
 * neither near nor first reads (whose count is known) are spread over
 * sizes as the sampled ones that were not near are.
 *
 * Distances fall in bins (danaus_hrc_pages): exact up to 16 pages, then
 * 8 per power of two. The curve is given at the bins' edges, where it is
 * exact for a stream of fewer than REUSE_SAMPLES pages.
 *
 * Threads: reuse_read may run on any number of threads at once; each
 * read takes the estimator's mutex once for all its pages.
 */
#ifndef DANAUS_REUSE_H
#define DANAUS_REUSE_H

#include <danaus/wire.h>

#include <stdint.h>

#define REUSE_SAMPLES 4096
#define REUSE_NEAR 1024
/* Bins of distances: 16 of one page, then 8 per power of two up to
 * 2^40 pages; the last holds everything beyond. Bin i starts at
 * danaus_hrc_pages(i) pages. */
#define REUSE_BINS DANAUS_HRC_POINTS

struct reuse;

/* A new estimator whose hash is keyed by seed (clients cannot aim at
 * sampled pages without it); NULL without memory. */
struct reuse *reuse_new(uint64_t seed);
void reuse_free(struct reuse *r);
/* Forgets every read (for a new owner). */
void reuse_reset(struct reuse *r);

/* A read of pages first to first + count - 1 of the file named key. */
void reuse_read(struct reuse *r, uint64_t key, uint64_t first,
                uint64_t count);

struct reuse_curve {
    uint64_t reads;           /* reads counted */
    double rate;              /* the share of pages sampled now */
    uint32_t samples;         /* pages held */
    /* hit[i]: the hit ratio of an LRU cache of danaus_hrc_pages(i + 1)
     * pages */
    double hit[REUSE_BINS];
};

void reuse_curve(struct reuse *r, struct reuse_curve *out);

#endif
