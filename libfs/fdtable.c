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
 * copies it would otherwise need deferred reclamation. The resume record
 * (flags, offset copy, written-since-fsync) is a set of independent atomics:
 * only a restart reads it, under table_lock.
 */
#include "fdtable.h"
#include "mounts.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define PAGE_SIZE_ENTRIES (1u << FDTABLE_PAGE_BITS)

struct fd_entry {
    _Atomic uint32_t seq;
    _Atomic uint64_t handle;
    _Atomic uint32_t mount;
    _Atomic uint32_t epoch;
    _Atomic bool direct;
    char *path;      /* under table_lock */
    uint64_t origin; /* under table_lock */
    uint64_t ino;    /* under table_lock */
    _Atomic int flags;
    _Atomic int64_t pos;
    _Atomic uint64_t pos_stamp;
    /* shares when the open file was opened here: while that count has not
     * moved, no other process holds it (fdtable_own_pos); SHARED_OFFSET
     * once dup'ed. */
    uint64_t opened_at; /* under table_lock */
    _Atomic bool unsynced;
    _Atomic bool lost_writes;
};

static uint64_t next_origin; /* under table_lock */
static _Atomic uint64_t shares; /* fdtable_offsets_shared calls */
#define SHARED_OFFSET UINT64_MAX   /* an opened_at shares never reaches */

/* How many descriptors hold each service handle: dup gives the new
 * descriptor its source's handle, and the service is told to close a
 * handle only with its last descriptor. Chained by hash, under
 * table_lock. A lost handle (FDTABLE_LOST) is not counted: it has nothing
 * to close. */
#define REF_BUCKETS 256

struct handle_refs {
    uint64_t handle;
    uint32_t epoch;
    uint32_t count;
    struct handle_refs *next;
};

static struct handle_refs *refs[REF_BUCKETS];
/* How many handles the descriptors hold: records in refs. */
static _Atomic uint32_t held_handles;

static struct handle_refs **refs_slot(const struct fd_info *h)
{
    uint64_t key = h->handle * 0x9e3779b97f4a7c15ull ^ h->epoch;
    struct handle_refs **p = &refs[(key >> 32) % REF_BUCKETS];
    while (*p && ((*p)->handle != h->handle || (*p)->epoch != h->epoch))
        p = &(*p)->next;
    return p;
}

/* One more descriptor holds h. 0, or -1 with errno ENOMEM. */
static int refs_take(const struct fd_info *h)
{
    if (h->handle == FDTABLE_LOST)
        return 0;
    struct handle_refs **p = refs_slot(h);
    if (!*p) {
        *p = calloc(1, sizeof **p);
        if (!*p)
            return -1;
        (*p)->handle = h->handle;
        (*p)->epoch = h->epoch;
        atomic_fetch_add_explicit(&held_handles, 1, memory_order_relaxed);
    }
    (*p)->count++;
    return 0;
}

/* One descriptor fewer holds h: true when it was the last. */
static bool refs_drop(const struct fd_info *h)
{
    if (h->handle == FDTABLE_LOST)
        return true;
    struct handle_refs **p = refs_slot(h);
    struct handle_refs *r = *p;
    if (!r || --r->count > 0)
        return !r;
    *p = r->next;
    free(r);
    atomic_fetch_sub_explicit(&held_handles, 1, memory_order_relaxed);
    return true;
}

bool fdtable_holds_handles(void)
{
    return atomic_load_explicit(&held_handles, memory_order_relaxed) > 0;
}

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
static void entry_write(struct fd_entry *e, const struct fd_info *info)
{
    uint32_t s = atomic_load_explicit(&e->seq, memory_order_relaxed);
    atomic_store_explicit(&e->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&e->handle, info->handle, memory_order_relaxed);
    atomic_store_explicit(&e->mount, info->mount, memory_order_relaxed);
    atomic_store_explicit(&e->epoch, info->epoch, memory_order_relaxed);
    atomic_store_explicit(&e->direct, info->direct, memory_order_relaxed);
    atomic_store_explicit(&e->seq, s + 2, memory_order_release);
}

static const struct fd_info no_file;

/* Under table_lock: a fresh resume record (open), or a copy of from's
 * (dup: the same open file, whose offset each descriptor's copy follows
 * only through its own calls from now on: neither is known here again). */
static void record_init(struct fd_entry *e, int flags, uint64_t ino,
                        struct fd_entry *from)
{
    e->origin = from ? from->origin : ++next_origin;
    if (from)
        from->opened_at = SHARED_OFFSET;
    e->opened_at = from ? SHARED_OFFSET : atomic_load(&shares);
    e->ino = from ? from->ino : ino;
    atomic_store(&e->flags, from ? atomic_load(&from->flags) : flags);
    atomic_store(&e->pos, from ? atomic_load(&from->pos) : 0);
    atomic_store(&e->pos_stamp, from ? atomic_load(&from->pos_stamp) : 0);
    atomic_store(&e->unsynced, from && atomic_load(&from->unsynced));
    atomic_store(&e->lost_writes, false);
}

static void entry_read(struct fd_entry *e, struct fd_info *out)
{
    for (;;) {
        uint32_t before = atomic_load_explicit(&e->seq, memory_order_acquire);
        out->handle = atomic_load_explicit(&e->handle, memory_order_relaxed);
        out->mount = atomic_load_explicit(&e->mount, memory_order_relaxed);
        out->epoch = atomic_load_explicit(&e->epoch, memory_order_relaxed);
        out->direct = atomic_load_explicit(&e->direct, memory_order_relaxed);
        /* acquire fence: the field loads complete before seq is re-read. */
        atomic_thread_fence(memory_order_acquire);
        uint32_t after = atomic_load_explicit(&e->seq, memory_order_relaxed);
        if (before == after && (before & 1) == 0)
            return;
    }
}

/* Under table_lock: the entry of the first Danaus descriptor numbered
 * *fd or above, *fd set to its number; NULL past the last. Pages never
 * made are skipped whole. */
static struct fd_entry *next_file(int *fd)
{
    for (; *fd < FDTABLE_MAX; (*fd)++) {
        struct fd_page *page = atomic_load_explicit(
            &pages[*fd >> FDTABLE_PAGE_BITS], memory_order_relaxed);
        if (!page) {
            *fd |= PAGE_SIZE_ENTRIES - 1;
            continue;
        }
        struct fd_entry *e = &page->entry[*fd & (PAGE_SIZE_ENTRIES - 1)];
        if (atomic_load_explicit(&e->handle, memory_order_relaxed) != 0)
            return e;
    }
    return NULL;
}

/* Placeholders are copies of one the library keeps (the model): a dup
 * costs a fraction of an open. The model sits at MODEL_FD or above, out
 * of the way of a program that closes a low number (stdin) to have its
 * next open take it. The program may close the model's number or put
 * another file there (closefrom, dup2), so each copy, which is what the
 * program keeps, is checked to be /dev/null; when it is not, a new model
 * is opened and the old number left to the program. */
#define MODEL_FD 100
static _Atomic int model = -1;

static bool is_dev_null(int fd)
{
    struct stat st;
    return sys_fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
           st.st_rdev == makedev(1, 3);
}

/* A placeholder copied from the model, or -1 with errno: EBADF when there
 * is no model (any more). */
static int copy_model(bool cloexec)
{
    int m = atomic_load_explicit(&model, memory_order_relaxed);
    if (m < 0) {
        errno = EBADF;
        return -1;
    }
    int fd = sys_fcntl(m, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
    if (fd >= 0 && !is_dev_null(fd)) {
        sys_close(fd);
        fd = -1;
        errno = EBADF;
    }
    if (fd < 0 && errno == EBADF)
        atomic_compare_exchange_strong(&model, &m, -1);
    return fd;
}

static int open_placeholder(bool cloexec)
{
    int fd = copy_model(cloexec);
    if (fd >= 0 || errno != EBADF)
        return fd;
    int m = sys_open("/dev/null", O_PATH | O_CLOEXEC), none = -1;
    int high = m < 0 ? -1 : sys_fcntl(m, F_DUPFD_CLOEXEC, MODEL_FD);
    if (high >= 0) { /* else a descriptor limit below MODEL_FD */
        sys_close(m);
        m = high;
    }
    if (m >= 0 && !atomic_compare_exchange_strong(&model, &none, m))
        sys_close(m);
    return sys_open("/dev/null", O_PATH | (cloexec ? O_CLOEXEC : 0));
}

int fdtable_reserve(bool cloexec)
{
    int fd = open_placeholder(cloexec);
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

int fdtable_insert(int fd, const struct fd_info *info, const char *path,
                   int flags, uint64_t ino)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_make(fd);
    if (!e || refs_take(info) < 0) {
        pthread_mutex_unlock(&table_lock);
        free(copy);
        return -1;
    }
    free(e->path);
    e->path = copy;
    record_init(e, flags, ino, NULL);
    entry_write(e, info);
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
    entry_write(e, &no_file);
    free(e->path);
    e->path = NULL;
    bool last = refs_drop(old);
    /* Only now may the kernel hand the number out again. */
    sys_close(fd);
    pthread_mutex_unlock(&table_lock);
    return last;
}

int fdtable_dup(int oldfd)
{
    return fdtable_dupfd(oldfd, 0, false);
}

int fdtable_dupfd(int oldfd, int minfd, bool cloexec)
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
    if (!path || refs_take(&info) < 0)
        goto out;
    newfd = sys_fcntl(oldfd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, minfd);
    struct fd_entry *e = newfd < 0 ? NULL : entry_make(newfd);
    if (!e) {
        if (newfd >= 0)
            sys_close(newfd);
        newfd = -1;
        refs_drop(&info);
        goto out;
    }
    e->path = path;
    path = NULL;
    record_init(e, 0, 0, old);
    entry_write(e, &info);
out:
    pthread_mutex_unlock(&table_lock);
    free(path);
    return newfd;
}

int fdtable_dup3(int oldfd, int newfd, bool cloexec, struct fd_info *replaced,
                 bool *close_replaced)
{
    *close_replaced = false;
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
    if (!e || refs_take(&info) < 0)
        goto out;
    int dup = cloexec ? (int)syscall(SYS_dup3, oldfd, newfd, O_CLOEXEC)
                      : sys_dup2(oldfd, newfd);
    if (dup < 0) {
        refs_drop(&info);
        goto out;
    }
    /* Taken before the drop: when newfd held the same handle, it stays. */
    entry_read(e, replaced);
    *close_replaced = replaced->handle != 0 && refs_drop(replaced);
    free(e->path);
    e->path = path;
    path = NULL;
    record_init(e, 0, 0, old);
    entry_write(e, &info);
    rc = newfd;
out:
    pthread_mutex_unlock(&table_lock);
    free(path);
    return rc;
}

int fdtable_kernel_dup3(int oldfd, int newfd, int flags,
                        struct fd_info *replaced, bool *close_replaced)
{
    *close_replaced = false;
    /* Under the lock, so the number is never free in between: another
     * thread's open cannot take it before the kernel's dup lands there. */
    pthread_mutex_lock(&table_lock);
    int rc = flags ? (int)syscall(SYS_dup3, oldfd, newfd, flags)
                   : sys_dup2(oldfd, newfd);
    struct fd_entry *e = rc < 0 ? NULL : entry_find(newfd);
    if (e) {
        entry_read(e, replaced);
        *close_replaced = replaced->handle != 0 && refs_drop(replaced);
        entry_write(e, &no_file);
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

void fdtable_note_pos(int fd, int64_t pos)
{
    struct fd_entry *e = entry_find(fd);
    if (!e)
        return;
    /* The clock orders the copies of descriptors that share the offset
     * (a restart takes the latest) without a counter every thread would
     * write. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    atomic_store_explicit(&e->pos, pos, memory_order_relaxed);
    atomic_store_explicit(&e->pos_stamp,
                          (uint64_t)ts.tv_sec * 1000000000u +
                              (uint64_t)ts.tv_nsec,
                          memory_order_relaxed);
}

void fdtable_note_flags(int fd, int status_flags)
{
    struct fd_entry *e = entry_find(fd);
    if (!e)
        return;
    int mask = O_APPEND | O_NONBLOCK;
    int old = atomic_load(&e->flags);
    while (!atomic_compare_exchange_weak(&e->flags, &old,
                                         (old & ~mask) | (status_flags & mask)))
        ;
}

void fdtable_note_written(int fd)
{
    struct fd_entry *e = entry_find(fd);
    if (e && !atomic_load_explicit(&e->unsynced, memory_order_relaxed))
        atomic_store_explicit(&e->unsynced, true, memory_order_relaxed);
}

void fdtable_note_synced(int fd)
{
    struct fd_entry *e = entry_find(fd);
    if (e)
        atomic_store_explicit(&e->unsynced, false, memory_order_relaxed);
}

int fdtable_flags(int fd)
{
    struct fd_entry *e = entry_find(fd);
    return e ? atomic_load_explicit(&e->flags, memory_order_relaxed) : 0;
}

void fdtable_offsets_shared(void)
{
    atomic_fetch_add(&shares, 1);
}

bool fdtable_own_pos(int fd, int64_t *pos)
{
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_find(fd);
    struct fd_info info = {0};
    if (e)
        entry_read(e, &info);
    /* A dup marks both descriptors, so an unmarked one is its open
     * file's only descriptor. */
    bool own = e && info.handle != FDTABLE_LOST &&
               e->opened_at == atomic_load(&shares);
    if (own)
        *pos = atomic_load(&e->pos);
    pthread_mutex_unlock(&table_lock);
    return own;
}

void fdtable_offset_unknown(int fd)
{
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_find(fd);
    if (e)
        e->opened_at = SHARED_OFFSET;
    pthread_mutex_unlock(&table_lock);
}

bool fdtable_take_lost_writes(int fd)
{
    struct fd_entry *e = entry_find(fd);
    return e && atomic_load_explicit(&e->lost_writes, memory_order_relaxed) &&
           atomic_exchange(&e->lost_writes, false);
}

int fdtable_stale(uint32_t epoch, struct fd_stale **out)
{
    int n = 0, cap = 0;
    struct fd_stale *v = NULL;
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e;
    for (int fd = 0; (e = next_file(&fd)); fd++) {
        struct fd_info info;
        entry_read(e, &info);
        if (info.handle == FDTABLE_LOST || info.epoch >= epoch)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            struct fd_stale *bigger = realloc(v, (size_t)cap * sizeof *v);
            if (!bigger)
                goto fail;
            v = bigger;
        }
        char *path = strdup(e->path);
        if (!path)
            goto fail;
        v[n++] = (struct fd_stale){
            .fd = fd,
            .info = info,
            .origin = e->origin,
            .flags = atomic_load(&e->flags),
            .ino = e->ino,
            .pos = atomic_load(&e->pos),
            .pos_stamp = atomic_load(&e->pos_stamp),
            .unsynced = atomic_load(&e->unsynced),
            .path = path};
    }
    pthread_mutex_unlock(&table_lock);
    *out = v;
    return n;
fail:
    pthread_mutex_unlock(&table_lock);
    fdtable_stale_free(v, n);
    errno = ENOMEM;
    return -1;
}

void fdtable_stale_free(struct fd_stale *v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i].path);
    free(v);
}

bool fdtable_replace(const struct fd_stale *was, const struct fd_info *now,
                     bool lost_writes)
{
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_find(was->fd);
    struct fd_info info = {0};
    if (e)
        entry_read(e, &info);
    bool same = e && info.handle == was->info.handle &&
                info.epoch == was->info.epoch && refs_take(now) == 0;
    if (same) {
        refs_drop(&info);
        /* A descriptor that is the file itself stays so: the kernel's. */
        struct fd_info next = *now;
        next.direct = info.direct;
        entry_write(e, &next);
        atomic_store(&e->unsynced, false);
        atomic_store(&e->lost_writes, lost_writes);
    }
    pthread_mutex_unlock(&table_lock);
    return same;
}

bool fdtable_owner(int fd, uint64_t *origin, char *path, size_t size)
{
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_find(fd);
    bool ok = e && atomic_load(&e->handle) != 0 && e->path &&
              strlen(e->path) < size;
    if (ok) {
        *origin = e->origin;
        strcpy(path, e->path);
    }
    pthread_mutex_unlock(&table_lock);
    return ok;
}

int fdtable_find(uint64_t origin, const char *by_path, int *count)
{
    int found = -1, n = 0;
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e;
    for (int fd = 0; (e = next_file(&fd)); fd++) {
        if (atomic_load(&e->handle) == FDTABLE_LOST ||
            (by_path ? strcmp(e->path, by_path) != 0 : e->origin != origin))
            continue;
        if (found < 0)
            found = fd;
        n++;
    }
    pthread_mutex_unlock(&table_lock);
    if (count)
        *count = n;
    return found;
}

void fdtable_mark_lost(int fd)
{
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e = entry_find(fd);
    struct fd_info info;
    if (e && (entry_read(e, &info), info.handle != 0)) {
        refs_drop(&info);
        info.handle = FDTABLE_LOST;
        entry_write(e, &info);
    }
    pthread_mutex_unlock(&table_lock);
}

void fdtable_renamed(const char *from, const char *to)
{
    char moved[DANAUS_LONG_PATH_MAX];
    pthread_mutex_lock(&table_lock);
    struct fd_entry *e;
    for (int fd = 0; (e = next_file(&fd)); fd++) {
        char *copy;
        if (path_moved(e->path, from, to, moved, sizeof moved) != 1 ||
            !(copy = strdup(moved)))
            continue;
        free(e->path);
        e->path = copy;
    }
    pthread_mutex_unlock(&table_lock);
}
