/*
 * handles.h - a client's table of open-file handles.
 *
 * A handle is an index into this table plus the generation of the entry
 * (DANAUS_HANDLE in wire.h), never a memory address: a closed, stale or
 * forged handle fails the generation check and gives EBADF. Each client has
 * its own table, so no client can name another's files. A table holds at
 * most limit handles, and each is charged to its client's uid's share
 * (shares.h, SHARE_HANDLES) while it lives. Lookups happen on
 * every request and run lock-free under RCU; inserts and removals take the
 * table's mutex.
 */
#ifndef DANAUS_HANDLES_H
#define DANAUS_HANDLES_H

#include "openfile.h"
#include "shares.h"

#include <pthread.h>
#include <stdint.h>

#define HANDLES_MAX 65536 /* open handles per client */

struct handle_array;

struct handle_table {
    pthread_mutex_t lock;
    struct handle_array *arr; /* RCU-published */
    uint32_t *gens;           /* writer-side: generation last used per index */
    uint32_t count;           /* live handles */
    uint32_t free_hint;       /* no free index below this one */
    uint32_t limit;           /* live handles at most (<= HANDLES_MAX) */
    struct shares *shares;    /* charged for each live handle, or NULL */
    uid_t uid;                /* ... under this uid */
};

int handle_table_init(struct handle_table *t);

/* Takes the caller's reference to of. Returns the handle, or -EMFILE (the
 * table holds its limit, or its uid its share) / -ENOMEM (the reference is
 * then still the caller's). */
int64_t handle_insert(struct handle_table *t, struct open_file *of);

/* The open file a handle names, with a new reference, or NULL. */
struct open_file *handle_get(struct handle_table *t, uint64_t handle);

/* Removes the handle and returns its reference to the caller, or NULL. */
struct open_file *handle_remove(struct handle_table *t, uint64_t handle);

/* Copies handles of src into dst, which must be empty, at the same index
 * and generation, each with a new reference: all of them when only is
 * NULL, else the n listed. 0, -EBADF (a listed handle is not live in src),
 * -EBUSY (dst not empty), -EMFILE (past dst's uid's share) or -ENOMEM;
 * dst is left empty on failure. */
int handle_table_copy(struct handle_table *dst, struct handle_table *src,
                      const uint64_t *only, uint32_t n);

/* Drops every handle (client gone) and frees the table. */
void handle_table_destroy(struct handle_table *t);

#endif
