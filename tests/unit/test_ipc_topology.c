/*
 * test_ipc_topology.c - core groups: every online cpu in exactly one group,
 * cpu_queue agreeing with the groups, the grouping this machine's caches
 * call for, groups made only of the cpus given; cpu lists.
 */
#include "ipc/ipc.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static cpu_set_t groups[IPC_MAX_QUEUES];
static uint16_t cpu_queue[IPC_MAX_CPUS];
static cpu_set_t every_cpu;

static int setup(void **state)
{
    (void)state;
    CPU_ZERO(&every_cpu);
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++)
        CPU_SET(cpu, &every_cpu);
    return 0;
}

static void check_partition(int level)
{
    cpu_set_t all;
    int n, total = 0;

    n = ipc_core_groups(level, &every_cpu, cpu_queue, groups, IPC_MAX_QUEUES);
    assert_true(n >= 1);
    CPU_ZERO(&all);
    for (int g = 0; g < n; g++) {
        cpu_set_t overlap;

        assert_true(CPU_COUNT(&groups[g]) >= 1);
        CPU_AND(&overlap, &all, &groups[g]);
        assert_int_equal(CPU_COUNT(&overlap), 0);
        CPU_OR(&all, &all, &groups[g]);
        total += CPU_COUNT(&groups[g]);
    }
    assert_int_equal(total, sysconf(_SC_NPROCESSORS_ONLN));
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++) {
        assert_true(cpu_queue[cpu] < n);
        if (CPU_ISSET(cpu, &all))
            assert_true(CPU_ISSET(cpu, &groups[cpu_queue[cpu]]));
    }
}

static void test_groups_partition_online_cpus(void **state)
{
    (void)state;
    for (int level = -1; level <= 3; level++)
        check_partition(level);
}

static bool sysfs_equals(const char *path, const char *want)
{
    char line[64] = "";
    FILE *f = fopen(path, "r");

    if (!f)
        return false;
    if (!fgets(line, sizeof(line), f))
        line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    return strcmp(line, want) == 0;
}

/* The machine this project targets: two cpus, a private L2 each, one
 * shared L3. A one-cpu group could not host a spinning client and a
 * spinning service thread at once, so level 0 must pick the L3. */
static void test_private_l2_falls_back_to_llc(void **state)
{

    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) != 2 ||
        !sysfs_equals("/sys/devices/system/cpu/cpu0/cache/index2/level",
                      "2") ||
        !sysfs_equals("/sys/devices/system/cpu/cpu0/cache/index2/"
                      "shared_cpu_list", "0") ||
        !sysfs_equals("/sys/devices/system/cpu/cpu0/cache/index3/"
                      "shared_cpu_list", "0-1")) {
        skip();
    }
    assert_int_equal(ipc_core_groups(0, &every_cpu, cpu_queue, groups, IPC_MAX_QUEUES),
                     1);
    assert_true(CPU_ISSET(0, &groups[0]) && CPU_ISSET(1, &groups[0]));
    assert_int_equal(cpu_queue[0], 0);
    assert_int_equal(cpu_queue[1], 0);

    assert_int_equal(ipc_core_groups(2, &every_cpu, cpu_queue, groups, IPC_MAX_QUEUES),
                     2);
    assert_int_equal(CPU_COUNT(&groups[0]), 1);
    assert_int_equal(CPU_COUNT(&groups[1]), 1);
    assert_int_equal(cpu_queue[0], 0);
    assert_int_equal(cpu_queue[1], 1);
}

static void test_too_many_groups(void **state)
{
    int n;

    (void)state;
    n = ipc_core_groups(2, &every_cpu, cpu_queue, groups, IPC_MAX_QUEUES);
    assert_true(n >= 1);
    if (n == 1)
        skip();
    assert_int_equal(ipc_core_groups(2, &every_cpu, cpu_queue, groups, n - 1), -ENOSPC);
}

/* Groups hold only the cpus given (the service's), whatever the caches
 * span; every cpu still maps to a valid queue. */
static void test_groups_keep_to_the_given_cpus(void **state)
{
    cpu_set_t one, two;
    int last = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;

    (void)state;
    CPU_ZERO(&one);
    CPU_SET(last, &one);
    for (int level = -1; level <= 3; level++) {
        assert_int_equal(ipc_core_groups(level, &one, cpu_queue, groups,
                                         IPC_MAX_QUEUES), 1);
        assert_true(CPU_EQUAL(&groups[0], &one));
        for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++)
            assert_int_equal(cpu_queue[cpu], 0);
    }
    CPU_ZERO(&two);
    CPU_SET(IPC_MAX_CPUS - 1, &two);
    assert_int_equal(ipc_core_groups(0, &two, cpu_queue, groups,
                                     IPC_MAX_QUEUES), -ENOENT);
}

static void test_cpulist_round_trip(void **state)
{
    cpu_set_t set;
    char text[64];

    (void)state;
    assert_int_equal(ipc_cpulist_parse("0-3,8,10-11", &set), 0);
    assert_int_equal(CPU_COUNT(&set), 7);
    ipc_cpulist_format(&set, text, sizeof text);
    assert_string_equal(text, "0-3,8,10-11");
    assert_int_equal(ipc_cpulist_parse("3-1", &set), -EINVAL);
    assert_int_equal(ipc_cpulist_parse("1,x", &set), -EINVAL);
    /* Digits only, as the kernel writes them. */
    assert_int_equal(ipc_cpulist_parse("+1", &set), -EINVAL);
    assert_int_equal(ipc_cpulist_parse("-1", &set), -EINVAL);
    assert_int_equal(ipc_cpulist_parse("0- 2", &set), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_partition_online_cpus),
        cmocka_unit_test(test_private_l2_falls_back_to_llc),
        cmocka_unit_test(test_too_many_groups),
        cmocka_unit_test(test_groups_keep_to_the_given_cpus),
        cmocka_unit_test(test_cpulist_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
