/*
 * workers.h - the back driver's service threads.
 *
 * Each queue (one per core group) gets one thread pinned to the group's
 * cpus at start. When a thread finds requests still waiting behind the one
 * it took, it adds a thread to its queue, up to threads_per_queue; added
 * threads leave again after a spell without work. A queue whose threads
 * are all blocked inside calls gets more, up to stalled_threads_per_queue
 * beyond that bound (workers.c). A uid may hold only a share of a
 * queue's threads inside long calls, and of the threads that run swept
 * requests (threadshares.h).
 */
#ifndef DANAUS_WORKERS_H
#define DANAUS_WORKERS_H

#include "cpugroups.h"
#include "deadline.h"
#include "service.h"
#include "threadshares.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

struct crew;

struct workers {
    struct service *svc;
    struct crew *crews;
    uint32_t ncrews;
    cpu_set_t cpus; /* the service's: all crews' */
    int max_per_queue;
    int max_stalled; /* threads a stalled queue may add beyond that */
    pthread_t watch; /* the stall and deadline watch */
    struct deadlines deadlines;
    bool watching;
    _Atomic bool stop;
    _Atomic int live;     /* threads running */
    _Atomic int sweeping; /* threads running swept requests */
    struct thread_shares swept_threads; /* their shares, per uid */
    struct cpu_groups groups; /* where long calls run (cpugroups.h) */
};

int workers_start(struct workers *w, struct service *svc,
                  const cpu_set_t *groups, uint32_t ngroups);
/* Stops every thread once its current request is answered, waiting at most
 * about 2 s for requests in progress. Returns the number of threads still
 * inside a call then (blocked in a backend): 0 when all have ended and w is
 * released; otherwise they still use the service, which must not be freed
 * (the process should exit). */
int workers_stop(struct workers *w);

#endif
