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
 */
#ifndef DANAUS_FUSE_LOOP_H
#define DANAUS_FUSE_LOOP_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 314
#endif
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
};

/* Starts the threads on se, after its INIT, counting its requests as
 * mount's in stats: 0, or -1 with none left. */
int fuse_loop_start(struct fuse_loop *l, struct fuse_session *se,
                    struct stats_table *stats, uint32_t mount);

/* Ends them: se's exit flag is set, then each thread's read is
 * interrupted by SIGUSR1 (installed without SA_RESTART, fuse_door.c)
 * until it has returned. Calls in progress are finished first. */
void fuse_loop_stop(struct fuse_loop *l, struct fuse_session *se);

/* The request the calling thread runs: its unique id as first sent, and
 * in *resent whether this is the kernel sending it again. */
uint64_t fuse_loop_request(bool *resent);

/* The bytes the calling thread's request read or wrote, for its count. */
void fuse_loop_moved(uint64_t bytes_read, uint64_t bytes_written);

#endif
