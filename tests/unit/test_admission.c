/*
 * test_admission.c - a pool's token buckets (fsservice/core/admission.h):
 * what a call waits at a given rate, in the order calls came, what a long
 * idle gap gives back, that the largest rates and requests stay exact,
 * which calls are charged at all, and a rate changed while the pool runs.
 */
#include "fsservice/core/admission.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define MS 1000000ull
#define S 1000000000ull

static void test_rate_and_order(void **state)
{
    struct bucket b;
    (void)state;
    bucket_init(&b, 10, 0); /* 10 a second: a burst of 1 */
    assert_int_equal(bucket_take(&b, 1, 0), 0);
    assert_int_equal(bucket_take(&b, 1, 0), 100 * MS);
    /* Half a token earned; this one queues behind the last. */
    assert_int_equal(bucket_take(&b, 1, 50 * MS), 150 * MS);
    /* Paid up by then: the next waits its own 100 ms only. */
    assert_int_equal(bucket_take(&b, 1, 200 * MS), 100 * MS);
}

static void test_idle_gap_fills_to_burst(void **state)
{
    struct bucket b;
    (void)state;
    bucket_init(&b, 1000, 0); /* a burst of 100 */
    assert_int_equal(bucket_take(&b, 100, 0), 0);
    assert_int_equal(bucket_take(&b, 1, 0), 1 * MS);
    /* An hour idle gives back a burst, not an hour's worth. */
    assert_int_equal(bucket_take(&b, 100, 3600 * S), 0);
    assert_int_equal(bucket_take(&b, 1, 3600 * S), 1 * MS);
}

static void test_bytes_and_extremes(void **state)
{
    struct bucket b;
    (void)state;
    bucket_init(&b, 1 << 20, 0); /* 1 MiB/s: a burst of 104857 bytes */
    assert_int_equal(bucket_take(&b, 1 << 20, 0),
                     (uint64_t)((1 << 20) - 104857) * S / (1 << 20));
    /* The largest rate and request: no overflow, a wait of ~1 s. */
    bucket_init(&b, UINT32_MAX, 0);
    uint64_t wait = bucket_take(&b, UINT32_MAX, 0);
    assert_true(wait > 899 * MS && wait <= 900 * MS);
    /* A debt past a minute is kept at a minute: nobody waits longer. */
    bucket_init(&b, 1, 0);
    for (int i = 0; i < 200; i++)
        bucket_take(&b, 1, 0);
    assert_int_equal(bucket_take(&b, 1, 0), 60 * S);
    /* No limit. */
    bucket_init(&b, 0, 0);
    assert_int_equal(bucket_take(&b, UINT32_MAX, 0), 0);
}

static void test_what_is_charged(void **state)
{
    struct admission a;
    (void)state;
    admission_init(&a, 1, 1); /* a burst of one op, one byte */
    struct danaus_desc stat = {.call = DANAUS_CALL_STAT};
    struct danaus_desc mkdir = {.call = DANAUS_CALL_MKDIR};
    struct danaus_desc open_ro = {.call = DANAUS_CALL_OPEN};
    struct danaus_desc write = {.call = DANAUS_CALL_PWRITE, .buf_len = 2};
    struct danaus_desc read = {.call = DANAUS_CALL_PREAD};
    read.arg[0] = 1 << 20;
    open_ro.arg[0] = O_RDONLY;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(admission_charge(&a, &stat, 4096), 0);
        assert_int_equal(admission_charge(&a, &open_ro, 4096), 0);
        assert_int_equal(admission_charge(&a, &read, 4096), 0);
    }
    assert_int_equal(admission_charge(&a, &mkdir, 4096), 0);
    assert_true(admission_charge(&a, &mkdir, 4096) > 900 * MS);
    assert_true(admission_charge(&a, &write, 4096) > 900 * MS);
}

/* A write is charged no more than a slot buffer holds, whatever length
 * its (unchecked) descriptor claims: a client cannot run up its pool's
 * debt with requests the service will refuse. */
static void test_claimed_length_bounded(void **state)
{
    struct admission a;
    (void)state;
    admission_init(&a, 0, 1000); /* a burst of 100 bytes */
    struct danaus_desc lie = {.call = DANAUS_CALL_WRITE,
                              .buf_len = UINT32_MAX};
    /* 200 bytes charged, not 4 GiB: 100 over the burst, 0.1 s. */
    assert_int_equal(admission_charge(&a, &lie, 200), 100 * MS);
}

/* A new rate (pressure.h's ceilings): tokens earned so far count at the
 * old one, a debt stays owed and is paid at the new one, a bucket that had
 * no limit starts full, and no limit makes nobody wait. */
static void test_rate_changed(void **state)
{
    struct bucket b;
    (void)state;
    bucket_init(&b, 0, 0);
    assert_int_equal(bucket_take(&b, 1000, 0), 0);
    bucket_set_rate(&b, 10, 0); /* from none: full, a burst of 1 */
    assert_int_equal(bucket_take(&b, 1, 0), 0);
    assert_int_equal(bucket_take(&b, 1, 0), 100 * MS);
    /* 50 ms earned at 10 a second, then a debt of half a token owed at
     * 100 a second: 5 ms, and the next call 10 ms behind it. */
    bucket_set_rate(&b, 100, 50 * MS);
    assert_int_equal(bucket_take(&b, 1, 50 * MS), 15 * MS);
    bucket_set_rate(&b, 0, 50 * MS);
    assert_int_equal(bucket_take(&b, 1000000, 50 * MS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_and_order),
        cmocka_unit_test(test_idle_gap_fills_to_burst),
        cmocka_unit_test(test_bytes_and_extremes),
        cmocka_unit_test(test_what_is_charged),
        cmocka_unit_test(test_claimed_length_bounded),
        cmocka_unit_test(test_rate_changed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
