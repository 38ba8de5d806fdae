/*
 * test_ipc_await.c - the answer path: ipc_complete / ipc_await between
 * threads, including answers that come after the client went to sleep,
 * signals during the wait, and a service that is gone; where each side
 * says it runs; a large read's answer heard in pieces, and a large
 * write's input taken in pieces.
 */
#include "ipc/ipc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static struct ipc_area seg;

static int setup(void **state)
{
    struct ipc_geometry g;

    (void)state;
    memset(&g, 0, sizeof(g));
    g.nqueues = 1;
    g.ncells = 4;
    g.nslots = 4;
    g.slot_buf = 4096;
    int rc = ipc_area_create(&g, &seg);
    return rc < 0 ? rc : ipc_area_grow(&seg, g.nslots);
}

static int teardown(void **state)
{
    (void)state;
    ipc_area_unmap(&seg);
    return 0;
}

static bool never_alive(void *arg)
{
    (void)arg;
    return false;
}

static bool count_probes(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
    return true;
}

static void test_answer_already_there(void **state)
{
    struct ipc_slot *s = ipc_slot(&seg, 0);

    (void)state;
    ipc_complete(s, 41, -ENOENT);
    assert_int_equal(ipc_await(s, 41, never_alive, NULL), -ENOENT);
    assert_int_equal(atomic_load(&s->waiting), 0);
}

static void test_dead_service_ends_wait(void **state)
{
    struct ipc_slot *s = ipc_slot(&seg, 1);
    uint64_t t0 = ipc_now_ns(), elapsed;

    (void)state;
    ipc_complete(s, 1, 0);
    assert_int_equal(ipc_await(s, 2, never_alive, NULL), -ENOTCONN);
    elapsed = ipc_now_ns() - t0;
    assert_true(elapsed < 1000000000ull);
    /* And the earlier answer was not mistaken for this one. */
    assert_int_equal(atomic_load(&s->done), 1);
}

struct late_answer {
    struct ipc_slot *slot;
    uint32_t seq;
    int64_t result;
    unsigned delay_us;
    uint64_t answered_ns; /* when ipc_complete was called */
};

static void *answer_later(void *p)
{
    struct late_answer *a = p;

    usleep(a->delay_us);
    a->answered_ns = ipc_now_ns();
    ipc_complete(a->slot, a->seq, a->result);
    return NULL;
}

static void test_sleeping_client_is_woken(void **state)
{
    struct late_answer a = {ipc_slot(&seg, 2), 5, 123456789012LL, 100000, 0};
    atomic_int probes = 0;
    pthread_t t;
    uint64_t t0, elapsed;

    (void)state;
    t0 = ipc_now_ns();
    assert_int_equal(pthread_create(&t, NULL, answer_later, &a), 0);
    assert_int_equal(ipc_await(a.slot, a.seq, count_probes, &probes),
                     123456789012LL);
    elapsed = ipc_now_ns() - t0;
    pthread_join(t, NULL);
    assert_true(elapsed >= 90000000ull);
    assert_true(elapsed < 1000000000ull);
    /* It slept in short steps, probing the service between them. */
    assert_true(atomic_load(&probes) >= 3);
    assert_int_equal(atomic_load(&a.slot->waiting), 0);
}

/*
 * A sleeping client is woken by the answer itself, not found by its next
 * 10 ms timeout. The answer comes 25 ms into the wait, half-way between two
 * timeouts, so a client that only polled would see it about 5 ms late; a
 * woken one sees it within microseconds. A majority of tries, not all, must
 * be prompt, so a loaded machine that delays one wake-up does not fail it.
 */
#define PROMPT_TRIES 7
#define PROMPT_NS 2500000ull

static void test_wake_is_prompt(void **state)
{
    struct ipc_slot *s = ipc_slot(&seg, 2);
    int prompt = 0;

    (void)state;
    for (uint32_t seq = 100; seq < 100 + PROMPT_TRIES; seq++) {
        struct late_answer a = {s, seq, seq, 25000, 0};
        pthread_t t;
        uint64_t woke;

        assert_int_equal(pthread_create(&t, NULL, answer_later, &a), 0);
        assert_int_equal(ipc_await(s, seq, NULL, NULL), seq);
        woke = ipc_now_ns();
        pthread_join(t, NULL);
        if (woke - a.answered_ns < PROMPT_NS)
            prompt++;
    }
    assert_true(prompt > PROMPT_TRIES / 2);
}

static atomic_int signals_seen;

static void on_signal(int sig)
{
    (void)sig;
    atomic_fetch_add(&signals_seen, 1);
}

struct pester {
    pthread_t target;
    atomic_bool stop;
};

static void *send_signals(void *p)
{
    struct pester *ps = p;

    while (!atomic_load(&ps->stop)) {
        pthread_kill(ps->target, SIGUSR1);
        usleep(2000);
    }
    return NULL;
}

/* Answers once the waiting thread has taken more than ten signals (or
 * after 10 s): the wait must have gone on through them, however slowly a
 * loaded machine delivers them. */
static void *answer_after_signals(void *p)
{
    struct late_answer *a = p;

    for (int ms = 0; ms < 10000 && atomic_load(&signals_seen) <= 10; ms++)
        usleep(1000);
    a->answered_ns = ipc_now_ns();
    ipc_complete(a->slot, a->seq, a->result);
    return NULL;
}

static void test_signals_do_not_end_wait(void **state)
{
    struct late_answer a = {ipc_slot(&seg, 3), 9, 77, 0, 0};
    struct sigaction sa;
    struct pester ps;
    pthread_t answerer, pesterer;

    (void)state;
    /* No SA_RESTART: the futex wait really returns EINTR. */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
    ps.target = pthread_self();
    atomic_store(&ps.stop, false);
    assert_int_equal(pthread_create(&answerer, NULL, answer_after_signals, &a),
                     0);
    assert_int_equal(pthread_create(&pesterer, NULL, send_signals, &ps), 0);

    assert_int_equal(ipc_await(a.slot, a.seq, NULL, NULL), 77);

    atomic_store(&ps.stop, true);
    pthread_join(pesterer, NULL);
    pthread_join(answerer, NULL);
    signal(SIGUSR1, SIG_IGN);
    assert_true(atomic_load(&signals_seen) > 10);
}

static void pin_to(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    assert_int_equal(sched_setaffinity(0, sizeof set, &set), 0);
}

/* A thread's mark is its cpu + 1; a peer is worth spinning for only when
 * it said another cpu; the client's mark in its slot is found "here" by a
 * service thread on its cpu and nowhere else; answering clears the
 * service's mark. */
static void test_cpu_marks(void **state)
{
    struct ipc_slot *s = ipc_slot(&seg, 2);
    cpu_set_t saved;

    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        skip();
    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    pin_to(0);
    assert_int_equal(ipc_cpu_mark(), 1);
    assert_false(ipc_peer_elsewhere(0));
    assert_false(ipc_peer_elsewhere(1));
    assert_true(ipc_peer_elsewhere(2));
    atomic_store(&s->client_cpu, 1);
    assert_true(ipc_slot_client_here(s));
    ipc_slot_running(s);
    assert_int_equal(atomic_load(&s->server_cpu), 1);
    pin_to(1);
    assert_false(ipc_slot_client_here(s));
    atomic_store(&s->client_cpu, 0);
    assert_false(ipc_slot_client_here(s));
    ipc_complete(s, 7, 0);
    assert_int_equal(atomic_load(&s->server_cpu), 0);
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
}

/* A large read's answer in pieces: the service thread (on cpu 1) says
 * how much of request seq's answer is in the buffer, and the client (on
 * cpu 0), spinning, hears of each new amount once, in order: never of
 * another request's (a stale word of seq - 1), never of less than it
 * heard before. The pieces reach a spinning client only; one that went to
 * sleep (a loaded machine) hears of none, so one try of seven, not all,
 * must hear of one. */
#define PIECE_TRIES 7

struct pieces {
    struct ipc_slot *slot;
    uint32_t seq;
    atomic_bool ready, go; /* the answerer runs on cpu 1; the client waits */
    atomic_uint heard[8];
    atomic_int nheard;
};

static void hear(uint32_t ready, void *arg)
{
    struct pieces *p = arg;
    int i = atomic_load(&p->nheard);
    if (i < 8)
        atomic_store(&p->heard[i], ready);
    atomic_store(&p->nheard, i + 1);
}

static void *answer_in_pieces(void *arg)
{
    struct pieces *p = arg;
    pin_to(1);
    ipc_slot_running(p->slot);
    atomic_store(&p->ready, true);
    while (!atomic_load(&p->go))
        ;
    /* Long enough for the client to look at the stale word first (it
     * looks every few tens of nanoseconds), short next to its spin. */
    uint64_t until = ipc_now_ns() + 5000ull;
    while (ipc_now_ns() < until)
        ;
    ipc_publish_bytes(p->slot, p->seq, 100);
    until = ipc_now_ns() + 2000000ull;
    while (atomic_load(&p->nheard) == 0 && ipc_now_ns() < until)
        ;
    ipc_publish_bytes(p->slot, p->seq, 100);
    ipc_publish_bytes(p->slot, p->seq, 3000);
    ipc_complete(p->slot, p->seq, 4096);
    return NULL;
}

static void test_pieces_heard_in_order(void **state)
{
    struct ipc_slot *s = ipc_slot(&seg, 3);
    cpu_set_t saved;
    int tries_heard = 0;

    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        skip();
    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    pin_to(0);
    for (uint32_t t = 0; t < PIECE_TRIES; t++) {
        struct pieces p = {.slot = s, .seq = 20 + 2 * t};
        pthread_t answerer;
        ipc_publish_bytes(s, p.seq - 1, 1000);
        assert_int_equal(pthread_create(&answerer, NULL, answer_in_pieces,
                                        &p), 0);
        while (!atomic_load(&p.ready))
            ;
        atomic_store(&p.go, true);
        assert_int_equal(ipc_await_pieces(s, p.seq, NULL, NULL, hear, &p),
                         4096);
        pthread_join(answerer, NULL);
        int n = atomic_load(&p.nheard);
        assert_true(n <= 2);
        for (int i = 0; i < n; i++) {
            uint32_t v = atomic_load(&p.heard[i]);
            assert_true(v == 100 || v == 3000);
            if (i > 0)
                assert_true(v > atomic_load(&p.heard[i - 1]));
        }
        tries_heard += n > 0;
        ipc_complete(s, p.seq + 1, 0); /* the next try's seq - 1 is done */
    }
    assert_true(tries_heard >= 1);
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
}

/* What the service takes of a large write's input (ipc_await_input): the
 * first IPC_INPUT_FIRST bytes with the request, more only as the client
 * says for this very request, never past the request's length, and a wait
 * for more that ends at its deadline. */
static void test_input_rules(void **state)
{
    struct ipc_slot *s = ipc_slot(&seg, 2);
    const uint32_t len = 4 * IPC_INPUT_FIRST;

    (void)state;
    /* Said nothing: the first piece; a short input is all there. */
    assert_int_equal(ipc_await_input(s, 7, 1, len, 0), IPC_INPUT_FIRST);
    assert_int_equal(ipc_await_input(s, 7, 1, 100, 0), 100);
    /* Said for another request: as if nothing. */
    ipc_publish_input(s, 6, len);
    assert_int_equal(ipc_await_input(s, 7, 1, len, 0), IPC_INPUT_FIRST);
    /* Said less than the first piece, or more than the request. */
    ipc_publish_input(s, 7, 10);
    assert_int_equal(ipc_await_input(s, 7, 1, len, 0), IPC_INPUT_FIRST);
    ipc_publish_input(s, 7, UINT32_MAX);
    assert_int_equal(ipc_await_input(s, 7, len, len, 0), len);
    /* Waiting for more than was said ends at the deadline with what was. */
    ipc_publish_input(s, 8, 2 * IPC_INPUT_FIRST);
    uint64_t t0 = ipc_now_ns();
    assert_int_equal(ipc_await_input(s, 8, len, len, t0 + 20000000),
                     2 * IPC_INPUT_FIRST);
    uint64_t waited = ipc_now_ns() - t0;
    assert_true(waited >= 20000000 && waited < 2000000000);
}

struct late_input {
    struct ipc_slot *slot;
    uint32_t seq, len;
};

static void *send_input_late(void *arg)
{
    struct late_input *in = arg;
    usleep(20000);
    ipc_publish_input(in->slot, in->seq, in->len / 2);
    usleep(20000);
    ipc_publish_input(in->slot, in->seq, in->len);
    return NULL;
}

/* The service hears each piece as the client says it is there. */
static void test_input_heard_as_sent(void **state)
{
    struct ipc_slot *s = ipc_slot(&seg, 1);
    struct late_input in = {s, 30, 4 * IPC_INPUT_FIRST};
    pthread_t sender;

    (void)state;
    uint64_t give_up = ipc_now_ns() + 5000000000ull;
    assert_int_equal(pthread_create(&sender, NULL, send_input_late, &in), 0);
    assert_int_equal(ipc_await_input(s, in.seq, IPC_INPUT_FIRST + 1, in.len,
                                     give_up),
                     in.len / 2);
    assert_int_equal(ipc_await_input(s, in.seq, in.len / 2 + 1, in.len,
                                     give_up),
                     in.len);
    pthread_join(sender, NULL);
    assert_true(ipc_now_ns() < give_up);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answer_already_there),
        cmocka_unit_test(test_dead_service_ends_wait),
        cmocka_unit_test(test_sleeping_client_is_woken),
        cmocka_unit_test(test_wake_is_prompt),
        cmocka_unit_test(test_signals_do_not_end_wait),
        cmocka_unit_test(test_cpu_marks),
        cmocka_unit_test(test_pieces_heard_in_order),
        cmocka_unit_test(test_input_rules),
        cmocka_unit_test(test_input_heard_as_sent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
