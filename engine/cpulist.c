/*
 * cpulist.c - cpu lists of the engine (cpulist.h), parsed and printed by
 * ipc/topology.c, as the service's.
 */
#include "cpulist.h"
#include "fail.h"

#include <stdio.h>
#include <string.h>

int cpulist_parse(const char *text, cpu_set_t *set)
{
    if (ipc_cpulist_parse(text, set) < 0)
        return fail("cpu list '%s': expected cpu numbers and ranges such "
                    "as 0-3,8", text);
    if (CPU_COUNT(set) == 0)
        return fail("cpu list '%s' names no cpu below %d", text,
                    IPC_MAX_CPUS);
    return 0;
}

int cpulist_online(cpu_set_t *set)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "re");
    char line[1024];
    if (!f)
        return fail_errno("cannot read /sys/devices/system/cpu/online");
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok)
        return fail("cannot read /sys/devices/system/cpu/online");
    line[strcspn(line, "\n")] = '\0';
    return cpulist_parse(line, set);
}
