/*
 * announce.c - the service's page of change counters (ipc.h): created and
 * bumped by the service, mapped read-only by clients.
 *
 * The memfd is sealed with F_SEAL_FUTURE_WRITE after the service maps it:
 * the service's own writable mapping stays, and from then on nobody can
 * write it (write(2)) or map it writable (mmap with PROT_WRITE and
 * MAP_SHARED fails with EPERM, and a read-only shared mapping cannot be
 * made writable by mprotect): a client cannot forge a counter another
 * client reads.
 */
#include "ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE_BYTES                                                        \
    ((sizeof(struct ipc_announce) + 4095u) & ~(size_t)4095u)

int ipc_announce_create(uint32_t timeout_ms, struct ipc_announce **page,
                        int *fd)
{
    int f = memfd_create("danaus-announce", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (f < 0)
        return -errno;
    void *p = MAP_FAILED;
    if (ftruncate(f, (off_t)PAGE_BYTES) == 0)
        p = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    if (p == MAP_FAILED ||
        fcntl(f, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
                                  F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) < 0) {
        int err = -errno;
        if (p != MAP_FAILED)
            munmap(p, PAGE_BYTES);
        close(f);
        return err;
    }
    struct ipc_announce *a = p;
    /* Only tells pages apart: a clock and a random word will do. */
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != sizeof seed)
        seed = 0;
    a->instance = (ipc_now_ns() ^ seed) | 1;
    a->timeout_ms = timeout_ms;
    *page = a;
    *fd = f;
    return 0;
}

void ipc_announce_destroy(struct ipc_announce *page, int fd)
{
    if (page)
        munmap(page, PAGE_BYTES);
    if (fd >= 0)
        close(fd);
}

int ipc_announce_map(int fd, const struct ipc_announce **page)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || (uint64_t)st.st_size != PAGE_BYTES)
        return -EINVAL;
    void *p = mmap(NULL, PAGE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    *page = p;
    return 0;
}

void ipc_announce_unmap(const struct ipc_announce *page)
{
    if (page)
        munmap((void *)page, PAGE_BYTES);
}

/* Release: whoever reads the new count also sees the change it counts. */
void ipc_announce_names(struct ipc_announce *page)
{
    atomic_fetch_add_explicit(&page->names, 1, memory_order_release);
}

void ipc_announce_inode(struct ipc_announce *page, uint64_t ino)
{
    atomic_fetch_add_explicit(&page->attrs, 1, memory_order_release);
    atomic_fetch_add_explicit(&page->inodes[ipc_announce_bucket(ino)], 1,
                              memory_order_release);
}
