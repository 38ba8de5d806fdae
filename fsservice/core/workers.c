/*
 * workers.c - service threads: take a request, run it, answer it.
 *
 * A thread spins on its queue for SPIN_NS after its last request before it
 * sleeps: a futex wake costs about 40 us on these machines, a spinning
 * hand-off under 1 us (ARCHITECTURE.md), so a busy client should find its
 * service thread awake. Unless the client it just answered waits on this
 * thread's own cpu (ipc_slot_client_here): that client needs the cpu to
 * send its next request, so the thread sleeps at once (ipc/wait.c).
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

/* The crew's cpus within those the spawning thread may use now: the
 * service's cpus can shrink while it runs (a cpuset made smaller, taskset
 * on its threads), and a new thread must never widen them again. */
static void spawn_cpus(const struct crew *crew, cpu_set_t *cpus)
{
    cpu_set_t now;

    *cpus = crew->cpus;
    if (pthread_getaffinity_np(pthread_self(), sizeof now, &now) != 0)
        return;
    CPU_AND(cpus, cpus, &now);
    if (CPU_COUNT(cpus) == 0)
        *cpus = now;
}

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
    cpu_set_t cpus;
    spawn_cpus(crew, &cpus);
    pthread_attr_setaffinity_np(&attr, sizeof cpus, &cpus);
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

/* Whether the client this thread answered last waits on its cpu. */
static __thread bool client_here;

/* How long to spin for the next request (see the head comment). */
static uint64_t spin_ns(void)
{
    return client_here ? 0 : SPIN_NS;
}

/* Takes one request and runs it; false when the queue was empty. busy: the
 * previous call took a request too, so this one waited behind it. */
static bool serve_one(struct crew *crew, bool busy)
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
    struct ipc_slot *slot = ipc_slot(&svc->seg, d.slot);
    ipc_slot_running(slot);
    if (busy)
        maybe_grow(crew);
    int64_t result = dispatch(svc, c, &d);
    ipc_complete(slot, d.seq, result);
    client_here = ipc_slot_client_here(slot);
    slot_request_done(&svc->clients, d.slot, c);
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

    rcu_register_thread();
    while (!atomic_load(&w->stop)) {
        bool woke = ipc_wait_work(&svc->seg, q, spin_ns(),
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
            busy = serve_one(crew, busy);
        while (busy && ipc_queue_pending(q) && !atomic_load(&w->stop));
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
