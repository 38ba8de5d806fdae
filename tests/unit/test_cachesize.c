/*
 * test_cachesize.c - cache_auto (fsservice/core/cachesize.h): a service
 * whose backends keep no cache of their own refuses it; otherwise the
 * cache starts at the floor, follows the sum of the mounts' knees up to
 * the bound, and is not set again for a small move. The backend here is
 * the test's, registered as a backend with a cache would be.
 */
#include "fsservice/core/cachesize.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#define MiB (1ull << 20)
#define SECOND 1000000000ull

static uint64_t set_to; /* the last size the backend took */
static int resizes;

static int resize(struct ls_backend *b, uint64_t bytes)
{
    (void)b;
    set_to = bytes;
    resizes++;
    return 0;
}

static struct ls_backend cached = {.name = "test-cached",
                                   .resize_cache = resize};

static struct hrc_table table;
static struct poolcache pool;

static uint64_t pool_bytes(void)
{
    return pool.capacity * POOLCACHE_PAGE;
}

/* n reads of mount, of pages drawn from the first `pages` of one file. */
static void read_at_random(uint32_t mount, uint64_t pages, int n)
{
    static uint64_t x = 88172645463325252ull;
    struct ls_file f = {.ino = 1000 + mount};
    for (int i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        hrc_read(&table, mount, &f, (x % pages) * HRC_PAGE, HRC_PAGE);
    }
}

static void test_refused_without_a_cache(void **state)
{
    (void)state;
    struct cache_size s;
    char err[300] = "";
    /* Only the built-in backends: a local directory's cache is the
     * kernel's. */
    assert_int_equal(cache_size_start(&s, 64 * MiB, &pool, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "no mount's backend keeps a cache"));
    /* Off asks nothing of any backend. */
    assert_int_equal(cache_size_start(&s, 0, &pool, err, sizeof err), 0);
    cache_size_tick(&s, &table, 0);
}

static void test_follows_the_knees(void **state)
{
    (void)state;
    char err[300];
    assert_int_equal(ls_backend_register(&cached), 0);
    struct cache_size s;
    assert_int_equal(cache_size_start(&s, 256 * MiB, &pool, err, sizeof err),
                     0);
    assert_int_equal(set_to, CACHE_SIZE_FLOOR);
    assert_int_equal(pool_bytes(), 0);
    /* The first tick starts the counting; nothing read yet, nothing
     * moves. */
    resizes = 0;
    cache_size_tick(&s, &table, 1);
    assert_int_equal(resizes, 0);
    /* Two containers reading 4 MiB and 24 MiB at random: knees near 95%
     * of each, since an LRU of k of their n pages hits k/n of reads. */
    read_at_random(1, 4 * MiB / HRC_PAGE, 100000);
    read_at_random(2, 24 * MiB / HRC_PAGE, 400000);
    cache_size_tick(&s, &table, 2); /* within the period */
    assert_int_equal(resizes, 0);
    cache_size_tick(&s, &table, 1 + CACHE_SIZE_PERIOD_S * SECOND);
    /* The backend keeps the floor; the pool's cache takes the knees, and
     * each mount's is reserved for it. */
    assert_int_equal(resizes, 0);
    assert_int_equal(set_to, CACHE_SIZE_FLOOR);
    uint64_t knees = pool_bytes();
    assert_true(knees > 24 * MiB && knees <= 28 * MiB);
    uint64_t r1 = poolcache_stats(&pool, 1).reserve * POOLCACHE_PAGE;
    uint64_t r2 = poolcache_stats(&pool, 2).reserve * POOLCACHE_PAGE;
    assert_true(r1 > 3 * MiB && r1 <= 4 * MiB);
    assert_true(r2 > 20 * MiB && r2 <= 24 * MiB);
    assert_int_equal(r1 + r2, knees);
    /* More of the same moves the knees a little: not set again. */
    read_at_random(1, 4 * MiB / HRC_PAGE, 50000);
    cache_size_tick(&s, &table, 1 + 2 * CACHE_SIZE_PERIOD_S * SECOND);
    assert_int_equal(pool_bytes(), knees);
    /* A third container reading 64 MiB passes the bound of 64 MiB: the
     * cache is the bound less the backend's floor, and the 64 MiB knee,
     * the fewest hits per page, gets what the two others leave. */
    struct cache_size small;
    assert_int_equal(
        cache_size_start(&small, 64 * MiB, &pool, err, sizeof err), 0);
    read_at_random(3, 64 * MiB / HRC_PAGE, 400000);
    cache_size_tick(&small, &table, 1);
    assert_int_equal(pool_bytes(), 64 * MiB - CACHE_SIZE_FLOOR);
    assert_int_equal(poolcache_stats(&pool, 1).reserve * POOLCACHE_PAGE, r1);
    uint64_t r3 = poolcache_stats(&pool, 3).reserve * POOLCACHE_PAGE;
    assert_true(r3 < 56 * MiB - r1 - 20 * MiB);
    assert_int_equal(r3 + r1 + poolcache_stats(&pool, 2).reserve *
                                    POOLCACHE_PAGE,
                     pool_bytes());
}

/* Knees that do not all fit: by hits per page, the last one cut. */
static void test_reserves_by_hits_per_page(void **state)
{
    (void)state;
    const struct cache_knee knee[4] = {
        {1, 100, 1000}, {2, 50, 1000}, {3, 0, 0}, {4, 400, 1000}};
    uint64_t reserve[4];
    cache_size_reserves(knee, 4, 300, reserve);
    assert_int_equal(reserve[1], 50);  /* 20 hits a page */
    assert_int_equal(reserve[0], 100); /* 10 */
    assert_int_equal(reserve[2], 0);   /* no knee */
    assert_int_equal(reserve[3], 150); /* 2.5: the rest */
    cache_size_reserves(knee, 4, 0, reserve);
    assert_int_equal(reserve[0] + reserve[1] + reserve[3], 0);
}

static void test_knee(void **state)
{
    (void)state;
    static uint32_t ppm[DANAUS_HRC_POINTS];
    assert_int_equal(danaus_hrc_knee(ppm), -1); /* no hits */
    for (unsigned i = 0; i < DANAUS_HRC_POINTS; i++)
        ppm[i] = i < 40 ? i * 20000 : 800000;
    /* 95% of 800,000 is 760,000: point 38. */
    assert_int_equal(danaus_hrc_knee(ppm), 38);
}

static int setup(void **state)
{
    (void)state;
    hrc_init(&table);
    return poolcache_init(&pool, 256 * MiB);
}

static int teardown(void **state)
{
    (void)state;
    hrc_free(&table);
    poolcache_free(&pool);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_knee),
        cmocka_unit_test(test_reserves_by_hits_per_page),
        cmocka_unit_test_setup_teardown(test_refused_without_a_cache, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_follows_the_knees, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
