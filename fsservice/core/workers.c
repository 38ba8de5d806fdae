/*
 * workers.c - service threads: take a request, run it, answer it.
 *
 * A thread spins on its queue for SPIN_NS after its last request before it
 * sleeps: a futex wake costs far more than a spinning hand-off
 * (bench/ipc_roundtrip.c measures both), so a busy client should find its
 * service thread awake. Unless the client it just answered waits on this
 * thread's own cpu (ipc_slot_client_here): that client needs the cpu to
 * send its next request, so the thread sleeps at once (ipc/wait.c).
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
 * A request over its pool's rate on the backend (admission.h) waits for it
 * as a long call, after the queue is handed on; so does every call of a
 * client whose calls have been slow lately (slowcalls.h), whatever their
 * kind says, while its queue serves another client too (a lone client
 * loses nothing by running its calls where the thread is).
 *
 * Small, cached requests must not queue behind another client's 1 MiB
 * writes and fsyncs on the same queue. Of the three ways out (a lane of
 * their own, a bigger crew, fair scheduling between clients) the crew
 * grows: one watcher per queue at a time, and a thread about to run a
 * request that may keep it long (call_may_block: syncs, bulk transfers,
 * name-space changes) first hands the queue to another thread, waking a
 * parked one or adding one. Threads inside such long requests do not count
 * against threads_per_queue (only against the stalled bound above): with
 * every thread of the bound inside a client's fsyncs, nobody watched the
 * queue, and another client's stat waited for an fsync to end (16x its
 * median beside 4 threads writing 256 KiB + fsync, bench-fairness). A
 * separate lane would
 * still put two clients' fsyncs in one line and needs its own threads
 * anyway; fairness between clients cannot help a request stuck behind one
 * already running. Threads that find the queue watched park on a word of
 * the service's own (never the queue's work_seq, whose sleepers every
 * client publish would wake), so a crew of several costs a single-client
 * ping-pong nothing; an added thread parked for EXTRA_IDLE_MS leaves.
 * Nor must they share a cpu with them: a thread running a long request
 * moves to the cpu its client posted from for the call (placement.h),
 * and into its client's uid's cpu group, where all long calls together
 * weigh as one task (cpugroups.h): those long by their kind, and those of
 * a client whose long calls take much cpu (slowcalls.h), not a call long
 * only because its client's calls waited lately.
 * Any other such request runs where the thread is while its queue serves
 * its client alone and the client calls from one thread (owns one slot):
 * nobody can be behind it, as nobody is behind a kernel's fsync in its
 * caller, and the hand-off and the moves cost more than a sync of a
 * cached file, or a local truncate.
 * A bulk read or write is such a request only while its queue serves
 * more than one client (another in the last SHARED_WINDOW_MS), and a write
 * also while the other cpus are busy (runs_beside): a lone client's
 * transfers run where the thread is, so that the client, on its own cpu,
 * copies each piece out while the next arrives, or in while the last is
 * written (calls_fd.c); moved to the client's cpu, the call would have the
 * client sleep, and cost four context switches per slot buffer besides.
 * The client learns that a write may go in pieces from the watched word
 * of its slot (ipc.h), which a thread sets so only after a large write
 * and only when it would run the next one beside.
 *
 * What a thread takes from its queue is a doorbell, a claim only: the
 * request it names is served only if client_request_begin finds it posted
 * in that client's own area (client.h); anything else costs one look.
 * One more thread, the sweeper, finds requests whose bells never came
 * (ipc.h): every SWEEP_MS it looks at every client's owned slots, so no
 * client can make another wait on the shared queues for longer than that.
 * Each request it finds runs on a short-lived thread of its own, with its
 * deadline, since it may block in its backend and the sweeper must not.
 * The sweeper also keeps the pool's rates on the backend in step with the
 * other pools' targets (pressure.h).
 */
#include "workers.h"

#include "blocking.h"
#include "pacing.h"
#include "placement.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <urcu.h>

#define SPIN_NS 100000          /* busy-poll after the last request */
/* After an OPEN that passed its file the client reads it through the
 * kernel, and its next request is that file's reads away: spinning for
 * it would take the cpu those reads need. */
#define SPIN_AFTER_PASS_NS 10000
#define GROW_BACKLOG 2          /* waiting requests that call for a thread */
#define EXTRA_IDLE_MS 200       /* an added thread leaves after this idle */
#define WATCH_MS 50             /* stall watch tick */
#define STOP_GRACE_MS 2000      /* how long stop waits for calls in progress */
#define SWEEP_MS 5              /* the sweeper's period */
#define SWEEP_BATCH 64          /* requests served per sweep at most */
#define SWEEP_THREADS 16        /* threads running swept requests at most */
#define SHARED_WINDOW_MS 50     /* a queue serves one client after this */

struct crew {
    struct workers *w;
    uint32_t queue;
    cpu_set_t cpus;
    _Atomic int nthreads;
    _Atomic int in_call;       /* threads inside dispatch */
    _Atomic int in_long;       /* of those, inside a call_may_block call */
    _Atomic uint64_t served;   /* requests answered */
    uint64_t served_at_tick;   /* the stall watch's last look at served */
    _Atomic int watchers;      /* threads waiting on the queue */
    _Atomic int parked;        /* threads parked on park_seq */
    _Atomic uint32_t park_seq; /* bumped to hand the queue to a parked one */
    _Atomic uint32_t last_client;   /* the client served last */
    _Atomic uint64_t shared_until;  /* ipc_now_ns: another client came */
    struct thread_shares threads;   /* its threads' shares, per uid */
};

struct thread_arg {
    struct crew *crew;
    bool extra;
    bool home; /* started in the service's cpu group (cpugroups.h) */
};

static void *worker_main(void *arg);

/* This thread's place in the long calls' cpu groups (cpugroups.h). */
static __thread struct cpu_member cpu_me;

/* The crew's cpus within those the spawning thread may use now: the
 * service's cpus can shrink while it runs (a cpuset made smaller, taskset
 * on its threads), and a new thread must never widen them again. (No
 * thread spawns while moved for a long call, see serve_bell.) */
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
    a->home = cpu_groups_at_home(&cpu_me);
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

/* Whether the client this thread answered last waits on its cpu. */
static __thread bool client_here;
/* Where this thread runs a long call (placement.h). */
static __thread struct placement place;

/* Whether the request this thread answered last passed its client a
 * file (call_open_passed). */
static __thread bool answered_pass;

/* How long to spin for the next request (see the head comment). */
static uint64_t spin_ns(void)
{
    return client_here ? 0 : answered_pass ? SPIN_AFTER_PASS_NS : SPIN_NS;
}

/* The slot this thread answered last, watched while it spins for the next
 * request (ipc.h's fast lane). Holds a reference on its client while set,
 * so only between an answer and the end of the spin after it: a thread
 * that parks or sleeps forgets it, and a gone client is freed. */
static __thread struct {
    struct client *c;
    uint32_t slot;
    uint32_t posted;
    bool bulk_write; /* it was a write large enough for pieces */
} answered;

static void forget_answered(void)
{
    if (answered.c)
        client_put(answered.c);
    answered.c = NULL;
}

static void remember_answered(struct client *c, struct ipc_bell b,
                              const struct danaus_desc *d)
{
    forget_answered();
    client_get(c);
    answered.c = c;
    answered.slot = b.slot;
    answered.posted = b.seq;
    answered.bulk_write = call_is_large_write(d);
}

/* Becomes the queue's watcher unless another thread is. */
static bool become_watcher(struct crew *crew)
{
    int none = 0;
    return atomic_compare_exchange_strong(&crew->watchers, &none, 1);
}

/* Parks until handed the queue, for up to ms (-1: no limit). False when
 * the time ran out. The check of watchers after announcing ourselves pairs
 * with hand_off_queue's bump then read of parked (both seq_cst): a hand-off
 * is never lost between them. */
static bool park(struct crew *crew, int ms)
{
    uint32_t seen = atomic_load(&crew->park_seq);
    atomic_fetch_add(&crew->parked, 1);
    int rc = 0;
    if (atomic_load(&crew->watchers) > 0)
        rc = ipc_futex_wait(&crew->park_seq, seen, ms);
    atomic_fetch_sub(&crew->parked, 1);
    return rc != -ETIMEDOUT;
}

static void wake_parked(struct crew *crew, int n)
{
    atomic_fetch_add(&crew->park_seq, 1);
    if (atomic_load(&crew->parked) > 0)
        ipc_futex_wake(&crew->park_seq, n);
}

/* Before a request that may keep this thread long: some other thread must
 * watch the queue meanwhile. Threads in long requests (this one counted)
 * leave room under threads_per_queue for more. */
static void hand_off_queue(struct crew *crew)
{
    if (atomic_load(&crew->watchers) > 0)
        return;
    int n = atomic_load(&crew->nthreads);
    if (atomic_load(&crew->parked) > 0)
        wake_parked(crew, 1);
    else if (n - atomic_load(&crew->in_long) < crew->w->max_per_queue &&
             n < crew->w->max_per_queue + crew->w->max_stalled)
        spawn(crew, true);
}

/* Gives the queue another thread when requests wait behind the one just
 * taken. */
static void maybe_grow(struct crew *crew)
{
    struct service *svc = crew->w->svc;
    if (ipc_queue_backlog(&svc->seg, ipc_queue(&svc->seg, crew->queue)) <
        GROW_BACKLOG)
        return;
    hand_off_queue(crew);
}

/* Notes the client of a request the crew serves. Written only when the
 * client changes, so one client's requests share no line. */
static void note_client(struct crew *crew, uint32_t client)
{
    if (atomic_load_explicit(&crew->last_client, memory_order_relaxed) ==
        client)
        return;
    atomic_store_explicit(&crew->last_client, client, memory_order_relaxed);
    atomic_store_explicit(&crew->shared_until,
                          ipc_now_ns() + SHARED_WINDOW_MS * 1000000ull,
                          memory_order_relaxed);
}

/* Whether the crew served two clients in the last SHARED_WINDOW_MS. */
static bool queue_shared(struct crew *crew)
{
    return ipc_now_ns() < atomic_load_explicit(&crew->shared_until,
                                               memory_order_relaxed);
}

/* Whether a bulk transfer of slot's client runs where this thread is,
 * beside the client: the queue serves that client alone, and for a write,
 * this thread runs on another cpu than the client, and the cpus other than
 * the client's are free for it (placement_others_free). mark: the slot's
 * client_cpu, read once per request (a hint, bounded where used). A write's data
 * goes on to its backend, whose threads (Ceph's messenger, and here the
 * cluster's daemons) want those cpus; a read of cached data does not. */
static bool runs_beside(struct crew *crew, uint32_t mark, bool writing)
{
    return !queue_shared(crew) &&
           (!writing || (ipc_peer_elsewhere(mark) &&
                         placement_others_free(&crew->cpus, mark)));
}

/* A large write's input, all of it, before the thread moves to its
 * client's cpu for the call: there the client could not copy in the
 * pieces while the thread waits for them. */
static void await_input_here(struct ipc_slot *slot, const struct danaus_desc *d)
{
    if (call_is_large_write(d))
        ipc_await_input(slot, d->seq, d->buf_len, d->buf_len,
                        ipc_now_ns() + INPUT_WAIT_NS);
}

/* Whether mount's instance keeps its name space in the host's kernel
 * (libservice.h). */
static bool kernel_name_space(struct service *svc, uint32_t mount)
{
    rcu_read_lock();
    struct ls_instance *inst = fstable_get(&svc->fs, mount);
    bool kernel = inst && inst->kernel_name_space;
    rcu_read_unlock();
    return kernel;
}

/* Runs call, begun, on this thread (a long one with its shares taken:
 * threadshares.h). Before a long call the thread moves to the client's
 * cpu, within its crew's cpus or, for a swept request's thread (crew
 * NULL), the service's: a client that rings no bell must not have its
 * long calls run elsewhere. A crew's thread also hands its queue on
 * first. rec times the request against its deadline (every thread that
 * serves has one). Keeps call's reference on its client. */
static void run(struct workers *w, struct crew *crew,
                struct call_record *rec, const struct long_call *call,
                bool long_call)
{
    struct service *svc = w->svc;
    struct client *c = call->c;
    struct ipc_bell b = call->b;
    const struct danaus_desc *d = &call->d;
    uint32_t mark = call->mark;
    struct ipc_slot *slot = ipc_slot(&c->area, b.slot);
    bool handed_on = crew && long_call;
    if (handed_on) {
        atomic_fetch_add(&crew->in_long, 1);
        hand_off_queue(crew);
    }
    if (long_call) {
        cpu_groups_want(&cpu_me,
                        call->weighed ? (int64_t)c->cred.uid : CPU_HOME);
        await_input_here(slot, d);
        placement_follow(&place, crew ? &crew->cpus : &w->cpus, mark);
    }
    /* After the move: a client whose cpu the call now runs on must not
     * spin for it. */
    ipc_slot_running(slot);
    if (crew)
        atomic_fetch_add(&crew->in_call, 1);
    uint64_t now = ipc_now_ns();
    if (call->admit_at > now)
        admission_wait(call->admit_at - now);
    deadline_begin(rec, slot, b.seq, d->call);
    /* The cpu clock is a system call: read around long calls only. */
    uint64_t cpu_before = long_call ? ipc_thread_cpu_ns() : 0;
    int64_t result = dispatch(svc, c, b.slot, b.seq, d);
    answered_pass = call_open_passed();
    uint64_t ran_ns = ipc_now_ns() - atomic_load_explicit(
                                         &rec->start_ns, memory_order_relaxed);
    if (client_sees(c, d->mount))
        stats_count(&svc->stats, d->mount, d->call, result, ran_ns);
    slowcalls_note(&c->slow, ran_ns);
    if (long_call)
        slowcalls_note_cpu(&c->slow, ipc_thread_cpu_ns() - cpu_before);
    /* Costed as admission_charge charged it. */
    if (pressure_on(&svc->pressure))
        pace_count(&svc->pressure, admission_cost_of(d, c->area.slot_buf),
                   ran_ns);
    /* A request answered after the service was told to stop (one blocked
     * in its backend, then released) is answered all the same, unless the
     * watch answered it at its deadline. The slot takes its next request
     * from the moment its client can see this answer. */
    client_request_end(c, b.slot);
    if (deadline_end(rec))
        ipc_complete(slot, b.seq, result);
    if (long_call)
        placement_go_home(&place);
    if (handed_on)
        atomic_fetch_sub(&crew->in_long, 1);
    if (crew) {
        atomic_fetch_sub(&crew->in_call, 1);
        client_here = mark != 0 && mark == ipc_cpu_mark() &&
                      (long_call ||
                       !placement_step_aside(&crew->cpus, mark));
        atomic_fetch_add(&crew->served, 1);
        remember_answered(c, b, d);
    }
}

/* Runs long call first, its shares taken, then, while the pool gives it
 * one, each waiting call that may have a thread once the last has left
 * (threadshares.h). A waiting call of a client gone meanwhile is ended
 * unrun, as are all once the service stops: nobody waits for them. */
static void run_long_calls(struct workers *w, struct crew *crew,
                           struct thread_shares *shares,
                           struct call_record *rec, struct long_call *first)
{
    struct long_call *call = first;
    while (call) {
        struct client *c = call->c;
        if (call == first || (client_attached(&w->svc->clients, c) &&
                              !atomic_load(&w->stop)))
            run(w, crew, rec, call, true);
        else
            client_request_end(c, call->b.slot);
        struct long_call *next = thread_shares_leave(shares, c);
        client_put(c);
        if (call != first)
            free(call);
        call = next;
    }
    cpu_groups_want(&cpu_me, CPU_HOME);
}

/* Runs the request bell b names, if it checks out (client.h), on this
 * thread, or, for a long call past its uid's share of shares, once a
 * thread is free for it. A crew's thread (crew set) judges
 * whether the call is long; every call of a swept request's thread
 * counts as long (it has the thread to itself). */
static void serve_bell(struct workers *w, struct crew *crew,
                       struct thread_shares *shares, struct call_record *rec,
                       struct ipc_bell b)
{
    struct service *svc = w->svc;
    struct long_call call = {.b = b};
    call.c = client_request_begin(&svc->clients, b, &call.d);
    /* Stale, duplicate or forged: nobody waits for it. */
    if (!call.c)
        return;
    struct ipc_slot *slot = ipc_slot(&call.c->area, b.slot);
    /* The one read of the request's client_cpu hint (read once,
     * request.h): every decision uses this copy. */
    call.mark = ipc_slot_client_mark(slot);
    const struct danaus_desc *d = &call.d;
    uint64_t admit_ns = admission_charge(&svc->admission, d,
                                         call.c->area.slot_buf);
    call.admit_at = admit_ns > 0 ? ipc_now_ns() + admit_ns : 0;
    bool flushes = d->call == DANAUS_CALL_FLUSH ||
                   (d->flags & DANAUS_DESC_FLUSH);
    bool long_by_kind = (flushes && flush_may_block(&call.c->area)) ||
                        (d->call != DANAUS_CALL_FLUSH && call_may_block(d) &&
                         !(call_short_in_kernel(d) &&
                           kernel_name_space(svc, d->mount)));
    call.weighed = admit_ns > 0 || long_by_kind ||
                   slowcalls_cpu_heavy(&call.c->slow);
    bool long_call = true;
    if (crew) {
        note_client(crew, b.client);
        bool alone = !queue_shared(crew);
        long_call = admit_ns > 0 ||
                    (slowcalls_expect(&call.c->slow) && !alone) ||
                    (long_by_kind &&
                     (call_is_bulk_transfer(d)
                          ? !runs_beside(crew, call.mark, call_is_write(d))
                          : !(alone && client_one_thread(call.c))));
    }
    if (!long_call) {
        run(w, crew, rec, &call, false);
        client_put(call.c);
        return;
    }
    int rc = thread_shares_enter(shares, &call);
    if (rc > 0) {
        run_long_calls(w, crew, shares, rec, &call);
    } else if (rc < 0) {
        client_request_end(call.c, b.slot);
        ipc_complete(slot, b.seq, rc);
        client_put(call.c);
    }
    /* else it waits its turn, with its reference. */
}

/* Takes one doorbell and runs its request; false when the queue was empty.
 * *last: the client this thread served last while busy (UINT32_MAX: it
 * was idle), whose turn comes after others' (ipc_take); a thread that was
 * busy already may call for help with the backlog behind it. */
static bool serve_one(struct crew *crew, struct call_record *rec,
                      uint32_t *last)
{
    struct service *svc = crew->w->svc;
    struct ipc_bell b;

    if (!ipc_take(&svc->seg, ipc_queue(&svc->seg, crew->queue), *last, &b))
        return false;
    if (*last != UINT32_MAX)
        maybe_grow(crew);
    *last = b.client;
    serve_bell(crew->w, crew, &crew->threads, rec, b);
    return true;
}

struct swept {
    struct workers *w;
    struct ipc_bell bell;
};

/* One swept request, on a thread of its own: a request may block in its
 * backend for ever (deadline.h), and the sweeper must go on sweeping. */
static void *swept_main(void *arg)
{
    struct swept s = *(struct swept *)arg;
    free(arg);
    struct call_record rec;
    deadline_register(&s.w->deadlines, &rec);
    rcu_register_thread();
    /* Started by the sweeper, which never moves. */
    cpu_groups_join(&s.w->groups, &cpu_me, true);
    serve_bell(s.w, NULL, &s.w->swept_threads, &rec, s.bell);
    cpu_groups_leave(&cpu_me);
    rcu_unregister_thread();
    deadline_unregister(&s.w->deadlines, &rec);
    atomic_fetch_sub(&s.w->sweeping, 1);
    atomic_fetch_sub(&s.w->live, 1);
    return NULL;
}

/* Starts a thread for a swept request, unless SWEEP_THREADS already run
 * (or no thread can be had): the request then stays posted, and a later
 * sweep finds it again. */
static void serve_swept(struct workers *w, struct ipc_bell b)
{
    if (atomic_fetch_add(&w->sweeping, 1) >= SWEEP_THREADS) {
        atomic_fetch_sub(&w->sweeping, 1);
        return;
    }
    struct swept *s = malloc(sizeof *s);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    atomic_fetch_add(&w->live, 1);
    int rc = -1;
    if (s) {
        *s = (struct swept){w, b};
        rc = pthread_create(&t, &attr, swept_main, s);
    }
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        free(s);
        atomic_fetch_sub(&w->live, 1);
        atomic_fetch_sub(&w->sweeping, 1);
    }
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
            serve_swept(w, bells[i]);
        uint64_t now = ipc_now_ns();
        pressure_tick(&w->svc->pressure, &w->svc->admission, &w->deadlines,
                      now);
        cache_size_tick(&w->svc->cache_size, &w->svc->hrc, now);
        nanosleep(&period, NULL);
    }
    rcu_unregister_thread();
    atomic_fetch_sub(&w->live, 1);
    return NULL;
}

/* Waits for a doorbell in q or, while spinning, a request in the slot
 * answered last; *fast: the claim of such a request, checked like a bell's
 * (client_request_begin). */
static enum ipc_woke wait_for_work(struct crew *crew, struct ipc_queue *q,
                                   int sleep_ms, struct ipc_bell *fast)
{
    struct service *svc = crew->w->svc;
    uint64_t spin = spin_ns();

    if (!answered.c || spin == 0) {
        forget_answered();
        return ipc_wait_work(&svc->seg, q, NULL, spin, sleep_ms);
    }
    /* Pieces are offered to a client whose last request was a large
     * write, as its next one likely is. */
    struct ipc_slot *slot = ipc_slot(&answered.c->area, answered.slot);
    struct ipc_watch watch = {slot, answered.posted,
                              answered.bulk_write &&
                                      runs_beside(crew,
                                                  ipc_slot_client_mark(slot),
                                                  true)
                                  ? IPC_WATCHING_PIECES
                                  : IPC_WATCHING};
    enum ipc_woke woke = ipc_wait_work(&svc->seg, q, &watch, spin, 0);
    if (woke == IPC_WOKE_SLOT)
        *fast = (struct ipc_bell){answered.c->index, answered.slot,
                                  watch.posted};
    forget_answered();
    if (woke != IPC_WOKE_NONE || sleep_ms == 0)
        return woke;
    return ipc_wait_work(&svc->seg, q, NULL, 0, sleep_ms);
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
    cpu_groups_join(&w->groups, &cpu_me, a.home);
    while (!atomic_load(&w->stop)) {
        if (!become_watcher(crew)) {
            forget_answered();
            if (!park(crew, a.extra ? EXTRA_IDLE_MS : -1) && a.extra)
                break;
            continue;
        }
        struct ipc_bell fast;
        enum ipc_woke woke = wait_for_work(
            crew, q, a.extra ? EXTRA_IDLE_MS : -1, &fast);
        atomic_fetch_sub(&crew->watchers, 1);
        if (woke == IPC_WOKE_SLOT) {
            serve_bell(w, crew, &crew->threads, &rec, fast);
            continue;
        }
        if (woke == IPC_WOKE_NONE) {
            /* An added thread leaves an idle queue, to a parked one. */
            if (a.extra) {
                wake_parked(crew, 1);
                break;
            }
            continue;
        }
        /* Serve while the counters say more wait: an empty queue is not
         * scanned again here, ipc_wait_work notices new requests. */
        uint32_t last = UINT32_MAX;
        while (serve_one(crew, &rec, &last) && ipc_queue_pending(q) &&
               !atomic_load(&w->stop))
            ;
    }
    forget_answered();
    cpu_groups_leave(&cpu_me);
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

/* Answers the long calls that waited for a thread past their deadline
 * (threadshares.h), as deadlines_expire answers those that run. */
static void expire_waiting(struct workers *w, struct thread_shares *t)
{
    if (w->deadlines.limit_ns == 0)
        return;
    struct long_call *call = thread_shares_expire(t, &w->deadlines,
                                                  ipc_now_ns());
    while (call) {
        struct long_call *next = call->next;
        client_request_end(call->c, call->b.slot);
        ipc_complete(ipc_slot(&call->c->area, call->b.slot), call->b.seq,
                     -ETIMEDOUT);
        client_put(call->c);
        free(call);
        call = next;
    }
}

static void *watch(void *arg)
{
    struct workers *w = arg;
    struct timespec tick = {.tv_nsec = WATCH_MS * 1000000L};
    int bound = w->max_per_queue + w->max_stalled;
    while (!atomic_load(&w->stop)) {
        nanosleep(&tick, NULL);
        deadlines_expire(&w->deadlines);
        expire_waiting(w, &w->swept_threads);
        for (uint32_t i = 0; i < w->ncrews; i++) {
            expire_waiting(w, &w->crews[i].threads);
            if (stalled(&w->crews[i]))
                add_stalled_threads(&w->crews[i], bound);
        }
    }
    return NULL;
}

int workers_start(struct workers *w, struct service *svc,
                  const cpu_set_t *groups, uint32_t ngroups)
{
    w->svc = svc;
    w->ncrews = ngroups;
    CPU_ZERO(&w->cpus);
    for (uint32_t i = 0; i < ngroups; i++)
        CPU_OR(&w->cpus, &w->cpus, &groups[i]);
    w->max_per_queue = (int)svc->cfg.threads_per_queue;
    w->max_stalled = (int)svc->cfg.stalled_threads_per_queue;
    w->watching = false;
    deadlines_init(&w->deadlines, svc->cfg.request_deadline_ms,
                   svc->cfg.request_deadline_fsync);
    atomic_init(&w->stop, false);
    atomic_init(&w->live, 0);
    atomic_init(&w->sweeping, 0);
    /* liburcu starts its call_rcu thread at the first call_rcu, with the
     * cpus of the thread that calls it: a service thread inside a long
     * call is on its client's one cpu then (placement.h), and the
     * thread would stay there for good. Started now, it has the
     * service's cpus. */
    if (!get_default_call_rcu_data())
        return -ENOMEM;
    int rc = cpu_groups_start(&w->groups, svc->cfg.long_calls_cpu_shares);
    if (rc < 0)
        return rc;
    svc->long_call_groups = &w->groups;
    uid_t owner = svc->clients.shares.owner;
    thread_shares_init(&w->swept_threads, owner, SWEEP_THREADS);
    w->crews = calloc(ngroups, sizeof *w->crews);
    if (!w->crews) {
        thread_shares_free(&w->swept_threads);
        cpu_groups_stop(&w->groups);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < ngroups; i++) {
        struct crew *crew = &w->crews[i];
        crew->w = w;
        crew->queue = i;
        crew->cpus = groups[i];
        thread_shares_init(&crew->threads, owner,
                           (uint32_t)(w->max_per_queue + w->max_stalled));
        atomic_init(&crew->nthreads, 0);
        atomic_init(&crew->in_call, 0);
        atomic_init(&crew->served, 0);
        atomic_init(&crew->watchers, 0);
        atomic_init(&crew->parked, 0);
        atomic_init(&crew->park_seq, 0);
        rc = spawn(crew, false);
        if (rc < 0) {
            workers_stop(w);
            return rc;
        }
    }
    if (w->max_stalled > 0 || svc->cfg.request_deadline_ms > 0) {
        rc = pthread_create(&w->watch, NULL, watch, w);
        if (rc) {
            workers_stop(w);
            return -rc;
        }
        w->watching = true;
    }
    pthread_t t;
    atomic_fetch_add(&w->live, 1);
    rc = pthread_create(&t, NULL, sweeper_main, w);
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

int workers_stop(struct workers *w)
{
    atomic_store(&w->stop, true);
    if (w->watching)
        pthread_join(w->watch, NULL);
    w->watching = false;
    struct timespec tick = {.tv_nsec = 1000000};
    uint64_t until = ipc_now_ns() + STOP_GRACE_MS * 1000000ull;
    while (atomic_load(&w->live) > 0 && ipc_now_ns() < until) {
        for (uint32_t i = 0; i < w->ncrews; i++) {
            ipc_queue_wake_all(ipc_queue(&w->svc->seg, i));
            wake_parked(&w->crews[i], INT_MAX);
        }
        nanosleep(&tick, NULL);
    }
    int left = atomic_load(&w->live);
    /* Threads left behind go back to the service's group. */
    cpu_groups_stop(&w->groups);
    /* Threads left behind still use the crews. */
    if (left == 0) {
        for (uint32_t i = 0; w->crews && i < w->ncrews; i++)
            thread_shares_free(&w->crews[i].threads);
        thread_shares_free(&w->swept_threads);
        free(w->crews);
        w->crews = NULL;
        deadlines_destroy(&w->deadlines);
    }
    return left;
}
