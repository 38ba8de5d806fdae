/*
 * cpus.c - the cpus danausd runs on (cpus.h).
 *
 * The set is fixed once, at start, before any thread exists: what the
 * service may run on (sched_getaffinity, which the kernel already keeps
 * within the cgroup cpuset: checked by experiment on cgroup v1 here, a task
 * in a cpuset of cpu 0 reads affinity 0 and is refused cpu 1), narrowed to
 * the configuration's `cpus` if set. The main thread takes it as its
 * affinity, and every thread created after inherits it (Linux copies the
 * creator's mask): libcephfs's, the FUSE loop's, the door's. Service
 * threads narrow it further to their core group. Nothing ever widens it.
 */
#include "cpus.h"

#include "ipc/ipc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int service_cpus_fix(const struct config *cfg, const char *conf,
                     cpu_set_t *cpus, char *err, size_t errlen)
{
    cpu_set_t allowed, outside;
    char have[256], want[256];

    if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
        snprintf(err, errlen, "cannot read the cpu affinity: %s",
                 strerror(errno));
        return -1;
    }
    *cpus = allowed;
    if (cfg->cpus_line) {
        CPU_XOR(&outside, &cfg->cpus, &allowed);
        CPU_AND(&outside, &outside, &cfg->cpus);
        if (CPU_COUNT(&outside) > 0) {
            ipc_cpulist_format(&cfg->cpus, want, sizeof want);
            ipc_cpulist_format(&allowed, have, sizeof have);
            snprintf(err, errlen,
                     "%s:%d: cpus %s: danausd may run on cpus %s only",
                     conf, cfg->cpus_line, want, have);
            return -1;
        }
        *cpus = cfg->cpus;
    }
    if (sched_setaffinity(0, sizeof *cpus, cpus) < 0) {
        snprintf(err, errlen, "cannot keep to cpus: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void service_cpus_describe(const cpu_set_t *cpus, const cpu_set_t *groups,
                           uint32_t ngroups, char *out, size_t size)
{
    char list[256];
    size_t used;

    ipc_cpulist_format(cpus, list, sizeof list);
    used = (size_t)snprintf(out, size, "cpus %s, %u queues:", list, ngroups);
    for (uint32_t i = 0; i < ngroups && used < size; i++) {
        ipc_cpulist_format(&groups[i], list, sizeof list);
        used += (size_t)snprintf(out + used, size - used, "%s%s",
                                 i ? " / " : " ", list);
    }
}
