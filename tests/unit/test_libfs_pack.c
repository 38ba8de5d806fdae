/*
 * test_libfs_pack.c - packing request strings and data into a slot buffer:
 * what fits is copied with its NUL, what does not fails with the errno the
 * application will see (ENAMETOOLONG for strings, E2BIG for data) and
 * leaves the buffer as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "libfs/call.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void strings_are_packed_with_their_nul(void **state)
{
    unsigned char buf[16];
    struct call_pack p = {buf, sizeof buf, 0};
    assert_int_equal(pack_str(&p, "ab"), 0);
    assert_int_equal(pack_str(&p, ""), 0);
    assert_int_equal(pack_str(&p, "cde"), 0);
    assert_int_equal(p.len, 3 + 1 + 4);
    assert_memory_equal(buf, "ab\0\0cde\0", 8);
}

static void string_that_does_not_fit_is_enametoolong(void **state)
{
    unsigned char buf[8];
    struct call_pack p = {buf, sizeof buf, 0};
    assert_int_equal(pack_str(&p, "abc"), 0);
    assert_int_equal(pack_str(&p, "xyz"), 0); /* exactly fills 8 bytes */
    errno = 0;
    assert_int_equal(pack_str(&p, ""), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    assert_int_equal(p.len, 8);
}

static void path_of_path_max_bytes_is_enametoolong(void **state)
{
    size_t cap = 3 * DANAUS_PATH_MAX;
    unsigned char *buf = malloc(cap);
    char *path = malloc(DANAUS_PATH_MAX + 1);
    assert_non_null(buf);
    assert_non_null(path);
    struct call_pack p = {buf, (uint32_t)cap, 0};

    memset(path, 'a', DANAUS_PATH_MAX - 1);
    path[DANAUS_PATH_MAX - 1] = '\0';
    assert_int_equal(pack_str(&p, path), 0);
    assert_int_equal(p.len, DANAUS_PATH_MAX);

    memset(path, 'a', DANAUS_PATH_MAX);
    path[DANAUS_PATH_MAX] = '\0';
    errno = 0;
    assert_int_equal(pack_str(&p, path), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    assert_int_equal(p.len, DANAUS_PATH_MAX);
    free(path);
    free(buf);
}

static void data_beyond_the_buffer_is_e2big(void **state)
{
    unsigned char buf[8];
    struct call_pack p = {buf, sizeof buf, 0};
    assert_int_equal(pack_str(&p, "n"), 0);
    assert_int_equal(pack_data(&p, "123456", 6), 0);
    assert_memory_equal(buf, "n\0" "123456", 8);
    errno = 0;
    assert_int_equal(pack_data(&p, "x", 1), -1);
    assert_int_equal(errno, E2BIG);
    assert_int_equal(p.len, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_are_packed_with_their_nul),
        cmocka_unit_test(string_that_does_not_fit_is_enametoolong),
        cmocka_unit_test(path_of_path_max_bytes_is_enametoolong),
        cmocka_unit_test(data_beyond_the_buffer_is_e2big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
