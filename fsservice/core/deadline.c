/*
 * deadline.c - answering requests that outlive request_deadline_ms
 * (deadline.h).
 *
 * A record's word is its generation times two, plus one while a request
 * runs. The thread starts a request by filling the record and storing an
 * odd word; it ends it by moving the word to the next even value with a
 * compare-and-swap. The watch answers a request by moving the same odd word
 * to the next even value: exactly one of the two swaps succeeds, and only
 * its winner answers the slot. The watch reads the request's fields between
 * two loads of the word, so it never mixes two requests.
 */
#include "deadline.h"

#include <errno.h>

void deadlines_init(struct deadlines *ds, uint32_t limit_ms, bool fsync)
{
    pthread_mutex_init(&ds->lock, NULL);
    ds->records = NULL;
    ds->limit_ns = (uint64_t)limit_ms * 1000000u;
    ds->fsync = fsync;
}

void deadlines_destroy(struct deadlines *ds)
{
    pthread_mutex_destroy(&ds->lock);
}

void deadline_register(struct deadlines *ds, struct call_record *r)
{
    atomic_init(&r->word, 0);
    pthread_mutex_lock(&ds->lock);
    r->next = ds->records;
    ds->records = r;
    pthread_mutex_unlock(&ds->lock);
}

void deadline_unregister(struct deadlines *ds, struct call_record *r)
{
    pthread_mutex_lock(&ds->lock);
    struct call_record **p = &ds->records;
    while (*p && *p != r)
        p = &(*p)->next;
    if (*p)
        *p = r->next;
    pthread_mutex_unlock(&ds->lock);
}

void deadline_begin(struct call_record *r, struct ipc_slot *slot,
                    uint32_t seq, uint32_t call)
{
    atomic_store_explicit(&r->slot, slot, memory_order_relaxed);
    atomic_store_explicit(&r->seq, seq, memory_order_relaxed);
    atomic_store_explicit(&r->call, call, memory_order_relaxed);
    atomic_store_explicit(&r->start_ns, ipc_now_ns(), memory_order_relaxed);
    uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
    atomic_store_explicit(&r->word, w + 1, memory_order_release);
}

bool deadline_end(struct call_record *r)
{
    uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
    if (!(w & 1))
        return false; /* the watch answered it and moved the word on */
    return atomic_compare_exchange_strong(&r->word, &w, w + 1);
}

bool deadline_exempt(const struct deadlines *ds, uint32_t call)
{
    return call == DANAUS_CALL_LOCK || (call == DANAUS_CALL_FSYNC && !ds->fsync);
}

uint64_t deadlines_oldest_ns(struct deadlines *ds, uint64_t now_ns)
{
    uint64_t oldest = 0;
    pthread_mutex_lock(&ds->lock);
    for (struct call_record *r = ds->records; r; r = r->next) {
        uint64_t w = atomic_load_explicit(&r->word, memory_order_acquire);
        uint64_t start = atomic_load_explicit(&r->start_ns,
                                              memory_order_relaxed);
        uint32_t call = atomic_load_explicit(&r->call, memory_order_relaxed);
        if ((w & 1) && call != DANAUS_CALL_LOCK && now_ns > start &&
            now_ns - start > oldest)
            oldest = now_ns - start;
    }
    pthread_mutex_unlock(&ds->lock);
    return oldest;
}

int deadlines_expire(struct deadlines *ds)
{
    if (ds->limit_ns == 0)
        return 0;
    int answered = 0;
    uint64_t now = ipc_now_ns();
    pthread_mutex_lock(&ds->lock);
    for (struct call_record *r = ds->records; r; r = r->next) {
        uint64_t w = atomic_load_explicit(&r->word, memory_order_acquire);
        if (!(w & 1))
            continue;
        uint64_t start = atomic_load_explicit(&r->start_ns,
                                              memory_order_relaxed);
        struct ipc_slot *slot =
            atomic_load_explicit(&r->slot, memory_order_relaxed);
        uint32_t seq = atomic_load_explicit(&r->seq, memory_order_relaxed);
        uint32_t call = atomic_load_explicit(&r->call, memory_order_relaxed);
        if (now - start < ds->limit_ns || deadline_exempt(ds, call))
            continue;
        /* The swap fails if the thread ended this request meanwhile (and
         * perhaps began another: the fields read may then be its). */
        if (!atomic_compare_exchange_strong(&r->word, &w, w + 1))
            continue;
        ipc_complete(slot, seq, -ETIMEDOUT);
        answered++;
    }
    pthread_mutex_unlock(&ds->lock);
    return answered;
}
