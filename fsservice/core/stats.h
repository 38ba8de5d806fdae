/*
 * stats.h - what the service did for each mount: calls, bytes read and
 * written, and a histogram of service times (wire.h DANAUS_DOOR_STATS),
 * for `danaus stats`, through both doors (a FUSE request is a call).
 * Service and FUSE loop threads count with relaxed atomic adds on a
 * mount's own counters, allocated when it serves its first call; the door
 * thread reads them.
 */
#ifndef DANAUS_STATS_H
#define DANAUS_STATS_H

#include <danaus/wire.h>

#include <stdint.h>

struct mount_stats;

struct stats_table {
    struct mount_stats *_Atomic mount[DANAUS_MAX_INSTANCES];
};

/* Counts one call of mount (DANAUS_CALL_*) that returned result after
 * ns nanoseconds in the service. */
void stats_count(struct stats_table *t, uint32_t mount, uint32_t call,
                 int64_t result, uint64_t ns);
/* Counts one call of mount that took ns and moved those bytes (a FUSE
 * request, whose call is the kernel's, not a DANAUS_CALL_*). */
void stats_add(struct stats_table *t, uint32_t mount, uint64_t ns,
               uint64_t bytes_read, uint64_t bytes_written);
/* Adds mount's counters to out (zeroed by the caller). */
void stats_read(struct stats_table *t, uint32_t mount,
                struct danaus_stats_reply *out);
void stats_free(struct stats_table *t);

#endif
