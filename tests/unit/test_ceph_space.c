/*
 * test_ceph_space.c - the room a Ceph client's writes have left
 * (fsservice/libservice/ceph/space.h): the cluster's last figure less
 * what the client wrote in the last SPACE_WINDOW_S seconds, whatever
 * order the seconds come in.
 */
#include "fsservice/libservice/ceph/space.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define MiB (1ull << 20)
#define S 1000000000ull /* ns */

/* Far from 0, as CLOCK_MONOTONIC is on a running machine. */
static const uint64_t t0 = 86400 * S + S / 2;

static void test_no_figure_no_bound(void **state)
{
    (void)state;
    struct ceph_space s;
    space_init(&s);
    space_wrote(&s, 100 * MiB, t0);
    assert_int_equal(space_room(&s, t0), SPACE_UNKNOWN);
    assert_false(space_full(&s));
    space_set_left(&s, SPACE_UNKNOWN);
    assert_int_equal(space_room(&s, t0), SPACE_UNKNOWN);
}

/* What was written counts for SPACE_WINDOW_S seconds, then not. */
static void test_recent_writes_count(void **state)
{
    (void)state;
    struct ceph_space s;
    space_init(&s);
    space_set_left(&s, 100 * MiB);
    assert_int_equal(space_room(&s, t0), 100 * MiB);
    space_wrote(&s, 30 * MiB, t0);
    space_wrote(&s, 10 * MiB, t0 + S / 4);
    assert_int_equal(space_room(&s, t0 + S / 4), 60 * MiB);
    space_wrote(&s, 20 * MiB, t0 + 3 * S);
    assert_int_equal(space_room(&s, t0 + 3 * S), 40 * MiB);
    assert_int_equal(space_room(&s, t0 + (SPACE_WINDOW_S - 1) * S),
                     40 * MiB);
    assert_int_equal(space_room(&s, t0 + SPACE_WINDOW_S * S), 80 * MiB);
    assert_int_equal(space_room(&s, t0 + (SPACE_WINDOW_S + 3) * S),
                     100 * MiB);
    assert_false(space_full(&s));
}

/* More written than the figure allowed: no room, not below it. */
static void test_no_room_past_the_figure(void **state)
{
    (void)state;
    struct ceph_space s;
    space_init(&s);
    space_set_left(&s, 8 * MiB);
    space_wrote(&s, 5 * MiB, t0);
    space_wrote(&s, 5 * MiB, t0 + S);
    assert_int_equal(space_room(&s, t0 + S), 0);
    /* A new figure counts from now on; the window still holds 10 MiB. */
    space_set_left(&s, 50 * MiB);
    assert_int_equal(space_room(&s, t0 + 2 * S), 40 * MiB);
}

static void test_full_figure(void **state)
{
    (void)state;
    struct ceph_space s;
    space_init(&s);
    space_set_left(&s, 0);
    assert_true(space_full(&s));
    assert_int_equal(space_room(&s, t0), 0);
    space_set_left(&s, MiB);
    assert_false(space_full(&s));
}

/* A write every second for three windows: each second's slot is taken
 * over from the one SPACE_WINDOW_S before, whose bytes no longer count. */
static void test_slots_taken_over(void **state)
{
    (void)state;
    struct ceph_space s;
    space_init(&s);
    space_set_left(&s, 1000 * MiB);
    for (uint64_t i = 0; i < 3 * SPACE_WINDOW_S; i++) {
        space_wrote(&s, MiB, t0 + i * S);
        uint64_t counted = i + 1 < SPACE_WINDOW_S ? i + 1 : SPACE_WINDOW_S;
        assert_int_equal(space_room(&s, t0 + i * S),
                         (1000 - counted) * MiB);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_figure_no_bound),
        cmocka_unit_test(test_recent_writes_count),
        cmocka_unit_test(test_no_room_past_the_figure),
        cmocka_unit_test(test_full_figure),
        cmocka_unit_test(test_slots_taken_over),
    };
    return cmocka_run_group_tests_name("ceph_space", tests, NULL, NULL);
}
