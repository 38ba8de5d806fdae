/*
 * admission.h - a pool's share of its backend's servers.
 *
 * Each pool has a service of its own, but the pools of a host share one
 * Ceph cluster: its MDS journals every pool's name-space changes in one
 * queue, its OSDs write every pool's data through one queue each. A
 * tenant whose load fills those queues slows every other tenant's calls
 * that must wait on them (fsyncs, creates, flushed writes), however well
 * their clients are kept apart (docs/performance.md, issue 15). The operator bounds a
 * pool's load on the backend with two token buckets (config
 * backend_ops_per_second, backend_write_bytes_per_second): a call that
 * changes the name space or syncs costs an op, a write its bytes. A call
 * that finds its bucket short waits, on a thread of its own (workers.c
 * hands the queue on first), until the pool's rate pays for it; the
 * calls a cache answers (stat, reads, lookups) cost nothing and never
 * wait. The pool's clients share its rate in the order their calls come,
 * as the processes of one cgroup share its io.max: one busy container
 * can use all of it. A write is charged by its claimed length, bounded by
 * the slot buffer, so a client cannot run up the debt with requests that
 * the service refuses anyway. The FUSE door's calls take from the same
 * buckets (fsservice/doors/fuse_ops.c), each by the FUSE operation that
 * does what the charged request would. A third bucket, in tokens that
 * weigh both kinds of load, holds the pool to its fair share of the
 * backend while another pool waits for its own (fairshare.h); it has no
 * rate, and costs nothing, while the pool is alone.
 */
#ifndef DANAUS_ADMISSION_H
#define DANAUS_ADMISSION_H

#include <danaus/wire.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Tokens are counted in millionths, so that a rate of a few per second
 * accrues between two looks a few microseconds apart. */
struct bucket {
    pthread_mutex_t lock;
    _Atomic uint64_t rate; /* tokens per second; 0: no limit */
    int64_t micro;    /* tokens * 1e6; below 0 while callers wait */
    int64_t burst;    /* most micro-tokens saved up */
    uint64_t at_ns;   /* when micro was last brought up to date */
};

/* The pool's fair share of the backend (fairshare.h) is counted in one
 * unit for both kinds of load: a token is 4 KiB written, and a call that
 * makes the servers answer weighs as much as 256 KiB written, so that a
 * pool of creates and a pool of large writes compare. */
#define ADMISSION_OP_TOKENS 64
#define ADMISSION_TOKEN_BYTES 4096

struct admission {
    struct bucket ops;   /* name-space changes and syncs */
    struct bucket bytes; /* bytes written */
    struct bucket share; /* tokens: the pool's fair share; 0: none */
    /* Calls that waited, since the start: for the fair share, and for the
     * fixed rates (or a latency target's ceiling on them). */
    _Atomic uint64_t paced, held;
};

/* rate 0: no limit. A bucket starts full: a burst of a tenth of a second's
 * rate, at least one call's worth. */
void bucket_init(struct bucket *b, uint64_t rate, uint64_t now_ns);
/* Takes n tokens at now_ns: how many ns the caller must wait before it
 * may go on (0 at once). The tokens are taken even when they are not
 * there yet, so that callers are paid for in the order they came. */
uint64_t bucket_take(struct bucket *b, uint64_t n, uint64_t now_ns);
/* A new rate from now_ns on (0: no limit); tokens earned so far were
 * earned at the old one. */
void bucket_set_rate(struct bucket *b, uint64_t rate, uint64_t now_ns);

void admission_init(struct admission *a, uint64_t ops_per_second,
                    uint64_t write_bytes_per_second);
/* What request d (the service's private copy, not yet checked) costs its
 * pool: an op if the backend's servers must answer it (what may block,
 * but bulk transfers, charged by their bytes; record locks, kept in the
 * service, never block), and a write's bytes, counted up to max_bytes
 * (the slot buffer: no request carries more). */
struct admission_cost {
    bool op;
    uint32_t bytes;
};
struct admission_cost admission_cost_of(const struct danaus_desc *d,
                                        uint32_t max_bytes);
/* A call's weight in the share's tokens (ADMISSION_OP_TOKENS). */
uint64_t admission_tokens(struct admission_cost cost);
/* Charges a call of that cost to the pool's buckets: how many ns it must
 * wait before it runs. */
uint64_t admission_charge_cost(struct admission *a,
                               struct admission_cost cost);
/* Charges request d (admission_cost_of), as admission_charge_cost. */
uint64_t admission_charge(struct admission *a, const struct danaus_desc *d,
                          uint32_t max_bytes);
/* New rates for the pool (pressure.h), as admission_init's. */
void admission_set_rates(struct admission *a, uint64_t ops_per_second,
                         uint64_t write_bytes_per_second);
/* The pool's fair share in tokens per second (fairshare.h); 0: none. */
void admission_set_share(struct admission *a, uint64_t tokens_per_second);
/* Waits ns (admission_charge's answer). */
void admission_wait(uint64_t ns);

#endif
