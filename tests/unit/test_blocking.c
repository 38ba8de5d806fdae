/*
 * test_blocking.c - which calls run as long ones (fsservice/core/
 * blocking.h): a FLUSH of a few kept pages is short, one of a bulk
 * transfer's worth is long, as a write of their bytes would be; a record
 * lock is short, a sync long.
 */
#include "fsservice/core/blocking.h"

#include "ipc/ipc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define PAGES 64

static void commit(const struct ipc_area *a, uint32_t *cursor, int n)
{
    static const unsigned char data[IPC_CACHE_BLOCK];
    for (int k = 0; k < n; k++) {
        int32_t i = ipc_dirty_claim(a, cursor);
        assert_true(i >= 0);
        ipc_dirty_commit(a, (uint32_t)i, 1, (uint64_t)k, data, sizeof data,
                         (uint64_t)k * IPC_CACHE_BLOCK);
    }
}

static void test_flush_long_by_pages(void **state)
{
    (void)state;
    struct ipc_geometry g = {.nqueues = 1, .ncells = 4, .nslots = 1,
                             .slot_buf = 4096, .cache_blocks = 16,
                             .dirty_pages = PAGES};
    struct ipc_area a;
    assert_int_equal(ipc_area_create(&g, &a), 0);
    uint32_t cursor = 0;
    uint32_t bulk = (64u << 10) / IPC_CACHE_BLOCK;
    assert_false(flush_may_block(&a));
    commit(&a, &cursor, (int)bulk - 1);
    assert_false(flush_may_block(&a));
    /* Taken by a flush under way: not this flush's to write. */
    struct ipc_dirty_page copy;
    assert_true(ipc_dirty_take(&a, 0, false, &copy));
    commit(&a, &cursor, 1);
    assert_false(flush_may_block(&a));
    commit(&a, &cursor, 1);
    assert_true(flush_may_block(&a));
    commit(&a, &cursor, PAGES - (int)bulk - 1);
    assert_true(flush_may_block(&a));
    assert_int_equal(ipc_dirty_committed(&a, PAGES), PAGES - 1);
    ipc_area_unmap(&a);
}

/* The other calls are judged by their request alone, FLUSH among them. */
static void test_calls_by_kind(void **state)
{
    (void)state;
    struct danaus_desc d = {.call = DANAUS_CALL_STAT};
    assert_false(call_may_block(&d));
    /* A lock never waits in the service: a conflict answers EAGAIN. */
    d.call = DANAUS_CALL_LOCK;
    d.arg[5] = 1;
    assert_false(call_may_block(&d));
    d.arg[5] = 0;
    d.call = DANAUS_CALL_FSYNC;
    assert_true(call_may_block(&d));
    assert_false(call_short_in_kernel(&d));
    d.call = DANAUS_CALL_PWRITE;
    d.buf_len = 4096;
    assert_false(call_may_block(&d));
    d.buf_len = 64u << 10;
    assert_true(call_may_block(&d));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flush_long_by_pages),
        cmocka_unit_test(test_calls_by_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
