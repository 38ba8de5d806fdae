/*
 * cache.c - the read cache in a client's area (ipc.h): blocks of file data
 * that the client's own PREADs returned, looked up and copied by the
 * client's threads without a request to the service.
 *
 * A block's place is its handle's hash plus its index in the file, so
 * consecutive blocks of one file take consecutive places and never evict
 * each other; a place holding another block is a miss, and keeping a block
 * overwrites whatever was there. A block counts while the generation it was
 * kept under is still its handle's: a handle's generations are never
 * reused (the service counts them per handle), so the blocks a reader finds
 * under the generation it loaded are all copies of the file as it stood
 * during that generation, and the read is that moment's.
 *
 * Only the client's threads write blocks. Each block is a sequence lock
 * among them: a writer makes seq odd with a compare-and-swap (a second
 * writer backs off, a cache need not wait), writes, and makes it even with
 * a release store; a reader copies between two looks at seq and discards
 * what it copied if seq moved or was odd. The second look is an atomic
 * add of 0 rather than a fence and a load (Boehm's read-don't-modify-
 * write): ThreadSanitizer models it, and it costs a reader of a block no
 * other thread reads nothing measurable. A thread that dies mid-write
 * leaves one place unusable in its own process's cache: nobody else's.
 */
#include "ipc.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

static uint32_t place(const struct ipc_area *a, uint64_t handle,
                      uint64_t index)
{
    uint32_t spread = (uint32_t)((handle * 0x9E3779B97F4A7C15ull) >> 32);
    return (uint32_t)(spread + index) & (a->cache_blocks - 1);
}

static _Atomic uint32_t *gen_word(const struct ipc_area *a, uint64_t handle)
{
    uint32_t index = (uint32_t)handle; /* DANAUS_HANDLE_INDEX */
    if (!a->cache_blocks || index >= IPC_CACHE_HANDLES)
        return NULL;
    return &a->cache_gens[index];
}

/* The header fields are read and written with relaxed atomics: they race
 * with a writer by design, and the sequence check decides. */
#define LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define STORE(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)

uint32_t ipc_cache_gen(const struct ipc_area *a, uint64_t handle)
{
    _Atomic uint32_t *word = gen_word(a, handle);
    return word ? atomic_load(word) : 0;
}

ssize_t ipc_cache_read(const struct ipc_area *a, uint64_t handle, void *buf,
                       size_t n, uint64_t off)
{
    uint32_t gen = ipc_cache_gen(a, handle);
    if (gen == 0 || n == 0 || n > SSIZE_MAX || off > UINT64_MAX - n)
        return -1;
    size_t done = 0;
    while (done < n) {
        uint64_t pos = off + done;
        uint64_t index = pos / IPC_CACHE_BLOCK;
        size_t in = (size_t)(pos % IPC_CACHE_BLOCK);
        size_t want = IPC_CACHE_BLOCK - in < n - done ? IPC_CACHE_BLOCK - in
                                                      : n - done;
        uint32_t i = place(a, handle, index);
        struct ipc_cache_block *b = &a->cache_heads[i];
        uint32_t seq = atomic_load_explicit(&b->seq, memory_order_acquire);
        uint32_t len = LOAD(b->len);
        if ((seq & 1) || LOAD(b->handle) != handle ||
            LOAD(b->index) != index || LOAD(b->gen) != gen ||
            len > IPC_CACHE_BLOCK)
            return -1;
        size_t got = in >= len ? 0 : (len - in < want ? len - in : want);
        memcpy((unsigned char *)buf + done,
               a->cache_data + (uint64_t)i * IPC_CACHE_BLOCK + in, got);
        /* The second look at seq is a read-modify-write: as a release it
         * comes after the copy, and it reads seq's latest value, so a
         * writer whose bytes the copy may have seen has moved it. */
        if (atomic_fetch_add_explicit(&b->seq, 0, memory_order_acq_rel) != seq)
            return -1;
        done += got;
        if (got < want)
            break; /* the end of the file */
    }
    return (ssize_t)done;
}

static void keep_block(const struct ipc_area *a, uint64_t handle, uint32_t gen,
                       uint64_t index, const unsigned char *data, uint32_t len)
{
    uint32_t i = place(a, handle, index);
    struct ipc_cache_block *b = &a->cache_heads[i];
    uint32_t seq = atomic_load_explicit(&b->seq, memory_order_relaxed);
    /* As an acquire, the odd seq comes before every byte written below. */
    if ((seq & 1) ||
        !atomic_compare_exchange_strong_explicit(&b->seq, &seq, seq + 1,
                                                 memory_order_acq_rel,
                                                 memory_order_relaxed))
        return;
    STORE(b->handle, handle);
    STORE(b->index, index);
    STORE(b->gen, gen);
    STORE(b->len, len);
    memcpy(a->cache_data + (uint64_t)i * IPC_CACHE_BLOCK, data, len);
    atomic_store_explicit(&b->seq, seq + 2, memory_order_release);
}

void ipc_cache_keep(const struct ipc_area *a, uint64_t handle, uint32_t gen,
                    const void *data, size_t got, size_t want, uint64_t off)
{
    if (!gen_word(a, handle) || gen == 0 || got > want ||
        off > UINT64_MAX - got)
        return;
    /* Whole blocks inside what came back; a short answer also tells where
     * the file ends, so the block it ends in is kept with its length (0
     * when the file ends where a block begins). */
    uint64_t end = off + got;
    bool at_end = got < want;
    uint64_t index = (off + IPC_CACHE_BLOCK - 1) / IPC_CACHE_BLOCK;
    for (; index * IPC_CACHE_BLOCK < end ||
           (at_end && index * IPC_CACHE_BLOCK == end);
         index++) {
        uint64_t start = index * IPC_CACHE_BLOCK;
        uint64_t len = end - start < IPC_CACHE_BLOCK ? end - start
                                                     : IPC_CACHE_BLOCK;
        if (len < IPC_CACHE_BLOCK && !at_end)
            break;
        keep_block(a, handle, gen, index,
                   (const unsigned char *)data + (start - off), (uint32_t)len);
    }
}

void ipc_cache_set_gen(const struct ipc_area *a, uint32_t index, uint32_t gen)
{
    _Atomic uint32_t *word = gen_word(a, index);
    if (word)
        atomic_store(word, gen);
}
