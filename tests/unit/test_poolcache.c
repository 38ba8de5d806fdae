/*
 * test_poolcache.c - the pool's page cache (fsservice/core/poolcache.h):
 * what a read gets back is what was filled, to the file's end; an
 * announcement, a fill that raced with one and a file of another version
 * leave nothing behind; and a mount streaming pages through a full cache
 * takes none of another mount's reserve, which it does take without one.
 */
#include "fsservice/core/poolcache.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#define PAGE POOLCACHE_PAGE

static const struct poolcache_version v1 = {.size = 10000, .mtime_sec = 5};
static const struct poolcache_version v2 = {.size = 10000, .mtime_sec = 6};

static unsigned char data[3 * PAGE];
static unsigned char out[3 * PAGE];

static void fill(struct poolcache *pc, uint32_t mount, uint64_t key,
                 uint64_t page, uint64_t len, bool eof,
                 const struct poolcache_version *v)
{
    uint32_t seen = poolcache_fill_begin(pc, key);
    poolcache_fill(pc, mount, key, seen, v, page * PAGE, data, len, eof);
}

static int setup(void **state)
{
    static struct poolcache pc;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 7 + i / PAGE);
    assert_int_equal(poolcache_init(&pc, 1 << 20), 0);
    poolcache_resize(&pc, 1 << 20);
    *state = &pc;
    return 0;
}

static int teardown(void **state)
{
    poolcache_free(*state);
    return 0;
}

static void test_reads_what_was_filled(void **state)
{
    struct poolcache *pc = *state;
    assert_int_equal(poolcache_read(pc, 1, 42, 0, PAGE, out), -1);
    /* A file of 10,000 bytes: two whole pages and 1,808 at its end. */
    fill(pc, 1, 42, 0, 10000, true, &v1);
    memset(out, 0, sizeof out);
    assert_int_equal(poolcache_read(pc, 1, 42, 100, 5000, out), 5000);
    assert_memory_equal(out, data + 100, 5000);
    /* Past the end, the read stops at it. */
    assert_int_equal(poolcache_read(pc, 1, 42, 9000, 3000, out), 1000);
    assert_memory_equal(out, data + 9000, 1000);
    struct poolcache_mount_stats s = poolcache_stats(pc, 1);
    assert_int_equal(s.pages, 3);
    assert_int_equal(s.hits, 2);
    assert_int_equal(s.misses, 1);
    /* A read cut short, not at the end: its partial page is not kept. */
    fill(pc, 1, 43, 0, PAGE + 10, false, &v1);
    assert_int_equal(poolcache_read(pc, 1, 43, 0, PAGE, out), PAGE);
    assert_int_equal(poolcache_read(pc, 1, 43, PAGE, 10, out), -1);
}

static void test_changes_leave_nothing(void **state)
{
    struct poolcache *pc = *state;
    fill(pc, 1, 42, 0, 2 * PAGE, false, &v1);
    poolcache_changed(pc, 42);
    assert_int_equal(poolcache_read(pc, 1, 42, 0, PAGE, out), -1);
    /* A fill whose backend read began before the announcement. */
    uint32_t seen = poolcache_fill_begin(pc, 42);
    poolcache_changed(pc, 42);
    poolcache_fill(pc, 1, 42, seen, &v1, 0, data, PAGE, false);
    assert_int_equal(poolcache_read(pc, 1, 42, 0, PAGE, out), -1);
    /* Another file's announcement leaves this one's pages. */
    fill(pc, 1, 42, 0, PAGE, false, &v1);
    poolcache_changed(pc, 77);
    assert_int_equal(poolcache_read(pc, 1, 42, 0, PAGE, out), PAGE);
    /* An open that finds the file at another version drops its pages;
     * one at the same version keeps them. */
    poolcache_check(pc, 42, &v1);
    assert_int_equal(poolcache_read(pc, 1, 42, 0, PAGE, out), PAGE);
    poolcache_check(pc, 42, &v2);
    assert_int_equal(poolcache_read(pc, 1, 42, 0, PAGE, out), -1);
    /* A fill under a newer version replaces pages of the older. */
    fill(pc, 1, 42, 0, PAGE, false, &v1);
    fill(pc, 1, 42, 1, PAGE, false, &v2);
    assert_int_equal(poolcache_read(pc, 1, 42, 0, PAGE, out), -1);
    assert_int_equal(poolcache_read(pc, 1, 42, PAGE, PAGE, out), PAGE);
    assert_int_equal(poolcache_stats(pc, 1).pages, 1);
}

/* Mount 1 reads its 100 pages, then mount 2 streams 2,000 through a
 * cache of 160: mount 1's reads afterwards all hit with its reserve. */
static uint64_t kept_next_to_a_stream(struct poolcache *pc, uint64_t reserve)
{
    poolcache_resize(pc, 160 * PAGE);
    poolcache_reserve(pc, 1, reserve);
    for (uint64_t p = 0; p < 100; p++)
        fill(pc, 1, 1, p, PAGE, false, &v1);
    for (uint64_t p = 0; p < 2000; p++) {
        if (poolcache_read(pc, 2, 2, p * PAGE, PAGE, out) < 0)
            fill(pc, 2, 2, p, PAGE, false, &v1);
        if (p % 10 == 0) /* mount 1 keeps reading meanwhile */
            poolcache_read(pc, 1, 1, (p / 10 % 100) * PAGE, PAGE, out);
    }
    assert_true(poolcache_stats(pc, 2).pages <= 160);
    uint64_t hits = 0;
    for (uint64_t p = 0; p < 100; p++)
        hits += poolcache_read(pc, 1, 1, p * PAGE, PAGE, out) == PAGE;
    return hits;
}

static void test_a_stream_keeps_out_of_a_reserve(void **state)
{
    assert_int_equal(kept_next_to_a_stream(*state, 100), 100);
    assert_int_equal(poolcache_stats(*state, 1).pages, 100);
}

static void test_without_a_reserve_the_stream_takes_pages(void **state)
{
    assert_true(kept_next_to_a_stream(*state, 0) < 90);
}

static void test_shrinking_gives_pages_up(void **state)
{
    struct poolcache *pc = *state;
    for (uint64_t p = 0; p < 50; p++)
        fill(pc, 3, 9, p, PAGE, false, &v1);
    poolcache_resize(pc, 20 * PAGE);
    assert_int_equal(poolcache_stats(pc, 3).pages, 20);
    /* The newest stay. */
    assert_int_equal(poolcache_read(pc, 3, 9, 49 * PAGE, PAGE, out), PAGE);
    assert_int_equal(poolcache_read(pc, 3, 9, 0, PAGE, out), -1);
    poolcache_resize(pc, 0);
    assert_int_equal(poolcache_stats(pc, 3).pages, 0);
    fill(pc, 3, 9, 0, PAGE, false, &v1);
    assert_int_equal(poolcache_stats(pc, 3).pages, 0);
}

static void test_off_is_a_miss(void **state)
{
    (void)state;
    struct poolcache off;
    assert_int_equal(poolcache_init(&off, 0), 0);
    assert_false(poolcache_on(&off));
    fill(&off, 1, 1, 0, PAGE, false, &v1);
    assert_int_equal(poolcache_read(&off, 1, 1, 0, PAGE, out), -1);
    poolcache_free(&off);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reads_what_was_filled, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_changes_leave_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_stream_keeps_out_of_a_reserve,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_without_a_reserve_the_stream_takes_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shrinking_gives_pages_up, setup,
                                        teardown),
        cmocka_unit_test(test_off_is_a_miss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
