/*
 * dirchanges.c - the directories changed lately (dirchanges.h).
 */
#include "dirchanges.h"

/* FNV-1a: a collision only voids a walk that still held. */
static uint32_t hash_of(const char *path, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)path[i]) * 16777619u;
    return h;
}

void dir_changes_note(struct dir_changes *c, const char *path, size_t len)
{
    bool named = path && len > 0 && len < UINT32_MAX;
    uint32_t hash = named ? hash_of(path, len) : 0;
    pthread_mutex_lock(&c->lock);
    uint64_t n = atomic_load_explicit(&c->count, memory_order_relaxed) + 1;
    struct dir_change *r = &c->last[n % DIR_CHANGES];
    /* A sequence lock's write: the record reads as none (0) before any
     * field changes, and as change n only once every field is written. */
    atomic_store_explicit(&r->count, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&r->hash, hash, memory_order_relaxed);
    atomic_store_explicit(&r->len, named ? (uint32_t)len : 0,
                          memory_order_relaxed);
    atomic_store_explicit(&r->count, n, memory_order_release);
    /* Release: a reader that sees count n finds record n written. */
    atomic_store_explicit(&c->count, n, memory_order_release);
    pthread_mutex_unlock(&c->lock);
}

uint64_t dir_changes_now(struct dir_changes *c)
{
    return atomic_load_explicit(&c->count, memory_order_acquire);
}

/* Whether a change of the directory of hash and len touched path: it is
 * path or one of the directories above it (whole components). */
static bool touches(uint32_t hash, uint32_t len, const char *path,
                    size_t path_len)
{
    if (len == 0)
        return true;
    if (len > path_len || (len < path_len && path[len] != '/'))
        return false;
    return hash_of(path, len) == hash;
}

bool dir_changes_spare(struct dir_changes *c, uint64_t *since,
                       const char *path, size_t len)
{
    uint64_t now = dir_changes_now(c);
    if (now - *since > DIR_CHANGES)
        return false;
    for (uint64_t n = *since + 1; n <= now; n++) {
        struct dir_change *r = &c->last[n % DIR_CHANGES];
        uint64_t before = atomic_load_explicit(&r->count,
                                               memory_order_acquire);
        uint32_t hash = atomic_load_explicit(&r->hash, memory_order_relaxed);
        uint32_t rlen = atomic_load_explicit(&r->len, memory_order_relaxed);
        /* The sequence lock's read: the fields are of change n only if
         * the record still says n after them. */
        atomic_thread_fence(memory_order_acquire);
        uint64_t after = atomic_load_explicit(&r->count, memory_order_relaxed);
        if (before != n || after != n || touches(hash, rlen, path, len))
            return false;
    }
    *since = now;
    return true;
}
