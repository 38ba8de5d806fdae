/*
 * test_image_config.c - which USER[:GROUP] texts an image's config and
 * `-u` may give (engine/image_config.c).
 */
#include "image_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

static void users_and_groups(void **state)
{
    (void)state;
    assert_true(image_config_user_ok("app"));
    assert_true(image_config_user_ok("1000"));
    assert_true(image_config_user_ok("app:staff"));
    assert_true(image_config_user_ok("0:0"));
    assert_false(image_config_user_ok(""));
    assert_false(image_config_user_ok(":staff"));
    assert_false(image_config_user_ok("app:"));
    assert_false(image_config_user_ok("a:b:c"));
    assert_false(image_config_user_ok("a b"));
}

/* A name without a colon is judged by its own bytes: a ':' that follows
 * its end in memory (the next string of the config it came from) is not
 * part of it. */
static void nothing_read_past_the_name(void **state)
{
    (void)state;
    const char text[] = "app\0:x:y";
    assert_true(image_config_user_ok(text));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(users_and_groups),
        cmocka_unit_test(nothing_read_past_the_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
