/*
 * stats.c - per-mount counters of both doors (stats.h).
 */
#include "stats.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct mount_stats {
    _Atomic uint64_t calls, bytes_read, bytes_written;
    _Atomic uint64_t time_ns[DANAUS_STATS_BUCKETS];
};

/* The bucket of a time (wire.h): 4 per power of two. */
static unsigned bucket(uint64_t ns)
{
    if (ns < 4)
        return (unsigned)ns;
    unsigned k = 63u - (unsigned)__builtin_clzll(ns);
    unsigned b = 4 * k + (unsigned)((ns >> (k - 2)) & 3);
    return b < DANAUS_STATS_BUCKETS ? b : DANAUS_STATS_BUCKETS - 1;
}

/* The counters of mount, made on first use; NULL without memory. */
static struct mount_stats *of(struct stats_table *t, uint32_t mount)
{
    struct mount_stats *s =
        atomic_load_explicit(&t->mount[mount], memory_order_acquire);
    if (s)
        return s;
    struct mount_stats *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        return NULL;
    /* Another thread may have made them meanwhile: keep the first. */
    if (atomic_compare_exchange_strong_explicit(&t->mount[mount], &s, fresh,
                                                memory_order_acq_rel,
                                                memory_order_acquire))
        return fresh;
    free(fresh);
    return s;
}

void stats_add(struct stats_table *t, uint32_t mount, uint64_t ns,
               uint64_t bytes_read, uint64_t bytes_written)
{
    if (mount >= DANAUS_MAX_INSTANCES)
        return;
    struct mount_stats *s = of(t, mount);
    if (!s)
        return;
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->time_ns[bucket(ns)], 1,
                              memory_order_relaxed);
    if (bytes_read)
        atomic_fetch_add_explicit(&s->bytes_read, bytes_read,
                                  memory_order_relaxed);
    if (bytes_written)
        atomic_fetch_add_explicit(&s->bytes_written, bytes_written,
                                  memory_order_relaxed);
}

void stats_count(struct stats_table *t, uint32_t mount, uint32_t call,
                 int64_t result, uint64_t ns)
{
    uint64_t moved = result > 0 ? (uint64_t)result : 0;
    bool read = call == DANAUS_CALL_READ || call == DANAUS_CALL_PREAD;
    bool written = call == DANAUS_CALL_WRITE || call == DANAUS_CALL_PWRITE;
    stats_add(t, mount, ns, read ? moved : 0, written ? moved : 0);
}

void stats_read(struct stats_table *t, uint32_t mount,
                struct danaus_stats_reply *out)
{
    struct mount_stats *s =
        mount < DANAUS_MAX_INSTANCES
            ? atomic_load_explicit(&t->mount[mount], memory_order_acquire)
            : NULL;
    if (!s)
        return;
    out->calls += atomic_load_explicit(&s->calls, memory_order_relaxed);
    out->bytes_read +=
        atomic_load_explicit(&s->bytes_read, memory_order_relaxed);
    out->bytes_written +=
        atomic_load_explicit(&s->bytes_written, memory_order_relaxed);
    for (int i = 0; i < DANAUS_STATS_BUCKETS; i++)
        out->time_ns[i] +=
            atomic_load_explicit(&s->time_ns[i], memory_order_relaxed);
}

void stats_free(struct stats_table *t)
{
    for (int i = 0; i < DANAUS_MAX_INSTANCES; i++)
        free(atomic_load_explicit(&t->mount[i], memory_order_relaxed));
}
