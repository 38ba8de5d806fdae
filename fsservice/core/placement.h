/*
 * placement.h - a service thread runs a long call on its client's cpu.
 *
 * A crew's threads may run on any cpu of their core group, and the
 * scheduler places them. For a call that may keep the thread long
 * (call_may_block: a 1 MiB write, an fsync, a name-space change) the
 * thread moves to the cpu the client posted from, and back after
 * (placement.c says why). Moves stay within the cpus the thread had when
 * it left them (its home), which never widen: if someone changes the
 * thread's cpus while it is away (taskset on the service), what they set
 * becomes its cpus. A thread started by a moved thread inherits its one
 * cpu for good, so none may start inside a long call: liburcu's call_rcu
 * thread, which the first call_rcu would start, is started with the
 * crews (workers.c).
 *
 * After a short call, a thread that finds its client waiting on its own
 * cpu steps aside to another cpu (placement.c says why).
 *
 * Each service thread has one placement, used by that thread only; a
 * placement of zeros is at home.
 */
#ifndef DANAUS_PLACEMENT_H
#define DANAUS_PLACEMENT_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct placement {
    cpu_set_t home; /* the thread's cpus before it moved */
    int moved_to;   /* the one cpu it moved to, plus 1; 0 at home */
};

/* Moves the thread to the cpu of a client's mark (cpu + 1, 0 unknown) if
 * that cpu is one of group's and of the thread's, and the thread has two
 * or more. True when it moved. */
bool placement_follow(struct placement *p, const cpu_set_t *group,
                      uint32_t mark);

/* Back to the home cpus (nothing if at home). */
void placement_go_home(struct placement *p);

/* After a short call whose client waits on this thread's cpu (mark, as
 * above): moves the thread to another of its cpus that is one of group's,
 * and gives it back all of its cpus there, if those other cpus were idle
 * half the time since the thread last looked, or the client has waited on
 * this cpu after every call since the last look; and it did not look in the
 * last 10 ms. True when it moved. A forged mark moves a thread no more
 * often, and only among its own cpus. */
bool placement_step_aside(const cpu_set_t *group, uint32_t mark);

/* Whether the cpus of group this thread may use, other than the one of a
 * client's mark, were free for it nearly all the time lately (7/8): idle,
 * or running this thread. Looked at once per 10 ms at most; the last
 * answer in between, and while the cpus looked at change. A bulk write
 * runs beside its client only then (workers.c). */
bool placement_others_free(const cpu_set_t *group, uint32_t mark);

/* Idle time (idle and iowait) of the cpus of set, in clock ticks, from a
 * text in /proc/stat's form; cpus without a line count nothing. */
uint64_t placement_idle_ticks(FILE *proc_stat, const cpu_set_t *set);

#endif
