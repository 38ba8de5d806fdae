/*
 * csw.c - per-thread context-switch snapshots of a process (see csw.h).
 */
#include "csw.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* voluntary + nonvoluntary switches of one thread, or -1. */
static long long thread_switches(const char *dir, const char *tid)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/status", dir, tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[256];
    long long sum = 0;
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long v;
        if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1 ||
            sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1) {
            sum += (long long)v;
            seen++;
        }
    }
    fclose(f);
    return seen == 2 ? sum : -1;
}

int csw_snap(pid_t pid, struct csw_snap *s)
{
    char dir[64];
    if (pid == 0)
        snprintf(dir, sizeof dir, "/proc/self/task");
    else
        snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    s->n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && s->n < CSW_MAX_THREADS) {
        if (e->d_name[0] == '.')
            continue;
        /* A thread may exit between readdir and the read of its status. */
        long long c = thread_switches(dir, e->d_name);
        if (c < 0)
            continue;
        s->tid[s->n] = (pid_t)atoi(e->d_name);
        s->count[s->n] = (uint64_t)c;
        s->n++;
    }
    closedir(d);
    return 0;
}

uint64_t csw_delta(const struct csw_snap *before, const struct csw_snap *after)
{
    uint64_t sum = 0;
    for (int i = 0; i < after->n; i++) {
        uint64_t base = 0;
        for (int j = 0; j < before->n; j++) {
            if (before->tid[j] == after->tid[i]) {
                base = before->count[j];
                break;
            }
        }
        if (after->count[i] >= base)
            sum += after->count[i] - base;
    }
    return sum;
}
