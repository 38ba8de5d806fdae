/*
 * ring.c - the per-core-group doorbell queues: clients ring, service
 * threads take.
 *
 * A queue is an array of ncells 64-bit cells rather than a ring with shared
 * head and tail counters. A doorbell fits one cell, so ringing is one CAS
 * of an empty (zero) cell and taking is one exchange back to zero: there is
 * no half-written or half-taken state a client could leave behind, and
 * whatever a client writes into a cell the service empties when it looks at
 * it. The hints only say where to start scanning; order between clients is
 * not promised (each client thread waits for its own answer before sending
 * the next request).
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
/* How long a producer waits for room before it leaves its request to the
 * service's sweep (ipc.h). */
#define RING_WAIT_NS 20000000ull

/* Cell word of a doorbell: client + 1 in bits 48..63 (so never 0), the
 * slot in bits 32..47, the sequence below. */
static uint64_t bell_word(struct ipc_bell b)
{
    return ((uint64_t)(b.client + 1) << 48) | ((uint64_t)(b.slot & 0xffff)
                                                << 32) | b.seq;
}

static struct ipc_bell bell_of(uint64_t w)
{
    return (struct ipc_bell){.client = (uint32_t)(w >> 48) - 1,
                             .slot = (uint32_t)(w >> 32) & 0xffff,
                             .seq = (uint32_t)w};
}

static bool try_put(const struct ipc_segment *seg, struct ipc_queue *q,
                    uint64_t word)
{
    uint32_t mask = seg->ncells - 1;
    uint32_t start = atomic_load_explicit(&q->produce_hint,
                                          memory_order_relaxed);

    for (uint32_t i = 0; i < seg->ncells; i++) {
        uint32_t idx = (start + i) & mask;
        uint64_t old = 0;

        if (atomic_load_explicit(&q->cells[idx], memory_order_relaxed))
            continue;
        /* Release: a consumer that takes the bell also sees the request
         * the client posted in its area before ringing. */
        if (!atomic_compare_exchange_strong_explicit(
                &q->cells[idx], &old, word, memory_order_release,
                memory_order_relaxed))
            continue;
        atomic_store_explicit(&q->produce_hint, idx + 1,
                              memory_order_relaxed);
        /* seq_cst store->load: pairs with ipc_wait_work, which raises
         * sleepers and then reads work_seq (inside futex_wait). If our
         * read of sleepers misses its increment, its read of work_seq
         * comes after our bump in the single total order, sees the new
         * value and does not sleep. With release/acquire alone both reads
         * could see the old values and the bell would sit unnoticed. */
        atomic_fetch_add_explicit(&q->work_seq, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&q->sleepers, memory_order_seq_cst) > 0)
            ipc_futex_wake(&q->work_seq, 1);
        return true;
    }
    return false;
}

/* Whether some cell of q is empty (full: holds a bell) right now. */
static bool any_cell(const struct ipc_segment *seg, struct ipc_queue *q,
                     bool full)
{
    for (uint32_t i = 0; i < seg->ncells; i++)
        if ((atomic_load_explicit(&q->cells[i], memory_order_relaxed) != 0) ==
            full)
            return true;
    return false;
}

/* Sleeps once on room_seq unless room appeared; the same pattern as
 * ipc_wait_work (see there and in try_put for why it is seq_cst). */
static void sleep_for_room(const struct ipc_segment *seg, struct ipc_queue *q)
{
    uint32_t seen = atomic_load_explicit(&q->room_seq, memory_order_seq_cst);

    atomic_fetch_add_explicit(&q->room_waiters, 1, memory_order_seq_cst);
    if (!any_cell(seg, q, false))
        ipc_futex_wait(&q->room_seq, seen, ROOM_SLEEP_MS);
    atomic_fetch_sub_explicit(&q->room_waiters, 1, memory_order_seq_cst);
}

int ipc_ring(const struct ipc_segment *seg, struct ipc_queue *q,
             struct ipc_bell b, ipc_alive_fn alive, void *arg)
{
    uint64_t start = ipc_now_ns();
    uint64_t word = bell_word(b);

    /* A full queue means back-pressure, or a client filling it on
     * purpose: wait for room a while, then leave the posted request to the
     * sweep rather than wait on what another client controls. */
    while (!try_put(seg, q, word)) {
        uint64_t waited = ipc_now_ns() - start;
        if (waited < SUBMIT_SPIN_NS) {
            ipc_spin_step(0);
            continue;
        }
        if (waited >= RING_WAIT_NS)
            return -EAGAIN;
        sleep_for_room(seg, q);
        if (alive && !alive(arg))
            return -ENOTCONN;
    }
    return 0;
}

int ipc_send(const struct ipc_segment *seg, struct ipc_queue *q,
             struct ipc_slot *s, const struct danaus_desc *d,
             struct ipc_bell b, ipc_alive_fn alive, void *arg)
{
    if (ipc_post(s, d, b.seq))
        return 0;
    return ipc_ring(seg, q, b, alive, arg);
}

/* n cells were emptied: wake as many producers that may be asleep on a
 * full queue. seq_cst for the same store->load reason as in try_put. */
static void announce_room(struct ipc_queue *q, int n)
{
    atomic_fetch_add_explicit(&q->room_seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&q->room_waiters, memory_order_seq_cst) > 0)
        ipc_futex_wake(&q->room_seq, n);
}

/* Takes the first bell from consume_hint on whose client is not `avoid`
 * (UINT32_MAX: any). */
static bool take_from(const struct ipc_segment *seg, struct ipc_queue *q,
                      uint32_t avoid, struct ipc_bell *out)
{
    uint32_t mask = seg->ncells - 1;
    uint32_t start = atomic_load_explicit(&q->consume_hint,
                                          memory_order_relaxed);

    for (uint32_t i = 0; i < seg->ncells; i++) {
        uint32_t idx = (start + i) & mask;
        uint64_t word = atomic_load_explicit(&q->cells[idx],
                                             memory_order_relaxed);

        if (!word || (avoid != UINT32_MAX && bell_of(word).client == avoid))
            continue;
        /* Acquire pairs with the producer's release CAS. A CAS, not an
         * exchange: the word we judged is the word we take. */
        if (!atomic_compare_exchange_strong_explicit(
                &q->cells[idx], &word, 0, memory_order_acquire,
                memory_order_relaxed))
            continue;
        *out = bell_of(word);
        atomic_fetch_add_explicit(&q->take_seq, 1, memory_order_release);
        atomic_store_explicit(&q->consume_hint, idx + 1,
                              memory_order_relaxed);
        announce_room(q, 1);
        return true;
    }
    return false;
}

bool ipc_take(const struct ipc_segment *seg, struct ipc_queue *q,
              uint32_t after, struct ipc_bell *out)
{
    return (after != UINT32_MAX && take_from(seg, q, after, out)) ||
           take_from(seg, q, UINT32_MAX, out);
}

bool ipc_queue_pending(const struct ipc_queue *q)
{
    return atomic_load_explicit(&q->work_seq, memory_order_acquire) !=
           atomic_load_explicit(&q->take_seq, memory_order_acquire);
}

/* Reading the clock costs about as much as a pause; look at it once per
 * this many pauses. */
#define SPIN_CLOCK_EVERY 32

/* Whether the watched slot holds a request posted since watch->posted;
 * records the new word. */
static bool slot_moved(struct ipc_watch *watch, memory_order order)
{
    uint32_t posted = atomic_load_explicit(&watch->slot->posted, order);
    if (posted == watch->posted)
        return false;
    watch->posted = posted;
    return true;
}

/* Ends the watch. seq_cst store then load, paired with ipc_post's store of
 * posted then load of watched: either the client saw watched set and its
 * request is in posted by the time we look here, or it saw it clear and
 * rang a bell. */
static bool unwatch(struct ipc_watch *watch)
{
    atomic_store_explicit(&watch->slot->watched, 0, memory_order_seq_cst);
    return slot_moved(watch, memory_order_seq_cst);
}

enum ipc_woke ipc_wait_work(const struct ipc_segment *seg,
                            struct ipc_queue *q, struct ipc_watch *watch,
                            uint64_t spin_ns, int sleep_ms)
{
    uint64_t start = ipc_now_ns();
    enum ipc_woke woke = IPC_WOKE_NONE;
    uint32_t seen;

    if (spin_ns == 0)
        watch = NULL;
    if (watch)
        atomic_store_explicit(&watch->slot->watched,
                              watch->offer ? watch->offer : IPC_WATCHING,
                              memory_order_relaxed);
    /* Spin: scan the cells only when the counters say a request waits or
     * work_seq moved; between bumps, pause on that one cache line (and the
     * watched slot's posted word). A service thread with one client comes
     * here after every answer, so the spin must not cost a scan of the
     * whole queue. spin_ns 0 (a client waiting on this thread's cpu,
     * workers.c): not one spin step, whose yield on one cpu is a system
     * call for nothing before the sleep below looks at the queue anyway. */
    for (bool spinning = spin_ns > 0; spinning && woke == IPC_WOKE_NONE;) {
        seen = atomic_load_explicit(&q->work_seq, memory_order_acquire);
        if (ipc_queue_pending(q) && any_cell(seg, q, true)) {
            woke = IPC_WOKE_QUEUE;
            break;
        }
        for (uint32_t i = 0;
             spinning && atomic_load_explicit(&q->work_seq,
                                              memory_order_relaxed) == seen;
             i++) {
            if (watch && slot_moved(watch, memory_order_acquire)) {
                woke = IPC_WOKE_SLOT;
                break;
            }
            if (i % SPIN_CLOCK_EVERY == 0)
                spinning = ipc_now_ns() - start < spin_ns;
            ipc_spin_step(watch ? ipc_slot_client_mark(watch->slot) : 0);
        }
    }
    if (watch && unwatch(watch))
        woke = IPC_WOKE_SLOT;
    if (woke != IPC_WOKE_NONE || sleep_ms == 0)
        return woke;

    /* Sleep: read work_seq, announce ourselves, look once more, then sleep
     * only if work_seq still holds the value read. A publish before our
     * read of seen is caught by the second look; one after it changes
     * work_seq, so futex_wait returns at once or is woken (try_put reads
     * sleepers after its bump; see the seq_cst note there). */
    seen = atomic_load_explicit(&q->work_seq, memory_order_seq_cst);
    atomic_fetch_add_explicit(&q->sleepers, 1, memory_order_seq_cst);
    bool work = any_cell(seg, q, true);
    if (!work) {
        ipc_futex_wait(&q->work_seq, seen, sleep_ms);
        /* Woken, timed out or interrupted: one more look. */
        work = any_cell(seg, q, true);
    }
    atomic_fetch_sub_explicit(&q->sleepers, 1, memory_order_seq_cst);
    return work ? IPC_WOKE_QUEUE : IPC_WOKE_NONE;
}

uint32_t ipc_queue_backlog(const struct ipc_segment *seg, struct ipc_queue *q)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < seg->ncells; i++)
        n += atomic_load_explicit(&q->cells[i], memory_order_relaxed) != 0;
    return n;
}

void ipc_queue_wake_all(struct ipc_queue *q)
{
    atomic_fetch_add_explicit(&q->work_seq, 1, memory_order_seq_cst);
    ipc_futex_wake(&q->work_seq, INT_MAX);
    atomic_fetch_add_explicit(&q->room_seq, 1, memory_order_seq_cst);
    ipc_futex_wake(&q->room_seq, INT_MAX);
}
