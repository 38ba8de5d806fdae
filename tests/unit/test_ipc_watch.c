/*
 * test_ipc_watch.c - the fast lane (ipc.h): a service thread watching the
 * slot it answered last, and a client that rings no bell when it finds the
 * slot watched. Every request is answered, once, whether it came through
 * the slot or a bell, also when the watch ends just as the client posts;
 * a service that then sleeps until woken would otherwise never see it.
 */
#include "ipc/ipc.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define REQUESTS 30000
#define ANSWER_WAIT_NS 2000000000ull /* a lost request shows as this wait */

struct lane {
    struct ipc_segment seg;
    struct ipc_area area;
    unsigned via_slot, via_bell, bad; /* the service thread's counts */
};

/* Answers requests of slot 0 with seq * 3 until one of call NONE; spins a
 * few microseconds at most, at random, then sleeps until a bell wakes it:
 * the watch starts and ends around nearly every request. */
static void *service(void *arg)
{
    struct lane *l = arg;
    struct ipc_queue *q = ipc_queue(&l->seg, 0);
    struct ipc_slot *s = ipc_slot(&l->area, 0);
    struct ipc_watch watch = {s, 0, IPC_WATCHING};
    unsigned seed = 7;

    for (;;) {
        struct ipc_bell b;
        uint32_t seq;
        bool by_slot = false;
        if (ipc_take(&l->seg, q, UINT32_MAX, &b)) {
            seq = b.seq;
        } else {
            enum ipc_woke woke = ipc_wait_work(&l->seg, q, &watch,
                                               rand_r(&seed) % 4000, -1);
            if (woke != IPC_WOKE_SLOT)
                continue;
            seq = watch.posted;
            by_slot = true;
        }
        /* A bell for a request the slot already brought, or stale. */
        if (atomic_load(&s->posted) != seq || atomic_load(&s->done) == seq)
            continue;
        if (s->desc.call == DANAUS_CALL_NONE) {
            ipc_complete(s, seq, 0);
            return NULL;
        }
        if (s->desc.seq != seq || s->desc.arg[0] != (int64_t)seq)
            l->bad++;
        if (by_slot)
            l->via_slot++;
        else
            l->via_bell++;
        watch.posted = seq;
        ipc_complete(s, seq, (int64_t)seq * 3);
    }
    return NULL;
}

static bool before(void *arg)
{
    return ipc_now_ns() < *(uint64_t *)arg;
}

static void no_request_lost(void **state)
{
    (void)state;
    struct lane l = {0};
    struct ipc_geometry g;
    memset(&g, 0, sizeof g);
    g.nqueues = 1;
    g.ncells = 8;
    g.nslots = 1;
    g.slot_buf = 4096;
    assert_int_equal(ipc_queues_create(&g, &l.seg), 0);
    assert_int_equal(ipc_area_create(&g, &l.area), 0);
    assert_int_equal(ipc_area_grow(&l.area, g.nslots), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, service, &l), 0);

    struct ipc_slot *s = ipc_slot(&l.area, 0);
    unsigned unrung = 0, wrong = 0, seed = 11;
    for (uint32_t seq = 1; seq <= REQUESTS; seq++) {
        struct danaus_desc d = {.call = DANAUS_CALL_STAT};
        d.arg[0] = seq;
        /* Now and then a pause, so requests come at every phase of the
         * service's spin. */
        uint64_t pause = rand_r(&seed) % 3 == 0 ? rand_r(&seed) % 6000 : 0;
        for (uint64_t t0 = ipc_now_ns(); ipc_now_ns() - t0 < pause;)
            ipc_cpu_relax();
        if (ipc_post(s, &d, seq))
            unrung++;
        else
            assert_int_equal(ipc_ring(&l.seg, ipc_queue(&l.seg, 0),
                                      (struct ipc_bell){0, 0, seq}, NULL,
                                      NULL),
                             0);
        uint64_t deadline = ipc_now_ns() + ANSWER_WAIT_NS;
        int64_t r = ipc_await(s, seq, before, &deadline);
        assert_int_not_equal(r, -ENOTCONN); /* lost */
        wrong += r != (int64_t)seq * 3;
    }
    struct danaus_desc stop = {.call = DANAUS_CALL_NONE};
    ipc_post(s, &stop, REQUESTS + 1);
    assert_int_equal(ipc_ring(&l.seg, ipc_queue(&l.seg, 0),
                              (struct ipc_bell){0, 0, REQUESTS + 1}, NULL,
                              NULL),
                     0);
    assert_int_equal(ipc_await(s, REQUESTS + 1, NULL, NULL), 0);
    pthread_join(t, NULL);

    assert_int_equal(wrong, 0);
    assert_int_equal(l.bad, 0);
    assert_int_equal(l.via_slot + l.via_bell, REQUESTS);
    /* Both ways were taken, and bells were spared. */
    assert_true(l.via_slot > 0);
    assert_true(l.via_bell > 0);
    assert_true(unrung > 0);
    ipc_queues_unmap(&l.seg);
    ipc_area_unmap(&l.area);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_request_lost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
