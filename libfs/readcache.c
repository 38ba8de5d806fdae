/*
 * readcache.c - preads answered from this process's read cache
 * (readcache.h). The lookup costs a descriptor-table lookup and the copy:
 * no request and no wait, and a system call only every millisecond or so
 * (below).
 */
#include "readcache.h"

#include "fdtable.h"
#include "service.h"
#include "sys.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* The backend's promise to announce changes (its delegations, leases) dies
 * with the service, and nothing in this process learns of the death while
 * it only reads its cache: so the cache is used only while the door was
 * seen open within the last millisecond or so. A check is a poll of the
 * door (0.3 us here); the clock is the coarse one (7 ns here, a few
 * milliseconds' resolution), so a process notices a dead service within a
 * few milliseconds of cached reads. Any event on the door (its hang-up, or
 * an answer another thread waits for) counts as a miss. */
#define DOOR_CHECK_NS 1000000u

static _Atomic uint64_t door_seen_ns;

static uint64_t coarse_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool door_open(const struct service *svc)
{
    uint64_t now = coarse_now_ns();
    if (now - atomic_load_explicit(&door_seen_ns, memory_order_relaxed) <
        DOOR_CHECK_NS)
        return true;
    if (sys_poll_now(svc->door, POLLIN) != 0)
        return false;
    atomic_store_explicit(&door_seen_ns, now, memory_order_relaxed);
    return true;
}

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
                  door_open(svc);
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
 * readrandom over 62 MiB on the local backend: 8.3-9.6 us a read, 17.8-20.1
 * with every miss widened). */
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
