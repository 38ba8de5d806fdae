/*
 * test_shares.c - per-uid fair shares (fsservice/core/shares.h): no uid
 * holds more than its share, and root and the owner always find their
 * reserve, whatever the others took.
 */
#include "fsservice/core/shares.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define OWNER 1000

/* Takes one of k for uid until refused: how many it got, and the error. */
static int take_all(struct shares *s, enum share_kind k, uid_t uid, int *err)
{
    int n = 0;
    while ((*err = share_take(s, k, uid)) == 0)
        n++;
    return n;
}

static void test_per_uid_bound(void **state)
{
    (void)state;
    struct shares s;
    shares_init(&s, OWNER);
    shares_bound(&s, SHARE_SLOTS, 100, 30, 5);
    int err;
    assert_int_equal(take_all(&s, SHARE_SLOTS, 7, &err), 30);
    assert_int_equal(err, -EUSERS);
    assert_int_equal(share_held(&s, SHARE_SLOTS, 7), 30);
    share_give(&s, SHARE_SLOTS, 7);
    assert_int_equal(share_take(&s, SHARE_SLOTS, 7), 0);
    /* Other kinds are counted apart. */
    shares_bound(&s, SHARE_CLIENTS, 10, 10, 0);
    assert_int_equal(take_all(&s, SHARE_CLIENTS, 7, &err), 10);
    shares_free(&s);
}

static void test_reserves(void **state)
{
    (void)state;
    struct shares s;
    shares_init(&s, OWNER);
    shares_bound(&s, SHARE_SLOTS, 100, 40, 5);
    int err;
    /* Three other uids take all they can: 90 of 100, the rest kept. */
    assert_int_equal(take_all(&s, SHARE_SLOTS, 7, &err), 40);
    assert_int_equal(take_all(&s, SHARE_SLOTS, 8, &err), 40);
    assert_int_equal(take_all(&s, SHARE_SLOTS, 9, &err), 10);
    assert_int_equal(err, -EAGAIN);
    /* Root and the owner each find their reserve, and no more: neither
     * takes the other's. */
    assert_int_equal(take_all(&s, SHARE_SLOTS, 0, &err), 5);
    assert_int_equal(take_all(&s, SHARE_SLOTS, OWNER, &err), 5);
    assert_int_equal(err, -EAGAIN);
    /* What comes back is anyone's again. */
    share_give(&s, SHARE_SLOTS, 7);
    assert_int_equal(share_take(&s, SHARE_SLOTS, 9), 0);
    shares_free(&s);
}

/* Reserves count what root already holds: holding it, root leaves the
 * rest to others. */
static void test_reserve_counts_holdings(void **state)
{
    (void)state;
    struct shares s;
    shares_init(&s, 0); /* no owner but root */
    shares_bound(&s, SHARE_PENDING, 20, 20, 4);
    int err;
    for (int i = 0; i < 4; i++)
        assert_int_equal(share_take(&s, SHARE_PENDING, 0), 0);
    assert_int_equal(take_all(&s, SHARE_PENDING, 7, &err), 16);
    assert_int_equal(err, -EAGAIN);
    for (int i = 0; i < 4; i++)
        share_give(&s, SHARE_PENDING, 0);
    assert_int_equal(share_held(&s, SHARE_PENDING, 0), 0);
    /* Freed by root, but kept for it; root itself may take all. */
    assert_int_equal(share_take(&s, SHARE_PENDING, 7), -EAGAIN);
    assert_int_equal(take_all(&s, SHARE_PENDING, 0, &err), 4);
    assert_int_equal(err, -EAGAIN);
    shares_free(&s);
}

/* share_room says what share_take would give: the uid's own bound, or
 * what the reserves leave, whichever is less. */
static void test_room(void **state)
{
    (void)state;
    struct shares s;
    shares_init(&s, OWNER);
    shares_bound(&s, SHARE_LOCKS, 100, 40, 5);
    assert_int_equal(share_room(&s, SHARE_LOCKS, 7), 40);
    int err;
    assert_int_equal(take_all(&s, SHARE_LOCKS, 7, &err), 40);
    assert_int_equal(share_room(&s, SHARE_LOCKS, 7), 0);
    assert_int_equal(take_all(&s, SHARE_LOCKS, 8, &err), 40);
    /* 20 left, 10 of them kept for root and the owner. */
    assert_int_equal(share_room(&s, SHARE_LOCKS, 9), 10);
    assert_int_equal(share_room(&s, SHARE_LOCKS, 0), 15);
    assert_int_equal(take_all(&s, SHARE_LOCKS, 9, &err), 10);
    assert_int_equal(share_room(&s, SHARE_LOCKS, 9), 0);
    assert_int_equal(share_room(&s, SHARE_LOCKS, OWNER), 5);
    shares_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_uid_bound),
        cmocka_unit_test(test_reserves),
        cmocka_unit_test(test_reserve_counts_holdings),
        cmocka_unit_test(test_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
