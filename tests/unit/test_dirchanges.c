/*
 * test_dirchanges.c - unit tests of the directories changed lately
 * (fsservice/libservice/dirchanges.h): which remembered walks a change
 * voids, and that one falling too far behind is void.
 */
#include "fsservice/libservice/dirchanges.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static bool spare(struct dir_changes *c, uint64_t since, const char *path)
{
    return dir_changes_spare(c, &since, path, strlen(path));
}

static void test_a_change_voids_walks_through_it(void **state)
{
    (void)state;
    static struct dir_changes c = DIR_CHANGES_INIT;
    uint64_t before = dir_changes_now(&c);
    dir_changes_note(&c, "a/b", 3);
    assert_int_equal(dir_changes_now(&c), before + 1);
    assert_false(spare(&c, before, "a/b"));
    assert_false(spare(&c, before, "a/b/c"));
    assert_false(spare(&c, before, "a/b/"));
    assert_true(spare(&c, before, "a"));
    assert_true(spare(&c, before, "a/bc"));
    assert_true(spare(&c, before, "a/c/b"));
    assert_true(spare(&c, before, ""));
    /* A walk that holds moves on: the next look starts from now. */
    uint64_t since = before;
    assert_true(dir_changes_spare(&c, &since, "x/y", 3));
    assert_int_equal(since, before + 1);
    /* Unnamed: every walk. */
    before = dir_changes_now(&c);
    dir_changes_note(&c, NULL, 0);
    assert_false(spare(&c, before, ""));
    assert_false(spare(&c, before, "x/y"));
}

static void test_too_far_behind_is_void(void **state)
{
    (void)state;
    static struct dir_changes c = DIR_CHANGES_INIT;
    uint64_t before = dir_changes_now(&c);
    for (int i = 0; i < DIR_CHANGES; i++)
        dir_changes_note(&c, "elsewhere", 9);
    assert_true(spare(&c, before, "here/too"));
    dir_changes_note(&c, "elsewhere", 9);
    assert_false(spare(&c, before, "here/too"));
    assert_true(spare(&c, before + 1, "here/too"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_change_voids_walks_through_it),
        cmocka_unit_test(test_too_far_behind_is_void),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
