/*
 * cpulist.h - cpu lists as Linux writes them ("0-3,8,10-11"): the --cpus of
 * a pool, cpuset.cpus, and Cpus_allowed_list.
 */
#ifndef ENGINE_CPULIST_H
#define ENGINE_CPULIST_H

#include "ipc/ipc.h"

#include <sched.h>
#include <stddef.h>

/* 0, or -1 (fail.h) naming what is wrong with the list. Printed with
 * ipc_cpulist_format (ipc/ipc.h). */
int cpulist_parse(const char *text, cpu_set_t *set);
/* The host's online cpus (/sys/devices/system/cpu/online). */
int cpulist_online(cpu_set_t *set);

#endif
