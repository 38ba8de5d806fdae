/*
 * threadshares.h - fair shares of the service threads inside long calls.
 *
 * A call that may keep its thread long (workers.c: fsyncs, bulk transfers
 * beside other clients, name-space changes on a remote backend, calls
 * waiting for the pool's backend rate, every call of a client slow
 * lately) runs on a thread of its own while another watches the queue,
 * and a queue has threads_per_queue + stalled_threads_per_queue of them.
 * First come, first served, one uid's clients could hold every one of
 * them, and another uid's stat would find no thread to take it. So the
 * threads of each queue, and the sweeper's, are shared as shares.h shares
 * everything else (SHARE_THREADS): a uid holds at most half of them, and
 * root and the owner are each kept a reserve. A client has no share of
 * its own below its uid's: one process's parallel fsyncs may use all of
 * it. A long call past its uid's share waits its turn here, without a
 * thread, already begun (its slot taken, its descriptor copied:
 * client.h); the thread that ends a long call of the same pool runs the
 * first waiting call that may have a thread then, and the deadline watch
 * answers one that waited past request_deadline_ms (deadline.h). Short
 * calls take no share: no more than threads_per_queue threads run them at
 * once, and they end quickly.
 */
#ifndef DANAUS_THREADSHARES_H
#define DANAUS_THREADSHARES_H

#include "client.h"
#include "deadline.h"
#include "shares.h"

#include <danaus/wire.h>
#include <pthread.h>
#include <stdint.h>

/* A long call, begun: its client (a reference), bell, descriptor and
 * client_cpu hint (each read once, client.h), and when the pool's rate on
 * its backend has paid for it (ipc_now_ns; 0: it need not wait). */
struct long_call {
    struct client *c;
    struct ipc_bell b;
    struct danaus_desc d;
    uint32_t mark;
    bool weighed; /* run in its uid's cpu group (workers.c) */
    uint64_t admit_at;
    uint64_t since;         /* ipc_now_ns when it began to wait */
    struct long_call *next; /* while it waits */
};

struct thread_shares {
    pthread_mutex_t lock; /* over the shares and the waiting line */
    struct shares uids;   /* SHARE_THREADS per uid */
    struct long_call *first, *last; /* waiting, oldest first */
};

/* A pool of threads threads; owner as shares_init's. */
void thread_shares_init(struct thread_shares *t, uid_t owner,
                        uint32_t threads);
/* Drops the calls still waiting (ended unanswered, as at a stop). */
void thread_shares_free(struct thread_shares *t);

/* A thread for call: 1, its share taken; 0 when it waits its turn (the
 * pool keeps a copy, with call's reference); -ENOMEM. */
int thread_shares_enter(struct thread_shares *t, const struct long_call *call);

/* The long call of c on this thread has ended: its share back. Returns
 * the first waiting call that may have a thread now, its share taken
 * (the caller runs it, then leaves for it, and frees it), or NULL. */
struct long_call *thread_shares_leave(struct thread_shares *t,
                                      const struct client *c);

/* Takes out of the line the calls that waited past ds's deadline at now
 * (those deadline_exempt leaves out stay): a list through next, for the
 * caller to answer and free; NULL when none. */
struct long_call *thread_shares_expire(struct thread_shares *t,
                                       const struct deadlines *ds,
                                       uint64_t now);

#endif
