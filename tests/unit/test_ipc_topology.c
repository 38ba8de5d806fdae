/*
 * test_ipc_topology.c - core groups: every online cpu in exactly one group,
 * cpu_queue agreeing with the groups, and the grouping this machine's
 * caches call for.
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

static void check_partition(int level)
{
    cpu_set_t all;
    int n, total = 0;

    n = ipc_core_groups(level, cpu_queue, groups, IPC_MAX_QUEUES);
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
    for (int level = 0; level <= 3; level++)
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
    assert_int_equal(ipc_core_groups(0, cpu_queue, groups, IPC_MAX_QUEUES),
                     1);
    assert_true(CPU_ISSET(0, &groups[0]) && CPU_ISSET(1, &groups[0]));
    assert_int_equal(cpu_queue[0], 0);
    assert_int_equal(cpu_queue[1], 0);

    assert_int_equal(ipc_core_groups(2, cpu_queue, groups, IPC_MAX_QUEUES),
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
    n = ipc_core_groups(2, cpu_queue, groups, IPC_MAX_QUEUES);
    assert_true(n >= 1);
    if (n == 1)
        skip();
    assert_int_equal(ipc_core_groups(2, cpu_queue, groups, n - 1), -ENOSPC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_partition_online_cpus),
        cmocka_unit_test(test_private_l2_falls_back_to_llc),
        cmocka_unit_test(test_too_many_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
