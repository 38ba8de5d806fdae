/*
 * topology.c - core groups: which cpus share a queue (and the service
 * thread serving it), read from the cache topology in sysfs; and cpu lists
 * as the kernel writes them.
 *
 * A group is the set of the service's cpus sharing one cache of the chosen
 * level (/sys/devices/system/cpu/cpuN/cache/indexM/{level,type,
 * shared_cpu_list}), so a request descriptor and the slot it points at stay
 * in a cache both the client and the service thread hit. Only the cpus the
 * service may run on form groups: a group naming any other cpu would pin a
 * service thread where the operator did not allow it.
 */
#include "ipc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYS_CPU "/sys/devices/system/cpu"
#define MAX_CACHE_INDEX 16

/* Reads a small sysfs file into buf as one NUL-terminated line. */
static int read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "re");
    bool ok;

    if (!f)
        return -errno;
    ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (!ok)
        return -EIO;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* A cpu number at *s (digits only: no sign, no space), or -1. */
static long cpu_number(const char *s, char **end)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    unsigned long n = strtoul(s, end, 10);
    return n > LONG_MAX ? LONG_MAX : (long)n;
}

int ipc_cpulist_parse(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long lo = cpu_number(s, &end), hi = lo;

        if (lo < 0)
            return -EINVAL;
        if (*end == '-') {
            s = end + 1;
            hi = cpu_number(s, &end);
            if (hi < lo)
                return -EINVAL;
        }
        for (long c = lo; c <= hi && c < IPC_MAX_CPUS; c++)
            CPU_SET(c, set);
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -EINVAL;
    }
    return 0;
}

void ipc_cpulist_format(const cpu_set_t *set, char *out, size_t size)
{
    size_t used = 0;

    out[0] = '\0';
    for (int lo = 0; lo < IPC_MAX_CPUS; lo++) {
        int hi = lo, n;

        if (!CPU_ISSET(lo, set))
            continue;
        while (hi + 1 < IPC_MAX_CPUS && CPU_ISSET(hi + 1, set))
            hi++;
        n = hi == lo ? snprintf(out + used, size - used, "%s%d",
                                used ? "," : "", lo)
                     : snprintf(out + used, size - used, "%s%d-%d",
                                used ? "," : "", lo, hi);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
        lo = hi;
    }
}

/* The cpus sharing cpu's data or unified cache of the given level. False
 * when sysfs says nothing about such a cache. */
static bool cache_sharing(int cpu, int level, cpu_set_t *shared)
{
    char path[128], line[4096];

    for (int i = 0; i < MAX_CACHE_INDEX; i++) {
        snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cache/index%d/level",
                 cpu, i);
        if (read_line(path, line, sizeof(line)) < 0)
            return false; /* indexes are numbered without gaps */
        if (atoi(line) != level)
            continue;
        snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cache/index%d/type",
                 cpu, i);
        if (read_line(path, line, sizeof(line)) == 0 &&
            strcmp(line, "Instruction") == 0)
            continue;
        snprintf(path, sizeof(path),
                 SYS_CPU "/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
        if (read_line(path, line, sizeof(line)) < 0 ||
            ipc_cpulist_parse(line, shared) < 0)
            return false;
        return true;
    }
    return false;
}

/* The deepest cache level any of the cpus reports, 0 if none. */
static int last_level(const cpu_set_t *cpus)
{
    int best = 0;

    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++) {
        cpu_set_t shared;

        if (!CPU_ISSET(cpu, cpus))
            continue;
        for (int level = 4; level > best; level--)
            if (cache_sharing(cpu, level, &shared)) {
                best = level;
                break;
            }
    }
    return best;
}

/* level 0: the L2 if some L2 is shared by more than one of the cpus,
 * else the last-level cache (see ipc.h for why). */
static int choose_level(const cpu_set_t *cpus)
{
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++) {
        cpu_set_t shared;

        if (!CPU_ISSET(cpu, cpus) || !cache_sharing(cpu, 2, &shared))
            continue;
        CPU_AND(&shared, &shared, cpus);
        if (CPU_COUNT(&shared) > 1)
            return 2;
    }
    return last_level(cpus);
}

int ipc_core_groups(int level, const cpu_set_t *cpus,
                    uint16_t cpu_queue[IPC_MAX_CPUS], cpu_set_t *groups,
                    int max_groups)
{
    char line[4096];
    cpu_set_t usable, assigned;
    int err, n = 0;

    err = read_line(SYS_CPU "/online", line, sizeof(line));
    if (err == 0)
        err = ipc_cpulist_parse(line, &usable);
    if (err < 0)
        return err;
    CPU_AND(&usable, &usable, cpus);
    if (CPU_COUNT(&usable) == 0)
        return -ENOENT;
    if (level == 0)
        level = choose_level(&usable);

    /* Walk cpus in order; each unassigned one opens a group with the
     * usable, still unassigned cpus sharing its cache (level < 0: none, a
     * group per cpu). Taking only unassigned cpus keeps the result a
     * partition even if sysfs were inconsistent between cpus. */
    CPU_ZERO(&assigned);
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++) {
        cpu_set_t shared;

        if (!CPU_ISSET(cpu, &usable) || CPU_ISSET(cpu, &assigned))
            continue;
        if (n == max_groups)
            return -ENOSPC;
        if (level <= 0 || !cache_sharing(cpu, level, &shared))
            CPU_ZERO(&shared);
        CPU_SET(cpu, &shared);
        CPU_ZERO(&groups[n]);
        for (int c = 0; c < IPC_MAX_CPUS; c++)
            if (CPU_ISSET(c, &shared) && CPU_ISSET(c, &usable) &&
                !CPU_ISSET(c, &assigned)) {
                CPU_SET(c, &groups[n]);
                CPU_SET(c, &assigned);
                cpu_queue[c] = (uint16_t)n;
            }
        n++;
    }
    /* A client may run on any cpu, the service's or not: each still needs
     * a valid queue. */
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++)
        if (!CPU_ISSET(cpu, &usable))
            cpu_queue[cpu] = (uint16_t)(cpu % n);
    return n;
}
