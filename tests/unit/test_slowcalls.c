/*
 * test_slowcalls.c - a client's calls run as long calls once its recent
 * calls were slow, and as short ones again once they are fast; its long
 * calls are weighed as work only by the cpu they took
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

/* Slow by the clock is not heavy: a client whose calls waited (for a cpu,
 * a backend) is slow lately but not cpu-heavy; one whose long calls each
 * take a millisecond of cpu is, and turns light again after cheap ones. */
static void test_cpu_heavy_apart_from_slow(void **state)
{
    (void)state;
    struct slowcalls s = {0};
    for (int i = 0; i < 20; i++) {
        slowcalls_note(&s, 3000000);
        slowcalls_note_cpu(&s, 4000);
    }
    assert_true(slowcalls_expect(&s));
    assert_false(slowcalls_cpu_heavy(&s));
    int n = 0;
    while (!slowcalls_cpu_heavy(&s) && n < 100) {
        slowcalls_note_cpu(&s, 1000000);
        n++;
    }
    assert_true(slowcalls_cpu_heavy(&s));
    assert_true(n <= 4);
    n = 0;
    while (slowcalls_cpu_heavy(&s) && n < 1000) {
        slowcalls_note_cpu(&s, 4000);
        n++;
    }
    assert_false(slowcalls_cpu_heavy(&s));
    assert_true(n < 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_turns_slow_and_back),
        cmocka_unit_test(test_cpu_heavy_apart_from_slow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
