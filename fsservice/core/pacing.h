/*
 * pacing.h - what one backend call costs the pool, the same for both
 * doors: charged to the pool's rate before it runs (admission.h), its
 * time counted toward the pool's latency target after (pressure.h).
 *
 * The service threads (workers.c) charge first and wait later, after
 * handing their queue on; the FUSE door's threads charge and wait in one
 * step (pace_begin). Both count through pace_count.
 */
#ifndef DANAUS_PACING_H
#define DANAUS_PACING_H

#include "admission.h"
#include "pressure.h"

#include <stdint.h>

/* A call being paced: what it costs, and when it began to run. */
struct pace {
    struct admission_cost cost;
    uint64_t start_ns;
};

/* Charges cost to the pool's rate, waits its turn on this thread, and
 * notes when the call starts. */
void pace_begin(struct pace *p, struct admission *a,
                struct admission_cost cost);
/* After the call: its time since pace_begin counts (pace_count). */
void pace_end(const struct pace *p, struct pressure *pr);
/* Counts a call that loads the backend's servers and ran ran_ns, for
 * pressure.h; nothing at all for a pool that takes no part, or a call
 * that costs nothing. */
void pace_count(struct pressure *pr, struct admission_cost cost,
                uint64_t ran_ns);

#endif
