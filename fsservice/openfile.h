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

#include "libservice.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <urcu.h>

struct open_file {
    _Atomic long refs;
    struct ls_file *file;
    _Atomic int flags;       /* O_ACCMODE bits and O_APPEND, O_NONBLOCK */
    pthread_mutex_t pos_lock; /* serializes calls that use and move pos */
    off_t pos;
    struct rcu_head rcu;
};

/* Takes ownership of file. NULL when out of memory (file is then closed). */
struct open_file *open_file_new(struct ls_file *file, int flags);

/* A new reference, unless the object is already on its way out. Call inside
 * an RCU read-side section. */
bool open_file_tryget(struct open_file *of);

void open_file_put(struct open_file *of);

#endif
