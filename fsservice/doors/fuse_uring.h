/*
 * fuse_uring.h - the FUSE door's requests through io_uring, a queue per
 * cpu (Linux's FUSE over io_uring, 6.14 on).
 *
 * Read from /dev/fuse, a request wakes whichever door thread has waited
 * longest, on whatever cpu it slept, and its answer wakes the program on
 * its own: two wake-ups of idle cpus per request, which on a virtual
 * machine cost more than the request's work (docs/performance.md, "The
 * FUSE door's floor"). Over io_uring the kernel puts a request on the
 * queue of the cpu its program runs on; each queue has its own threads,
 * kept on that cpu, so a program and the thread serving it hand the cpu
 * to each other without waking another.
 *
 * Each thread owns a ring and one entry of its queue: a header buffer
 * (the request's fuse_in_header and first argument in, the answer's
 * fuse_out_header out) and a payload buffer (the other arguments, either
 * way). The thread registers the entry, waits for its request, runs it
 * through the door's usual path (fuse_loop_run) and, with the answer libfuse
 * wrote (fuse_uring_answer), commits it and asks for the next in one
 * command. Forgets, interrupts and notifications still go through
 * /dev/fuse, whose threads stay.
 *
 * The kernel takes the ring's queues only once every possible cpu has an
 * entry; until then, and if registering fails (the fuse module's
 * enable_uring is off, an older kernel), requests come through /dev/fuse
 * as before. Once INIT agreed to io_uring, though, every request waits
 * for the queues to be ready: a queue that will get no entry must make
 * the kernel give io_uring up (refuse() in fuse_uring.c).
 *
 * A crash cannot be hidden as it is for /dev/fuse (fuse_keeper.h): when
 * a thread dies the kernel cancels its ring's commands, ending (or
 * leaving unanswered) the requests its entries held, and queues new
 * requests behind entries nobody serves; a successor cannot commit
 * answers into a dead process's buffers. So such a mount is kept only
 * until its service dies, then detached (KEPT_UNTIL_DEATH), and opt-in
 * (config fuse_io_uring).
 */
#ifndef DANAUS_FUSE_URING_H
#define DANAUS_FUSE_URING_H

#include "fuse_loop.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct fuse_uring;

/* Whether this kernel lets a FUSE connection take requests over io_uring
 * (the fuse module's enable_uring parameter). */
bool fuse_uring_allowed(void);

/* Edits the INIT answer in out (len bytes: fuse_out_header, then
 * fuse_init_out) to offer io_uring, and notes the payload size its
 * entries need in *payload. */
void fuse_uring_offer(void *out, size_t len, size_t *payload);

/* Starts the threads of every queue on l's connection fd, entries of
 * payload bytes; *out NULL when the kernel refused (said on stderr). 0,
 * or -ENOMEM. */
int fuse_uring_start(struct fuse_loop *l, int fd, size_t payload,
                     struct fuse_uring **out);
/* Stops the threads (their entries go with their rings) and frees u. */
void fuse_uring_stop(struct fuse_uring *u);

/* When the calling thread serves a request from its ring with this
 * unique id: takes the answer (iov, count, as libfuse would write it to
 * /dev/fuse) for the commit, and returns its length. -1 otherwise: the
 * answer goes to /dev/fuse. */
ssize_t fuse_uring_answer(uint64_t unique, const struct iovec *iov, int count);

#endif
