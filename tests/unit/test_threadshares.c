/*
 * test_threadshares.c - shares of the service threads inside long calls
 * (fsservice/core/threadshares.h): a uid gets half of a pool, root and the
 * owner a reserve; a call past its share waits, the thread that leaves
 * runs the first waiting call that may have one, and a call that waited
 * past the deadline is taken out for its answer.
 */
#include "fsservice/core/threadshares.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#define OWNER 1000
#define THREADS 36 /* threads_per_queue 4 + stalled_threads_per_queue 32 */

/* Enters calls (of kind call) of c until one waits: how many got a
 * thread. */
static int enter_until_waiting(struct thread_shares *t, struct client *c,
                               uint32_t call)
{
    for (uint32_t slot = 0;; slot++) {
        struct long_call lc = {.c = c, .b = {c->index, slot, 1}};
        lc.d.call = call;
        int rc = thread_shares_enter(t, &lc);
        assert_true(rc >= 0);
        if (rc == 0)
            return (int)slot;
    }
}

static void test_shares_and_turns(void **state)
{
    (void)state;
    struct thread_shares t;
    thread_shares_init(&t, OWNER, THREADS);
    struct client a[2] = {0}, other = {0}, root = {0};
    a[0].id = 1;
    a[1].id = 2;
    a[0].cred.uid = a[1].cred.uid = 4243;
    other.id = 10;
    other.cred.uid = 4242;
    root.id = 11;
    root.cred.uid = 0;
    /* A uid holds half, through one client or more. */
    assert_int_equal(enter_until_waiting(&t, &a[0], DANAUS_CALL_MKDIR),
                     THREADS / 2);
    assert_int_equal(enter_until_waiting(&t, &a[1], DANAUS_CALL_MKDIR), 0);
    /* Another uid finds the rest but the reserves of root and the owner
     * (a quarter each of what lies above a uid's half); root then finds
     * its reserve. */
    int reserve = (THREADS - THREADS / 2) / 4;
    int got = enter_until_waiting(&t, &other, DANAUS_CALL_MKDIR);
    assert_int_equal(got, THREADS - THREADS / 2 - 2 * reserve);
    int root_got = enter_until_waiting(&t, &root, DANAUS_CALL_MKDIR);
    assert_int_equal(root_got, reserve);
    /* A call of a[0] ends: a[0]'s waiting call is the first that may
     * have its thread. */
    struct long_call *next = thread_shares_leave(&t, &a[0]);
    assert_non_null(next);
    assert_ptr_equal(next->c, &a[0]);
    free(next);
    /* A call of another uid ends: uid 4243 is at its half, so the first
     * waiting call that may go is other's. */
    next = thread_shares_leave(&t, &other);
    assert_non_null(next);
    assert_ptr_equal(next->c, &other);
    free(next);
    /* Every call ends in turn: the two still waiting (a[1]'s, root's)
     * get a thread, and none is left behind. */
    struct client *all[] = {&a[0], &a[1], &other, &root};
    int held[] = {THREADS / 2, 0, got, root_got};
    int ran = 0;
    for (bool any = true; any;) {
        any = false;
        for (int i = 0; i < 4; i++) {
            if (held[i] == 0)
                continue;
            any = true;
            held[i]--;
            next = thread_shares_leave(&t, all[i]);
            if (!next)
                continue;
            for (int k = 0; k < 4; k++)
                held[k] += next->c == all[k];
            ran++;
            free(next);
        }
    }
    assert_int_equal(ran, 2);
    assert_null(t.first);
    thread_shares_free(&t);
}

static void test_waited_past_deadline(void **state)
{
    (void)state;
    struct thread_shares t;
    thread_shares_init(&t, OWNER, 2);
    struct deadlines ds;
    deadlines_init(&ds, 100, false);
    struct client c = {.id = 1, .cred.uid = 4243};
    /* One thread (a uid's half of two); a mkdir and an fsync wait. */
    assert_int_equal(enter_until_waiting(&t, &c, DANAUS_CALL_MKDIR), 1);
    assert_int_equal(enter_until_waiting(&t, &c, DANAUS_CALL_FSYNC), 0);
    uint64_t now = ipc_now_ns();
    assert_null(thread_shares_expire(&t, &ds, now));
    /* Past the deadline the mkdir comes out; the fsync, which has none
     * unless request_deadline_fsync says so, stays. */
    struct long_call *out = thread_shares_expire(&t, &ds, now + 200000000);
    assert_non_null(out);
    assert_int_equal(out->d.call, DANAUS_CALL_MKDIR);
    assert_null(out->next);
    free(out);
    struct long_call *next = thread_shares_leave(&t, &c);
    assert_non_null(next);
    assert_int_equal(next->d.call, DANAUS_CALL_FSYNC);
    free(next);
    assert_null(thread_shares_leave(&t, &c));
    thread_shares_free(&t);
    deadlines_destroy(&ds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shares_and_turns),
        cmocka_unit_test(test_waited_past_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
