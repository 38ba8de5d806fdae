/*
 * test_ipc_ring.c - the request queues under load and under abuse: many
 * producer and consumer threads over one real segment (in one process and
 * across a fork), back-pressure on a full queue, reclaim of a dead client's
 * cells, and a queue whose shared fields hold garbage.
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
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define NCELLS 8
#define NPRODUCERS 12 /* more than NCELLS: the queue fills up */
#define NCONSUMERS 3
#define REQUESTS 1500 /* per producer */
#define PAYLOAD 64    /* bytes each request carries in its slot buffer */
#define STALL_EVERY 64 /* consumers stall now and then, so the queue fills */

static void make_segment(uint32_t ncells, uint32_t nslots,
                         struct ipc_segment *seg)
{
    struct ipc_geometry g;

    memset(&g, 0, sizeof(g));
    g.nqueues = 1;
    g.ncells = ncells;
    g.nslots = nslots;
    g.slot_buf = 4096;
    assert_int_equal(ipc_segment_create(&g, (uid_t)-1, (gid_t)-1, 0600, seg),
                     0);
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
    struct ipc_segment *service, *client;
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
    struct danaus_desc d;

    while (!atomic_load(&L->stop)) {
        if (!ipc_take_wait(L->service, q, &d, 50000, 10))
            continue;
        if (d.slot >= NPRODUCERS) {
            atomic_fetch_add(&L->bad, 1); /* nobody to answer */
            continue;
        }
        struct ipc_slot *s = ipc_slot(L->service, d.slot);
        bool ok = d.arg[0] == d.slot && d.arg[1] == d.seq &&
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
    uint32_t slot;
    uint32_t answered; /* answers that matched */
};

static void *producer(void *p)
{
    struct producer_arg *a = p;
    struct ipc_queue *q = ipc_queue(a->client, 0);
    struct ipc_slot *s = ipc_slot(a->client, a->slot);

    for (uint32_t seq = 1; seq <= REQUESTS; seq++) {
        struct danaus_desc d = {.call = DANAUS_CALL_STAT,
                                .slot = a->slot,
                                .seq = seq,
                                .buf_len = PAYLOAD};
        d.arg[0] = a->slot;
        d.arg[1] = seq;
        for (uint32_t i = 0; i < PAYLOAD; i++)
            s->buf[i] = payload_byte(a->slot, seq, i);
        if (ipc_submit(a->client, q, &d, NULL, NULL) != 0)
            break;
        if (ipc_await(s, seq, NULL, NULL) == expected_result(a->slot, seq))
            a->answered++;
    }
    return NULL;
}

/* Runs NPRODUCERS producer threads on client; returns how many of them got
 * every answer right. */
static int run_producers(struct ipc_segment *client)
{
    pthread_t t[NPRODUCERS];
    struct producer_arg a[NPRODUCERS];
    int complete = 0;

    for (int i = 0; i < NPRODUCERS; i++) {
        a[i] = (struct producer_arg){.client = client, .slot = (uint32_t)i};
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
    struct ipc_segment service, client;
    struct load L;
    pthread_t t[NCONSUMERS];

    (void)state;
    alarm(60); /* a lost wake-up or a stuck queue fails instead of hanging */
    make_segment(NCELLS, NPRODUCERS, &service);
    /* Producers use their own attachment, as a client would: the futexes
     * must work across two mappings of the same pages. */
    assert_int_equal(ipc_segment_attach(service.shmid, &client), 0);
    memset(&L, 0, sizeof(L));
    L.service = &service;
    start_consumers(&L, t);

    assert_int_equal(run_producers(&client), NPRODUCERS);

    stop_consumers(&L, t);
    check_all_answered_once(&L);
    alarm(0);
    ipc_segment_detach(&client);
    ipc_segment_destroy(&service);
}

static void test_producers_in_child_process(void **state)
{
    struct ipc_segment service;
    struct load L;
    pthread_t t[NCONSUMERS];
    int status;
    pid_t child;

    (void)state;
    alarm(60);
    make_segment(NCELLS, NPRODUCERS, &service);
    /* Fork before any thread exists here, so the child is a plain copy. */
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct ipc_segment client;

        if (ipc_segment_attach(service.shmid, &client) != 0)
            _exit(2);
        _exit(run_producers(&client) == NPRODUCERS ? 0 : 1);
    }
    memset(&L, 0, sizeof(L));
    L.service = &service;
    start_consumers(&L, t);

    assert_int_equal(waitpid(child, &status, 0), child);
    stop_consumers(&L, t);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    check_all_answered_once(&L);
    alarm(0);
    ipc_segment_destroy(&service);
}

/* ---- back-pressure ---- */

struct blocked_submit {
    struct ipc_segment *seg;
    struct danaus_desc d;
    atomic_bool returned;
    int rc;
};

static void *submit_thread(void *p)
{
    struct blocked_submit *b = p;

    b->rc = ipc_submit(b->seg, ipc_queue(b->seg, 0), &b->d, NULL, NULL);
    atomic_store(&b->returned, true);
    return NULL;
}

static void test_full_queue_blocks_until_room(void **state)
{
    struct ipc_segment seg;
    struct ipc_queue *q;
    struct danaus_desc d = {.call = DANAUS_CALL_STAT}, out;
    struct blocked_submit b;
    pthread_t t;

    (void)state;
    make_segment(NCELLS, NCELLS + 1, &seg);
    q = ipc_queue(&seg, 0);
    for (uint32_t i = 0; i < NCELLS; i++) {
        d.slot = i;
        assert_int_equal(ipc_submit(&seg, q, &d, NULL, NULL), 0);
    }
    assert_int_equal(ipc_queue_backlog(&seg, q), NCELLS);

    /* Full, and the service is gone: the submit fails, nothing is lost. */
    d.slot = NCELLS;
    assert_int_equal(ipc_submit(&seg, q, &d, never_alive, NULL), -ENOTCONN);
    assert_int_equal(ipc_queue_backlog(&seg, q), NCELLS);

    /* Full, service alive: the submit waits... */
    memset(&b, 0, sizeof(b));
    b.seg = &seg;
    b.d = d;
    assert_int_equal(pthread_create(&t, NULL, submit_thread, &b), 0);
    usleep(50000);
    assert_false(atomic_load(&b.returned));
    /* ...and goes in as soon as one request is taken. */
    assert_true(ipc_take(&seg, q, &out));
    pthread_join(t, NULL);
    assert_int_equal(b.rc, 0);
    assert_int_equal(ipc_queue_backlog(&seg, q), NCELLS);

    /* All NCELLS + 1 requests come out, each once. */
    bool seen[NCELLS + 1] = {false};
    seen[out.slot] = true;
    for (uint32_t i = 0; i < NCELLS; i++) {
        assert_true(ipc_take(&seg, q, &out));
        assert_true(out.slot <= NCELLS);
        assert_false(seen[out.slot]);
        seen[out.slot] = true;
    }
    assert_false(ipc_take(&seg, q, &out));
    ipc_segment_destroy(&seg);
}

/* ---- a sleeping service thread ---- */

struct sleeper {
    struct ipc_segment *seg;
    struct danaus_desc d;
    atomic_bool returned;
    bool got;
};

static void *take_forever(void *p)
{
    struct sleeper *z = p;

    z->got = ipc_take_wait(z->seg, ipc_queue(z->seg, 0), &z->d, 0, -1);
    atomic_store(&z->returned, true);
    return NULL;
}

static void test_sleeping_service_woken(void **state)
{
    struct ipc_segment seg;
    struct danaus_desc d = {.call = DANAUS_CALL_UNLINK, .slot = 2, .seq = 9};
    struct sleeper z;
    pthread_t t;

    (void)state;
    alarm(20);
    make_segment(NCELLS, 4, &seg);

    /* A request wakes it and is what it returns. */
    memset(&z, 0, sizeof(z));
    z.seg = &seg;
    assert_int_equal(pthread_create(&t, NULL, take_forever, &z), 0);
    usleep(50000);
    assert_false(atomic_load(&z.returned));
    assert_int_equal(ipc_submit(&seg, ipc_queue(&seg, 0), &d, NULL, NULL), 0);
    pthread_join(t, NULL);
    assert_true(z.got);
    assert_int_equal(z.d.call, DANAUS_CALL_UNLINK);
    assert_int_equal(z.d.slot, 2);
    assert_int_equal(z.d.seq, 9);

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
    assert_false(ipc_wait_work(&seg, ipc_queue(&seg, 0), 1000000, 30));
    uint64_t waited = ipc_now_ns() - t0;
    assert_true(waited >= 30000000ull && waited < 500000000ull);
    alarm(0);
    ipc_segment_destroy(&seg);
}

/* ---- reclaim ---- */

static void test_dead_writer_skipped_then_reclaimed(void **state)
{
    struct ipc_segment seg;
    struct ipc_queue *q;
    struct danaus_desc d = {.call = DANAUS_CALL_STAT}, out;
    const uint32_t dead = 5, live = 1;

    (void)state;
    make_segment(NCELLS, 8, &seg);
    q = ipc_queue(&seg, 0);

    /* The dead client claimed cell 2 and never finished writing it. */
    atomic_store(&q->cells[2].state, IPC_CELL(IPC_CELL_WRITING, dead));

    d.slot = live;
    d.seq = 7;
    assert_int_equal(ipc_submit(&seg, q, &d, NULL, NULL), 0);
    assert_true(ipc_take(&seg, q, &out));
    assert_int_equal(out.slot, live);
    assert_int_equal(out.seq, 7);
    /* The half-written cell is neither served nor waited for. */
    assert_false(ipc_take(&seg, q, &out));
    assert_false(ipc_take_wait(&seg, q, &out, 100000, 0));
    assert_int_equal(ipc_queue_backlog(&seg, q), 0);

    /* It costs one cell of capacity until reclaimed. */
    for (uint32_t i = 0; i < NCELLS - 1; i++)
        assert_int_equal(ipc_submit(&seg, q, &d, never_alive, NULL), 0);
    assert_int_equal(ipc_submit(&seg, q, &d, never_alive, NULL), -ENOTCONN);
    for (uint32_t i = 0; i < NCELLS - 1; i++)
        assert_true(ipc_take(&seg, q, &out));

    /* The dead client also left one request READY; a live one is queued. */
    d.slot = dead;
    assert_int_equal(ipc_submit(&seg, q, &d, NULL, NULL), 0);
    d.slot = live;
    d.seq = 8;
    assert_int_equal(ipc_submit(&seg, q, &d, NULL, NULL), 0);

    ipc_queue_reclaim(&seg, q, dead);
    assert_int_equal(atomic_load(&q->cells[2].state), IPC_CELL_EMPTY);
    assert_int_equal(ipc_queue_backlog(&seg, q), 1);
    assert_true(ipc_take(&seg, q, &out));
    assert_int_equal(out.slot, live);
    assert_int_equal(out.seq, 8);
    assert_false(ipc_take(&seg, q, &out));

    /* Every cell is usable again. */
    for (uint32_t i = 0; i < NCELLS; i++)
        assert_int_equal(ipc_submit(&seg, q, &d, never_alive, NULL), 0);
    ipc_segment_destroy(&seg);
}

/* ---- hostile shared fields ---- */

static void test_garbage_in_queue(void **state)
{
    struct ipc_segment seg;
    struct ipc_queue *q;
    struct danaus_desc d = {.call = DANAUS_CALL_STAT, .slot = 1}, out;
    uint32_t ready = 0, taken = 0;
    uint64_t t0;

    (void)state;
    alarm(20); /* a hang fails the test instead of stalling ctest */
    make_segment(NCELLS, 4, &seg);
    q = ipc_queue(&seg, 0);
    srand(12345);
    atomic_store(&q->produce_hint, 0xfffffff9u);
    atomic_store(&q->consume_hint, 0xdeadbeefu);
    atomic_store(&q->sleepers, 0xffffffffu);
    atomic_store(&q->room_waiters, 0x80000000u);
    for (uint32_t i = 0; i < NCELLS; i++) {
        /* Random states, with some READY and some WRITING among them. */
        uint32_t st = (uint32_t)rand() * 2654435761u;
        if (i % 3 == 0)
            st = (st & ~0xffu) | IPC_CELL_READY;
        if (i == 1)
            st = (st & ~0xffu) | IPC_CELL_WRITING;
        atomic_store(&q->cells[i].state, st);
        memset(&q->cells[i].desc, 0xa5 + (int)i, sizeof(q->cells[i].desc));
        if (IPC_CELL_STATE(st) == IPC_CELL_READY)
            ready++;
    }
    assert_true(ready > 0);
    assert_int_equal(ipc_queue_backlog(&seg, q), ready);

    t0 = ipc_now_ns();
    while (ipc_take(&seg, q, &out)) {
        taken++;
        assert_true(taken <= NCELLS);
    }
    assert_int_equal(taken, ready);
    assert_false(ipc_take_wait(&seg, q, &out, 100000, 0));
    assert_false(ipc_take_wait(&seg, q, &out, 0, 20));
    assert_true(ipc_now_ns() - t0 < 1000000000ull);

    /* Reclaim of any slot value and a submit into whatever room is left
     * both stay in bounds and return. */
    ipc_queue_reclaim(&seg, q, 0xffffffu);
    int rc = ipc_submit(&seg, q, &d, never_alive, NULL);
    assert_true(rc == 0 || rc == -ENOTCONN);
    alarm(0);
    ipc_segment_destroy(&seg);
}

/* ---- segment header ---- */

static void test_attach_checks_header(void **state)
{
    struct ipc_segment seg, client;
    struct ipc_header *h;

    (void)state;
    make_segment(NCELLS, 4, &seg);
    h = seg.hdr;

    h->magic ^= 1;
    assert_int_equal(ipc_segment_attach(seg.shmid, &client), -EINVAL);
    h->magic ^= 1;

    h->version += 1;
    assert_int_equal(ipc_segment_attach(seg.shmid, &client),
                     -EPROTONOSUPPORT);
    h->version -= 1;

    /* Claims more slots than the segment holds. */
    h->nslots += 1;
    assert_int_equal(ipc_segment_attach(seg.shmid, &client), -EINVAL);
    h->nslots -= 1;

    h->cpu_queue[3] = 1; /* only queue 0 exists */
    assert_int_equal(ipc_segment_attach(seg.shmid, &client), -EINVAL);
    h->cpu_queue[3] = 0;

    assert_int_equal(ipc_segment_attach(seg.shmid, &client), 0);
    assert_int_equal(client.ncells, NCELLS);
    assert_int_equal(client.nslots, 4);
    assert_int_equal(client.queue_size, seg.queue_size);
    assert_int_equal(client.slot_size, seg.slot_size);
    assert_int_equal(client.slot_size % 4096, 0);
    assert_int_equal(client.slots - (unsigned char *)client.hdr,
                     seg.slots - (unsigned char *)seg.hdr);
    ipc_segment_detach(&client);
    ipc_segment_destroy(&seg);

    /* Too small to hold a header at all. */
    int tiny = shmget(IPC_PRIVATE, 100, IPC_CREAT | 0600);
    assert_true(tiny >= 0);
    assert_int_equal(ipc_segment_attach(tiny, &client), -EINVAL);
    shmctl(tiny, IPC_RMID, NULL);
}

static void test_create_checks_geometry_and_sets_owner(void **state)
{
    struct ipc_geometry g;
    struct ipc_segment seg;
    struct shmid_ds ds;

    (void)state;
    memset(&g, 0, sizeof(g));
    g.nqueues = 2;
    g.ncells = 6; /* not a power of two */
    g.nslots = 4;
    g.slot_buf = 4096;
    assert_int_equal(ipc_segment_create(&g, (uid_t)-1, (gid_t)-1, 0600, &seg),
                     -EINVAL);
    g.ncells = 8;
    g.slot_buf = 1000; /* not a multiple of 4096 */
    assert_int_equal(ipc_segment_create(&g, (uid_t)-1, (gid_t)-1, 0600, &seg),
                     -EINVAL);
    g.slot_buf = 8192;
    g.cpu_queue[5] = 2; /* no such queue */
    assert_int_equal(ipc_segment_create(&g, (uid_t)-1, (gid_t)-1, 0600, &seg),
                     -EINVAL);
    g.cpu_queue[5] = 1;

    assert_int_equal(ipc_segment_create(&g, 65534, 65533, 0640, &seg), 0);
    assert_int_equal(shmctl(seg.shmid, IPC_STAT, &ds), 0);
    assert_int_equal(ds.shm_perm.uid, 65534);
    assert_int_equal(ds.shm_perm.gid, 65533);
    assert_int_equal(ds.shm_perm.mode & 0777, 0640);
    assert_int_equal(ds.shm_segsz, seg.hdr->total_size);
    /* Every part is page-aligned; the queue map was copied. */
    assert_int_equal((uintptr_t)ipc_queue(&seg, 1) % 4096, 0);
    assert_int_equal((uintptr_t)ipc_slot(&seg, 3) % 4096, 0);
    assert_int_equal((uintptr_t)ipc_slot(&seg, 3)->buf % 4096, 0);
    assert_int_equal(seg.hdr->cpu_queue[5], 1);
    ipc_segment_destroy(&seg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_one_process),
        cmocka_unit_test(test_producers_in_child_process),
        cmocka_unit_test(test_full_queue_blocks_until_room),
        cmocka_unit_test(test_sleeping_service_woken),
        cmocka_unit_test(test_dead_writer_skipped_then_reclaimed),
        cmocka_unit_test(test_garbage_in_queue),
        cmocka_unit_test(test_attach_checks_header),
        cmocka_unit_test(test_create_checks_geometry_and_sets_owner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
