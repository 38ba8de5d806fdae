/*
 * test_libfs_usermem.c - libdanaus's checks of callers' pointers
 * (libfs/usermem.h): mapped ranges pass, unmapped ones give EFAULT, and a
 * range checked once is not asked about again, also when it spans two
 * pages (a 4 KiB buffer that is not page-aligned), while a longer range
 * that only starts in it is.
 */
#include "libfs/usermem.h"

#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#define PAGE 4096

/* usermem.c asks the kernel through syscall(2); this program's own
 * definition comes first, and counts the mincore calls. */
static int mincore_calls;

long syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_mincore)
        mincore_calls++;
    long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT,
                                                         "syscall");
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static char *map_pages(int n)
{
    char *p = mmap(NULL, (size_t)n * PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    return p;
}

static void test_ranges(void **state)
{
    (void)state;
    char *p = map_pages(4);
    assert_true(usermem_range(p + 100, PAGE)); /* pages 0 and 1 */
    assert_int_equal(mincore_calls, 1);
    assert_int_equal(munmap(p + 2 * PAGE, 2 * PAGE), 0);
    /* Never asked about: the kernel's answer. */
    assert_false(usermem_range(p + 2 * PAGE, 10));
    errno = 0;
    assert_int_equal(usermem_out(p + 3 * PAGE, 1), -1);
    assert_int_equal(errno, EFAULT);
    /* Starts in the remembered range, ends past it: asked again. */
    mincore_calls = 0;
    assert_false(usermem_range(p + 100, 3 * PAGE));
    assert_int_equal(mincore_calls, 1);
    /* Inside it: remembered, no system call. */
    assert_true(usermem_range(p + PAGE + 8, 16));
    assert_true(usermem_range(p + 100, PAGE));
    assert_true(usermem_range(p, 2 * PAGE));
    assert_int_equal(mincore_calls, 1);
    assert_false(usermem_range(NULL, 1));
    assert_false(usermem_range((void *)16, 1));
    assert_true(usermem_range(NULL, 0));
    assert_int_equal(munmap(p, 2 * PAGE), 0);
}

static void test_strings(void **state)
{
    (void)state;
    char *p = map_pages(3);
    assert_int_equal(munmap(p + 2 * PAGE, PAGE), 0);
    strcpy(p + PAGE - 4, "abc");
    assert_true(usermem_string(p + PAGE - 4, 100));
    memset(p + PAGE, 'x', PAGE); /* no NUL before the end of the mapping */
    assert_false(usermem_string(p + PAGE, 3 * PAGE));
    assert_false(usermem_string(p + PAGE, 100)); /* longer than max */
    assert_false(usermem_string((const char *)16, 100));
    assert_int_equal(munmap(p, 2 * PAGE), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
