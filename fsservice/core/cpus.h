/*
 * cpus.h - the cpus danausd runs on: its affinity at start (within its
 * cgroup cpuset), or the configuration's `cpus`, which must lie inside it.
 */
#ifndef DANAUS_CPUS_H
#define DANAUS_CPUS_H

#include "config.h"

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

/* Fills cpus with the service's cpus and makes them the calling thread's
 * affinity; call before any other thread starts. -1 with a message in err
 * ("CONF:LINE: ..." for a `cpus` naming a cpu the service may not use). */
int service_cpus_fix(const struct config *cfg, const char *conf,
                     cpu_set_t *cpus, char *err, size_t errlen);

/* "cpus 0-3, 2 queues: 0-1 / 2-3" for the ready line. */
void service_cpus_describe(const cpu_set_t *cpus, const cpu_set_t *groups,
                           uint32_t ngroups, char *out, size_t size);

#endif
