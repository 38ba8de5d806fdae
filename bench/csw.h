/*
 * csw.h - context switches of a process, summed over its threads, from
 * /proc/PID/task/TID/status (voluntary_ctxt_switches +
 * nonvoluntary_ctxt_switches).
 *
 * A snapshot keeps the count of each thread, so the switches between two
 * snapshots are counted per thread: a thread that appears in between counts
 * from zero, and one that exits in between drops out instead of making the
 * sum go backwards (its last switches are then missed).
 */
#ifndef BENCH_CSW_H
#define BENCH_CSW_H

#include <stdint.h>
#include <sys/types.h>

#define CSW_MAX_THREADS 1024

struct csw_snap {
    int n;
    pid_t tid[CSW_MAX_THREADS];
    uint64_t count[CSW_MAX_THREADS];
};

/* Takes a snapshot of pid's threads (0: this process). 0 or -errno. */
int csw_snap(pid_t pid, struct csw_snap *s);

/* Switches from before to after, over the threads alive at after. */
uint64_t csw_delta(const struct csw_snap *before, const struct csw_snap *after);

#endif
