/*
 * thread.h - per-thread state: each thread that sends requests owns one slot
 * of the segment (its answer word and bulk buffer), asked of the service on
 * the thread's first request and given back when the thread exits.
 */
#ifndef LIBFS_THREAD_H
#define LIBFS_THREAD_H

#include "service.h"

#include <stdint.h>

struct thread_state {
    uint64_t generation; /* of the connection the slot belongs to */
    uint32_t slot;
    uint32_t queue; /* ring of the core group the thread last ran on */
    uint32_t seq;   /* of the last request sent */
};

/* This thread's state with a slot, its queue refreshed from the cpu it runs
 * on; NULL with errno set (ENOTCONN, or the service's SLOT_GET error). A
 * thread that finds no slot free (EAGAIN: its process's, or its uid's
 * share, taken) waits for one up to SLOT_WAIT_MS, asking again now and
 * then, before its call fails with EAGAIN. */
struct thread_state *thread_get(const struct service *svc);

/* In a forked child: the calling thread's slot is its parent's; forget it
 * (without giving it back) so the next request asks for one of its own. */
void thread_forget(void);

/* After the service answered ETIMEDOUT (its request deadline): the late
 * call may still write into this slot's buffer, so give the slot back (the
 * service keeps it out of use until that call ends) and take a fresh one
 * at the next request. */
void thread_drop_slot(void);

#endif
