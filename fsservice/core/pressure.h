/*
 * pressure.h - pools that share a backend hold back for one whose calls
 * it makes too slow.
 *
 * A pool's rate on its backend (admission.h) is a number the operator
 * picks, and the right one depends on what the other pools do: next to a
 * file server at 1,850 ops/s a pool of fsyncs kept 6% of its rate, and 90%
 * once the file server's pool was held to 100 ops/s (docs/performance.md, issue 15),
 * which that pool then was whether the fsyncs ran or not. Here a pool can
 * say how slow its backend calls may get instead
 * (backend_latency_target_ms), and the others hold back only while it
 * misses that, as cgroups' io.latency does for the disks of one host.
 *
 * The pools of a host (the engine's) meet in one directory
 * (backend_pressure_dir), which only the operator can write. A pool with a
 * target keeps a file there named after it, two CLOCK_MONOTONIC times: it
 * has had backend calls until the first, and missed its target until the
 * second. Every PRESSURE_WINDOW_MS each pool reads the others' files and
 * sets a ceiling on its own two rates (struct pressure_ceiling): halved,
 * from what it used in the last window, while any pool misses its target;
 * grown by a sixteenth (and a floor's worth) while targets are met; none at
 * all once no pool with a target has used the backend for a second. The
 * fixed rates of the configuration stay upper bounds. A pool never holds
 * back for its own target.
 *
 * Targets order the pools that have one: a pool with a target holds back
 * for pools whose target is tighter than its own, not for looser ones.
 * Of two pools with the same target, the one that made more backend calls
 * in its last window holds back for the other: pools that each held back
 * for the other's misses pushed the heavier one to the floor, pools that
 * held back for neither left the lighter one as starved as without
 * targets (docs/performance.md, issue 15). Calls through the FUSE door count and are
 * held as the preload's (fsservice/doors/fuse_ops.c), once they are done:
 * one still running in the backend is not seen as a miss.
 */
#ifndef DANAUS_PRESSURE_H
#define DANAUS_PRESSURE_H

#include "admission.h"
#include "deadline.h"
#include "fairshare.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define PRESSURE_WINDOW_MS 100
/* A ceiling never goes below this: a pool held back still moves. */
#define PRESSURE_FLOOR_OPS 10
#define PRESSURE_FLOOR_BYTES (1u << 20)

/* What a pool with a target writes in its file. */
struct pressure_note {
    uint64_t active_until_ns; /* it has backend calls until then */
    uint64_t missed_until_ns; /* it misses its target until then */
    uint64_t target_ns;       /* its target; 0: none (then no file) */
    uint64_t calls_per_second; /* its backend calls, last window */
};

/* A pool's ceiling on its rates; 0: none. */
struct pressure_ceiling {
    uint64_t ops, bytes;
};

/* What the other pools' notes said at one look. */
enum pressure_state {
    PRESSURE_NONE,   /* no pool with a target used the backend lately */
    PRESSURE_MET,    /* some did, and all met their targets */
    PRESSURE_MISSED, /* some pool missed its target */
};

struct pressure {
    int dir_fd;          /* backend_pressure_dir; -1: not set */
    int note_fd;         /* this pool's file there; -1: no target */
    char name[NAME_MAX + 1];
    uint64_t fixed_ops, fixed_bytes; /* the configured rates; 0: none */
    uint64_t window_ns;  /* start of the current window */
    struct pressure_note note; /* its file's, kept also without a target */
    struct pressure_ceiling ceiling;
    /* This window, counted by the service threads. */
    _Atomic uint64_t backend_calls, slow_calls; /* completed */
    _Atomic uint64_t ops_charged, bytes_charged;
    struct fairshare share; /* the default between pools (fairshare.h) */
};

/* dir: backend_pressure_dir (NULL: the pool takes no part); name: the
 * service's; target_ms: backend_latency_target_ms (0: none); fair: the
 * pool's fair share (fairshare.h), cpus: how many the service has.
 * Returns 0 or -errno (the directory or a note cannot be opened). */
int pressure_init(struct pressure *p, const char *dir, const char *name,
                  uint32_t target_ms, uint64_t fixed_ops,
                  uint64_t fixed_bytes, const struct fairshare_config *fair,
                  uint32_t cpus);
void pressure_close(struct pressure *p);

/* Whether the pool takes part (a backend_pressure_dir is set). */
static inline bool pressure_on(const struct pressure *p)
{
    return p->dir_fd >= 0;
}

/* Counts, for a pool that takes part, one call that loads its backend's
 * servers (op and bytes, as admission_cost_of), which ran ns there. */
void pressure_count(struct pressure *p, bool op, uint64_t bytes,
                    uint64_t ns);

/* Once per window (called more often, it does nothing in between): writes
 * this pool's notes, reads the others' and sets a's rates and its fair
 * share. ds: the pool's
 * running requests, whose oldest counts as a miss once it is older than
 * the target. */
void pressure_tick(struct pressure *p, struct admission *a,
                   struct deadlines *ds, uint64_t now_ns);

/* The next ceiling from the last one, what the pool used in the window
 * (per second), and the state the others' notes were in. */
struct pressure_ceiling pressure_next(struct pressure_ceiling last,
                                      struct pressure_ceiling used,
                                      enum pressure_state state);

#endif
