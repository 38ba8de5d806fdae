/*
 * workers.c - service threads: take a request, run it, answer it.
 *
 * A thread spins on its queue for SPIN_NS after its last request before it
 * sleeps: a futex wake costs about 40 us on these machines, a spinning
 * hand-off under 1 us (ARCHITECTURE.md), so a busy client should find its
 * service thread awake.
 *
 * What a thread takes from its queue is a doorbell, a claim only: the
 * request it names is served only if client_request_begin finds it posted
 * in that client's own area (client.h); anything else costs one look.
 * One more thread, the sweeper, serves requests whose bells never came
 * (ipc.h): every SWEEP_MS it looks at every client's owned slots, so no
 * client can make another wait on the shared queues for longer than that.
 */
#include "workers.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <urcu.h>

#define SPIN_NS 100000          /* busy-poll after the last request */
#define GROW_BACKLOG 2          /* waiting requests that call for a thread */
#define EXTRA_IDLE_MS 200       /* an added thread leaves after this idle */
#define SWEEP_MS 5              /* the sweeper's period */
#define SWEEP_BATCH 64          /* requests served per sweep at most */

struct crew {
    struct workers *w;
    uint32_t queue;
    cpu_set_t cpus;
    _Atomic int nthreads;
};

struct thread_arg {
    struct crew *crew;
    bool extra;
};

static void *worker_main(void *arg);

static int spawn(struct crew *crew, bool extra)
{
    struct thread_arg *a = malloc(sizeof *a);
    if (!a)
        return -ENOMEM;
    a->crew = crew;
    a->extra = extra;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setaffinity_np(&attr, sizeof crew->cpus, &crew->cpus);
    atomic_fetch_add(&crew->nthreads, 1);
    atomic_fetch_add(&crew->w->live, 1);
    pthread_t t;
    int rc = pthread_create(&t, &attr, worker_main, a);
    pthread_attr_destroy(&attr);
    if (rc) {
        atomic_fetch_sub(&crew->nthreads, 1);
        atomic_fetch_sub(&crew->w->live, 1);
        free(a);
        return -rc;
    }
    return 0;
}

/* Adds a thread when requests wait behind the one just taken. */
static void maybe_grow(struct crew *crew)
{
    struct service *svc = crew->w->svc;
    if (atomic_load(&crew->nthreads) >= crew->w->max_per_queue)
        return;
    if (ipc_queue_backlog(&svc->seg, ipc_queue(&svc->seg, crew->queue)) <
        GROW_BACKLOG)
        return;
    spawn(crew, true);
}

/* Runs the request bell b names, if it checks out (client.h). */
static void serve_bell(struct service *svc, struct ipc_bell b)
{
    struct danaus_desc d;
    struct client *c = client_request_begin(&svc->clients, b, &d);
    /* Stale, duplicate or forged: nobody waits for it. */
    if (!c)
        return;
    int64_t result = dispatch(svc, c, b.slot, &d);
    ipc_complete(ipc_slot(&c->area, b.slot), b.seq, result);
    client_put(c);
}

/* Takes one doorbell and runs its request; false when the queue was empty.
 * *last: the client this thread served last while busy (UINT32_MAX: it
 * was idle), whose turn comes after others' (ipc_take). */
static bool serve_one(struct crew *crew, uint32_t *last)
{
    struct service *svc = crew->w->svc;
    struct ipc_bell b;

    if (!ipc_take(&svc->seg, ipc_queue(&svc->seg, crew->queue), *last, &b))
        return false;
    if (*last != UINT32_MAX)
        maybe_grow(crew);
    *last = b.client;
    serve_bell(svc, b);
    return true;
}

static void *sweeper_main(void *arg)
{
    struct workers *w = arg;
    struct ipc_bell bells[SWEEP_BATCH];
    struct timespec period = {.tv_nsec = SWEEP_MS * 1000000L};
    uint32_t cursor = 0;

    rcu_register_thread();
    while (!atomic_load(&w->stop)) {
        uint32_t n = client_sweep(&w->svc->clients, &cursor, bells,
                                  SWEEP_BATCH);
        for (uint32_t i = 0; i < n; i++)
            serve_bell(w->svc, bells[i]);
        nanosleep(&period, NULL);
    }
    rcu_unregister_thread();
    atomic_fetch_sub(&w->live, 1);
    return NULL;
}

static void *worker_main(void *arg)
{
    struct thread_arg a = *(struct thread_arg *)arg;
    free(arg);
    struct crew *crew = a.crew;
    struct workers *w = crew->w;
    struct service *svc = w->svc;
    struct ipc_queue *q = ipc_queue(&svc->seg, crew->queue);

    rcu_register_thread();
    while (!atomic_load(&w->stop)) {
        bool woke = ipc_wait_work(&svc->seg, q, SPIN_NS,
                                  a.extra ? EXTRA_IDLE_MS : -1);
        if (!woke) {
            if (a.extra)
                break;
            continue;
        }
        /* Serve while the counters say more wait: an empty queue is not
         * scanned again here, ipc_wait_work notices new requests. */
        uint32_t last = UINT32_MAX;
        while (serve_one(crew, &last) && ipc_queue_pending(q) &&
               !atomic_load(&w->stop))
            ;
    }
    rcu_unregister_thread();
    atomic_fetch_sub(&crew->nthreads, 1);
    atomic_fetch_sub(&w->live, 1);
    return NULL;
}

int workers_start(struct workers *w, struct service *svc,
                  const cpu_set_t *groups, uint32_t ngroups)
{
    w->svc = svc;
    w->ncrews = ngroups;
    w->max_per_queue = (int)svc->cfg.threads_per_queue;
    atomic_init(&w->stop, false);
    atomic_init(&w->live, 0);
    w->crews = calloc(ngroups, sizeof *w->crews);
    if (!w->crews)
        return -ENOMEM;
    for (uint32_t i = 0; i < ngroups; i++) {
        struct crew *crew = &w->crews[i];
        crew->w = w;
        crew->queue = i;
        crew->cpus = groups[i];
        atomic_init(&crew->nthreads, 0);
        int rc = spawn(crew, false);
        if (rc < 0) {
            workers_stop(w);
            return rc;
        }
    }
    pthread_t t;
    atomic_fetch_add(&w->live, 1);
    int rc = pthread_create(&t, NULL, sweeper_main, w);
    if (rc == 0)
        rc = pthread_detach(t);
    else
        atomic_fetch_sub(&w->live, 1);
    if (rc) {
        workers_stop(w);
        return -rc;
    }
    return 0;
}

void workers_stop(struct workers *w)
{
    atomic_store(&w->stop, true);
    struct timespec tick = {.tv_nsec = 1000000};
    while (atomic_load(&w->live) > 0) {
        for (uint32_t i = 0; i < w->ncrews; i++)
            ipc_queue_wake_all(ipc_queue(&w->svc->seg, i));
        nanosleep(&tick, NULL);
    }
    free(w->crews);
    w->crews = NULL;
}
