/*
 * readcache.c - preads answered from this process's read cache
 * (readcache.h). The lookup costs a descriptor-table lookup and the copy:
 * no request and no wait, and a system call only every millisecond or so
 * (service_seen_alive).
 */
#include "readcache.h"

#include "fdtable.h"
#include "service.h"
#include "writeback.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

/* service_get, as every call takes the connection: a child forked past
 * the atfork handlers (whose parent's area it does not have: ipc.h)
 * connects anew there, and a service found gone is waited for there. */
ssize_t readcache_pread(int fd, void *buf, size_t n, off_t off)
{
    int saved = errno;
    const struct service *svc = service_get();
    struct fd_info info;
    bool usable = svc && svc->area.cache_blocks && fdtable_lookup(fd, &info) &&
                  info.epoch == svc->epoch && info.handle != FDTABLE_LOST &&
                  !writeback_dirty() && service_seen_alive(svc);
    errno = saved;
    return usable ? ipc_cache_read(&svc->area, info.handle, buf, n,
                                   (uint64_t)off)
                  : -1;
}

/* Bulk reads stream past: copying each MiB into a cache of a few MiB
 * would cost every sequential reader a copy and evict the small blocks
 * the cache is for. */
#define KEEP_MAX (64u << 10)

void readcache_keep(const struct call *c, size_t want, size_t got, off_t off)
{
    if (want > KEEP_MAX)
        return;
    const struct ipc_slot *s = ipc_slot(&c->svc->area, c->thread->slot);
    ipc_cache_keep(&c->svc->area, c->desc.handle, s->cache_gen, call_out(c),
                   got, want, (uint64_t)off);
}

/* Only a scan gets readahead: a miss that starts where this thread's last
 * miss of the same handle ended. A file read in 4 KiB steps then misses
 * once per 8 blocks instead of once per block; random reads of a file
 * larger than the cache would pay for 8 blocks a miss and keep 1 (db_bench
 * readrandom, in bench/, about halves its speed with every miss widened). */
static __thread uint64_t last_handle, last_end;

void readcache_window(const struct call *c, size_t n, off_t off,
                      off_t *start, size_t *len)
{
    off_t window = off - off % READCACHE_WINDOW;
    bool cached = ipc_cache_gen(&c->svc->area, c->desc.handle) != 0;
    bool scan = c->desc.handle == last_handle && (uint64_t)off == last_end;
    if (cached && scan && call_capacity(c) >= READCACHE_WINDOW &&
        (uint64_t)(off - window) + n <= READCACHE_WINDOW) {
        *start = window;
        *len = READCACHE_WINDOW;
    } else {
        *start = off;
        *len = n;
    }
    last_handle = c->desc.handle;
    last_end = (uint64_t)*start + *len;
}
