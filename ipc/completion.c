/*
 * completion.c - a slot's two directions: the client posts a request in
 * it; the service publishes the result, and the client thread waits for
 * it, spinning first and then sleeping on a futex. A large read's answer
 * may come in pieces: the client copies out what is there while it spins;
 * a large write's input may too: the service writes what is there while
 * the client copies in the rest.
 *
 * Spinning first matters: a futex sleep and wake costs tens of times a
 * spinning round trip, and most requests are answered within a few
 * microseconds. But only while the service thread
 * runs on another cpu (wait.c): the client spins while the thread that took
 * its request says it runs elsewhere, gives a request not yet taken a
 * short grace (a spinning service thread takes it within a microsecond),
 * and otherwise sleeps at once.
 */
#include "ipc.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* About 2,000 pauses: long enough to catch a cached answer, short enough
 * that a slow one costs the core little before the thread sleeps. */
#define AWAIT_SPINS 2000
/* Spins a request not yet taken gets before the client sleeps. */
#define AWAIT_GRACE_SPINS 256
/* Where the service thread runs is looked at once per this many spins. */
#define AWAIT_LOOK_EVERY 32
/* Sleeping clients probe the service's liveness this often. */
#define AWAIT_SLEEP_MS 10
#define AWAIT_PROBE_NS (AWAIT_SLEEP_MS * 1000000ull)
/* A service thread waiting for input its client copies on the same cpu
 * sleeps this long at a time. */
#define INPUT_SLEEP_NS 20000

void ipc_slot_running(struct ipc_slot *s)
{
    atomic_store_explicit(&s->server_cpu, ipc_cpu_mark(),
                          memory_order_relaxed);
}

uint32_t ipc_slot_client_mark(const struct ipc_slot *s)
{
    return atomic_load_explicit(&s->client_cpu, memory_order_relaxed);
}

bool ipc_slot_client_here(const struct ipc_slot *s)
{
    uint32_t mark = ipc_slot_client_mark(s);

    return mark != 0 && mark == ipc_cpu_mark();
}

bool ipc_post(struct ipc_slot *s, const struct danaus_desc *d, uint32_t seq)
{
    memcpy(&s->desc, d, sizeof *d);
    s->desc.seq = seq;
    atomic_store_explicit(&s->client_cpu, ipc_cpu_mark(),
                          memory_order_relaxed);
    /* Release (in seq_cst): a service thread that reads posted == seq with
     * acquire also reads the whole descriptor, and where its client runs.
     * seq_cst for the store->load pair with ring.c's unwatch: a thread that
     * stops watching after we read watched set still finds this request. */
    atomic_store_explicit(&s->posted, seq, memory_order_seq_cst);
    return atomic_load_explicit(&s->watched, memory_order_seq_cst) != 0;
}

void ipc_complete(struct ipc_slot *s, uint32_t seq, int64_t result)
{
    /* Atomic, relaxed (done's store below orders it for the client): the
     * service lets a slot take its next request before it answers the one
     * that ran (workers.c's run ends the request, then completes it), so
     * a client that posts without waiting for its answer can have two
     * service threads write result at once. */
    __atomic_store_n(&s->result, result, __ATOMIC_RELAXED);
    /* Before done: the client's next request starts out "not taken". */
    atomic_store_explicit(&s->server_cpu, 0, memory_order_relaxed);
    /*
     * seq_cst (which includes release): the client that reads done == seq
     * with acquire also sees result. seq_cst rather than just release
     * because of the store->load pair below: we store done then read
     * waiting, the client stores waiting then reads done. In the single
     * total order of seq_cst operations one of the two stores comes first,
     * so at least one side sees the other's store: either we see waiting
     * and wake the client, or the client sees done == seq and does not
     * sleep. In particular, a client that sets waiting just after our read
     * of it re-reads done afterwards and finds the answer; and one that
     * already sleeps sleeps on the old done, so the futex also returns at
     * once if our store lands before it enters the kernel.
     */
    atomic_store_explicit(&s->done, seq, memory_order_seq_cst);
    /* exchange, not load then store: a late clear cannot erase the flag a
     * client set afresh for its next request. */
    if (atomic_exchange_explicit(&s->waiting, 0, memory_order_seq_cst))
        ipc_futex_wake(&s->done, 1);
}

static bool answered(struct ipc_slot *s, uint32_t seq)
{
    /* Acquire pairs with ipc_complete's store of done: result is valid. */
    return atomic_load_explicit(&s->done, memory_order_acquire) == seq;
}

/* Whether the client should spin on after spins pauses (see the head
 * comment). */
static bool worth_spinning(const struct ipc_slot *s, int spins)
{
    uint32_t server = atomic_load_explicit(&s->server_cpu,
                                           memory_order_relaxed);

    if (server == 0)
        return spins < AWAIT_GRACE_SPINS;
    return ipc_peer_elsewhere(server);
}

void ipc_publish_bytes(struct ipc_slot *s, uint32_t seq, uint32_t ready)
{
    /* Release: a client that reads this value with acquire also reads the
     * ready bytes. */
    atomic_store_explicit(&s->bytes_ready, (uint64_t)seq << 32 | ready,
                          memory_order_release);
}

void ipc_publish_input(struct ipc_slot *s, uint32_t seq, uint32_t ready)
{
    /* Release: a service thread that reads this value with acquire also
     * reads the ready bytes. */
    atomic_store_explicit(&s->bytes_in, (uint64_t)seq << 32 | ready,
                          memory_order_release);
}

bool ipc_slot_takes_pieces(const struct ipc_slot *s)
{
    return atomic_load_explicit(&s->watched, memory_order_relaxed) ==
           IPC_WATCHING_PIECES;
}

/* What s's client said of request seq's input, bounded by len; the first
 * IPC_INPUT_FIRST bytes came with the request. */
static uint32_t input_ready(struct ipc_slot *s, uint32_t seq, uint32_t len)
{
    uint64_t v = atomic_load_explicit(&s->bytes_in, memory_order_acquire);
    uint32_t ready = (uint32_t)(v >> 32) == seq ? (uint32_t)v : 0;
    if (ready < IPC_INPUT_FIRST)
        ready = IPC_INPUT_FIRST;
    return ready < len ? ready : len;
}

uint32_t ipc_await_input(struct ipc_slot *s, uint32_t seq, uint32_t want,
                         uint32_t len, uint64_t give_up_ns)
{
    const struct timespec step = {0, INPUT_SLEEP_NS};
    uint32_t ready;

    for (int i = 1; (ready = input_ready(s, seq, len)) < want; i++) {
        if (i % AWAIT_LOOK_EVERY)
            ipc_spin_step(ipc_slot_client_mark(s));
        else if (ipc_now_ns() >= give_up_ns)
            break;
        else if (!ipc_peer_elsewhere(ipc_slot_client_mark(s)))
            nanosleep(&step, NULL);
    }
    return ready;
}

/* Passes on what is new in s's bytes_ready for request seq. */
static void look_at_bytes(struct ipc_slot *s, uint32_t seq,
                          ipc_bytes_fn bytes, void *bytes_arg,
                          uint32_t *seen)
{
    uint64_t v = atomic_load_explicit(&s->bytes_ready, memory_order_acquire);
    if ((uint32_t)(v >> 32) == seq && (uint32_t)v > *seen) {
        *seen = (uint32_t)v;
        bytes(*seen, bytes_arg);
    }
}

int64_t ipc_await(struct ipc_slot *s, uint32_t seq, ipc_alive_fn alive,
                  void *arg)
{
    return ipc_await_pieces(s, seq, alive, arg, NULL, NULL);
}

/* Where the service thread that took this thread's last request ran: until
 * the next one is taken, where it likely runs (the thread that answered
 * last watches the slot for the next request), so a client pinned to one
 * cpu pauses rather than yields for a service pinned to another. */
static __thread uint32_t last_server;

int64_t ipc_await_pieces(struct ipc_slot *s, uint32_t seq, ipc_alive_fn alive,
                         void *arg, ipc_bytes_fn bytes, void *bytes_arg)
{
    uint64_t last_probe;
    uint32_t seen = 0;

    for (int i = 0; i < AWAIT_SPINS; i++) {
        if (answered(s, seq))
            return s->result;
        if (i % AWAIT_LOOK_EVERY == 0 && !worth_spinning(s, i))
            break;
        if (bytes)
            look_at_bytes(s, seq, bytes, bytes_arg, &seen);
        uint32_t server = atomic_load_explicit(&s->server_cpu,
                                               memory_order_relaxed);
        if (server)
            last_server = server;
        ipc_spin_step(server ? server : last_server);
    }

    last_probe = ipc_now_ns();
    for (;;) {
        uint32_t done;

        /* Announce, then re-check: see ipc_complete for why both are
         * seq_cst. */
        atomic_store_explicit(&s->waiting, 1, memory_order_seq_cst);
        done = atomic_load_explicit(&s->done, memory_order_seq_cst);
        if (done == seq)
            break;
        /* -EINTR and -EAGAIN just loop: the request stays in flight, and
         * the slot is answered exactly once whatever signals arrive. */
        ipc_futex_wait(&s->done, done, AWAIT_SLEEP_MS);
        if (answered(s, seq))
            break;
        if (ipc_now_ns() - last_probe >= AWAIT_PROBE_NS) {
            if (alive && !alive(arg))
                return -ENOTCONN;
            last_probe = ipc_now_ns();
        }
    }
    /* Not needed for correctness; spares the service a futex_wake for the
     * next request if it is answered while we still spin. */
    atomic_store_explicit(&s->waiting, 0, memory_order_relaxed);
    return s->result;
}
