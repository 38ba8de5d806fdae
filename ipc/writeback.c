/*
 * writeback.c - the write-back pages in a client's area (ipc.h): small
 * writes a client keeps instead of sending, until the service, or the
 * client itself after a restart, takes them to write.
 *
 * A page's state word is the whole protocol; its other words are written
 * only by the thread that holds the page (CLAIMED by a client thread,
 * TAKEN by whoever took it) and read with relaxed atomics: what they say
 * counts only as a copy made after a successful compare-and-swap.
 */
#include "ipc.h"

#include <string.h>

#define LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define STORE(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)

static struct ipc_dirty_page *head(const struct ipc_area *a, uint32_t i)
{
    return &a->dirty_heads[i];
}

static unsigned char *data_of(const struct ipc_area *a, uint32_t i)
{
    return a->dirty_data + (uint64_t)i * IPC_CACHE_BLOCK;
}

static bool move(const struct ipc_area *a, uint32_t i, uint32_t from,
                 uint32_t to)
{
    return atomic_compare_exchange_strong(&head(a, i)->state, &from, to);
}

int32_t ipc_dirty_claim(const struct ipc_area *a, uint32_t *cursor)
{
    for (uint32_t k = 0; k < a->dirty_pages; k++) {
        uint32_t i = (*cursor + k) % a->dirty_pages;
        if (atomic_load_explicit(&head(a, i)->state, memory_order_relaxed) ==
                IPC_DIRTY_FREE &&
            move(a, i, IPC_DIRTY_FREE, IPC_DIRTY_CLAIMED)) {
            *cursor = i + 1;
            return (int32_t)i;
        }
    }
    return -1;
}

void ipc_dirty_commit(const struct ipc_area *a, uint32_t i, uint64_t handle,
                      uint64_t seq, const void *data, uint32_t len,
                      uint64_t off)
{
    struct ipc_dirty_page *p = head(a, i);
    STORE(p->handle, handle);
    STORE(p->seq, seq);
    STORE(p->off, off);
    STORE(p->len, len);
    memcpy(data_of(a, i), data, len);
    /* Sequentially consistent: the caller's next look at the generation
     * comes after it (ipc.h). */
    atomic_store(&p->state, IPC_DIRTY_COMMITTED);
}

bool ipc_dirty_retract(const struct ipc_area *a, uint32_t i)
{
    return move(a, i, IPC_DIRTY_COMMITTED, IPC_DIRTY_FREE);
}

bool ipc_dirty_taken(const struct ipc_area *a, uint32_t i)
{
    return atomic_load(&head(a, i)->state) == IPC_DIRTY_TAKEN;
}

bool ipc_dirty_take(const struct ipc_area *a, uint32_t i, bool also_taken,
                    struct ipc_dirty_page *copy)
{
    if (i >= a->dirty_pages)
        return false;
    if (!move(a, i, IPC_DIRTY_COMMITTED, IPC_DIRTY_TAKEN) &&
        !(also_taken && ipc_dirty_taken(a, i)))
        return false;
    struct ipc_dirty_page *p = head(a, i);
    copy->handle = LOAD(p->handle);
    copy->seq = LOAD(p->seq);
    copy->off = LOAD(p->off);
    copy->len = LOAD(p->len);
    return true;
}

void ipc_dirty_copy(const struct ipc_area *a, uint32_t i, void *out,
                    uint32_t len)
{
    memcpy(out, data_of(a, i), len <= IPC_CACHE_BLOCK ? len : IPC_CACHE_BLOCK);
}

void ipc_dirty_release(const struct ipc_area *a, uint32_t i)
{
    if (i < a->dirty_pages)
        atomic_store(&head(a, i)->state, IPC_DIRTY_FREE);
}

uint32_t ipc_dirty_committed(const struct ipc_area *a, uint32_t most)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->dirty_pages && n < most; i++)
        n += atomic_load_explicit(&head(a, i)->state, memory_order_relaxed) ==
             IPC_DIRTY_COMMITTED;
    return n;
}
