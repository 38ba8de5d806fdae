/*
 * test_slowcalls.c - a client's calls run as long calls once its recent
 * calls were slow, and as short ones again once they are fast
 * (fsservice/core/slowcalls.h).
 */
#include "fsservice/core/slowcalls.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static void test_turns_slow_and_back(void **state)
{
    (void)state;
    struct slowcalls s = {0};
    assert_false(slowcalls_expect(&s));
    /* Cached calls of a few microseconds never make a client slow. */
    for (int i = 0; i < 1000; i++)
        slowcalls_note(&s, 5000);
    assert_false(slowcalls_expect(&s));
    /* A few calls of a millisecond do. */
    int n = 0;
    while (!slowcalls_expect(&s) && n < 100) {
        slowcalls_note(&s, 1000000);
        n++;
    }
    assert_true(slowcalls_expect(&s));
    assert_true(n <= 4);
    /* One call blocked for minutes counts as a bounded one: fast calls
     * bring the client back within a bounded number. */
    slowcalls_note(&s, 600000000000ull);
    n = 0;
    while (slowcalls_expect(&s) && n < 1000) {
        slowcalls_note(&s, 5000);
        n++;
    }
    assert_false(slowcalls_expect(&s));
    assert_true(n < 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_turns_slow_and_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
