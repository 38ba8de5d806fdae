/*
 * segment.c - the shared memory of the transport: the service's queues and
 * each client's area, both memfds (see ipc.h for who maps which).
 *
 * Layouts (every part starts on a 4096-byte boundary, so a slot's bulk
 * buffer and each queue never share a page with anything else):
 *
 *   queues  [queue 0]...[queue nqueues-1]
 *   area    [slot 0]...[slot nslots-1]
 *           then, with a read cache: [generation per handle index]
 *           [block heads][block data] (see cache.c)
 *
 * Both sides compute the layout from the geometry they hold privately
 * (the service its configuration, the client the hello reply); nothing in
 * shared memory describes it. The service seals every memfd against
 * shrinking and growing before handing it out: a client that could
 * truncate its area would make the service fault on its next access.
 */
#include "ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define IPC_PAGE 4096u

static uint64_t round_page(uint64_t n)
{
    return (n + IPC_PAGE - 1) & ~(uint64_t)(IPC_PAGE - 1);
}

static bool power_of_two(uint32_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

/* The bounds keep every product below 2^64, so the sizes cannot wrap. */
bool ipc_geometry_valid(const struct ipc_geometry *g)
{
    if (g->nqueues < 1 || g->nqueues > IPC_MAX_QUEUES ||
        !power_of_two(g->ncells) || g->ncells > IPC_MAX_CELLS ||
        g->nslots < 1 || g->nslots > IPC_MAX_SLOTS ||
        g->slot_buf % IPC_PAGE != 0 || g->slot_buf > IPC_MAX_SLOT_BUF ||
        (g->cache_blocks != 0 && !power_of_two(g->cache_blocks)) ||
        g->cache_blocks > IPC_MAX_CACHE_BLOCKS)
        return false;
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++)
        if (g->cpu_queue[cpu] >= g->nqueues)
            return false;
    return true;
}

static void queues_layout(const struct ipc_geometry *g, struct ipc_segment *s)
{
    s->nqueues = g->nqueues;
    s->ncells = g->ncells;
    s->queue_size = round_page(sizeof(struct ipc_queue) +
                               (uint64_t)g->ncells * sizeof(uint64_t));
    s->size = s->queue_size * g->nqueues;
}

static void area_layout(const struct ipc_geometry *g, struct ipc_area *a)
{
    a->nslots = g->nslots;
    a->slot_buf = g->slot_buf;
    a->slot_size = round_page(sizeof(struct ipc_slot) + (uint64_t)g->slot_buf);
    a->size = a->slot_size * g->nslots;
    a->cache_blocks = g->cache_blocks;
    if (g->cache_blocks)
        a->size += round_page(IPC_CACHE_HANDLES * sizeof(uint32_t)) +
                   round_page((uint64_t)g->cache_blocks *
                              sizeof(struct ipc_cache_block)) +
                   (uint64_t)g->cache_blocks * IPC_CACHE_BLOCK;
}

/* Where the read cache's parts start, once the area is mapped. */
static void cache_locate(struct ipc_area *a)
{
    if (!a->cache_blocks)
        return;
    unsigned char *p = a->slots + a->slot_size * a->nslots;
    a->cache_gens = (_Atomic uint32_t *)p;
    p += round_page(IPC_CACHE_HANDLES * sizeof(uint32_t));
    a->cache_heads = (struct ipc_cache_block *)p;
    p += round_page((uint64_t)a->cache_blocks * sizeof(struct ipc_cache_block));
    a->cache_data = p;
}

/* A sealed memfd of size bytes (zero-filled), or -errno. */
static int sealed_memfd(const char *name, uint64_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)size) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    return fd;
}

/* Maps fd, which must hold at least size bytes. */
static void *map(int fd, uint64_t size)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < size) {
        errno = EINVAL;
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_NORESERVE, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

int ipc_queues_create(const struct ipc_geometry *g, struct ipc_segment *out)
{
    if (!ipc_geometry_valid(g))
        return -EINVAL;
    queues_layout(g, out);
    int fd = sealed_memfd("danaus-queues", out->size);
    if (fd < 0)
        return fd;
    int rc = ipc_queues_map(fd, g, out);
    if (rc < 0)
        close(fd);
    return rc;
}

int ipc_queues_map(int fd, const struct ipc_geometry *g,
                   struct ipc_segment *out)
{
    if (!ipc_geometry_valid(g))
        return -EINVAL;
    queues_layout(g, out);
    out->queues = map(fd, out->size);
    if (!out->queues)
        return -errno;
    out->fd = fd;
    return 0;
}

void ipc_queues_unmap(struct ipc_segment *seg)
{
    if (seg->queues)
        munmap(seg->queues, seg->size);
    if (seg->fd >= 0)
        close(seg->fd);
    memset(seg, 0, sizeof *seg);
    seg->fd = -1;
}

int ipc_area_create(const struct ipc_geometry *g, struct ipc_area *out)
{
    if (!ipc_geometry_valid(g))
        return -EINVAL;
    area_layout(g, out);
    int fd = sealed_memfd("danaus-area", out->size);
    if (fd < 0)
        return fd;
    int rc = ipc_area_map(fd, g, out);
    if (rc < 0)
        close(fd);
    return rc;
}

int ipc_area_map(int fd, const struct ipc_geometry *g, struct ipc_area *out)
{
    if (!ipc_geometry_valid(g))
        return -EINVAL;
    area_layout(g, out);
    out->slots = map(fd, out->size);
    if (!out->slots)
        return -errno;
    /* No forked child inherits the mapping, whichever way it was forked:
     * a child is a client of its own, and one that drops privileges must
     * not keep a way to speak as its parent. */
    if (madvise(out->slots, out->size, MADV_DONTFORK) < 0) {
        int err = errno;
        munmap(out->slots, out->size);
        out->slots = NULL;
        return -err;
    }
    cache_locate(out);
    out->fd = fd;
    return 0;
}

void ipc_area_unmap(struct ipc_area *area)
{
    if (area->slots)
        munmap(area->slots, area->size);
    if (area->fd >= 0)
        close(area->fd);
    memset(area, 0, sizeof *area);
    area->fd = -1;
}
