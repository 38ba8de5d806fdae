/*
 * shares.h - fair shares of the service's bounded resources, per uid.
 *
 * Clients attached, slots, fork/exec tickets, connections that have not
 * said hello yet, open handles, record locks and service threads inside
 * long calls are each bounded
 * service-wide (total), per uid (per_uid) and per client or process where
 * the caller says so. First come, first served would let one uid take them
 * all; instead:
 *
 *   - no uid holds more than per_uid of a kind;
 *   - root (uid 0) and the service's owner are each kept a reserve: a take
 *     by anyone else must leave enough free for each of them to reach
 *     `reserve` of that kind, counting what it holds already. So the
 *     owner's next process, and root's, always get in, whatever other uids
 *     hold; neither can use the other's reserve either.
 *
 * The uid is the peer's as the kernel says it (SO_PEERCRED), never a
 * claim. The door thread takes and gives the first four kinds, service
 * threads the handles, locks and threads (each pool of threads has a
 * table of its own): one mutex guards a table.
 */
#ifndef DANAUS_SHARES_H
#define DANAUS_SHARES_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

enum share_kind {
    SHARE_CLIENTS, /* attachments (hellos answered) */
    SHARE_SLOTS,   /* slots owned */
    SHARE_TICKETS, /* fork/exec tickets not yet claimed */
    SHARE_PENDING, /* connections without a hello */
    SHARE_HANDLES, /* open handles (handles.h) */
    SHARE_LOCKS,   /* record locks (locks.h) */
    SHARE_THREADS, /* service threads inside long calls (threadshares.h) */
    SHARE_KINDS
};

struct share_bound {
    uint32_t total, per_uid, reserve;
};

struct share;

#define SHARE_BUCKETS 256

struct shares {
    pthread_mutex_t lock;
    struct share *bucket[SHARE_BUCKETS];
    _Atomic uint32_t used[SHARE_KINDS];
    struct share_bound bound[SHARE_KINDS];
    uid_t owner; /* the service's owner; may be 0 (then root alone) */
};

void shares_init(struct shares *s, uid_t owner);
void shares_free(struct shares *s);

/* Sets kind k's bounds; per_uid and reserve are cut to total. */
void shares_bound(struct shares *s, enum share_kind k, uint32_t total,
                  uint32_t per_uid, uint32_t reserve);

/* One more of kind k for uid: 0, -EUSERS when uid holds its per_uid, or
 * -EAGAIN when the rest is taken or kept for root and the owner. */
int share_take(struct shares *s, enum share_kind k, uid_t uid);

/* How many more of kind k uid may take now, by share_take's rules. */
uint32_t share_room(struct shares *s, enum share_kind k, uid_t uid);

/* One of kind k back from uid (which must hold one). */
void share_give(struct shares *s, enum share_kind k, uid_t uid);

/* How many of kind k uid holds. */
uint32_t share_held(const struct shares *s, enum share_kind k, uid_t uid);

#endif
