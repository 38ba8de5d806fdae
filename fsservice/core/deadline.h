/*
 * deadline.h - a per-request deadline: a request still running in its
 * backend after request_deadline_ms is answered with ETIMEDOUT by the
 * service's watch, and its thread, when the backend returns, finds it
 * answered and answers nothing.
 *
 * Each service thread owns a record of the request it runs, listed in a
 * struct deadlines that the watch (workers.c) scans every tick. fsync is
 * exempt unless request_deadline_fsync is on (waiting out a slow flush is
 * better than an unknown outcome), and lock calls always are (F_SETLKW
 * waits by design).
 *
 * The client that gets ETIMEDOUT gives its slot back and takes another
 * (libfs/call.c), since the late call may still write into the slot's
 * buffer; the slot stays out of use until that thread leaves it (client.c
 * frees a released slot only when no request is in flight on it). The
 * outcome of a call answered so is unknown: it may still take effect.
 */
#ifndef DANAUS_DEADLINE_H
#define DANAUS_DEADLINE_H

#include "ipc/ipc.h"

#include <danaus/wire.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct call_record {
    /* generation << 1 | running: the watch answers a request only if the
     * word still names the one it looked at. */
    _Atomic uint64_t word;
    _Atomic uint64_t start_ns;
    struct ipc_slot *_Atomic slot; /* in the client's area, which the
                                      running request's reference keeps */
    _Atomic uint32_t seq, call;
    struct call_record *next;
};

struct deadlines {
    pthread_mutex_t lock; /* the list */
    struct call_record *records;
    uint64_t limit_ns; /* 0: no deadline */
    bool fsync;        /* fsync has the deadline too */
};

void deadlines_init(struct deadlines *ds, uint32_t limit_ms, bool fsync);
void deadlines_destroy(struct deadlines *ds);

/* A service thread's record, from its start to its end. */
void deadline_register(struct deadlines *ds, struct call_record *r);
void deadline_unregister(struct deadlines *ds, struct call_record *r);

/* Around one request (seq of call, answered in slot): deadline_end is true
 * when the thread should answer it, false when the watch already has. */
void deadline_begin(struct call_record *r, struct ipc_slot *slot,
                    uint32_t seq, uint32_t call);
bool deadline_end(struct call_record *r);

/* How long the oldest request running now has run (0: none), lock calls
 * left out (they wait by design). */
uint64_t deadlines_oldest_ns(struct deadlines *ds, uint64_t now_ns);

/* Whether call has no deadline (lock calls; fsync unless set so). */
bool deadline_exempt(const struct deadlines *ds, uint32_t call);

/* Answers every request past its deadline; returns how many. */
int deadlines_expire(struct deadlines *ds);

#endif
