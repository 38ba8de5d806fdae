/*
 * test_hrc.c - the service's table of hit-ratio curves by mount
 * (fsservice/core/hrc.h): nothing is counted until a curve is asked for;
 * then a read counts every page it returned, under its own mount; the service makes no more than HRC_TRACKED estimators
 * whatever mounts clients read; a removed mount's goes to the next one;
 * service threads reading at once lose no page (and, under
 * ThreadSanitizer, race on nothing).
 */
#include "fsservice/core/hrc.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static struct hrc_table table;

static int setup(void **state)
{
    (void)state;
    hrc_init(&table);
    return 0;
}

/* The table, counting: a curve asked for once. */
static int setup_counting(void **state)
{
    static struct reuse_curve c;
    uint32_t m;
    setup(state);
    assert_int_equal(hrc_get(&table, 0, &m, &c), -ENOENT);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hrc_free(&table);
    return 0;
}

/* The reads counted for mount, or -1 when it has no curve. */
static int64_t reads_of(uint32_t mount)
{
    static struct reuse_curve c;
    uint32_t m;
    for (uint32_t i = 0; hrc_get(&table, i, &m, &c) == 0; i++)
        if (m == mount)
            return (int64_t)c.reads;
    return -1;
}

static void test_pages_of_a_read(void **state)
{
    (void)state;
    struct ls_file f = {.ino = 42};
    hrc_read(&table, 3, &f, 4095, 2);          /* two pages */
    hrc_read(&table, 3, &f, 8192, 3 * 4096);   /* three */
    hrc_read(&table, 5, &f, 0, 1);
    hrc_read(&table, 5, &f, 0, 0);             /* nothing read */
    assert_int_equal(reads_of(3), 5);
    assert_int_equal(reads_of(5), 1);
    assert_int_equal(reads_of(4), -1);
    /* The same page again is a hit of a one-page cache. */
    static struct reuse_curve c;
    uint32_t m;
    hrc_read(&table, 5, &f, 100, 1);
    for (uint32_t i = 0; hrc_get(&table, i, &m, &c) == 0 && m != 5; i++)
        ;
    assert_int_equal(m, 5);
    assert_true(c.hit[0] > 0.49 && c.hit[0] < 0.51);
}

static void test_counting_once_asked(void **state)
{
    (void)state;
    struct ls_file f = {.ino = 42};
    hrc_read(&table, 3, &f, 0, 4096);
    assert_int_equal(reads_of(3), -1);
    assert_int_equal(table.nmade, 0);
    hrc_read(&table, 3, &f, 0, 4096);
    assert_int_equal(reads_of(3), 1);
}

static void test_bounded(void **state)
{
    (void)state;
    struct ls_file f = {.ino = 1};
    for (uint32_t m = 0; m <= HRC_TRACKED; m++)
        hrc_read(&table, m, &f, 0, 4096);
    hrc_read(&table, DANAUS_MAX_INSTANCES, &f, 0, 4096);
    hrc_read(&table, UINT32_MAX, &f, 0, 4096);
    assert_int_equal(table.nmade, HRC_TRACKED);
    assert_int_equal(reads_of(HRC_TRACKED - 1), 1);
    assert_int_equal(reads_of(HRC_TRACKED), -1);
    /* A removed mount's estimator, reset, serves the next mount read. */
    hrc_forget(&table, 0);
    assert_int_equal(reads_of(0), -1);
    hrc_read(&table, 0, &f, 0, 4096); /* removed: never again */
    assert_int_equal(reads_of(0), -1);
    hrc_read(&table, 100, &f, 0, 4096);
    assert_int_equal(reads_of(100), 1);
    assert_int_equal(table.nmade, HRC_TRACKED);
}

#define THREADS 4
#define READS_EACH 50000

static void *reader(void *arg)
{
    struct ls_file f = {.ino = (uint64_t)(uintptr_t)arg};
    for (uint64_t i = 0; i < READS_EACH; i++)
        hrc_read(&table, 7, &f, (i * 7919 % 3000) * 4096, 4096);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, reader, (void *)(i + 1)),
                         0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(reads_of(7), THREADS * READS_EACH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_counting_once_asked, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pages_of_a_read, setup_counting,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bounded, setup_counting,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_threads, setup_counting,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
