/*
 * test_fuse_handles.c - the FUSE door's handle table (fsservice/doors/
 * fuse_handles.h): a handle says what it stands for, an ended handle's
 * number ends nothing when its record is given out again (a RELEASE the
 * kernel resends after a restart), files are found by inode and node, and
 * a table adopted from another's area (a restarted service's) keeps every
 * handle without its file.
 */
#include "fsservice/doors/fuse_handles.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

static struct fuse_handles h;

/* Stand-ins for backend files: the table never looks inside them. */
static int file_a, file_b;
#define FILE_A ((struct ls_file *)&file_a)
#define FILE_B ((struct ls_file *)&file_b)

static int setup(void **state)
{
    (void)state;
    return fuse_handles_init(&h);
}

static int teardown(void **state)
{
    (void)state;
    fuse_handles_free(&h, NULL);
    return 0;
}

static void a_handle_says_what_it_is(void **state)
{
    (void)state;
    struct fuse_handle what = {.node = 7, .ino = 70, .flags = O_RDWR,
                               .exec = true};
    uint64_t fh = fuse_handles_add(&h, &what, FILE_A);
    assert_int_not_equal(fh, 0);
    struct fuse_handle got;
    struct ls_file *file;
    assert_int_equal(fuse_handles_get(&h, fh, &got, &file), 0);
    assert_ptr_equal(file, FILE_A);
    assert_int_equal(got.node, 7);
    assert_int_equal(got.ino, 70);
    assert_int_equal(got.flags, O_RDWR);
    assert_true(got.exec);
    assert_false(got.dir);
    uint64_t node = 0;
    assert_true(fuse_handles_find(&h, 70, true, &node));
    assert_int_equal(node, 7);
    assert_false(fuse_handles_find(&h, 71, false, NULL));
    assert_int_equal(atomic_load(&h.nexec), 1);
    assert_int_equal(fuse_handles_get(&h, fh + 1, &got, &file), -EBADF);
    assert_int_equal(fuse_handles_get(&h, 0, &got, &file), -EBADF);
}

static void an_ended_handle_ends_nothing_later(void **state)
{
    (void)state;
    struct fuse_handle what = {.node = 1, .ino = 10};
    uint64_t old = fuse_handles_add(&h, &what, FILE_A);
    assert_ptr_equal(fuse_handles_remove(&h, old), FILE_A);
    uint64_t fresh = fuse_handles_add(&h, &what, FILE_B);
    assert_int_not_equal(fresh, old);
    /* The resent RELEASE of the old handle. */
    assert_null(fuse_handles_remove(&h, old));
    struct fuse_handle got;
    struct ls_file *file;
    assert_int_equal(fuse_handles_get(&h, fresh, &got, &file), 0);
    assert_ptr_equal(file, FILE_B);
}

static void adopted_handles_wait_for_their_files(void **state)
{
    (void)state;
    struct fuse_handle what = {.node = 3, .ino = 30, .flags = O_WRONLY};
    uint64_t fh = fuse_handles_add(&h, &what, FILE_A);
    struct fuse_handle dir = {.node = 4, .dir = true};
    uint64_t dh = fuse_handles_add(&h, &dir, FILE_B);
    int fd = dup(fuse_handles_fd(&h));
    fuse_handles_free(&h, NULL);

    assert_int_equal(fuse_handles_adopt(&h, fd, false), 0);
    struct fuse_handle got;
    struct ls_file *file = FILE_A;
    assert_int_equal(fuse_handles_get(&h, fh, &got, &file), 0);
    assert_null(file);
    assert_int_equal(got.node, 3);
    assert_int_equal(got.flags, O_WRONLY);
    assert_int_equal(fuse_handles_get(&h, dh, &got, &file), 0);
    assert_true(got.dir);
    assert_int_equal(atomic_load(&h.nopen), 1);
    /* The first use opens it again; a second opener keeps the first's. */
    assert_ptr_equal(fuse_handles_set(&h, fh, FILE_B), FILE_B);
    assert_ptr_equal(fuse_handles_set(&h, fh, FILE_A), FILE_B);
    assert_int_not_equal(fuse_handles_add(&h, &what, FILE_A), fh);
}

/* The next service's table, as a kill would leave it. */
static void restart(bool writes_lost)
{
    int fd = dup(fuse_handles_fd(&h));
    fuse_handles_free(&h, NULL);
    assert_int_equal(fuse_handles_adopt(&h, fd, writes_lost), 0);
}

/* Writes not covered by an fsync when a write-caching service dies make
 * the file's next fsync fail with EIO, once, whichever handle of the
 * inode it comes through; synced writes, directories and a backend that
 * keeps no writes cost nothing. */
static void writes_lost_with_a_service_fail_the_next_fsync(void **state)
{
    (void)state;
    struct fuse_handle what = {.node = 5, .ino = 50, .flags = O_WRONLY};
    uint64_t written = fuse_handles_add(&h, &what, FILE_A);
    uint64_t other = fuse_handles_add(&h, &what, FILE_A);
    uint64_t synced = fuse_handles_add(
        &h, &(struct fuse_handle){.node = 6, .ino = 60}, FILE_B);
    uint64_t raced = fuse_handles_add(
        &h, &(struct fuse_handle){.node = 7, .ino = 70}, FILE_B);
    uint32_t mark;
    fuse_handles_writing(&h, written);
    fuse_handles_writing(&h, synced);
    assert_int_equal(fuse_handles_sync_begin(&h, synced, &mark), 0);
    fuse_handles_synced(&h, synced, mark);
    /* A write that began while an fsync ran is not covered by it. */
    fuse_handles_writing(&h, raced);
    assert_int_equal(fuse_handles_sync_begin(&h, raced, &mark), 0);
    fuse_handles_writing(&h, raced);
    fuse_handles_synced(&h, raced, mark);
    restart(true);

    assert_int_equal(fuse_handles_sync_begin(&h, other, &mark), -EIO);
    assert_int_equal(fuse_handles_sync_begin(&h, written, &mark), 0);
    assert_int_equal(fuse_handles_sync_begin(&h, synced, &mark), 0);
    assert_int_equal(fuse_handles_sync_begin(&h, raced, &mark), -EIO);
    /* Reported once; a second kill finds nothing new to lose. */
    restart(true);
    assert_int_equal(fuse_handles_sync_begin(&h, written, &mark), 0);
    assert_int_equal(fuse_handles_sync_begin(&h, raced, &mark), 0);

    fuse_handles_writing(&h, written);
    restart(false);
    assert_int_equal(fuse_handles_sync_begin(&h, written, &mark), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_handle_says_what_it_is, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_ended_handle_ends_nothing_later,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(adopted_handles_wait_for_their_files,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            writes_lost_with_a_service_fail_the_next_fsync, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
