/*
 * lease.h - leases for the local backend's cached files (lease.c).
 */
#ifndef DANAUS_LOCAL_LEASE_H
#define DANAUS_LOCAL_LEASE_H

#include "cred.h"
#include "fsservice/libservice/libservice.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The real-time signal lease breaks arrive by, at the breaker thread
 * alone (started by local_backend_enable_cache, local.h). */
#define LOCAL_LEASE_SIGNAL (SIGRTMIN + 7)

/* What a descriptor's holds need, learned at its open: the lease its
 * access mode takes, the key of its file, and whether it ever took a
 * lease (else it holds none: no need to ask). */
struct local_lease {
    int type;     /* F_RDLCK or F_WRLCK; -1: none (not a regular file) */
    uint64_t key; /* the file's, in announcements */
    _Atomic bool signalled;
};

/* For a descriptor of a file of attributes st opened with flags. */
void local_lease_init(struct local_lease *l, const struct danaus_stat *st,
                      int flags);

/* ls_ops.cache_hold on a descriptor: 1 with *key while it holds a read
 * lease, LS_HOLD_WRITES while it holds a write lease (a descriptor open
 * for writing), taking one if it can, else 0. */
int local_lease_hold(int fd, struct local_lease *l, uint64_t *key);

/* Before fd closes: gives up the lease it may hold, which a copy of the
 * descriptor elsewhere (the keeper's, core/kept.h) would keep alive. */
void local_lease_end(int fd, struct local_lease *l);

#endif
