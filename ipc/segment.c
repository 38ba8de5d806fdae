/*
 * segment.c - the shared memory of the transport: the service's queues and
 * each client's area, both memfds (see ipc.h for who maps which).
 *
 * Layouts (every part starts on a 4096-byte boundary, so a slot's bulk
 * buffer and each queue never share a page with anything else):
 *
 *   queues  [queue 0]...[queue nqueues-1]
 *   area    with a read cache: [generation per handle index]
 *           [block heads][block data] (see cache.c), and with
 *           write-back [page heads][page data] (see writeback.c);
 *           then [slot 0]...[slot nslots-1]
 *
 * Both sides compute the layout from the geometry they hold privately
 * (the service its configuration, the client the hello reply); nothing in
 * shared memory describes it. Both map the whole of it, as address space
 * only (MAP_NORESERVE).
 *
 * An area's file starts with its read cache and no slot, and grows as the
 * service gives slots out (ipc_area_grow): a client's slots take memory
 * as its threads attach, and a slot given back gives its pages back
 * (ipc_area_release_slot punches them out of the file). The service
 * touches only slots it gave out, below the size it grew the file to.
 * Sealing: the queues against any change of size; an area against
 * shrinking, and against further seals, so the file never ends below a
 * slot the service uses (its access would fault) and nobody can stop it
 * from growing. A client may grow its own area further itself: the pages
 * it then touches are its own memory, charged to it, which the service
 * never reads.
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
        g->cache_blocks > IPC_MAX_CACHE_BLOCKS ||
        g->dirty_pages > IPC_MAX_DIRTY_PAGES ||
        (g->dirty_pages && !g->cache_blocks))
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
    a->cache_blocks = g->cache_blocks;
    a->cache_size = 0;
    if (g->cache_blocks)
        a->cache_size = round_page(IPC_CACHE_HANDLES * sizeof(uint32_t)) +
                        round_page((uint64_t)g->cache_blocks *
                                   sizeof(struct ipc_cache_block)) +
                        (uint64_t)g->cache_blocks * IPC_CACHE_BLOCK;
    a->dirty_pages = g->dirty_pages;
    if (g->dirty_pages)
        a->cache_size += round_page((uint64_t)g->dirty_pages *
                                    sizeof(struct ipc_dirty_page)) +
                         (uint64_t)g->dirty_pages * IPC_CACHE_BLOCK;
    a->size = a->cache_size + a->slot_size * g->nslots;
}

/* Where the read cache's parts and the slots start, once the area is
 * mapped at base. */
static void area_locate(struct ipc_area *a)
{
    a->slots = a->base + a->cache_size;
    if (!a->cache_blocks)
        return;
    unsigned char *p = a->base;
    a->cache_gens = (_Atomic uint32_t *)p;
    p += round_page(IPC_CACHE_HANDLES * sizeof(uint32_t));
    a->cache_heads = (struct ipc_cache_block *)p;
    p += round_page((uint64_t)a->cache_blocks * sizeof(struct ipc_cache_block));
    a->cache_data = p;
    if (!a->dirty_pages)
        return;
    p += (uint64_t)a->cache_blocks * IPC_CACHE_BLOCK;
    a->dirty_heads = (struct ipc_dirty_page *)p;
    p += round_page((uint64_t)a->dirty_pages * sizeof(struct ipc_dirty_page));
    a->dirty_data = p;
}

/* A memfd of size bytes (zero-filled) with seals, or -errno. */
static int sealed_memfd(const char *name, uint64_t size, int seals)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)size) < 0 ||
        fcntl(fd, F_ADD_SEALS, seals) < 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    return fd;
}

/* Maps size bytes of fd, which must hold at least need bytes. */
static void *map(int fd, uint64_t size, uint64_t need)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < need) {
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
    int fd = sealed_memfd("danaus-queues", out->size,
                          F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
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
    out->queues = map(fd, out->size, out->size);
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
    int fd = sealed_memfd("danaus-area", out->cache_size,
                          F_SEAL_SHRINK | F_SEAL_SEAL);
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
    out->base = map(fd, out->size, out->cache_size);
    if (!out->base)
        return -errno;
    /* No forked child inherits the mapping, whichever way it was forked:
     * a child is a client of its own, and one that drops privileges must
     * not keep a way to speak as its parent. */
    if (madvise(out->base, out->size, MADV_DONTFORK) < 0) {
        int err = errno;
        munmap(out->base, out->size);
        out->base = NULL;
        return -err;
    }
    area_locate(out);
    out->grown = 0;
    out->fd = fd;
    return 0;
}

/* The area's file size that holds slots [0, n). */
static uint64_t size_for(const struct ipc_area *a, uint32_t n)
{
    return a->cache_size + a->slot_size * n;
}

int ipc_area_grow(struct ipc_area *a, uint32_t n)
{
    if (n > a->nslots)
        return -EINVAL;
    if (n <= a->grown)
        return 0;
    /* Grows only: a client that grew its file further keeps its size
     * (ftruncate to less would fail on the seal anyway). */
    struct stat st;
    if (fstat(a->fd, &st) < 0)
        return -errno;
    if ((uint64_t)st.st_size < size_for(a, n) &&
        ftruncate(a->fd, (off_t)size_for(a, n)) < 0)
        return -errno;
    a->grown = n;
    return 0;
}

void ipc_area_release_slot(struct ipc_area *a, uint32_t i)
{
    if (i >= a->grown)
        return;
    /* Within the file: the size stays, the pages go; touched again they
     * come back zeroed. */
    fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
              (off_t)(size_for(a, i)), (off_t)a->slot_size);
}

void ipc_area_unmap(struct ipc_area *area)
{
    if (area->base)
        munmap(area->base, area->size);
    if (area->fd >= 0)
        close(area->fd);
    memset(area, 0, sizeof *area);
    area->fd = -1;
}
