/*
 * workers.c - service threads: take a request, run it, answer it.
 *
 * A thread spins on its queue for SPIN_NS after its last request before it
 * sleeps: a futex wake costs about 40 us on these machines, a spinning
 * hand-off under 1 us (ARCHITECTURE.md), so a busy client should find its
 * service thread awake.
 *
 * A request blocked in a backend (a Ceph MDS that never answers) keeps its
 * thread; every thread of a queue blocked so would stall every mount and
 * client of that queue. The stall watch adds a thread to a queue whose
 * threads have all been inside calls, none completing, for a whole tick,
 * up to stalled_threads_per_queue beyond the usual bound. The same watch
 * answers requests past their deadline (deadline.h).
 * At stop, threads still blocked after STOP_GRACE_MS are left behind
 * (workers_stop says how many) so SIGTERM ends the service in bounded time.
 *
 * Taking a request and pinning its slot (slot_request_begin) happen inside
 * one RCU read-side section, so the door, after clearing a dead client's
 * slots and waiting a grace period, knows no thread still holds a request
 * of that client that it has not yet accounted for (client.c).
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
#define WATCH_MS 50             /* stall watch tick */
#define STOP_GRACE_MS 2000      /* how long stop waits for calls in progress */

struct crew {
    struct workers *w;
    uint32_t queue;
    cpu_set_t cpus;
    _Atomic int nthreads;
    _Atomic int in_call;       /* threads inside dispatch */
    _Atomic uint64_t served;   /* requests answered */
    uint64_t served_at_tick;   /* the stall watch's last look at served */
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

/* Takes one request and runs it; false when the queue was empty. busy: the
 * previous call took a request too, so this one waited behind it. */
static bool serve_one(struct crew *crew, struct call_record *rec, bool busy)
{
    struct service *svc = crew->w->svc;
    struct ipc_queue *q = ipc_queue(&svc->seg, crew->queue);
    struct danaus_desc d;
    struct client *c = NULL;

    rcu_read_lock();
    bool got = ipc_take(&svc->seg, q, &d);
    if (got)
        c = slot_request_begin(&svc->clients, d.slot);
    rcu_read_unlock();
    if (!got)
        return false;
    /* No owner: a slot being reclaimed, or a forged number. Nobody waits. */
    if (!c)
        return true;
    if (busy)
        maybe_grow(crew);
    atomic_fetch_add(&crew->in_call, 1);
    deadline_begin(rec, &d);
    int64_t result = dispatch(svc, c, &d);
    atomic_fetch_sub(&crew->in_call, 1);
    /* A request answered after the service was told to stop (one blocked
     * in its backend, then released) is answered all the same, unless the
     * watch answered it at its deadline. */
    if (deadline_end(rec))
        ipc_complete(ipc_slot(&svc->seg, d.slot), d.seq, result);
    slot_request_done(&svc->clients, d.slot, c);
    atomic_fetch_add(&crew->served, 1);
    return true;
}

static void *worker_main(void *arg)
{
    struct thread_arg a = *(struct thread_arg *)arg;
    free(arg);
    struct crew *crew = a.crew;
    struct workers *w = crew->w;
    struct service *svc = w->svc;
    struct ipc_queue *q = ipc_queue(&svc->seg, crew->queue);

    struct call_record rec;
    deadline_register(&w->deadlines, &rec);
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
        bool busy = false;
        do
            busy = serve_one(crew, &rec, busy);
        while (busy && ipc_queue_pending(q) && !atomic_load(&w->stop));
    }
    rcu_unregister_thread();
    deadline_unregister(&w->deadlines, &rec);
    atomic_fetch_sub(&crew->nthreads, 1);
    atomic_fetch_sub(&w->live, 1);
    return NULL;
}

/* Stalled: every thread inside a call and nothing answered since the last
 * tick. Not waiting for a backlog keeps a spare thread awake, so the next
 * request to the queue is served at once rather than a tick later. */
static bool stalled(struct crew *crew)
{
    uint64_t served = atomic_load(&crew->served);
    bool progress = served != crew->served_at_tick;
    crew->served_at_tick = served;
    return !progress &&
           atomic_load(&crew->in_call) >= atomic_load(&crew->nthreads);
}

/* Threads for what waits, and a spare for what comes next, within the
 * bound. */
static void add_stalled_threads(struct crew *crew, int bound)
{
    struct service *svc = crew->w->svc;
    int want = (int)ipc_queue_backlog(&svc->seg,
                                      ipc_queue(&svc->seg, crew->queue)) + 1;
    while (want-- > 0 && atomic_load(&crew->nthreads) < bound &&
           spawn(crew, true) == 0)
        ;
}

static void *watch(void *arg)
{
    struct workers *w = arg;
    struct timespec tick = {.tv_nsec = WATCH_MS * 1000000L};
    int bound = w->max_per_queue + w->max_stalled;
    while (!atomic_load(&w->stop)) {
        nanosleep(&tick, NULL);
        deadlines_expire(&w->deadlines);
        for (uint32_t i = 0; i < w->ncrews; i++)
            if (stalled(&w->crews[i]))
                add_stalled_threads(&w->crews[i], bound);
    }
    return NULL;
}

int workers_start(struct workers *w, struct service *svc,
                  const cpu_set_t *groups, uint32_t ngroups)
{
    w->svc = svc;
    w->ncrews = ngroups;
    w->max_per_queue = (int)svc->cfg.threads_per_queue;
    w->max_stalled = (int)svc->cfg.stalled_threads_per_queue;
    w->watching = false;
    deadlines_init(&w->deadlines, &svc->seg, svc->cfg.request_deadline_ms,
                   svc->cfg.request_deadline_fsync);
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
        atomic_init(&crew->in_call, 0);
        atomic_init(&crew->served, 0);
        int rc = spawn(crew, false);
        if (rc < 0) {
            workers_stop(w);
            return rc;
        }
    }
    if (w->max_stalled > 0 || svc->cfg.request_deadline_ms > 0) {
        int rc = pthread_create(&w->watch, NULL, watch, w);
        if (rc) {
            workers_stop(w);
            return -rc;
        }
        w->watching = true;
    }
    return 0;
}

int workers_stop(struct workers *w)
{
    atomic_store(&w->stop, true);
    if (w->watching)
        pthread_join(w->watch, NULL);
    w->watching = false;
    struct timespec tick = {.tv_nsec = 1000000};
    uint64_t until = ipc_now_ns() + STOP_GRACE_MS * 1000000ull;
    while (atomic_load(&w->live) > 0 && ipc_now_ns() < until) {
        for (uint32_t i = 0; i < w->ncrews; i++)
            ipc_queue_wake_all(ipc_queue(&w->svc->seg, i));
        nanosleep(&tick, NULL);
    }
    int left = atomic_load(&w->live);
    /* Threads left behind still use the crews. */
    if (left == 0) {
        free(w->crews);
        w->crews = NULL;
        deadlines_destroy(&w->deadlines);
    }
    return left;
}
