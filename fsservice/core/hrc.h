/*
 * hrc.h - the hit-ratio curve of each mount's reads (wire.h
 * DANAUS_DOOR_HRC), for `danaus stats --hrc`: a container's reads reach
 * the service on its root mount, so a mount is the container the engine
 * names. Both doors count every page of file data a read returned, keyed
 * by the file and the page, into the mount's estimator (reuse.h), from
 * the first time anyone asks for a curve (hrc_get): counting costs every
 * page read, and a service nobody asks pays nothing.
 *
 * Memory is bounded whatever clients do: an estimator has a fixed size,
 * and the service makes at most HRC_TRACKED of them, for the first mounts
 * read; a removed mount's goes back for the next one, and a mount read
 * after all are taken is not tracked.
 */
#ifndef DANAUS_HRC_H
#define DANAUS_HRC_H

#include "reuse.h"
#include "fsservice/libservice/libservice.h"

#include <danaus/wire.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define HRC_TRACKED 64
#define HRC_PAGE 4096

struct hrc_tracker;

struct hrc_table {
    pthread_mutex_t lock; /* making, giving and taking back trackers */
    _Atomic bool counting; /* since the first hrc_get */
    uint64_t seed;
    struct hrc_tracker *_Atomic of[DANAUS_MAX_INSTANCES]; /* by mount */
    struct hrc_tracker *made[HRC_TRACKED];
    uint32_t nmade;
};

void hrc_init(struct hrc_table *t);
void hrc_free(struct hrc_table *t);

/* A read of mount returned len bytes of file at off. The file is named
 * by its inode number when its open learnt it, else by the open file
 * (whose pages then count apart from other opens of the same file). */
void hrc_read(struct hrc_table *t, uint32_t mount, const struct ls_file *file,
              uint64_t off, uint64_t len);

/* The mount is gone: its tracker is free for another. */
void hrc_forget(struct hrc_table *t, uint32_t mount);

/* The i-th tracker in use: its mount and curve, 0; or -ENOENT past the
 * last one. Reads are counted from the first call on. */
int hrc_get(struct hrc_table *t, uint32_t i, uint32_t *mount,
            struct reuse_curve *out);

/* A curve's hit ratios in parts per million, as the wire gives them
 * (danaus_hrc_reply) and danaus_hrc_knee reads them. */
void hrc_curve_ppm(const struct reuse_curve *c,
                   uint32_t hit_ppm[DANAUS_HRC_POINTS]);

#endif
