/*
 * test_ipc_ring.c - the doorbell queues and client areas under load and
 * under abuse: many producer and consumer threads over real memfds (in one
 * process and across a fork), back-pressure on a full queue, a queue whose
 * shared fields hold garbage, and the geometry and sealing of the memfds.
 */
#include "ipc/ipc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define NCELLS 8
#define NPRODUCERS 12 /* more than NCELLS: the queue fills up */
#define NCONSUMERS 3
#define REQUESTS 1500 /* per producer */
#define PAYLOAD 64    /* bytes each request carries in its slot buffer */
#define STALL_EVERY 64 /* consumers stall now and then, so the queue fills */

static struct ipc_geometry geometry(uint32_t ncells, uint32_t nslots)
{
    struct ipc_geometry g;

    memset(&g, 0, sizeof(g));
    g.nqueues = 1;
    g.ncells = ncells;
    g.nslots = nslots;
    g.slot_buf = 4096;
    return g;
}

static void make_segment(uint32_t ncells, struct ipc_segment *seg)
{
    struct ipc_geometry g = geometry(ncells, 1);

    assert_int_equal(ipc_queues_create(&g, seg), 0);
}

/* A second mapping of the same memfd, as a client gets it. */
static void map_again(int fd, const struct ipc_geometry *g, bool area,
                      void *out)
{
    int copy = dup(fd);

    assert_true(copy >= 0);
    if (area)
        assert_int_equal(ipc_area_map(copy, g, out), 0);
    else
        assert_int_equal(ipc_queues_map(copy, g, out), 0);
}

static struct ipc_bell bell(uint32_t slot, uint32_t seq)
{
    return (struct ipc_bell){.client = 0, .slot = slot, .seq = seq};
}

static bool never_alive(void *arg)
{
    (void)arg;
    return false;
}

/* What the consumer answers, so a mixed-up answer is noticed. */
static int64_t expected_result(uint32_t slot, uint32_t seq)
{
    return (int64_t)slot * 1000003 + seq;
}

static unsigned char payload_byte(uint32_t slot, uint32_t seq, uint32_t i)
{
    return (unsigned char)(slot * 31 + seq * 7 + i);
}

/* ---- many producers, many consumers ---- */

struct load {
    struct ipc_segment *service;
    struct ipc_area *area;
    atomic_bool stop;
    /* Written by consumers only; each slot's requests come one at a time,
     * and the producer's await orders successive consumers' updates. */
    uint32_t last_seq[NPRODUCERS];
    atomic_uint taken;
    atomic_uint bad; /* descriptors or payloads that did not check out */
};

static void *consumer(void *p)
{
    struct load *L = p;
    struct ipc_queue *q = ipc_queue(L->service, 0);
    struct ipc_bell b;
    struct danaus_desc d;

    while (!atomic_load(&L->stop)) {
        if (!ipc_take(L->service, q, UINT32_MAX, &b)) {
            ipc_wait_work(L->service, q, NULL, 50000, 10);
            continue;
        }
        if (b.client != 0 || b.slot >= NPRODUCERS) {
            atomic_fetch_add(&L->bad, 1); /* nobody to answer */
            continue;
        }
        struct ipc_slot *s = ipc_slot(L->area, b.slot);
        if (atomic_load(&s->posted) != b.seq)
            atomic_fetch_add(&L->bad, 1);
        memcpy(&d, &s->desc, sizeof d);
        bool ok = d.arg[0] == b.slot && d.seq == b.seq &&
                  d.arg[1] == d.seq && d.slot == b.slot &&
                  d.seq == L->last_seq[d.slot] + 1 && d.buf_off == 0 &&
                  d.buf_len == PAYLOAD;
        for (uint32_t i = 0; ok && i < PAYLOAD; i++)
            ok = s->buf[i] == payload_byte(d.slot, d.seq, i);
        if (!ok)
            atomic_fetch_add(&L->bad, 1);
        L->last_seq[d.slot] = d.seq;
        if (atomic_fetch_add(&L->taken, 1) % STALL_EVERY == 0)
            usleep(200);
        /* A wrong answer, not none: the test fails instead of hanging. */
        ipc_complete(s, d.seq,
                     ok ? expected_result(d.slot, d.seq) : -EBADMSG);
    }
    return NULL;
}

struct producer_arg {
    struct ipc_segment *client;
    struct ipc_area *area;
    uint32_t slot;
    uint32_t answered; /* answers that matched */
};

static void *producer(void *p)
{
    struct producer_arg *a = p;
    struct ipc_queue *q = ipc_queue(a->client, 0);
    struct ipc_slot *s = ipc_slot(a->area, a->slot);

    for (uint32_t seq = 1; seq <= REQUESTS; seq++) {
        struct danaus_desc d = {.call = DANAUS_CALL_STAT,
                                .slot = a->slot,
                                .seq = seq,
                                .buf_len = PAYLOAD};
        d.arg[0] = a->slot;
        d.arg[1] = seq;
        for (uint32_t i = 0; i < PAYLOAD; i++)
            s->buf[i] = payload_byte(a->slot, seq, i);
        ipc_post(s, &d, seq);
        if (ipc_ring(a->client, q, bell(a->slot, seq), NULL, NULL) != 0)
            break;
        if (ipc_await(s, seq, NULL, NULL) == expected_result(a->slot, seq))
            a->answered++;
    }
    return NULL;
}

/* Runs NPRODUCERS producer threads on client; returns how many of them got
 * every answer right. */
static int run_producers(struct ipc_segment *client, struct ipc_area *area)
{
    pthread_t t[NPRODUCERS];
    struct producer_arg a[NPRODUCERS];
    int complete = 0;

    for (int i = 0; i < NPRODUCERS; i++) {
        a[i] = (struct producer_arg){.client = client, .area = area,
                                     .slot = (uint32_t)i};
        if (pthread_create(&t[i], NULL, producer, &a[i]) != 0)
            return -1;
    }
    for (int i = 0; i < NPRODUCERS; i++) {
        pthread_join(t[i], NULL);
        if (a[i].answered == REQUESTS)
            complete++;
    }
    return complete;
}

static void start_consumers(struct load *L, pthread_t *t)
{
    for (int i = 0; i < NCONSUMERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, consumer, L), 0);
}

static void stop_consumers(struct load *L, pthread_t *t)
{
    atomic_store(&L->stop, true);
    ipc_queue_wake_all(ipc_queue(L->service, 0));
    for (int i = 0; i < NCONSUMERS; i++)
        pthread_join(t[i], NULL);
}

static void check_all_answered_once(struct load *L)
{
    assert_int_equal(atomic_load(&L->bad), 0);
    assert_int_equal(atomic_load(&L->taken), NPRODUCERS * REQUESTS);
    for (int i = 0; i < NPRODUCERS; i++)
        assert_int_equal(L->last_seq[i], REQUESTS);
    assert_int_equal(ipc_queue_backlog(L->service, ipc_queue(L->service, 0)),
                     0);
}

static void test_threads_one_process(void **state)
{
    struct ipc_geometry g = geometry(NCELLS, NPRODUCERS);
    struct ipc_segment service, client;
    struct ipc_area area, client_area;
    struct load L;
    pthread_t t[NCONSUMERS];

    (void)state;
    alarm(60); /* a lost wake-up or a stuck queue fails instead of hanging */
    assert_int_equal(ipc_queues_create(&g, &service), 0);
    assert_int_equal(ipc_area_create(&g, &area), 0);
    assert_int_equal(ipc_area_grow(&area, area.nslots), 0);
    /* Producers use their own mappings, as a client would: the futexes
     * must work across two mappings of the same pages. */
    map_again(service.fd, &g, false, &client);
    map_again(area.fd, &g, true, &client_area);
    memset(&L, 0, sizeof(L));
    L.service = &service;
    L.area = &area;
    start_consumers(&L, t);

    assert_int_equal(run_producers(&client, &client_area), NPRODUCERS);

    stop_consumers(&L, t);
    check_all_answered_once(&L);
    alarm(0);
    ipc_queues_unmap(&client);
    ipc_area_unmap(&client_area);
    ipc_queues_unmap(&service);
    ipc_area_unmap(&area);
}

static void test_producers_in_child_process(void **state)
{
    struct ipc_geometry g = geometry(NCELLS, NPRODUCERS);
    struct ipc_segment service;
    struct ipc_area area;
    struct load L;
    pthread_t t[NCONSUMERS];
    int status;
    pid_t child;

    (void)state;
    alarm(60);
    assert_int_equal(ipc_queues_create(&g, &service), 0);
    assert_int_equal(ipc_area_create(&g, &area), 0);
    assert_int_equal(ipc_area_grow(&area, area.nslots), 0);
    /* Fork before any thread exists here, so the child is a plain copy. */
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct ipc_segment client;
        struct ipc_area client_area;

        if (ipc_queues_map(dup(service.fd), &g, &client) != 0 ||
            ipc_area_map(dup(area.fd), &g, &client_area) != 0)
            _exit(2);
        _exit(run_producers(&client, &client_area) == NPRODUCERS ? 0 : 1);
    }
    memset(&L, 0, sizeof(L));
    L.service = &service;
    L.area = &area;
    start_consumers(&L, t);

    assert_int_equal(waitpid(child, &status, 0), child);
    stop_consumers(&L, t);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    check_all_answered_once(&L);
    alarm(0);
    ipc_queues_unmap(&service);
    ipc_area_unmap(&area);
}

/* ---- back-pressure ---- */

struct blocked_submit {
    struct ipc_segment *seg;
    struct ipc_bell b;
    atomic_bool returned;
    int rc;
};

static void *submit_thread(void *p)
{
    struct blocked_submit *b = p;

    b->rc = ipc_ring(b->seg, ipc_queue(b->seg, 0), b->b, NULL, NULL);
    atomic_store(&b->returned, true);
    return NULL;
}

/* A full queue makes a ring wait for room, but not for ever: another
 * client may keep it full on purpose, and the service's sweep serves a
 * request whose bell found no room. */
static void test_full_queue_waits_a_bounded_time(void **state)
{
    struct ipc_segment seg;
    struct ipc_queue *q;
    struct ipc_bell out;
    struct blocked_submit b;
    pthread_t t;

    (void)state;
    make_segment(NCELLS, &seg);
    q = ipc_queue(&seg, 0);
    for (uint32_t i = 0; i < NCELLS; i++)
        assert_int_equal(ipc_ring(&seg, q, bell(i, 1), NULL, NULL), 0);
    assert_int_equal(ipc_queue_backlog(&seg, q), NCELLS);

    /* Full, and the service is gone: the ring fails, nothing is lost. */
    assert_int_equal(ipc_ring(&seg, q, bell(NCELLS, 1), never_alive, NULL),
                     -ENOTCONN);
    assert_int_equal(ipc_queue_backlog(&seg, q), NCELLS);

    /* Full and nothing taken: the ring gives up within a second. */
    uint64_t t0 = ipc_now_ns();
    assert_int_equal(ipc_ring(&seg, q, bell(NCELLS, 1), NULL, NULL), -EAGAIN);
    assert_true(ipc_now_ns() - t0 < 1000000000ull);

    /* Full, and a bell taken while the ring waits: it goes in. */
    memset(&b, 0, sizeof(b));
    b.seg = &seg;
    b.b = bell(NCELLS, 1);
    assert_int_equal(pthread_create(&t, NULL, submit_thread, &b), 0);
    usleep(2000);
    assert_true(ipc_take(&seg, q, UINT32_MAX, &out));
    pthread_join(t, NULL);
    assert_int_equal(b.rc, 0);
    assert_int_equal(ipc_queue_backlog(&seg, q), NCELLS);

    /* All NCELLS + 1 bells come out, each once and intact. */
    bool seen[NCELLS + 1] = {false};
    seen[out.slot] = true;
    for (uint32_t i = 0; i < NCELLS; i++) {
        assert_true(ipc_take(&seg, q, UINT32_MAX, &out));
        assert_true(out.slot <= NCELLS);
        assert_int_equal(out.client, 0);
        assert_int_equal(out.seq, 1);
        assert_false(seen[out.slot]);
        seen[out.slot] = true;
    }
    assert_false(ipc_take(&seg, q, UINT32_MAX, &out));
    ipc_queues_unmap(&seg);
}

/* ---- turns ---- */

/* A client with many bells waiting does not go first every time: after
 * serving it, the service takes another client's bell if there is one. */
static void test_clients_take_turns(void **state)
{
    struct ipc_segment seg;
    struct ipc_queue *q;
    struct ipc_bell out;

    (void)state;
    make_segment(NCELLS, &seg);
    q = ipc_queue(&seg, 0);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(ipc_ring(&seg, q, (struct ipc_bell){1, i, 1}, NULL,
                                  NULL),
                         0);
    assert_int_equal(ipc_ring(&seg, q, (struct ipc_bell){2, 0, 1}, NULL,
                              NULL),
                     0);
    assert_true(ipc_take(&seg, q, UINT32_MAX, &out));
    assert_int_equal(out.client, 1);
    assert_true(ipc_take(&seg, q, 1, &out));
    assert_int_equal(out.client, 2);
    /* Only client 1 is left: it is served anyway. */
    for (uint32_t i = 0; i < 4; i++) {
        assert_true(ipc_take(&seg, q, 1, &out));
        assert_int_equal(out.client, 1);
    }
    assert_false(ipc_take(&seg, q, 1, &out));
    ipc_queues_unmap(&seg);
}

/* ---- a sleeping service thread ---- */

struct sleeper {
    struct ipc_segment *seg;
    struct ipc_bell b;
    atomic_bool returned;
    bool got;
};

static void *take_forever(void *p)
{
    struct sleeper *z = p;

    struct ipc_queue *q = ipc_queue(z->seg, 0);

    z->got = ipc_wait_work(z->seg, q, NULL, 0, -1) &&
             ipc_take(z->seg, q, UINT32_MAX, &z->b);
    atomic_store(&z->returned, true);
    return NULL;
}

static void test_sleeping_service_woken(void **state)
{
    struct ipc_segment seg;
    struct sleeper z;
    pthread_t t;

    (void)state;
    alarm(20);
    make_segment(NCELLS, &seg);

    /* A bell wakes it and is what it returns. */
    memset(&z, 0, sizeof(z));
    z.seg = &seg;
    assert_int_equal(pthread_create(&t, NULL, take_forever, &z), 0);
    usleep(50000);
    assert_false(atomic_load(&z.returned));
    struct ipc_bell rung = {.client = 77, .slot = 2, .seq = 9};
    assert_int_equal(ipc_ring(&seg, ipc_queue(&seg, 0), rung, NULL, NULL), 0);
    pthread_join(t, NULL);
    assert_true(z.got);
    assert_int_equal(z.b.client, 77);
    assert_int_equal(z.b.slot, 2);
    assert_int_equal(z.b.seq, 9);

    /* Shutdown: wake_all ends the wait, with nothing taken. */
    memset(&z, 0, sizeof(z));
    z.seg = &seg;
    assert_int_equal(pthread_create(&t, NULL, take_forever, &z), 0);
    usleep(50000);
    assert_false(atomic_load(&z.returned));
    ipc_queue_wake_all(ipc_queue(&seg, 0));
    pthread_join(t, NULL);
    assert_false(z.got);
    assert_int_equal(atomic_load(&ipc_queue(&seg, 0)->sleepers), 0);

    /* A bounded wait ends on time when nothing comes. */
    uint64_t t0 = ipc_now_ns();
    assert_false(ipc_wait_work(&seg, ipc_queue(&seg, 0), NULL, 1000000, 30));
    uint64_t waited = ipc_now_ns() - t0;
    assert_true(waited >= 30000000ull && waited < 500000000ull);
    alarm(0);
    ipc_queues_unmap(&seg);
}

/* ---- hostile shared fields ---- */

static void test_garbage_in_queue(void **state)
{
    struct ipc_segment seg;
    struct ipc_queue *q;
    struct ipc_bell out;
    uint32_t full = 0, taken = 0;
    uint64_t t0;

    (void)state;
    alarm(20); /* a hang fails the test instead of stalling ctest */
    make_segment(NCELLS, &seg);
    q = ipc_queue(&seg, 0);
    srand(12345);
    atomic_store(&q->produce_hint, 0xfffffff9u);
    atomic_store(&q->consume_hint, 0xdeadbeefu);
    atomic_store(&q->sleepers, 0xffffffffu);
    atomic_store(&q->room_waiters, 0x80000000u);
    for (uint32_t i = 0; i < NCELLS; i++) {
        /* Random words, some zero (empty), some with client bits zero. */
        uint64_t w = ((uint64_t)rand() << 33) ^ (uint64_t)rand() * 2654435761u;
        if (i % 3 == 0)
            w = 0;
        if (i == 1)
            w = 0x00000000ffffffffull;
        atomic_store(&q->cells[i], w);
        full += w != 0;
    }
    assert_true(full > 0);
    assert_int_equal(ipc_queue_backlog(&seg, q), full);

    /* The service takes every word there is, each once, and a word with
     * no client bits names a client that cannot exist. */
    t0 = ipc_now_ns();
    while (ipc_take(&seg, q, UINT32_MAX, &out)) {
        taken++;
        assert_true(taken <= NCELLS);
        assert_true(out.slot < IPC_MAX_SLOTS);
        if (out.client >= IPC_MAX_CLIENTS)
            assert_int_equal(out.client, UINT32_MAX);
    }
    assert_int_equal(taken, full);
    /* Nothing is left half-taken: the queue is empty and usable. */
    assert_int_equal(ipc_queue_backlog(&seg, q), 0);
    assert_false(ipc_wait_work(&seg, q, NULL, 100000, 0));
    assert_false(ipc_wait_work(&seg, q, NULL, 0, 20));
    assert_true(ipc_now_ns() - t0 < 1000000000ull);
    for (uint32_t i = 0; i < NCELLS; i++)
        assert_int_equal(ipc_ring(&seg, q, bell(i, 5), never_alive, NULL), 0);
    alarm(0);
    ipc_queues_unmap(&seg);
}

/* ---- geometry and sealing ---- */

static void test_geometry_checked_and_memfds_sealed(void **state)
{
    struct ipc_geometry g = geometry(8, 4);
    struct ipc_segment seg;
    struct ipc_area area;

    (void)state;
    g.nqueues = 2;
    g.ncells = 6; /* not a power of two */
    assert_int_equal(ipc_queues_create(&g, &seg), -EINVAL);
    g.ncells = 8;
    g.slot_buf = 1000; /* not a multiple of 4096 */
    assert_int_equal(ipc_area_create(&g, &area), -EINVAL);
    g.slot_buf = 8192;
    g.cpu_queue[5] = 2; /* no such queue */
    assert_int_equal(ipc_queues_create(&g, &seg), -EINVAL);
    g.cpu_queue[5] = 1;

    assert_int_equal(ipc_queues_create(&g, &seg), 0);
    assert_int_equal(ipc_area_create(&g, &area), 0);
    /* Every part is page-aligned. */
    assert_int_equal((uintptr_t)ipc_queue(&seg, 1) % 4096, 0);
    assert_int_equal((uintptr_t)ipc_slot(&area, 3) % 4096, 0);
    assert_int_equal((uintptr_t)ipc_slot(&area, 3)->buf % 4096, 0);
    assert_int_equal(area.size, 4 * area.slot_size);
    /* The area's file holds no slot until the service grows it, slot by
     * slot, and never shrinks. */
    struct stat st;
    assert_int_equal(fstat(area.fd, &st), 0);
    assert_int_equal(st.st_size, 0);
    assert_int_equal(ipc_area_grow(&area, 2), 0);
    assert_int_equal(fstat(area.fd, &st), 0);
    assert_int_equal(st.st_size, 2 * area.slot_size);
    assert_int_equal(ipc_area_grow(&area, 1), 0);
    assert_int_equal(ipc_area_grow(&area, 5), -EINVAL);
    assert_int_equal(fstat(area.fd, &st), 0);
    assert_int_equal(st.st_size, 2 * area.slot_size);
    /* A slot given back gives its pages back; the size stays. */
    memset(ipc_slot(&area, 1), 1, area.slot_size);
    assert_int_equal(fstat(area.fd, &st), 0);
    blkcnt_t touched = st.st_blocks;
    ipc_area_release_slot(&area, 1);
    assert_int_equal(fstat(area.fd, &st), 0);
    assert_true(st.st_blocks < touched);
    assert_int_equal(st.st_size, 2 * area.slot_size);
    assert_int_equal(ipc_slot(&area, 1)->done, 0);
    /* A client cannot shrink what the service maps, nor seal the area
     * against growing; the queues cannot change size at all. */
    assert_int_equal(ftruncate(area.fd, 4096), -1);
    assert_int_equal(errno, EPERM);
    assert_int_equal(ftruncate(seg.fd, (off_t)seg.size * 2), -1);
    assert_int_equal(errno, EPERM);
    assert_int_equal(fcntl(area.fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
    assert_int_equal(fcntl(area.fd, F_ADD_SEALS, F_SEAL_GROW), -1);
    /* Mapping checks the size against the geometry: the read cache must
     * be there. */
    struct ipc_area big;
    g.cache_blocks = 4;
    assert_int_equal(ipc_area_map(area.fd, &g, &big), -EINVAL);
    ipc_queues_unmap(&seg);
    ipc_area_unmap(&area);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_one_process),
        cmocka_unit_test(test_producers_in_child_process),
        cmocka_unit_test(test_full_queue_waits_a_bounded_time),
        cmocka_unit_test(test_clients_take_turns),
        cmocka_unit_test(test_sleeping_service_woken),
        cmocka_unit_test(test_garbage_in_queue),
        cmocka_unit_test(test_geometry_checked_and_memfds_sealed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
