/*
 * test_libfs_fdtable.c - the library's descriptor table: entries are found
 * by number, their numbers are held in the kernel by placeholders (so the
 * kernel hands out other numbers, and kernel reads on them fail with EBADF),
 * and dup/dup2 keep kernel and table in step.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "libfs/fdtable.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int new_entry(uint64_t handle, uint32_t mount, const char *path,
                     bool cloexec)
{
    int fd = fdtable_reserve(cloexec);
    assert_true(fd >= 0);
    struct fd_info info = {handle, mount, 0, false};
    assert_int_equal(fdtable_insert(fd, &info, path, O_RDWR, 0), 0);
    return fd;
}

static void assert_kernel_target(int fd, const char *want)
{
    char link[64], target[256];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    assert_true(n > 0);
    target[n] = '\0';
    assert_string_equal(target, want);
}

static void insert_lookup_remove(void **state)
{
    int fd = new_entry(7, 3, "/mnt/d/f", false);
    struct fd_info info;
    char path[64];
    assert_true(fdtable_lookup(fd, &info));
    assert_int_equal(info.handle, 7);
    assert_int_equal(info.mount, 3);
    assert_int_equal(fdtable_path(fd, path, sizeof path), 0);
    assert_string_equal(path, "/mnt/d/f");
    errno = 0;
    assert_int_equal(fdtable_path(fd, path, 4), -1);
    assert_int_equal(errno, ENAMETOOLONG);

    struct fd_info old;
    assert_int_equal(fdtable_remove(fd, &old), 1);
    assert_int_equal(old.handle, 7);
    assert_int_equal(old.mount, 3);
    assert_false(fdtable_lookup(fd, &info));
    errno = 0;
    assert_int_equal(fdtable_path(fd, path, sizeof path), -1);
    assert_int_equal(errno, EBADF);
    errno = 0;
    assert_int_equal(fdtable_remove(fd, &old), -1);
    assert_int_equal(errno, EBADF);
    /* The placeholder is closed with the entry. */
    assert_int_equal(fcntl(fd, F_GETFD), -1);
}

static void numbers_outside_the_table_are_not_danaus(void **state)
{
    struct fd_info info;
    assert_false(fdtable_lookup(-1, &info));
    assert_false(fdtable_lookup(FDTABLE_MAX, &info));
    assert_false(fdtable_lookup(0, &info)); /* stdin: a kernel descriptor */
    errno = 0;
    assert_int_equal(fdtable_insert(-1, &(struct fd_info){1, 0, 0, false}, "/x", 0, 0), -1);
    assert_int_equal(errno, EBADF);
}

static void placeholder_holds_the_number_in_the_kernel(void **state)
{
    int fd = new_entry(9, 0, "/mnt/d/g", true);
    assert_kernel_target(fd, "/dev/null");
    assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);

    int other = open("/dev/null", O_RDONLY);
    assert_true(other >= 0);
    assert_int_not_equal(other, fd);
    struct fd_info info;
    assert_false(fdtable_lookup(other, &info));

    char byte;
    errno = 0;
    assert_int_equal(read(fd, &byte, 1), -1);
    assert_int_equal(errno, EBADF);
    errno = 0;
    assert_int_equal(write(fd, "x", 1), -1);
    assert_int_equal(errno, EBADF);

    close(other);
    struct fd_info old;
    assert_int_equal(fdtable_remove(fd, &old), 1);
}

static void dup_shares_handle_mount_and_path_not_cloexec(void **state)
{
    int fd = new_entry(11, 2, "/mnt/d/dir", true);
    int copy = fdtable_dup(fd);
    assert_true(copy >= 0);
    assert_int_not_equal(copy, fd);
    struct fd_info info;
    char path[64];
    assert_true(fdtable_lookup(copy, &info));
    assert_int_equal(info.handle, 11);
    assert_int_equal(info.mount, 2);
    assert_int_equal(fdtable_path(copy, path, sizeof path), 0);
    assert_string_equal(path, "/mnt/d/dir");
    assert_int_equal(fcntl(copy, F_GETFD) & FD_CLOEXEC, 0);
    int third = fdtable_dupfd(fd, 100, true);
    assert_true(third >= 100);
    assert_int_equal(fcntl(third, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);

    /* The service's handle is closed with its last descriptor only. */
    struct fd_info old;
    assert_int_equal(fdtable_remove(fd, &old), 0);
    assert_int_equal(old.handle, 11);
    assert_true(fdtable_lookup(copy, &info));
    assert_int_equal(fdtable_remove(third, &old), 0);
    assert_int_equal(fdtable_remove(copy, &old), 1);
    assert_int_equal(old.handle, 11);
    errno = 0;
    assert_int_equal(fdtable_dup(fd), -1);
    assert_int_equal(errno, EBADF);
}

static void dup2_over_a_danaus_descriptor(void **state)
{
    int a = new_entry(21, 1, "/mnt/a/f", false);
    int b = new_entry(22, 4, "/mnt/b/g", false);
    struct fd_info replaced;
    bool close_replaced = false;
    assert_int_equal(fdtable_dup3(a, b, false, &replaced, &close_replaced), b);
    assert_true(close_replaced);
    assert_int_equal(replaced.handle, 22);
    assert_int_equal(replaced.mount, 4);

    struct fd_info info;
    char path[64];
    assert_true(fdtable_lookup(b, &info));
    assert_int_equal(info.handle, 21);
    assert_int_equal(info.mount, 1);
    assert_int_equal(fdtable_path(b, path, sizeof path), 0);
    assert_string_equal(path, "/mnt/a/f");
    assert_kernel_target(b, "/dev/null");

    /* Onto a dup of the same file: the handle stays, nothing to close. */
    int c = fdtable_dup(a);
    assert_int_equal(fdtable_dup3(a, c, false, &replaced, &close_replaced), c);
    assert_false(close_replaced);

    struct fd_info old;
    assert_int_equal(fdtable_remove(a, &old), 0);
    assert_int_equal(fdtable_remove(c, &old), 0);
    assert_int_equal(fdtable_remove(b, &old), 1);
    assert_int_equal(old.handle, 21);
}

/* A dup held elsewhere keeps the replaced descriptor's handle open. */
static void dup2_over_a_shared_handle_keeps_it(void **state)
{
    int a = new_entry(41, 0, "/mnt/a/f", false);
    int b = new_entry(42, 0, "/mnt/b/g", false);
    int b2 = fdtable_dup(b);
    struct fd_info replaced;
    bool close_replaced = true;
    assert_int_equal(fdtable_dup3(a, b, false, &replaced, &close_replaced), b);
    assert_false(close_replaced);
    struct fd_info info;
    assert_true(fdtable_lookup(b2, &info));
    assert_int_equal(info.handle, 42);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    close_replaced = true;
    assert_int_equal(fdtable_kernel_dup3(pipefd[0], b, 0, &replaced, &close_replaced), b);
    assert_false(close_replaced); /* a still holds 41 */
    assert_int_equal(fdtable_kernel_dup3(pipefd[0], b2, 0, &replaced, &close_replaced), b2);
    assert_true(close_replaced);
    assert_int_equal(replaced.handle, 42);
    struct fd_info old;
    assert_int_equal(fdtable_remove(a, &old), 1);
    close(pipefd[0]);
    close(pipefd[1]);
    close(b);
    close(b2);
}

static void dup2_over_a_kernel_descriptor_closes_it(void **state)
{
    int a = new_entry(31, 0, "/mnt/a/f", false);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    struct fd_info replaced;
    bool close_replaced = true;
    assert_int_equal(fdtable_dup3(a, pipefd[0], false, &replaced, &close_replaced),
                     pipefd[0]);
    assert_false(close_replaced);
    assert_kernel_target(pipefd[0], "/dev/null");
    /* The pipe's read end is gone: writing to it now has no reader. */
    signal(SIGPIPE, SIG_IGN);
    errno = 0;
    assert_int_equal(write(pipefd[1], "x", 1), -1);
    assert_int_equal(errno, EPIPE);

    struct fd_info old;
    assert_int_equal(fdtable_remove(pipefd[0], &old), 0);
    assert_int_equal(old.handle, 31);
    assert_int_equal(fdtable_remove(a, &old), 1);
    close(pipefd[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(insert_lookup_remove),
        cmocka_unit_test(numbers_outside_the_table_are_not_danaus),
        cmocka_unit_test(placeholder_holds_the_number_in_the_kernel),
        cmocka_unit_test(dup_shares_handle_mount_and_path_not_cloexec),
        cmocka_unit_test(dup2_over_a_danaus_descriptor),
        cmocka_unit_test(dup2_over_a_shared_handle_keeps_it),
        cmocka_unit_test(dup2_over_a_kernel_descriptor_closes_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
