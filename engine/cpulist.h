/*
 * cpulist.h - cpu lists as Linux writes them ("0-3,8,10-11"): the --cpus of
 * a pool, cpuset.cpus, and Cpus_allowed_list.
 */
#ifndef ENGINE_CPULIST_H
#define ENGINE_CPULIST_H

#include <sched.h>
#include <stddef.h>

/* 0, or -1 (fail.h) naming what is wrong with the list. */
int cpulist_parse(const char *text, cpu_set_t *set);
/* The canonical form of set, "0-1,3". */
void cpulist_format(const cpu_set_t *set, char *out, size_t size);
/* The host's online cpus (/sys/devices/system/cpu/online). */
int cpulist_online(cpu_set_t *set);

#endif
