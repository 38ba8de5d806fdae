/*
 * ring.c - the per-core-group request queues: clients put descriptors in,
 * service threads take them out.
 *
 * A queue is an array of ncells cells, each with its own state word, rather
 * than a ring with shared head and tail counters: a producer claims any
 * EMPTY cell with one CAS, so a client that dies (or misbehaves) half-way
 * through writing leaves behind one cell in WRITING, which consumers skip,
 * instead of a tail that blocks every request behind it. The hints only say
 * where to start scanning; order between clients is not promised (each
 * client thread waits for its own answer before sending the next request).
 *
 * Every shared value read here may be garbage written by a client: indices
 * are masked with the service's private ncells, and every scan visits at
 * most ncells cells and tries each at most once.
 */
#include "ipc.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* How long ipc_submit spins on a full queue before sleeping. A full queue
 * means the service is behind by a whole ring, so this is short. */
#define SUBMIT_SPIN_NS 20000u
/* Sleeping producers re-check liveness this often. */
#define ROOM_SLEEP_MS 10

static bool try_put(const struct ipc_segment *seg, struct ipc_queue *q,
                    const struct danaus_desc *d)
{
    uint32_t mask = seg->ncells - 1;
    uint32_t start = atomic_load_explicit(&q->produce_hint,
                                          memory_order_relaxed);

    for (uint32_t i = 0; i < seg->ncells; i++) {
        uint32_t idx = (start + i) & mask;
        struct ipc_cell *c = &q->cells[idx];
        uint32_t st = atomic_load_explicit(&c->state, memory_order_relaxed);

        if (IPC_CELL_STATE(st) != IPC_CELL_EMPTY)
            continue;
        /* Acquire pairs with the consumer's release store of EMPTY: its
         * copy of the old desc is finished before we overwrite it. */
        if (!atomic_compare_exchange_strong_explicit(
                &c->state, &st, IPC_CELL(IPC_CELL_WRITING, d->slot),
                memory_order_acquire, memory_order_relaxed))
            continue;
        memcpy(&c->desc, d, sizeof(*d));
        /* Release: a consumer that sees READY also sees the whole desc. */
        atomic_store_explicit(&c->state, IPC_CELL(IPC_CELL_READY, d->slot),
                              memory_order_release);
        atomic_store_explicit(&q->produce_hint, idx + 1,
                              memory_order_relaxed);
        /* seq_cst store->load: pairs with ipc_wait_work, which raises
         * sleepers and then reads work_seq (inside futex_wait). If our
         * read of sleepers misses its increment, its read of work_seq
         * comes after our bump in the single total order, sees the new
         * value and does not sleep. With release/acquire alone both reads
         * could see the old values and the request would sit unnoticed. */
        atomic_fetch_add_explicit(&q->work_seq, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&q->sleepers, memory_order_seq_cst) > 0)
            ipc_futex_wake(&q->work_seq, 1);
        return true;
    }
    return false;
}

/* Whether some cell of q is in the given state right now. */
static bool any_cell(const struct ipc_segment *seg, struct ipc_queue *q,
                     enum ipc_cell_state state)
{
    for (uint32_t i = 0; i < seg->ncells; i++) {
        uint32_t st = atomic_load_explicit(&q->cells[i].state,
                                           memory_order_relaxed);
        if (IPC_CELL_STATE(st) == state)
            return true;
    }
    return false;
}

/* Sleeps once on room_seq unless room appeared; the same pattern as
 * ipc_wait_work (see there and in try_put for why it is seq_cst). */
static void sleep_for_room(const struct ipc_segment *seg, struct ipc_queue *q)
{
    uint32_t seen = atomic_load_explicit(&q->room_seq, memory_order_seq_cst);

    atomic_fetch_add_explicit(&q->room_waiters, 1, memory_order_seq_cst);
    if (!any_cell(seg, q, IPC_CELL_EMPTY))
        ipc_futex_wait(&q->room_seq, seen, ROOM_SLEEP_MS);
    atomic_fetch_sub_explicit(&q->room_waiters, 1, memory_order_seq_cst);
}

int ipc_submit(const struct ipc_segment *seg, struct ipc_queue *q,
               const struct danaus_desc *d, ipc_alive_fn alive, void *arg)
{
    uint64_t start = ipc_now_ns();

    /* A full queue means back-pressure: wait for room, never drop. The
     * only way out without submitting is the service being gone. */
    while (!try_put(seg, q, d)) {
        if (ipc_now_ns() - start < SUBMIT_SPIN_NS) {
            ipc_spin_step();
            continue;
        }
        sleep_for_room(seg, q);
        if (alive && !alive(arg))
            return -ENOTCONN;
    }
    return 0;
}

/* n cells were emptied: wake as many producers that may be asleep on a
 * full queue. seq_cst for the same store->load reason as in try_put. */
static void announce_room(struct ipc_queue *q, int n)
{
    atomic_fetch_add_explicit(&q->room_seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&q->room_waiters, memory_order_seq_cst) > 0)
        ipc_futex_wake(&q->room_seq, n);
}

bool ipc_take(const struct ipc_segment *seg, struct ipc_queue *q,
              struct danaus_desc *out)
{
    uint32_t mask = seg->ncells - 1;
    uint32_t start = atomic_load_explicit(&q->consume_hint,
                                          memory_order_relaxed);

    for (uint32_t i = 0; i < seg->ncells; i++) {
        uint32_t idx = (start + i) & mask;
        struct ipc_cell *c = &q->cells[idx];
        uint32_t st = atomic_load_explicit(&c->state, memory_order_relaxed);

        if (IPC_CELL_STATE(st) != IPC_CELL_READY)
            continue;
        /* Acquire pairs with the producer's release store of READY. TAKEN
         * keeps other consumers and ipc_queue_reclaim off the cell while
         * we copy. */
        if (!atomic_compare_exchange_strong_explicit(
                &c->state, &st, IPC_CELL(IPC_CELL_TAKEN, IPC_CELL_SLOT(st)),
                memory_order_acquire, memory_order_relaxed))
            continue;
        memcpy(out, &c->desc, sizeof(*out));
        /* Release: our copy is complete before a producer may reuse it. */
        atomic_store_explicit(&c->state, IPC_CELL_EMPTY,
                              memory_order_release);
        atomic_fetch_add_explicit(&q->take_seq, 1, memory_order_release);
        atomic_store_explicit(&q->consume_hint, idx + 1,
                              memory_order_relaxed);
        announce_room(q, 1);
        return true;
    }
    return false;
}

bool ipc_queue_pending(const struct ipc_queue *q)
{
    return atomic_load_explicit(&q->work_seq, memory_order_acquire) !=
           atomic_load_explicit(&q->take_seq, memory_order_acquire);
}

/* Reading the clock costs about as much as a pause; look at it once per
 * this many pauses. */
#define SPIN_CLOCK_EVERY 32

bool ipc_wait_work(const struct ipc_segment *seg, struct ipc_queue *q,
                   uint64_t spin_ns, int sleep_ms)
{
    uint64_t start = ipc_now_ns();
    uint32_t seen;
    bool work;

    /* Spin: scan the cells only when the counters say a request waits or
     * work_seq moved; between bumps, pause on that one cache line. A
     * service thread with one client comes here after every answer, so the
     * spin must not cost a scan of the whole queue. */
    for (bool spinning = true; spinning;) {
        seen = atomic_load_explicit(&q->work_seq, memory_order_acquire);
        if (ipc_queue_pending(q) && any_cell(seg, q, IPC_CELL_READY))
            return true;
        for (uint32_t i = 0;
             spinning && atomic_load_explicit(&q->work_seq,
                                              memory_order_relaxed) == seen;
             i++) {
            if (i % SPIN_CLOCK_EVERY == 0)
                spinning = ipc_now_ns() - start < spin_ns;
            ipc_spin_step();
        }
    }
    if (sleep_ms == 0)
        return false;

    /* Sleep: read work_seq, announce ourselves, look once more, then sleep
     * only if work_seq still holds the value read. A publish before our
     * read of seen is caught by the second look; one after it changes
     * work_seq, so futex_wait returns at once or is woken (try_put reads
     * sleepers after its bump; see the seq_cst note there). */
    seen = atomic_load_explicit(&q->work_seq, memory_order_seq_cst);
    atomic_fetch_add_explicit(&q->sleepers, 1, memory_order_seq_cst);
    work = any_cell(seg, q, IPC_CELL_READY);
    if (!work) {
        ipc_futex_wait(&q->work_seq, seen, sleep_ms);
        /* Woken, timed out or interrupted: one more look. */
        work = any_cell(seg, q, IPC_CELL_READY);
    }
    atomic_fetch_sub_explicit(&q->sleepers, 1, memory_order_seq_cst);
    return work;
}

bool ipc_take_wait(const struct ipc_segment *seg, struct ipc_queue *q,
                   struct danaus_desc *out, uint64_t spin_ns, int sleep_ms)
{
    /* One wait, not a loop: another service thread may take what woke us
     * (or a client may flip a cell back and forth), and then we return
     * false rather than wait again; the caller just calls again. */
    if (ipc_take(seg, q, out))
        return true;
    return ipc_wait_work(seg, q, spin_ns, sleep_ms) && ipc_take(seg, q, out);
}

uint32_t ipc_queue_backlog(const struct ipc_segment *seg, struct ipc_queue *q)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < seg->ncells; i++) {
        uint32_t st = atomic_load_explicit(&q->cells[i].state,
                                           memory_order_relaxed);
        if (IPC_CELL_STATE(st) == IPC_CELL_READY)
            n++;
    }
    return n;
}

void ipc_queue_reclaim(const struct ipc_segment *seg, struct ipc_queue *q,
                       uint32_t slot)
{
    uint32_t writing = IPC_CELL(IPC_CELL_WRITING, slot);
    uint32_t ready = IPC_CELL(IPC_CELL_READY, slot);
    int freed = 0;

    for (uint32_t i = 0; i < seg->ncells; i++) {
        _Atomic uint32_t *state = &q->cells[i].state;
        uint32_t st = atomic_load_explicit(state, memory_order_relaxed);

        /* CAS, not a store: a consumer may be taking a READY cell right
         * now, and it must not end up EMPTY under the consumer's copy. */
        if ((st == writing || st == ready) &&
            atomic_compare_exchange_strong_explicit(
                state, &st, IPC_CELL_EMPTY, memory_order_release,
                memory_order_relaxed)) {
            freed++;
            /* A READY cell was counted in work_seq: count it taken. */
            if (st == ready)
                atomic_fetch_add_explicit(&q->take_seq, 1,
                                          memory_order_release);
        }
    }
    if (freed > 0)
        announce_room(q, freed);
}

void ipc_queue_wake_all(struct ipc_queue *q)
{
    atomic_fetch_add_explicit(&q->work_seq, 1, memory_order_seq_cst);
    ipc_futex_wake(&q->work_seq, INT_MAX);
    atomic_fetch_add_explicit(&q->room_seq, 1, memory_order_seq_cst);
    ipc_futex_wake(&q->room_seq, INT_MAX);
}
