/*
 * fairshare.h - the pools of a host share their backend by weight, with
 * nothing configured (issue 37; docs/isolation.md).
 *
 * In the spirit of dmClock: each pool has a weight (by default its
 * service's cpus), may have a reservation (a rate it keeps while it waits
 * on the backend) and a limit (its fixed rates, admission.h). The pools
 * meet where pressure.h's notes are, in a directory of their own
 * (shares/), a note per pool: its weight, reservation, the tokens
 * (admission.h) it used lately (a moving average over windows), and
 * until when it has been
 * active and waiting. A pool waits while a tenth of its charged calls in
 * a window, or its oldest running request, take longer than its latency
 * target (FAIRSHARE_SLOW_MS unless the pool sets one), and is not held by
 * its own fixed rates.
 *
 * Every window each pool reads the notes of the active pools and divides
 * the backend's capacity among them: what they use together now, or what
 * the pool itself used at most lately, if more (decaying by
 * 1/FAIRSHARE_DECAY a window, so that holding it back does not shrink its
 * share at once; a busy pool next to a starved one keeps at least its
 * weight's part of its own rate). Shares go by water-filling: a
 * waiting pool's reservation first, then the rest by weight, and a pool
 * that does not wait and uses less than its part keeps only what it uses,
 * the rest going to the others (an idle share flows to busy ones). A pool
 * above its share is held to it (a token bucket, admission.h) while
 * another pool waits below its own, and lets go by a sixteenth a window
 * otherwise, until it is past the capacity; then it has no bound. A pool
 * alone on the backend, or the only active one, is never held.
 */
#ifndef DANAUS_FAIRSHARE_H
#define DANAUS_FAIRSHARE_H

#include "admission.h"
#include "deadline.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAIRSHARE_SLOW_MS 2     /* the default latency target */
#define FAIRSHARE_DECAY 256     /* the capacity's decay per window */
#define FAIRSHARE_SMOOTH 4      /* a window's weight in a pool's use: 1/4 */
#define FAIRSHARE_MAX_POOLS 64  /* notes read per window, at most */
#define FAIRSHARE_MAX_WEIGHT 10000
/* A held pool keeps at least ten ops a second. */
#define FAIRSHARE_FLOOR (10 * ADMISSION_OP_TOKENS)
#define FAIRSHARE_MAGIC 0x64616e6175736673ull /* "danausfs" */

/* A pool's file in shares/; rates in tokens per second. */
struct fairshare_note {
    uint64_t magic;
    uint64_t weight, reservation;
    uint64_t used;             /* lately (fairshare_smooth) */
    uint64_t active_until_ns;  /* it has backend calls until then */
    uint64_t waiting_until_ns; /* it waits on the backend until then */
    uint64_t ceiling;          /* what it is held to now; 0: nothing */
    uint64_t paced;            /* its calls that waited for the share */
};

/* One active pool as the arithmetic sees it. */
struct fairshare_pool {
    uint64_t weight, reservation, used;
    bool waiting;
};

struct fairshare {
    int dir_fd;  /* shares/ in the pressure directory; -1: no part */
    int note_fd;
    char name[NAME_MAX + 1];
    uint64_t slow_ns; /* the pool's latency target */
    uint64_t capacity;    /* the most this pool used lately */
    uint64_t held_before; /* admission's held at the last window */
    struct fairshare_note note;
    /* This window, counted by the service threads. */
    _Atomic uint64_t calls, slow_calls, tokens;
};

/* What the configuration says; 0 for weight and reservation: defaults. */
struct fairshare_config {
    bool on;
    uint32_t weight;          /* default: the service's cpus */
    uint32_t reservation_ops; /* ops per second */
    uint32_t target_ms;       /* backend_latency_target_ms; 0: default */
};

/* pressure_dir_fd: the pools' directory (pressure.h); makes shares/ in
 * it. Returns 0 (also for c NULL or c->on false: the pool takes no part)
 * or -errno. */
int fairshare_init(struct fairshare *f, int pressure_dir_fd,
                   const char *name, const struct fairshare_config *c,
                   uint32_t cpus);
void fairshare_close(struct fairshare *f);

/* Counts a charged call that ran ns in the backend. */
void fairshare_count(struct fairshare *f, struct admission_cost cost,
                     uint64_t ns);

/* Once a window of span_ns: writes this pool's note, reads the others'
 * and sets a's share. ds: the pool's running requests. */
void fairshare_tick(struct fairshare *f, struct admission *a,
                    struct deadlines *ds, uint64_t now_ns, uint64_t span_ns);

/* The arithmetic, apart for its tests. */

/* Whether a window's calls say the pool waits: a tenth of them slow, or
 * a request running longer than the target; never while its own rates
 * held it (held: it had calls wait for them in the window). */
bool fairshare_waiting(uint64_t calls, uint64_t slow, uint64_t oldest_ns,
                       uint64_t slow_ns, bool held);
/* A pool's use after a window at rate, from its use before. */
uint64_t fairshare_smooth(uint64_t last, uint64_t rate);
/* The most used lately, after a window in which total was used. */
uint64_t fairshare_capacity(uint64_t last, uint64_t total);
/* Fills share[i] for each of the n active pools from capacity. */
void fairshare_shares(const struct fairshare_pool *pools, size_t n,
                      uint64_t capacity, uint64_t *share);
/* Pool self's next ceiling (0: none) from its last one. */
uint64_t fairshare_ceiling(const struct fairshare_pool *pools, size_t n,
                           size_t self, uint64_t capacity, uint64_t last);

#endif
