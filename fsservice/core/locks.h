/*
 * locks.h - the service's table of record locks, shared by all its clients.
 *
 * Locks are kept per file (struct lock_key: the instance and the backend's
 * dev/ino), so every client that opens a file, by any name, meets the same
 * locks. The semantics are Linux's:
 *  - POSIX and OFD locks cover byte ranges [start, end] (end INT64_MAX: to
 *    the end of the file, however it grows). A read lock conflicts with
 *    another owner's write lock, a write lock with any other owner's lock.
 *    An owner's own locks never conflict: a new lock replaces the owner's
 *    locks under its range (upgrade, downgrade, splitting them), and ranges
 *    of one type that touch are merged. POSIX and OFD locks conflict with
 *    each other, even when one process holds both.
 *  - flock locks cover the whole file and meet only flock locks. Converting
 *    one (shared <-> exclusive) first drops the old one, as Linux does.
 * Owners: a POSIX lock belongs to a client (process), an OFD or flock lock
 * to an open file; the calls layer releases them when those go.
 *
 * Nothing here blocks: a conflicting request answers -EAGAIN and the
 * library retries when it wants to wait. For POSIX waiters the table
 * remembers, for a short while, whom each one waits for, and answers
 * -EDEADLK to a wait that would close a cycle (Linux's deadlock detection).
 * One mutex guards the table: lock calls are short and rare next to I/O.
 *
 * Every lock is charged to the client whose request created it, and a
 * client holds at most client_limit of them; it is charged to that
 * client's uid's share too (shares.h, SHARE_LOCKS), so that many clients
 * of one uid cannot take the table either. Past either bound its requests
 * get -ENOLCK (Linux's answer when lock records run out), so neither one
 * client nor one uid can grow the shared table, and the time every
 * conflict check takes, without bound. Other uids never notice.
 */
#ifndef DANAUS_LOCKS_H
#define DANAUS_LOCKS_H

#include "shares.h"

#include <danaus/wire.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* The identity of a file. */
struct lock_key {
    const void *inst;
    uint64_t dev, ino;
};

/* Who holds a lock: kind is enum danaus_lock_owner; id the client's id for
 * POSIX locks, the open file's address otherwise; pid is what F_GETLK
 * reports for a POSIX lock; client the client asking, which is charged for
 * the locks its request creates (an open file, and so its OFD and flock
 * locks, may be shared by the clients of a forked process), and uid that
 * client's uid, whose share is charged too. */
struct lock_owner {
    int kind;
    uint64_t id;
    int32_t pid;
    uint64_t client;
    uid_t uid;
};

#define LOCK_BUCKETS 256

struct lock_file;
struct lock_waiter;
struct lock_charge;

struct lock_table {
    pthread_mutex_t mutex;
    struct lock_file *buckets[LOCK_BUCKETS];
    struct lock_waiter *waiters; /* POSIX owners retrying a wait */
    struct lock_charge *charges[LOCK_BUCKETS]; /* locks held per client */
    uint64_t nlocks;
    uint32_t client_limit;
    struct shares *shares; /* charged per uid, or NULL: not */
};

/* client_limit: the most locks one client may hold. Set shares to bound
 * them per uid as well. */
void lock_table_init(struct lock_table *t, uint32_t client_limit);
void lock_table_destroy(struct lock_table *t);

/*
 * Sets (F_RDLCK, F_WRLCK) or removes (F_UNLCK) the owner's lock on
 * [start, start + len - 1] (len 0: to the end). For flock owners the range
 * is ignored. wait says the caller will retry a conflict (deadlock
 * detection). 0, -EAGAIN (conflict), -EDEADLK, -EINVAL (bad type, negative
 * start or len), -EOVERFLOW (range past INT64_MAX) or -ENOLCK (memory, or
 * the client's limit: a request that could add locks past it is refused
 * whole, leaving the owner's locks as they were).
 */
int lock_set(struct lock_table *t, const struct lock_key *key,
             const struct lock_owner *owner, int type, int64_t start,
             int64_t len, bool wait);

/* F_GETLK: the first lock (lowest start) of another owner that would
 * conflict with the given one into *out, or out->type F_UNLCK. 0 or
 * -EINVAL / -EOVERFLOW as lock_set. */
int lock_test(struct lock_table *t, const struct lock_key *key,
              const struct lock_owner *owner, int type, int64_t start,
              int64_t len, struct danaus_lock *out);

/* Removes every lock of owner on the file. */
void lock_release(struct lock_table *t, const struct lock_key *key,
                  const struct lock_owner *owner);

/* Whether owner holds any lock on any file. */
bool lock_owner_holds(struct lock_table *t, const struct lock_owner *owner);

/* A client is gone: its POSIX locks on every file, and its wait record. */
void lock_release_client(struct lock_table *t, uint64_t client_id);

#endif
