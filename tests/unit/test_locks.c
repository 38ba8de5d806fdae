/*
 * test_locks.c - the service's record-lock table: conflicts between owners,
 * an owner's own ranges split, merged, upgraded and unlocked, POSIX and OFD
 * locks meeting while flock locks stay apart, range checks, what F_GETLK
 * reports, release by owner and by client, deadlock detection, and each
 * client's and each uid's limit on the locks it holds.
 */
#include "fsservice/core/locks.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static const struct lock_key file_a = {(void *)0x1000, 1, 10};
static const struct lock_key file_b = {(void *)0x1000, 1, 11};

static const struct lock_owner proc1 = {DANAUS_LOCK_POSIX, 1, 101, 1, 0};
static const struct lock_owner proc2 = {DANAUS_LOCK_POSIX, 2, 102, 2, 0};
static const struct lock_owner proc3 = {DANAUS_LOCK_POSIX, 3, 103, 3, 0};
static const struct lock_owner ofd1 = {DANAUS_LOCK_OFD, 0xa000, 101, 1, 0};
static const struct lock_owner flock1 = {DANAUS_LOCK_FLOCK, 0xa000, 101, 1, 0};
static const struct lock_owner flock2 = {DANAUS_LOCK_FLOCK, 0xb000, 102, 2, 0};

/* The per-client limit of client_limit's table: small, to reach it. */
#define CLIENT_LIMIT 4

static int setup_with_limit(void **state, uint32_t limit)
{
    static struct lock_table t;
    lock_table_init(&t, limit);
    *state = &t;
    return 0;
}

static int setup(void **state)
{
    return setup_with_limit(state, 1024);
}

static int setup_small(void **state)
{
    return setup_with_limit(state, CLIENT_LIMIT);
}

static int teardown(void **state)
{
    lock_table_destroy(*state);
    return 0;
}

static int set(struct lock_table *t, const struct lock_owner *o, int type,
               int64_t start, int64_t len)
{
    return lock_set(t, &file_a, o, type, start, len, false);
}

/* What F_GETLK would report to owner o for a write lock on [start, len). */
static struct danaus_lock test_wr(struct lock_table *t,
                                  const struct lock_owner *o, int64_t start,
                                  int64_t len)
{
    struct danaus_lock out = {0};
    assert_int_equal(lock_test(t, &file_a, o, F_WRLCK, start, len, &out), 0);
    return out;
}

static void assert_free(struct lock_table *t, const struct lock_owner *o,
                        int64_t start, int64_t len)
{
    assert_int_equal(test_wr(t, o, start, len).type, F_UNLCK);
}

static void assert_held(struct lock_table *t, const struct lock_owner *o,
                        int64_t start, int64_t len, int type,
                        int64_t hstart, int64_t hlen)
{
    struct danaus_lock l = test_wr(t, o, start, len);
    assert_int_equal(l.type, type);
    assert_int_equal(l.start, hstart);
    assert_int_equal(l.len, hlen);
}

static void read_locks_share_write_locks_exclude(void **state)
{
    struct lock_table *t = *state;
    assert_int_equal(set(t, &proc1, F_RDLCK, 0, 100), 0);
    assert_int_equal(set(t, &proc2, F_RDLCK, 50, 100), 0);
    assert_int_equal(set(t, &proc2, F_WRLCK, 50, 100), -EAGAIN);
    assert_int_equal(set(t, &proc3, F_WRLCK, 100, 0), -EAGAIN);
    assert_int_equal(set(t, &proc3, F_WRLCK, 150, 0), 0);
    /* Another file is another lock space. */
    assert_int_equal(lock_set(t, &file_b, &proc2, F_WRLCK, 0, 0, false), 0);
    struct danaus_lock l = test_wr(t, &proc3, 0, 10);
    assert_int_equal(l.type, F_RDLCK);
    assert_int_equal(l.pid, 101);
    assert_int_equal(l.start, 0);
    assert_int_equal(l.len, 100);
    /* The lowest conflicting range is the one reported. */
    assert_held(t, &proc3, 60, 10, F_RDLCK, 0, 100);
    assert_held(t, &proc1, 60, 10, F_RDLCK, 50, 100);
    /* A lock to the end reports len 0. */
    assert_held(t, &proc1, 1000, 1, F_WRLCK, 150, 0);
    /* No conflict for the owner itself, nor for reads under reads. */
    assert_free(t, &proc3, 150, 10);
    struct danaus_lock r;
    assert_int_equal(lock_test(t, &file_a, &proc3, F_RDLCK, 0, 150, &r), 0);
    assert_int_equal(r.type, F_UNLCK);
}

static void own_ranges_split_merge_and_convert(void **state)
{
    struct lock_table *t = *state;
    /* Write [0, 100), then read [40, 60): three pieces. */
    assert_int_equal(set(t, &proc1, F_WRLCK, 0, 100), 0);
    assert_int_equal(set(t, &proc1, F_RDLCK, 40, 20), 0);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 0, 40);
    assert_held(t, &proc2, 40, 0, F_RDLCK, 40, 20);
    assert_held(t, &proc2, 60, 0, F_WRLCK, 60, 40);
    /* A reader fits in the middle only. */
    assert_int_equal(lock_set(t, &file_a, &proc2, F_RDLCK, 45, 5, false), 0);
    assert_int_equal(set(t, &proc2, F_UNLCK, 0, 0), 0);
    /* Write over the middle again: one range [0, 100) as before. */
    assert_int_equal(set(t, &proc1, F_WRLCK, 40, 20), 0);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 0, 100);
    /* Touching ranges of one type merge: [100, 110) joins. */
    assert_int_equal(set(t, &proc1, F_WRLCK, 100, 10), 0);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 0, 110);
    /* A range with a gap stays apart. */
    assert_int_equal(set(t, &proc1, F_WRLCK, 111, 9), 0);
    assert_held(t, &proc2, 110, 0, F_WRLCK, 111, 9);
    assert_free(t, &proc2, 110, 1);
    /* Downgrade all: one read range, readers welcome, writers not. */
    assert_int_equal(set(t, &proc1, F_RDLCK, 0, 120), 0);
    assert_held(t, &proc2, 0, 0, F_RDLCK, 0, 120);
    struct danaus_lock r;
    assert_int_equal(lock_test(t, &file_a, &proc2, F_RDLCK, 0, 0, &r), 0);
    assert_int_equal(r.type, F_UNLCK);
}

static void unlock_ranges(void **state)
{
    struct lock_table *t = *state;
    assert_int_equal(set(t, &proc1, F_WRLCK, 0, 0), 0);
    /* Punch [10, 20) out of a lock to the end. */
    assert_int_equal(set(t, &proc1, F_UNLCK, 10, 10), 0);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 0, 10);
    assert_free(t, &proc2, 10, 10);
    assert_held(t, &proc2, 10, 0, F_WRLCK, 20, 0);
    /* Trim both ends, then unlock what is left in one call. */
    assert_int_equal(set(t, &proc1, F_UNLCK, 5, 20), 0);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 0, 5);
    assert_held(t, &proc2, 5, 0, F_WRLCK, 25, 0);
    /* Unlocking what is not locked, or another's lock, is no error and
     * changes nothing. */
    assert_int_equal(set(t, &proc2, F_UNLCK, 0, 0), 0);
    assert_held(t, &proc3, 0, 0, F_WRLCK, 0, 5);
    assert_int_equal(set(t, &proc1, F_UNLCK, 0, 0), 0);
    assert_free(t, &proc2, 0, 0);
    assert_int_equal(lock_set(t, &file_b, &proc1, F_UNLCK, 0, 0, false), 0);
}

static void posix_and_ofd_conflict_flock_apart(void **state)
{
    struct lock_table *t = *state;
    /* One process's POSIX lock and OFD lock still conflict. */
    assert_int_equal(set(t, &proc1, F_WRLCK, 0, 10), 0);
    assert_int_equal(set(t, &ofd1, F_WRLCK, 5, 10), -EAGAIN);
    assert_int_equal(set(t, &ofd1, F_WRLCK, 10, 10), 0);
    /* An OFD holder is reported with pid -1. */
    struct danaus_lock l = test_wr(t, &proc2, 10, 1);
    assert_int_equal(l.type, F_WRLCK);
    assert_int_equal(l.pid, -1);
    /* flock does not see range locks, and meets other flocks. */
    assert_int_equal(set(t, &flock1, F_WRLCK, 0, 0), 0);
    assert_int_equal(set(t, &flock2, F_RDLCK, 0, 0), -EAGAIN);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 0, 10);
    /* Downgrade to shared: others may share it. */
    assert_int_equal(set(t, &flock1, F_RDLCK, 0, 0), 0);
    assert_int_equal(set(t, &flock2, F_RDLCK, 0, 0), 0);
    /* An upgrade that conflicts drops the old lock, as Linux does. */
    assert_int_equal(set(t, &flock1, F_WRLCK, 0, 0), -EAGAIN);
    assert_int_equal(set(t, &flock2, F_WRLCK, 0, 0), 0);
    assert_int_equal(set(t, &flock1, F_RDLCK, 0, 0), -EAGAIN);
    assert_int_equal(set(t, &flock2, F_UNLCK, 0, 0), 0);
    assert_int_equal(set(t, &flock1, F_RDLCK, 0, 0), 0);
}

static void bad_arguments(void **state)
{
    struct lock_table *t = *state;
    assert_int_equal(set(t, &proc1, F_WRLCK, -1, 10), -EINVAL);
    assert_int_equal(set(t, &proc1, F_WRLCK, 0, -1), -EINVAL);
    assert_int_equal(set(t, &proc1, 7, 0, 10), -EINVAL);
    assert_int_equal(set(t, &proc1, F_WRLCK, INT64_MAX, 2), -EOVERFLOW);
    assert_int_equal(set(t, &proc1, F_WRLCK, 2, INT64_MAX), -EOVERFLOW);
    /* Up to the last byte exactly is fine. */
    assert_int_equal(set(t, &proc1, F_WRLCK, INT64_MAX, 1), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 0, INT64_MAX), 0);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 0, 0);
    struct danaus_lock l;
    assert_int_equal(lock_test(t, &file_a, &proc2, F_UNLCK, 0, 0, &l),
                     -EINVAL);
    assert_int_equal(lock_test(t, &file_a, &proc2, F_RDLCK, -5, 0, &l),
                     -EINVAL);
}

static void release_by_owner_and_client(void **state)
{
    struct lock_table *t = *state;
    assert_int_equal(set(t, &proc1, F_WRLCK, 0, 10), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 20, 10), 0);
    assert_int_equal(lock_set(t, &file_b, &proc1, F_WRLCK, 0, 0, false), 0);
    assert_int_equal(set(t, &ofd1, F_WRLCK, 50, 10), 0);
    assert_int_equal(set(t, &flock1, F_WRLCK, 0, 0), 0);
    assert_true(lock_owner_holds(t, &proc1));
    assert_false(lock_owner_holds(t, &proc2));

    /* Closing a descriptor of file_a: the process's locks there go. */
    lock_release(t, &file_a, &proc1);
    assert_free(t, &proc2, 0, 50);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 50, 10);
    assert_int_equal(lock_set(t, &file_b, &proc2, F_RDLCK, 0, 0, false),
                     -EAGAIN);
    /* The open file goes: its OFD and flock locks. */
    lock_release(t, &file_a, &ofd1);
    lock_release(t, &file_a, &flock1);
    assert_free(t, &proc2, 0, 0);
    assert_int_equal(set(t, &flock2, F_WRLCK, 0, 0), 0);
    /* The client detaches: its locks on every file. */
    lock_release_client(t, proc1.id);
    assert_false(lock_owner_holds(t, &proc1));
    assert_int_equal(lock_set(t, &file_b, &proc2, F_WRLCK, 0, 0, false), 0);
}

static void deadlock_detected(void **state)
{
    struct lock_table *t = *state;
    assert_int_equal(set(t, &proc1, F_WRLCK, 0, 1), 0);
    assert_int_equal(set(t, &proc2, F_WRLCK, 1, 1), 0);
    assert_int_equal(set(t, &proc3, F_WRLCK, 2, 1), 0);
    /* 1 waits for 2, 2 for 3: fine so far. 3 waiting for 1 closes the
     * cycle. */
    assert_int_equal(lock_set(t, &file_a, &proc1, F_WRLCK, 1, 1, true),
                     -EAGAIN);
    assert_int_equal(lock_set(t, &file_a, &proc2, F_WRLCK, 2, 1, true),
                     -EAGAIN);
    assert_int_equal(lock_set(t, &file_a, &proc3, F_WRLCK, 0, 1, true),
                     -EDEADLK);
    /* Without the wait flag it is a plain conflict. */
    assert_int_equal(set(t, &proc3, F_WRLCK, 0, 1), -EAGAIN);
    /* Once 2 stops waiting (it got another lock), there is no cycle. */
    assert_int_equal(set(t, &proc2, F_WRLCK, 10, 1), 0);
    assert_int_equal(lock_set(t, &file_a, &proc3, F_WRLCK, 0, 1, true),
                     -EAGAIN);
}

static void client_limit(void **state)
{
    struct lock_table *t = *state;
    for (int i = 0; i < CLIENT_LIMIT; i++)
        assert_int_equal(set(t, &proc1, F_WRLCK, 10 * i, 1), 0);
    /* One more, on this file or another, is refused and changes nothing;
     * another client is not affected. */
    assert_int_equal(set(t, &proc1, F_WRLCK, 100, 1), -ENOLCK);
    assert_int_equal(lock_set(t, &file_b, &proc1, F_RDLCK, 0, 0, false),
                     -ENOLCK);
    assert_free(t, &proc2, 100, 1);
    assert_held(t, &proc2, 0, 0, F_WRLCK, 0, 1);
    for (int i = 0; i < CLIENT_LIMIT; i++)
        assert_int_equal(set(t, &proc2, F_RDLCK, 10 * i + 5, 1), 0);
    /* An unlock that splits nothing is always allowed, and gives room. */
    assert_int_equal(set(t, &proc1, F_UNLCK, 30, 1), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 100, 1), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 200, 1), -ENOLCK);
    assert_int_equal(set(t, &proc1, F_UNLCK, 0, 100), 0);
    /* An unlock or a conversion that would split a lock in two needs room
     * for the second half. */
    assert_int_equal(set(t, &proc1, F_WRLCK, 1000, 100), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 2000, 1), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 3000, 1), 0);
    assert_int_equal(set(t, &proc1, F_UNLCK, 1050, 1), -ENOLCK);
    assert_int_equal(set(t, &proc1, F_RDLCK, 1010, 1), -ENOLCK);
    assert_held(t, &proc2, 1050, 1, F_WRLCK, 1000, 100);
    assert_int_equal(set(t, &proc1, F_UNLCK, 3000, 1), 0);
    assert_int_equal(set(t, &proc1, F_UNLCK, 1050, 1), 0);
    assert_free(t, &proc2, 1050, 1);
    assert_held(t, &proc2, 1051, 1, F_WRLCK, 1051, 49);
    /* OFD and flock locks count against the client that took them, and
     * their release gives the room back. */
    lock_release_client(t, proc1.id);
    assert_int_equal(set(t, &ofd1, F_WRLCK, 300, 1), 0);
    assert_int_equal(set(t, &flock1, F_WRLCK, 0, 0), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 310, 1), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 320, 1), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 330, 1), -ENOLCK);
    lock_release(t, &file_a, &ofd1);
    lock_release(t, &file_a, &flock1);
    assert_int_equal(set(t, &proc1, F_WRLCK, 330, 1), 0);
    assert_int_equal(set(t, &proc1, F_WRLCK, 340, 1), 0);
}

/* Clients 1 and 2 of uid 7 share its bound of 6 (with 4 each): the
 * second gets only what the first left, another uid is not affected, and
 * locks released go back to the uid. */
static void uid_limit(void **state)
{
    struct lock_table *t = *state;
    static struct shares shares;
    shares_init(&shares, 0);
    shares_bound(&shares, SHARE_LOCKS, 100, 6, 0);
    t->shares = &shares;
    const struct lock_owner a = {DANAUS_LOCK_POSIX, 1, 101, 1, 7};
    const struct lock_owner b = {DANAUS_LOCK_POSIX, 2, 102, 2, 7};
    const struct lock_owner other = {DANAUS_LOCK_POSIX, 3, 103, 3, 8};
    for (int i = 0; i < CLIENT_LIMIT; i++)
        assert_int_equal(set(t, &a, F_WRLCK, 10 * i, 1), 0);
    assert_int_equal(set(t, &b, F_WRLCK, 100, 1), 0);
    assert_int_equal(set(t, &b, F_WRLCK, 110, 1), 0);
    assert_int_equal(set(t, &b, F_WRLCK, 120, 1), -ENOLCK);
    assert_int_equal(lock_set(t, &file_b, &b, F_RDLCK, 0, 0, false),
                     -ENOLCK);
    assert_int_equal(share_held(&shares, SHARE_LOCKS, 7), 6);
    for (int i = 0; i < CLIENT_LIMIT; i++)
        assert_int_equal(set(t, &other, F_WRLCK, 300 + 10 * i, 1), 0);
    lock_release_client(t, a.id);
    assert_int_equal(share_held(&shares, SHARE_LOCKS, 7), 2);
    assert_int_equal(set(t, &b, F_WRLCK, 120, 1), 0);
    lock_release_client(t, b.id);
    lock_release_client(t, other.id);
    assert_int_equal(share_held(&shares, SHARE_LOCKS, 7), 0);
    assert_int_equal(share_held(&shares, SHARE_LOCKS, 8), 0);
    t->shares = NULL;
    shares_free(&shares);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(read_locks_share_write_locks_exclude,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(own_ranges_split_merge_and_convert,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(unlock_ranges, setup, teardown),
        cmocka_unit_test_setup_teardown(posix_and_ofd_conflict_flock_apart,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(release_by_owner_and_client, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(deadlock_detected, setup, teardown),
        cmocka_unit_test_setup_teardown(client_limit, setup_small, teardown),
        cmocka_unit_test_setup_teardown(uid_limit, setup_small, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
