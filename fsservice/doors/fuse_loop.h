/*
 * fuse_loop.h - the threads that serve one FUSE export.
 *
 * Each reads a request from the export's connection and has libfuse run
 * it, noting first which request it is: its unique id, and whether the
 * kernel sent it again after the service that took it died
 * (FUSE_NOTIFY_RESEND marks such ids). Operations ask (fuse_loop_request)
 * to answer a request already done from the log of done requests
 * (fuse_done.h) rather than do it twice. libfuse's own loop keeps the id
 * to itself.
 *
 * A thread inside a long call weighs as the preload's service threads do
 * in theirs (cpugroups.h): in a cpu group of its requester's uid, from
 * when the request's credentials are known (fuse_loop_caller) until it
 * is answered. Long is what workers.c counts long (blocking.h), judged
 * from the request's header and arguments as the preload's call it
 * stands for: an fsync, a read or write of BLOCKING_BYTES or more, a
 * lock, a truncate or fallocate, and on an instance whose name space is
 * not the host kernel's (Ceph) every change of names or attributes.
 */
#ifndef DANAUS_FUSE_LOOP_H
#define DANAUS_FUSE_LOOP_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 314
#endif
#include "fsservice/core/cpugroups.h"
#include "fsservice/core/stats.h"

#include <fuse3/fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* Enough for calls blocked in a backend not to hold up the others. */
#define FUSE_LOOP_THREADS 8

struct fuse_loop {
    pthread_t threads[FUSE_LOOP_THREADS];
    int n;
    struct fuse_session *se;
    /* Where each request is counted (stats.h): the service's table, and
     * the export's mount index. */
    struct stats_table *stats;
    uint32_t mount;
    /* Where its long calls run, and whether the host's kernel keeps the
     * instance's name space (ls_instance.kernel_name_space). */
    struct cpu_groups *groups;
    bool kernel_name_space;
};

/* Starts the threads on se, after its INIT, counting its requests as
 * mount's in stats, their long calls in groups (NULL: none): 0, or -1
 * with none left. Called by a thread that is no cpu_groups member. */
int fuse_loop_start(struct fuse_loop *l, struct fuse_session *se,
                    struct stats_table *stats, uint32_t mount,
                    struct cpu_groups *groups, bool kernel_name_space);

/* Ends them: se's exit flag is set, then each thread's read is
 * interrupted by SIGUSR1 (installed without SA_RESTART, fuse_door.c)
 * until it has returned. Calls in progress are finished first. */
void fuse_loop_stop(struct fuse_loop *l, struct fuse_session *se);
/* Interrupts thread's wait (SIGUSR1, as above) until it has ended, and
 * joins it: for a thread that checks, after each wait, whether to end. */
void fuse_loop_interrupt_join(pthread_t thread);

/* Runs one request, buf (n bytes as read from the connection), on the
 * calling thread as the loop's threads do: for threads of l's that
 * receive requests another way (fuse_uring.h), between fuse_loop_join
 * (by a thread that is no cpu_groups member) and fuse_loop_leave. */
void fuse_loop_run(struct fuse_loop *l, const struct fuse_buf *buf, size_t n);
void fuse_loop_join(struct fuse_loop *l);
void fuse_loop_leave(void);

/* The request the calling thread runs: its unique id as first sent, and
 * in *resent whether this is the kernel sending it again. */
uint64_t fuse_loop_request(bool *resent);

/* The calling thread's request runs for uid (the pool's ids, as the
 * preload's clients are counted): if it is long, the thread waits in
 * uid's cpu group until it is answered. */
void fuse_loop_caller(int64_t uid);

/* The bytes the calling thread's request read or wrote, for its count. */
void fuse_loop_moved(uint64_t bytes_read, uint64_t bytes_written);

#endif
