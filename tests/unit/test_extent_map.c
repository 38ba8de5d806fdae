/*
 * test_extent_map.c - unit tests of a partial copy's extent map
 * (fsservice/libservice/union/extent_map.c): adds that merge, split the
 * lower runs and overlap, truncates inside and beyond copied ranges,
 * appends past lower_len, the bound, and the encoding (well-formed maps
 * only: a damaged xattr is refused).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fsservice/libservice/union/extent_map.h"

/* The map as "lower_len:[off,end) ..." for compact comparisons. */
static const char *show(const struct extent_map *m)
{
    static char buf[4096];
    int at = snprintf(buf, sizeof buf, "%llu:",
                      (unsigned long long)m->lower_len);
    for (int i = 0; i < m->n; i++)
        at += snprintf(buf + at, sizeof buf - (size_t)at, " [%llu,%llu)",
                       (unsigned long long)m->ext[i].off,
                       (unsigned long long)(m->ext[i].off + m->ext[i].len));
    return buf;
}

static void test_add_merges_and_overlaps(void **state)
{
    (void)state;
    struct extent_map m;
    extent_map_init(&m, 100);
    assert_int_equal(extent_map_add(&m, 10, 10), 1);
    assert_int_equal(extent_map_add(&m, 40, 10), 1);
    assert_string_equal(show(&m), "100: [10,20) [40,50)");
    assert_int_equal(extent_map_add(&m, 12, 5), 0); /* inside: no change */
    assert_int_equal(extent_map_add(&m, 20, 5), 1); /* touching: merged */
    assert_string_equal(show(&m), "100: [10,25) [40,50)");
    assert_int_equal(extent_map_add(&m, 5, 40), 1); /* over both */
    assert_string_equal(show(&m), "100: [5,50)");
    assert_int_equal(extent_map_add(&m, 0, 2), 1); /* before, apart */
    assert_int_equal(extent_map_add(&m, 60, 1), 1);
    assert_string_equal(show(&m), "100: [0,2) [5,50) [60,61)");
    assert_int_equal(extent_map_add(&m, 1, 0), 0); /* empty */
}

static void test_where_splits_lower_runs(void **state)
{
    (void)state;
    struct extent_map m;
    extent_map_init(&m, 100);
    extent_map_add(&m, 30, 10);
    uint64_t run;
    assert_int_equal(extent_map_where(&m, 0, &run), 0);
    assert_int_equal(run, 30);
    assert_int_equal(extent_map_where(&m, 35, &run), 1);
    assert_int_equal(run, 5);
    assert_int_equal(extent_map_where(&m, 40, &run), 0);
    assert_int_equal(run, 60);
    assert_int_equal(extent_map_where(&m, 100, &run), 1); /* past lower */
    assert_int_equal(run, UINT64_MAX - 100);
}

static void test_appends_past_lower_len_need_no_extent(void **state)
{
    (void)state;
    struct extent_map m;
    extent_map_init(&m, 100);
    assert_int_equal(extent_map_add(&m, 100, 50), 0);
    assert_int_equal(extent_map_add(&m, 90, 50), 1); /* clipped */
    assert_string_equal(show(&m), "100: [90,100)");
}

static void test_truncate_inside_and_beyond(void **state)
{
    (void)state;
    struct extent_map m;
    extent_map_init(&m, 100);
    extent_map_add(&m, 10, 10);
    extent_map_add(&m, 50, 20);
    assert_int_equal(extent_map_truncate(&m, 200), 0); /* extends: same */
    assert_int_equal(extent_map_truncate(&m, 60), 1);  /* inside a range */
    assert_string_equal(show(&m), "60: [10,20) [50,60)");
    assert_int_equal(extent_map_truncate(&m, 30), 1); /* between ranges */
    assert_string_equal(show(&m), "30: [10,20)");
    /* A later extension reads zeros from above, not the cut lower bytes. */
    uint64_t run;
    assert_int_equal(extent_map_where(&m, 45, &run), 1);
    assert_int_equal(extent_map_truncate(&m, 15), 1);
    assert_string_equal(show(&m), "15: [10,15)");
    assert_int_equal(extent_map_complete(&m), 0);
    assert_int_equal(extent_map_truncate(&m, 10), 1);
    assert_string_equal(show(&m), "10:");
    assert_int_equal(extent_map_truncate(&m, 0), 1);
    assert_int_equal(extent_map_complete(&m), 1);
}

static void test_complete_when_covered(void **state)
{
    (void)state;
    struct extent_map m;
    extent_map_init(&m, 100);
    extent_map_add(&m, 0, 50);
    assert_int_equal(extent_map_complete(&m), 0);
    extent_map_add(&m, 50, 60);
    assert_int_equal(extent_map_complete(&m), 1);
}

static void test_bound(void **state)
{
    (void)state;
    struct extent_map m;
    extent_map_init(&m, 1000);
    for (int i = 0; i < EXTENT_MAP_MAX; i++)
        assert_int_equal(extent_map_add(&m, (uint64_t)i * 10, 1), 1);
    assert_int_equal(extent_map_add(&m, 999, 1), -ENOSPC);
    assert_int_equal(m.n, EXTENT_MAP_MAX);
    /* One that merges two existing ranges still fits. */
    assert_int_equal(extent_map_add(&m, 0, 11), 1);
    assert_int_equal(m.n, EXTENT_MAP_MAX - 1);
}

static void test_encoding_round_trip_and_damage(void **state)
{
    (void)state;
    struct extent_map m, back;
    extent_map_init(&m, 1ull << 40);
    extent_map_add(&m, 4096, 4096);
    extent_map_add(&m, 1ull << 35, 1);
    uint8_t buf[EXTENT_MAP_BYTES];
    size_t len = extent_map_encode(&m, buf);
    assert_int_equal(len, 16 + 2 * 16);
    assert_int_equal(extent_map_decode(&back, buf, len), 0);
    assert_string_equal(show(&back), show(&m));
    assert_int_equal(extent_map_decode(&back, buf, len - 1), -EINVAL);
    buf[16 + 16] = 0; /* the second extent now overlaps the first */
    buf[16 + 16 + 1] = 0x10;
    buf[16 + 16 + 4] = 0;
    assert_int_equal(extent_map_decode(&back, buf, len), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_merges_and_overlaps),
        cmocka_unit_test(test_where_splits_lower_runs),
        cmocka_unit_test(test_appends_past_lower_len_need_no_extent),
        cmocka_unit_test(test_truncate_inside_and_beyond),
        cmocka_unit_test(test_complete_when_covered),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_encoding_round_trip_and_damage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
