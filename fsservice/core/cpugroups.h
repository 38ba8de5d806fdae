/*
 * cpugroups.h - cpu cgroups for the service threads inside long calls.
 *
 * The service's threads run at nice -10, so that clients spinning on its
 * cpus cannot take the time it needs to answer others. A thread inside a
 * long call (workers.c: fsyncs, bulk transfers, every call of a client
 * slow lately; fuse_loop.c: the FUSE door's, for programs without the
 * preload, judged as the preload's call each stands for) is one of
 * those too, and a uid may have half of a queue's threads in them (and
 * the FUSE door's threads of each mount besides): each of them a
 * scheduling entity of nice -10's weight, beside which a round trip of
 * another client (its own process and the service thread that answers
 * it) waits for the cpu a slice at a time.
 * So, where the service may make groups in the cpu controller's
 * hierarchy (cgroup v1), each thread runs its long calls inside a group
 * of its client's uid, under one group of all long calls, below the
 * service's own group:
 *
 *   SERVICE/danausd.PID/        cpu.shares: long_calls_cpu_shares
 *   SERVICE/danausd.PID/uid.N/  cpu.shares: 1024, the same for every uid
 *
 * The scheduler then weighs all long calls together as one task of that
 * weight beside the service's other threads and SERVICE's other tasks,
 * and divides that between the uids with calls in it equally, whatever
 * number of threads each has there. A thread leaves its group when its
 * long calls end, before it watches a queue again.
 *
 * Moving a thread is a write of its tid into a group's tasks file, which
 * takes a lock of the whole host's cgroups and, when moves are rare, waits
 * for an RCU grace period first (milliseconds). So no thread moves itself:
 * it says where it wants to be (cpu_groups_want) and one mover thread
 * moves it, without holding up its call, and moves nothing when the
 * thread came back to where it was before the mover got to it.
 *
 * A uid's group is made at its first long call and removed once no
 * thread has been in it for a second; at most CPU_UID_GROUPS at once,
 * the uids past them sharing one more group ("uid.other"). At stop every
 * group is emptied into SERVICE and removed; at start, the groups a killed
 * danausd left (danausd.PID of a pid that no longer runs) are removed.
 *
 * Without a cpu controller in a v1 hierarchy (cgroup v2 alone), without
 * the right to make groups in the service's group (not root, nothing
 * delegated), or with long_calls_cpu_shares 0, no group is made, the log
 * says why once, and long calls run where every thread runs.
 */
#ifndef DANAUS_CPUGROUPS_H
#define DANAUS_CPUGROUPS_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CPU_HOME (-1)     /* the service's own group */
#define CPU_UNKNOWN (-2)  /* not known: a thread started inside a group */
#define CPU_OTHER (-3)    /* the uids past CPU_UID_GROUPS */
#define CPU_UID_GROUPS 64

struct cpu_groups;

/* A thread that may move: one per service thread that runs long calls,
 * used by that thread (want) and the mover (at). */
struct cpu_member {
    struct cpu_groups *g;
    pid_t tid;
    _Atomic int64_t want; /* a uid, or CPU_HOME */
    _Atomic int64_t at;   /* where the mover put it last */
    _Atomic bool moving;  /* the mover is writing its tid (lock held to set) */
    struct cpu_member *next;
};

struct cpu_uid_group {
    int64_t uid;         /* CPU_HOME: a free entry */
    uint64_t idle_since; /* ipc_now_ns when it was seen empty first; 0 */
};

struct cpu_groups {
    bool on;
    char dir[PATH_MAX];  /* SERVICE/danausd.PID */
    char home[PATH_MAX]; /* SERVICE */
    int home_tasks;
    pthread_mutex_t lock; /* over members and each member's moving */
    pthread_cond_t moved;
    struct cpu_member *members;
    struct cpu_uid_group uids[CPU_UID_GROUPS + 1]; /* the mover's; + other */
    _Atomic uint32_t kick;
    _Atomic bool sleeping; /* the mover waits on kick */
    _Atomic bool stop;
    pthread_t mover;
};

/* Makes the groups (shares for all long calls together; 0: none) under
 * the cpu hierarchy's root mount (NULL: the one mounted, as
 * /proc/self/mountinfo says) and starts the mover. Fails only for want of
 * memory or a thread; a service that may not make groups runs without
 * them (on false). */
int cpu_groups_start(struct cpu_groups *g, uint32_t shares);

/* Stops the mover, moves every thread still in a group back to the
 * service's group and removes the groups. */
void cpu_groups_stop(struct cpu_groups *g);

/* The calling thread joins g (nothing when g is off). home: whether it
 * surely runs in the service's group now (cpu_groups_at_home of the
 * thread that started it); otherwise the mover puts it there. */
void cpu_groups_join(struct cpu_groups *g, struct cpu_member *m, bool home);

/* Before the calling thread ends. */
void cpu_groups_leave(struct cpu_member *m);

/* The calling thread wants to be in uid's group, or CPU_HOME. */
void cpu_groups_want(struct cpu_member *m, int64_t uid);

/* Whether the calling thread (m, NULL when not a member) is surely in
 * the service's group now: a thread it starts will be. */
bool cpu_groups_at_home(struct cpu_member *m);

#endif
