/*
 * fdtable.c - the library's descriptor table (see fdtable.h).
 *
 * Two levels: an array of page pointers, each page FDTABLE_PAGE_BITS worth of
 * entries. Pages are allocated on first use and never freed, so a reader can
 * follow a page pointer without a lock. Each entry is a small seqlock over
 * (handle, mount): writers (under table_lock) make seq odd, write, and make
 * it even again; a reader retries until it saw the same even seq before and
 * after reading the fields. handle 0 means "not a Danaus descriptor" (0 is
 * never a service handle). The path is read only under table_lock: it is
 * needed by *at resolution, a slow path anyway, and freeing it while a reader
 * copies it would otherwise need deferred reclamation.
 */
#include "fdtable.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE_SIZE_ENTRIES (1u << FDTABLE_PAGE_BITS)

struct fd_entry {
    _Atomic uint32_t seq;
    _Atomic uint64_t handle;
    _Atomic uint32_t mount;
    char *path; /* under table_lock */
};

struct fd_page {
    struct fd_entry entry[PAGE_SIZE_ENTRIES];
};

static _Atomic(struct fd_page *) pages[FDTABLE_PAGES];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static struct fd_entry *entry_find(int fd)
{
    if (fd < 0 || fd >= FDTABLE_MAX)
        return NULL;
    /* acquire: pairs with the release in entry_make, so the page's zeroed
     * contents are visible before we read them. */
    struct fd_page *page = atomic_load_explicit(
        &pages[fd >> FDTABLE_PAGE_BITS], memory_order_acquire);
    if (!page)
        return NULL;
    return &page->entry[fd & (PAGE_SIZE_ENTRIES - 1)];
}

/* Under table_lock. */
static struct fd_entry *entry_make(int fd)
{
    if (fd < 0 || fd >= FDTABLE_MAX) {
        errno = EBADF;
        return NULL;
    }
    _Atomic(struct fd_page *) *slot = &pages[fd >> FDTABLE_PAGE_BITS];
    struct fd_page *page = atomic_load_explicit(slot, memory_order_relaxed);
    if (!page) {
        page = calloc(1, sizeof *page);
        if (!page)
            return NULL;
        atomic_store_explicit(slot, page, memory_order_release);
    }
    return &page->entry[fd & (PAGE_SIZE_ENTRIES - 1)];
}

/* Under table_lock. The release fence keeps the odd seq ahead of the field
 * stores; the final release store keeps them ahead of the even seq. */
static void entry_write(struct fd_entry *e, uint64_t handle, uint32_t mount)
{
    uint32_t s = atomic_load_explicit(&e->seq, memory_order_relaxed);
    atomic_store_explicit(&e->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&e->handle, handle, memory_order_relaxed);
    atomic_store_explicit(&e->mount, mount, memory_order_relaxed);
    atomic_store_explicit(&e->seq, s + 2, memory_order_release);
}

static void entry_read(struct fd_entry *e, struct fd_info *out)
{
    for (;;) {
        uint32_t before = atomic_load_explicit(&e->seq, memory_order_acquire);
        out->handle = atomic_load_explicit(&e->handle, memory_order_relaxed);
        out->mount = atomic_load_explicit(&e->mount, memory_order_relaxed);
        /* acquire fence: the field loads complete before seq is re-read. */
        atomic_thread_fence(memory_order_acquire);
        uint32_t after = atomic_load_explicit(&e->seq, memory_order_relaxed);
        if (before == after && (before & 1) == 0)
            return;
    }
}

int fdtable_reserve(bool cloexec)
{
    int fd = sys_open("/dev/null", O_PATH | (cloexec ? O_CLOEXEC : 0));
    if (fd < 0)
        return -1;
    if (fd >= FDTABLE_MAX) {
        sys_close(fd);
        errno = EMFILE;
        return -1;
    }
    return fd;
}

void fdtable_unreserve(int fd)
{
    sys_close(fd);
}

int fdtable_insert(int fd, uint64_t handle, uint32_t mount, const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_make(fd);
    if (!e) {
        pthread_mutex_unlock(&table_lock);
        free(copy);
        return -1;
    }
    free(e->path);
    e->path = copy;
    entry_write(e, handle, mount);
    pthread_mutex_unlock(&table_lock);
    return 0;
}

bool fdtable_lookup(int fd, struct fd_info *out)
{
    struct fd_entry *e = entry_find(fd);
    if (!e)
        return false;
    entry_read(e, out);
    return out->handle != 0;
}

int fdtable_path(int fd, char *out, size_t size)
{
    int rc = 0;
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_find(fd);
    if (!e || atomic_load_explicit(&e->handle, memory_order_relaxed) == 0) {
        errno = EBADF;
        rc = -1;
    } else if (strlen(e->path) >= size) {
        errno = ENAMETOOLONG;
        rc = -1;
    } else {
        strcpy(out, e->path);
    }
    pthread_mutex_unlock(&table_lock);
    return rc;
}

int fdtable_remove(int fd, struct fd_info *old)
{
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_find(fd);
    if (!e) {
        pthread_mutex_unlock(&table_lock);
        errno = EBADF;
        return -1;
    }
    entry_read(e, old);
    if (old->handle == 0) {
        pthread_mutex_unlock(&table_lock);
        errno = EBADF;
        return -1;
    }
    entry_write(e, 0, 0);
    free(e->path);
    e->path = NULL;
    /* Only now may the kernel hand the number out again. */
    sys_close(fd);
    pthread_mutex_unlock(&table_lock);
    return 0;
}

int fdtable_dup(int oldfd, uint64_t newhandle)
{
    return fdtable_dupfd(oldfd, 0, false, newhandle);
}

int fdtable_dupfd(int oldfd, int minfd, bool cloexec, uint64_t newhandle)
{
    pthread_mutex_lock(&table_lock);
    struct fd_entry *old = entry_find(oldfd);
    char *path = NULL;
    int newfd = -1;
    struct fd_info info;
    if (!old || (entry_read(old, &info), info.handle == 0)) {
        errno = EBADF;
        goto out;
    }
    path = strdup(old->path);
    if (!path)
        goto out;
    newfd = sys_fcntl(oldfd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, minfd);
    if (newfd < 0)
        goto out;
    struct fd_entry *e = entry_make(newfd);
    if (!e) {
        sys_close(newfd);
        newfd = -1;
        goto out;
    }
    e->path = path;
    path = NULL;
    entry_write(e, newhandle, info.mount);
out:
    pthread_mutex_unlock(&table_lock);
    free(path);
    return newfd;
}

int fdtable_dup2(int oldfd, int newfd, uint64_t newhandle,
                 struct fd_info *replaced, bool *had_replaced)
{
    return fdtable_dup3(oldfd, newfd, false, newhandle, replaced,
                        had_replaced);
}

int fdtable_dup3(int oldfd, int newfd, bool cloexec, uint64_t newhandle,
                 struct fd_info *replaced, bool *had_replaced)
{
    *had_replaced = false;
    pthread_mutex_lock(&table_lock);
    struct fd_entry *old = entry_find(oldfd);
    char *path = NULL;
    int rc = -1;
    struct fd_info info;
    if (!old || (entry_read(old, &info), info.handle == 0)) {
        errno = EBADF;
        goto out;
    }
    path = strdup(old->path);
    if (!path)
        goto out;
    /* Make the entry before the kernel dup2, which cannot be undone. */
    struct fd_entry *e = entry_make(newfd);
    if (!e)
        goto out;
    int dup = cloexec ? (int)syscall(SYS_dup3, oldfd, newfd, O_CLOEXEC)
                      : sys_dup2(oldfd, newfd);
    if (dup < 0)
        goto out;
    entry_read(e, replaced);
    *had_replaced = replaced->handle != 0;
    free(e->path);
    e->path = path;
    path = NULL;
    entry_write(e, newhandle, info.mount);
    rc = newfd;
out:
    pthread_mutex_unlock(&table_lock);
    free(path);
    return rc;
}

int fdtable_kernel_dup3(int oldfd, int newfd, int flags,
                        struct fd_info *replaced, bool *had_replaced)
{
    *had_replaced = false;
    /* Under the lock, so the number is never free in between: another
     * thread's open cannot take it before the kernel's dup lands there. */
    pthread_mutex_lock(&table_lock);
    int rc = flags ? (int)syscall(SYS_dup3, oldfd, newfd, flags)
                   : sys_dup2(oldfd, newfd);
    struct fd_entry *e = rc < 0 ? NULL : entry_find(newfd);
    if (e) {
        entry_read(e, replaced);
        *had_replaced = replaced->handle != 0;
        entry_write(e, 0, 0);
        free(e->path);
        e->path = NULL;
    }
    pthread_mutex_unlock(&table_lock);
    return rc;
}

void fdtable_hold(void)
{
    pthread_mutex_lock(&table_lock);
}

void fdtable_release(void)
{
    pthread_mutex_unlock(&table_lock);
}
