/*
 * topology.c - core groups: which cpus share a queue (and the service
 * thread serving it), read from the cache topology in sysfs.
 *
 * A group is the set of online cpus sharing one cache of the chosen level
 * (/sys/devices/system/cpu/cpuN/cache/indexM/{level,type,shared_cpu_list}),
 * so a request descriptor and the slot it points at stay in a cache both
 * the client and the service thread hit.
 */
#include "ipc.h"

#include <errno.h>
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

/* Parses a kernel cpu list such as "0-3,8,10-11"; cpus at or beyond
 * IPC_MAX_CPUS are ignored. */
static int parse_cpulist(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        unsigned long lo = strtoul(s, &end, 10), hi = lo;

        if (end == s)
            return -EINVAL;
        if (*end == '-') {
            s = end + 1;
            hi = strtoul(s, &end, 10);
            if (end == s || hi < lo)
                return -EINVAL;
        }
        for (unsigned long c = lo; c <= hi && c < IPC_MAX_CPUS; c++)
            CPU_SET(c, set);
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -EINVAL;
    }
    return 0;
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
            parse_cpulist(line, shared) < 0)
            return false;
        return true;
    }
    return false;
}

/* The deepest cache level any online cpu reports, 0 if none. */
static int last_level(const cpu_set_t *online)
{
    int best = 0;

    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++) {
        cpu_set_t shared;

        if (!CPU_ISSET(cpu, online))
            continue;
        for (int level = 4; level > best; level--)
            if (cache_sharing(cpu, level, &shared)) {
                best = level;
                break;
            }
    }
    return best;
}

/* level 0: the L2 if some L2 is shared by more than one cpu, else the
 * last-level cache (see ipc.h for why). */
static int choose_level(const cpu_set_t *online)
{
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++) {
        cpu_set_t shared;

        if (CPU_ISSET(cpu, online) && cache_sharing(cpu, 2, &shared) &&
            CPU_COUNT(&shared) > 1)
            return 2;
    }
    return last_level(online);
}

int ipc_core_groups(int level, uint16_t cpu_queue[IPC_MAX_CPUS],
                    cpu_set_t *groups, int max_groups)
{
    char line[4096];
    cpu_set_t online, assigned;
    int err, n = 0;

    err = read_line(SYS_CPU "/online", line, sizeof(line));
    if (err == 0)
        err = parse_cpulist(line, &online);
    if (err < 0)
        return err;
    if (CPU_COUNT(&online) == 0)
        return -ENOENT;
    if (level == 0)
        level = choose_level(&online);

    /* Walk cpus in order; each unassigned one opens a group with the
     * online, still unassigned cpus sharing its cache. Taking only
     * unassigned cpus keeps the result a partition even if sysfs were
     * inconsistent between cpus. */
    CPU_ZERO(&assigned);
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++) {
        cpu_set_t shared;

        if (!CPU_ISSET(cpu, &online) || CPU_ISSET(cpu, &assigned))
            continue;
        if (n == max_groups)
            return -ENOSPC;
        if (level <= 0 || !cache_sharing(cpu, level, &shared))
            CPU_ZERO(&shared);
        CPU_SET(cpu, &shared);
        CPU_ZERO(&groups[n]);
        for (int c = 0; c < IPC_MAX_CPUS; c++)
            if (CPU_ISSET(c, &shared) && CPU_ISSET(c, &online) &&
                !CPU_ISSET(c, &assigned)) {
                CPU_SET(c, &groups[n]);
                CPU_SET(c, &assigned);
                cpu_queue[c] = (uint16_t)n;
            }
        n++;
    }
    /* A cpu that comes online later still needs a valid queue. */
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++)
        if (!CPU_ISSET(cpu, &online))
            cpu_queue[cpu] = (uint16_t)(cpu % n);
    return n;
}
