/*
 * openfile.h - service-side open-file objects.
 *
 * An open file is what open() creates: the backend's file, the access mode,
 * the status flags and the file offset. Handles (handles.h) point at it;
 * dup'ed and inherited descriptors share one object and so share the offset,
 * as POSIX requires. It is reference-counted: the last handle's close closes
 * the backend file, and the memory goes after an RCU grace period because
 * handle lookups read the pointer without locks.
 */
#ifndef DANAUS_OPENFILE_H
#define DANAUS_OPENFILE_H

#include "fsservice/libservice/libservice.h"
#include "locks.h"
#include "poolcache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <urcu.h>

enum { OPEN_POOL_UNCHECKED, OPEN_POOL_CHECKING, OPEN_POOL_CHECKED };

struct open_file {
    _Atomic long refs;
    struct ls_file *file;
    uint32_t mount;          /* the instance's index: the handle names it */
    _Atomic int flags;       /* O_ACCMODE bits and O_APPEND, O_NONBLOCK */
    pthread_mutex_t pos_lock; /* serializes calls that use and move pos */
    off_t pos;
    /* Record locks: the file's identity in the lock table, found on first
     * need (under pos_lock), and the table holding this open file's OFD or
     * flock locks, if it ever took one: the last put releases them. */
    bool lock_key_known;
    struct lock_key lock_key;
    struct lock_table *_Atomic locks;
    /* An errno a write of pages its client kept back met (writeback.h):
     * the next fsync reports it, once, as Linux reports a failed
     * writeback. */
    _Atomic int writeback_error;
    /* Small PWRITEs to let by before asking the backend again for a hold
     * that lets the client keep writes back (calls_fd.c). */
    _Atomic uint32_t arm_skips;
    /* The pool's page cache (poolcache.h): whether the first read checked
     * its pages against the file (OPEN_POOL_CHECKED), under which version
     * and key, set once before the state says so. */
    _Atomic int pool_state;
    struct poolcache_version pool_version;
    uint64_t pool_key;
    struct rcu_head rcu;
};

/* Takes ownership of file. NULL when out of memory (file is then closed). */
struct open_file *open_file_new(struct ls_file *file, int flags);

/* A new reference, unless the object is already on its way out. Call inside
 * an RCU read-side section. */
bool open_file_tryget(struct open_file *of);

/* Another reference, for a caller that holds one. */
void open_file_get(struct open_file *of);

/* The owner of this open file's OFD or flock locks (kind). */
struct lock_owner open_file_lock_owner(const struct open_file *of, int kind);

/* Drops a reference; the last one releases the open file's OFD and flock
 * locks and closes the backend file. */
void open_file_put(struct open_file *of);

#endif
