/*
 * test_handles.c - the per-client handle table: handles are index plus
 * generation; closed, stale and forged handles are refused; dup'ed handles
 * share one open file until the last is closed.
 */
#include "fsservice/core/handles.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>
#include <urcu.h>

/* A stand-in backend file whose close is counted: the table must close the
 * backend file exactly once, when the last handle goes. */
static int closes;
static void count_close(struct ls_file *f)
{
    closes++;
    free(f);
}
static const struct ls_ops counting_ops = {.name = "count",
                                           .close = count_close};
static struct ls_instance counting_instance = {.ops = &counting_ops};

static struct open_file *new_file(void)
{
    struct ls_file *f = calloc(1, sizeof *f);
    f->inst = &counting_instance;
    return open_file_new(f, O_RDWR);
}

static void insert_get_remove(void **state)
{
    struct handle_table t;
    assert_int_equal(handle_table_init(&t), 0);
    closes = 0;
    struct open_file *of = new_file();
    int64_t h = handle_insert(&t, of);
    assert_true(h > 0);
    assert_int_equal(DANAUS_HANDLE_GEN((uint64_t)h), 1);

    struct open_file *got = handle_get(&t, (uint64_t)h);
    assert_ptr_equal(got, of);
    open_file_put(got);

    /* Forged: right index, wrong generation; and an index out of range. */
    assert_null(handle_get(&t, DANAUS_HANDLE(DANAUS_HANDLE_INDEX(h), 7)));
    assert_null(handle_get(&t, DANAUS_HANDLE(1u << 20, 1)));
    assert_null(handle_get(&t, 0));

    assert_ptr_equal(handle_remove(&t, (uint64_t)h), of);
    open_file_put(of);
    assert_int_equal(closes, 1);
    /* Stale: the closed handle is refused, and so is a second close. */
    assert_null(handle_get(&t, (uint64_t)h));
    assert_null(handle_remove(&t, (uint64_t)h));

    /* The index is reused with a new generation. */
    struct open_file *of2 = new_file();
    int64_t h2 = handle_insert(&t, of2);
    assert_int_equal(DANAUS_HANDLE_INDEX(h2), DANAUS_HANDLE_INDEX(h));
    assert_int_not_equal(DANAUS_HANDLE_GEN(h2), DANAUS_HANDLE_GEN(h));
    assert_null(handle_get(&t, (uint64_t)h));
    handle_table_destroy(&t);
    rcu_barrier();
    assert_int_equal(closes, 2);
}

static void dup_shares_the_open_file(void **state)
{
    struct handle_table t;
    assert_int_equal(handle_table_init(&t), 0);
    closes = 0;
    struct open_file *of = new_file();
    int64_t a = handle_insert(&t, of);
    assert_true(open_file_tryget(of));
    int64_t b = handle_insert(&t, of);
    assert_int_not_equal(a, b);
    of->pos = 42;
    struct open_file *via_b = handle_get(&t, (uint64_t)b);
    assert_int_equal(via_b->pos, 42);
    open_file_put(via_b);

    open_file_put(handle_remove(&t, (uint64_t)a));
    assert_int_equal(closes, 0);
    open_file_put(handle_remove(&t, (uint64_t)b));
    assert_int_equal(closes, 1);
    handle_table_destroy(&t);
}

static void grows_and_stops_at_the_limit(void **state)
{
    struct handle_table t;
    assert_int_equal(handle_table_init(&t), 0);
    closes = 0;
    int64_t *hs = calloc(HANDLES_MAX, sizeof *hs);
    struct open_file *of = new_file();
    for (int i = 0; i < HANDLES_MAX; i++) {
        if (i)
            assert_true(open_file_tryget(of));
        hs[i] = handle_insert(&t, of);
        assert_true(hs[i] > 0);
    }
    assert_true(open_file_tryget(of));
    assert_int_equal(handle_insert(&t, of), -EMFILE);
    open_file_put(of);
    for (int i = 0; i < HANDLES_MAX; i += 997) {
        struct open_file *got = handle_get(&t, (uint64_t)hs[i]);
        assert_ptr_equal(got, of);
        open_file_put(got);
    }
    handle_table_destroy(&t);
    rcu_barrier();
    assert_int_equal(closes, 1);
    free(hs);
}

/* Tickets (fork, exec) copy handles with their numbers: a child's
 * descriptor table keeps working unchanged. */
/* A client's own limit (below HANDLES_MAX): over it EMFILE, and a close
 * makes room again. */
static void a_lower_limit_holds(void **state)
{
    (void)state;
    struct handle_table t;
    assert_int_equal(handle_table_init(&t), 0);
    t.limit = 20;
    int64_t hs[20];
    for (int i = 0; i < 20; i++) {
        hs[i] = handle_insert(&t, new_file());
        assert_true(hs[i] > 0);
    }
    struct open_file *of = new_file();
    assert_int_equal(handle_insert(&t, of), -EMFILE);
    struct open_file *gone = handle_remove(&t, (uint64_t)hs[7]);
    assert_non_null(gone);
    open_file_put(gone);
    assert_true(handle_insert(&t, of) > 0);
    handle_table_destroy(&t);
    rcu_barrier();
}

static void copy_keeps_numbers_and_references(void **state)
{
    struct handle_table parent, child, some;
    assert_int_equal(handle_table_init(&parent), 0);
    assert_int_equal(handle_table_init(&child), 0);
    assert_int_equal(handle_table_init(&some), 0);
    closes = 0;
    int64_t a = handle_insert(&parent, new_file());
    int64_t b = handle_insert(&parent, new_file());
    open_file_put(handle_remove(&parent, (uint64_t)a));
    int64_t c = handle_insert(&parent, new_file()); /* a's index, new gen */
    assert_int_equal(closes, 1);

    assert_int_equal(handle_table_copy(&child, &parent, NULL, 0), 0);
    struct open_file *pb = handle_get(&parent, (uint64_t)b);
    struct open_file *cb = handle_get(&child, (uint64_t)b);
    assert_non_null(cb);
    assert_ptr_equal(pb, cb); /* one open file, shared offset */
    open_file_put(pb);
    open_file_put(cb);
    assert_null(handle_get(&child, (uint64_t)a)); /* stale stays stale */
    struct open_file *cc = handle_get(&child, (uint64_t)c);
    assert_non_null(cc);
    open_file_put(cc);
    /* A copy into a table in use is refused. */
    assert_int_equal(handle_table_copy(&child, &parent, NULL, 0), -EBUSY);

    /* Only the listed handles; a stale one in the list fails the copy. */
    uint64_t list[] = {(uint64_t)c};
    assert_int_equal(handle_table_copy(&some, &parent, list, 1), 0);
    assert_null(handle_get(&some, (uint64_t)b));
    uint64_t stale[] = {(uint64_t)c, (uint64_t)a};
    struct handle_table bad;
    assert_int_equal(handle_table_init(&bad), 0);
    assert_int_equal(handle_table_copy(&bad, &parent, stale, 2), -EBADF);
    assert_null(handle_get(&bad, (uint64_t)c)); /* left empty */

    /* The parent closing its handles does not close the child's files. */
    handle_table_destroy(&parent);
    assert_int_equal(closes, 1);
    handle_table_destroy(&child);
    handle_table_destroy(&bad);
    assert_int_equal(closes, 2); /* b */
    handle_table_destroy(&some);
    rcu_barrier();
    assert_int_equal(closes, 3); /* c */
}

int main(void)
{
    rcu_register_thread();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(insert_get_remove),
        cmocka_unit_test(dup_shares_the_open_file),
        cmocka_unit_test(grows_and_stops_at_the_limit),
        cmocka_unit_test(a_lower_limit_holds),
        cmocka_unit_test(copy_keeps_numbers_and_references),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rcu_unregister_thread();
    return rc;
}
