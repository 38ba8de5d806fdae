/*
 * test_fairshare.c - the pools' fair shares of their backend
 * (fsservice/core/fairshare.h): shares by weight, a waiting pool's
 * reservation, an idle pool's share flowing to the busy ones, when a pool
 * counts as waiting (never while its own limits hold it), the capacity's
 * memory, when a pool is held to its share and how it lets go; and, with
 * notes in a directory, that a pool alone is never held, and one next to
 * a waiting pool is, with its calls paced by its admission.
 */
#include "fsservice/core/fairshare.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "notedir.h"

#define MS 1000000ull
#define S 1000000000ull

static struct fairshare_pool busy(uint64_t weight, uint64_t used)
{
    return (struct fairshare_pool){weight, 0, used, true};
}

static struct fairshare_pool idle(uint64_t weight, uint64_t used)
{
    return (struct fairshare_pool){weight, 0, used, false};
}

/* Pools that wait split the capacity by weight. */
static void test_shares_by_weight(void **state)
{
    (void)state;
    uint64_t share[3];
    struct fairshare_pool two[] = {busy(1, 900), busy(1, 100)};
    fairshare_shares(two, 2, 1000, share);
    assert_int_equal(share[0], 500);
    assert_int_equal(share[1], 500);
    struct fairshare_pool three[] = {busy(1, 0), busy(3, 0), busy(4, 0)};
    fairshare_shares(three, 3, 8000, share);
    assert_int_equal(share[0], 1000);
    assert_int_equal(share[1], 3000);
    assert_int_equal(share[2], 4000);
}

/* A pool that does not wait and uses less than its part keeps what it
 * uses; the rest flows to the others, by their weights, round after
 * round. */
static void test_idle_share_flows(void **state)
{
    (void)state;
    uint64_t share[3];
    struct fairshare_pool two[] = {busy(1, 950), idle(1, 100)};
    fairshare_shares(two, 2, 1000, share);
    assert_int_equal(share[0], 900);
    assert_int_equal(share[1], 100);
    /* The second pool's part (300 of 900) is more than it uses: it keeps
     * 50, and the next round gives the other two 425 each; the third
     * uses 500, more than that, so it stays in and waits for none. */
    struct fairshare_pool three[] = {busy(1, 0), idle(1, 50), idle(1, 500)};
    fairshare_shares(three, 3, 900, share);
    assert_int_equal(share[1], 50);
    assert_int_equal(share[0], 425);
    assert_int_equal(share[2], 425);
    /* Nobody waits and all use less than their parts: each keeps its
     * use, and what nobody uses is nobody's. */
    struct fairshare_pool calm[] = {idle(1, 10), idle(2, 20)};
    fairshare_shares(calm, 2, 1000, share);
    assert_int_equal(share[0], 10);
    assert_int_equal(share[1], 20);
}

/* A waiting pool's reservation comes before the weights; an idle pool's
 * does not hold anything back; reservations beyond the capacity are
 * kept, and nothing else is given. */
static void test_reservation(void **state)
{
    (void)state;
    uint64_t share[2];
    struct fairshare_pool r[] = {{1, 600, 0, true}, busy(1, 1000)};
    fairshare_shares(r, 2, 1000, share);
    assert_int_equal(share[0], 800);
    assert_int_equal(share[1], 200);
    struct fairshare_pool unused[] = {{1, 600, 0, false}, busy(1, 1000)};
    fairshare_shares(unused, 2, 1000, share);
    assert_int_equal(share[0], 0);
    assert_int_equal(share[1], 1000);
    struct fairshare_pool over[] = {{1, 700, 0, true}, {1, 700, 0, true}};
    fairshare_shares(over, 2, 1000, share);
    assert_int_equal(share[0], 700);
    assert_int_equal(share[1], 700);
}

/* A tenth of a window's calls slow, or a request running past the
 * target, is waiting; fewer is not; and a pool its own fixed rates held
 * in the window does not wait for a share. */
static void test_waiting(void **state)
{
    (void)state;
    assert_true(fairshare_waiting(10, 1, 0, 2 * MS, false));
    assert_false(fairshare_waiting(11, 1, 0, 2 * MS, false));
    assert_false(fairshare_waiting(0, 0, 0, 2 * MS, false));
    assert_true(fairshare_waiting(0, 0, 3 * MS, 2 * MS, false));
    assert_false(fairshare_waiting(0, 0, 1 * MS, 2 * MS, false));
    assert_false(fairshare_waiting(10, 10, 3 * MS, 2 * MS, true));
}

/* The capacity is the most used together lately, forgetting slowly; a
 * pool's use is a moving average, a window counting a quarter. */
static void test_capacity(void **state)
{
    (void)state;
    assert_int_equal(fairshare_smooth(0, 4000), 1000);
    assert_int_equal(fairshare_smooth(1000, 4000), 1750);
    assert_int_equal(fairshare_smooth(4000, 0), 3000);
    assert_int_equal(fairshare_capacity(0, 1000), 1000);
    assert_int_equal(fairshare_capacity(1000, 2000), 2000);
    uint64_t c = 2560;
    c = fairshare_capacity(c, 100);
    assert_int_equal(c, 2560 - 2560 / FAIRSHARE_DECAY);
    for (int i = 0; i < 10000; i++)
        c = fairshare_capacity(c, 100);
    assert_int_equal(c, FAIRSHARE_DECAY - 1); /* c / DECAY is 0 there */
    assert_int_equal(fairshare_capacity(0, 1ull << 40), UINT32_MAX);
}

/* Held to its share while another pool waits below its own; not while
 * the other is content or above its share, nor when it is alone, nor
 * below its share; let go by a sixteenth a window, and wholly once past
 * the capacity. */
static void test_ceiling(void **state)
{
    (void)state;
    uint64_t cap = 100000;
    struct fairshare_pool alone[] = {busy(1, 100000)};
    assert_int_equal(fairshare_ceiling(alone, 1, 0, cap, 0), 0);
    assert_int_equal(fairshare_ceiling(alone, 1, 0, cap, 5000), 0);

    struct fairshare_pool starved[] = {busy(1, 95000), busy(1, 5000)};
    assert_int_equal(fairshare_ceiling(starved, 2, 0, cap, 0), 50000);
    /* The starved pool is below its share: never held. */
    assert_int_equal(fairshare_ceiling(starved, 2, 1, cap, 0), 0);
    /* Weight 3 to 1: three quarters. */
    struct fairshare_pool heavy[] = {busy(3, 95000), busy(1, 5000)};
    assert_int_equal(fairshare_ceiling(heavy, 2, 0, cap, 0), 75000);
    /* A held pool below its share is raised to it while the other still
     * waits below its own. */
    struct fairshare_pool held[] = {busy(1, 20000), busy(1, 5000)};
    assert_int_equal(fairshare_ceiling(held, 2, 0, cap, 20000), 50000);

    /* The other pool is content (not waiting): no hold, and a hold lets
     * go by a sixteenth and the floor a window, then wholly. */
    struct fairshare_pool content[] = {busy(1, 95000), idle(1, 5000)};
    assert_int_equal(fairshare_ceiling(content, 2, 0, cap, 0), 0);
    assert_int_equal(fairshare_ceiling(content, 2, 0, cap, 48000),
                     48000 + 3000 + FAIRSHARE_FLOOR);
    assert_int_equal(fairshare_ceiling(content, 2, 0, cap, 95000), 0);
    /* The other waits, but has its share already. */
    struct fairshare_pool fed[] = {busy(1, 50000), busy(1, 50000)};
    assert_int_equal(fairshare_ceiling(fed, 2, 0, cap, 0), 0);

    /* Never below the reservation, nor the floor. */
    struct fairshare_pool reserved[] = {{1, 80000, 95000, false},
                                        busy(1, 5000)};
    assert_int_equal(fairshare_ceiling(reserved, 2, 0, cap, 0), 80000);
    struct fairshare_pool tiny[] = {busy(1, 900), busy(1, 0)};
    assert_int_equal(fairshare_ceiling(tiny, 2, 0, 1000, 0),
                     FAIRSHARE_FLOOR);
}

static void write_note(const char *name, struct fairshare_note n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/shares/%s", notedir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, &n, sizeof n), sizeof n);
    close(fd);
}

static void read_note(const char *name, struct fairshare_note *n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/shares/%s", notedir, name);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, n, sizeof *n, 0), sizeof *n);
    close(fd);
}

/* Charges n calls of an op each and counts them as ran ns. */
static void calls(struct fairshare *f, struct admission *a, int n,
                  uint64_t ns)
{
    struct admission_cost op = {true, 0};
    for (int i = 0; i < n; i++) {
        admission_charge_cost(a, op);
        fairshare_count(f, op, ns);
    }
}

/* Through the notes: a pool alone, however busy, has no share set and
 * none of its calls wait; next to a pool that waits with nothing used,
 * it is held to half of what it uses, its calls then wait, and its note
 * says so; once that pool's note expires, it is free. A pool with the
 * share turned off writes no note. */
static void test_notes(void **state)
{
    (void)state;
    int dir_fd = open(notedir, O_RDONLY | O_DIRECTORY);
    assert_true(dir_fd >= 0);
    struct fairshare_config off = {false, 0, 0, 0};
    struct fairshare f;
    assert_int_equal(fairshare_init(&f, dir_fd, "off", &off, 2), 0);
    assert_int_equal(f.dir_fd, -1);
    fairshare_close(&f);

    struct fairshare_config on = {true, 0, 0, 0};
    struct admission a;
    struct deadlines ds;
    admission_init(&a, 0, 0);
    deadlines_init(&ds, 0, false);
    assert_int_equal(fairshare_init(&f, dir_fd, "self", &on, 2), 0);
    struct fairshare_note n;
    read_note("self", &n);
    assert_int_equal(n.weight, 2);
    uint64_t now = 10 * S;
    for (int w = 0; w < 5; w++) {
        calls(&f, &a, 1000, 10 * MS);
        now += 100 * MS;
        fairshare_tick(&f, &a, &ds, now, 100 * MS);
    }
    read_note("self", &n);
    uint64_t rate = 1000 * 10 * ADMISSION_OP_TOKENS;
    assert_true(n.used > rate / 2 && n.used < rate);
    assert_int_equal(n.ceiling, 0);
    assert_int_equal(n.paced, 0);
    assert_int_equal(atomic_load(&a.share.rate), 0);

    /* A pool that waits and gets nothing: self is held to half. */
    write_note("other", (struct fairshare_note){
                            .magic = FAIRSHARE_MAGIC, .weight = 2,
                            .active_until_ns = now + 10 * S,
                            .waiting_until_ns = now + 10 * S});
    /* Not a note: passed over. */
    write_note("junk", (struct fairshare_note){.magic = 1, .weight = 1,
                                               .active_until_ns = ~0ull,
                                               .waiting_until_ns = ~0ull});
    calls(&f, &a, 1000, 10 * MS);
    now += 100 * MS;
    fairshare_tick(&f, &a, &ds, now, 100 * MS);
    read_note("self", &n);
    uint64_t half = n.used / 2; /* the most it used, in the weights' half */
    assert_int_equal(n.ceiling, half);
    assert_int_equal(atomic_load(&a.share.rate), half);
    calls(&f, &a, 1000, 10 * MS);
    now += 100 * MS;
    fairshare_tick(&f, &a, &ds, now, 100 * MS);
    read_note("self", &n);
    assert_true(n.paced > 0);

    /* The other pool's note has expired: self is alone, not held. */
    now += 11 * S;
    calls(&f, &a, 1, 1 * MS);
    now += 100 * MS;
    fairshare_tick(&f, &a, &ds, now, 100 * MS);
    read_note("self", &n);
    assert_int_equal(n.ceiling, 0);
    assert_int_equal(atomic_load(&a.share.rate), 0);
    fairshare_close(&f);
    char path[128];
    snprintf(path, sizeof path, "%s/shares/self", notedir);
    assert_int_equal(access(path, F_OK), -1);
    deadlines_destroy(&ds);
    close(dir_fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shares_by_weight),
        cmocka_unit_test(test_idle_share_flows),
        cmocka_unit_test(test_reservation),
        cmocka_unit_test(test_waiting),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_ceiling),
        cmocka_unit_test(test_notes),
    };
    return cmocka_run_group_tests(tests, notedir_make, notedir_remove);
}
