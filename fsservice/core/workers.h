/*
 * workers.h - the back driver's service threads.
 *
 * Each queue (one per core group) gets one thread pinned to the group's
 * cpus at start. When a thread finds requests still waiting behind the one
 * it took, it adds a thread to its queue, up to threads_per_queue; added
 * threads leave again after a spell without work.
 */
#ifndef DANAUS_WORKERS_H
#define DANAUS_WORKERS_H

#include "service.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

struct crew;

struct workers {
    struct service *svc;
    struct crew *crews;
    uint32_t ncrews;
    int max_per_queue;
    _Atomic bool stop;
    _Atomic int live; /* threads running */
};

int workers_start(struct workers *w, struct service *svc,
                  const cpu_set_t *groups, uint32_t ngroups);
/* Stops every thread once its current request is answered. */
void workers_stop(struct workers *w);

#endif
