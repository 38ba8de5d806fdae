/*
 * readcache.c - preads answered from this process's read cache
 * (readcache.h). The lookup costs a descriptor-table lookup and the copy:
 * no request, no wait, no system call.
 */
#include "readcache.h"

#include "fdtable.h"
#include "service.h"

#include <errno.h>

/* service_get, as every call takes the connection: a child forked past
 * the atfork handlers (whose parent's area it does not have: ipc.h)
 * connects anew there, and a service found gone is waited for there. */
ssize_t readcache_pread(int fd, void *buf, size_t n, off_t off)
{
    int saved = errno;
    const struct service *svc = service_get();
    errno = saved;
    struct fd_info info;
    if (!svc || !svc->area.cache_blocks || !fdtable_lookup(fd, &info) ||
        info.epoch != svc->epoch || info.handle == FDTABLE_LOST)
        return -1;
    return ipc_cache_read(&svc->area, info.handle, buf, n, (uint64_t)off);
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
