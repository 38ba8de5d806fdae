/*
 * segment.c - the System V shared-memory segment that carries the rings and
 * slots: its layout, creation by the service, attachment by clients.
 *
 * Layout (every part starts on a 4096-byte boundary, so a slot's bulk buffer
 * and each queue never share a page with anything else):
 *
 *   [header][queue 0]...[queue nqueues-1][slot 0]...[slot nslots-1]
 *
 * The service computes the layout from the geometry it was given and keeps
 * its own copy in struct ipc_segment; the shared header exists only so a
 * client can find its way, and the client checks it against the real size
 * of the segment before believing it.
 */
#include "ipc.h"

#include <errno.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#define IPC_VERSION 1
#define IPC_PAGE 4096u
#define IPC_MAX_CELLS (1u << 16)
#define IPC_MAX_SLOTS ((1u << 24) - 1) /* the slot must fit a cell word */
#define IPC_MAX_SLOT_BUF (1u << 30)

struct ipc_layout {
    uint64_t queue_size, slot_size;
    uint64_t queues_off, slots_off, total_size;
};

static uint64_t round_page(uint64_t n)
{
    return (n + IPC_PAGE - 1) & ~(uint64_t)(IPC_PAGE - 1);
}

static bool power_of_two(uint32_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

/* The bounds keep every product below 2^64, so the sizes cannot wrap. */
static bool geometry_valid(uint32_t nqueues, uint32_t ncells, uint32_t nslots,
                           uint32_t slot_buf)
{
    return nqueues >= 1 && nqueues <= IPC_MAX_QUEUES &&
           power_of_two(ncells) && ncells <= IPC_MAX_CELLS && nslots >= 1 &&
           nslots <= IPC_MAX_SLOTS && slot_buf % IPC_PAGE == 0 &&
           slot_buf <= IPC_MAX_SLOT_BUF;
}

static void layout(uint32_t nqueues, uint32_t ncells, uint32_t nslots,
                   uint32_t slot_buf, struct ipc_layout *l)
{
    l->queue_size = round_page(sizeof(struct ipc_queue) +
                               (uint64_t)ncells * sizeof(struct ipc_cell));
    l->slot_size = round_page(sizeof(struct ipc_slot) + (uint64_t)slot_buf);
    l->queues_off = round_page(sizeof(struct ipc_header));
    l->slots_off = l->queues_off + (uint64_t)nqueues * l->queue_size;
    l->total_size = l->slots_off + (uint64_t)nslots * l->slot_size;
}

static void fill_segment(struct ipc_segment *seg, int shmid,
                         struct ipc_header *hdr, uint32_t nqueues,
                         uint32_t ncells, uint32_t nslots, uint32_t slot_buf,
                         const struct ipc_layout *l)
{
    seg->shmid = shmid;
    seg->hdr = hdr;
    seg->nqueues = nqueues;
    seg->ncells = ncells;
    seg->nslots = nslots;
    seg->slot_buf = slot_buf;
    seg->queue_size = l->queue_size;
    seg->slot_size = l->slot_size;
    seg->queues = (unsigned char *)hdr + l->queues_off;
    seg->slots = (unsigned char *)hdr + l->slots_off;
}

static int set_owner(int shmid, uid_t owner, gid_t group)
{
    struct shmid_ds ds;

    if (owner == (uid_t)-1 && group == (gid_t)-1)
        return 0;
    if (shmctl(shmid, IPC_STAT, &ds) < 0)
        return -errno;
    if (owner != (uid_t)-1)
        ds.shm_perm.uid = owner;
    if (group != (gid_t)-1)
        ds.shm_perm.gid = group;
    if (shmctl(shmid, IPC_SET, &ds) < 0)
        return -errno;
    return 0;
}

int ipc_segment_create(const struct ipc_geometry *g, uid_t owner, gid_t group,
                       mode_t mode, struct ipc_segment *out)
{
    struct ipc_layout l;
    struct ipc_header *hdr;
    int shmid, err;

    if (!geometry_valid(g->nqueues, g->ncells, g->nslots, g->slot_buf))
        return -EINVAL;
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++)
        if (g->cpu_queue[cpu] >= g->nqueues)
            return -EINVAL;
    layout(g->nqueues, g->ncells, g->nslots, g->slot_buf, &l);

    /* SHM_NORESERVE: slots of threads that never come cost no swap
     * reservation; the pages appear when first touched. */
    shmid = shmget(IPC_PRIVATE, l.total_size,
                   IPC_CREAT | IPC_EXCL | SHM_NORESERVE | (mode & 0777));
    if (shmid < 0)
        return -errno;
    err = set_owner(shmid, owner, group);
    if (err == 0) {
        hdr = shmat(shmid, NULL, 0);
        if (hdr == (void *)-1)
            err = -errno;
    }
    if (err < 0) {
        shmctl(shmid, IPC_RMID, NULL);
        return err;
    }

    /* A new segment is zero-filled: every cell is EMPTY, every slot's done
     * is 0 and nobody waits. Only the header needs writing. */
    hdr->magic = IPC_MAGIC;
    hdr->version = IPC_VERSION;
    hdr->nqueues = g->nqueues;
    hdr->ncells = g->ncells;
    hdr->nslots = g->nslots;
    hdr->slot_buf = g->slot_buf;
    hdr->queue_size = l.queue_size;
    hdr->slot_size = l.slot_size;
    hdr->queues_off = l.queues_off;
    hdr->slots_off = l.slots_off;
    hdr->total_size = l.total_size;
    memcpy(hdr->cpu_queue, g->cpu_queue, sizeof(hdr->cpu_queue));
    fill_segment(out, shmid, hdr, g->nqueues, g->ncells, g->nslots,
                 g->slot_buf, &l);
    return 0;
}

/* The header must describe exactly the layout its geometry implies, and
 * that layout must fit in the segment the kernel says we attached. */
static int header_valid(const struct ipc_header *hdr, uint64_t segsz)
{
    struct ipc_layout l;

    if (hdr->magic != IPC_MAGIC)
        return -EINVAL;
    if (hdr->version != IPC_VERSION)
        return -EPROTONOSUPPORT;
    if (!geometry_valid(hdr->nqueues, hdr->ncells, hdr->nslots,
                        hdr->slot_buf))
        return -EINVAL;
    layout(hdr->nqueues, hdr->ncells, hdr->nslots, hdr->slot_buf, &l);
    if (hdr->queue_size != l.queue_size || hdr->slot_size != l.slot_size ||
        hdr->queues_off != l.queues_off || hdr->slots_off != l.slots_off ||
        hdr->total_size != l.total_size || l.total_size > segsz)
        return -EINVAL;
    for (int cpu = 0; cpu < IPC_MAX_CPUS; cpu++)
        if (hdr->cpu_queue[cpu] >= hdr->nqueues)
            return -EINVAL;
    return 0;
}

int ipc_segment_attach(int shmid, struct ipc_segment *out)
{
    struct shmid_ds ds;
    struct ipc_header *hdr, h;
    struct ipc_layout l;
    int err;

    if (shmctl(shmid, IPC_STAT, &ds) < 0)
        return -errno;
    if (ds.shm_segsz < sizeof(struct ipc_header))
        return -EINVAL;
    hdr = shmat(shmid, NULL, 0);
    if (hdr == (void *)-1)
        return -errno;
    /* Validate and use one private copy, so a concurrent writer cannot
     * change the header between the check and the use. */
    memcpy(&h, hdr, sizeof(h));
    err = header_valid(&h, ds.shm_segsz);
    if (err < 0) {
        shmdt(hdr);
        return err;
    }
    layout(h.nqueues, h.ncells, h.nslots, h.slot_buf, &l);
    fill_segment(out, shmid, hdr, h.nqueues, h.ncells, h.nslots, h.slot_buf,
                 &l);
    return 0;
}

void ipc_segment_detach(struct ipc_segment *seg)
{
    if (seg->hdr)
        shmdt(seg->hdr);
    memset(seg, 0, sizeof(*seg));
    seg->shmid = -1;
}

/* IPC_RMID first: the kernel frees the segment when the last process
 * detaches, so clients still attached keep working until they notice the
 * door hung up, and nothing is left behind if the service dies later. */
void ipc_segment_destroy(struct ipc_segment *seg)
{
    if (seg->shmid >= 0)
        shmctl(seg->shmid, IPC_RMID, NULL);
    ipc_segment_detach(seg);
}
