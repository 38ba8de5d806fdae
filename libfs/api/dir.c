/*
 * dir.c - the danaus_* directory stream calls over GETDENTS.
 *
 * A Danaus DIR is our own struct, handed out cast to DIR*: a directory
 * descriptor, a buffer of danaus_dirent records (linux_dirent64 layout)
 * copied out of the slot buffer, and the struct dirent readdir returns.
 * The read position lives in the service's open file; d_off of each record
 * is the service's cookie for "after this entry", so telldir is the d_off
 * of the entry last returned and seekdir is an LSEEK(SEEK_SET) to a cookie,
 * as with glibc over the kernel. The service says when an answer holds
 * a listing's last records, so reading a directory to its end takes no
 * call that answers nothing.
 *
 * Under LD_PRELOAD readdir() receives both our DIRs and libc's, and must
 * tell them apart without reading a libc DIR as ours. So Danaus DIRs live
 * in one reserved range of address space (the arena): a pointer is ours
 * exactly when it points at a slot of the arena (dirstream.h). The test
 * reads no memory, so it is lock-free and safe on any pointer.
 */
#include "libfs/call.h"
#include "libfs/dirstream.h"
#include "libfs/export.h"
#include "libfs/fdtable.h"
#include "libfs/listings.h"
#include "libfs/mounts.h"
#include "libfs/namecache.h"
#include "libfs/usermem.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A stream's buffer: the records an open answered fit it (listings.h). */
#define DIR_BUF_MAX LISTINGS_MAX
/* Directory streams open at once; one more opendir fails with EMFILE. The
 * arena's pages are touched only as slots are first used. */
#define DIR_SLOTS 65536

struct danaus_dir {
    pthread_mutex_t lock; /* readdir & co on one DIR from several threads */
    int fd;               /* -1 once closed */
    long next;            /* cookie of the entry readdir returns next */
    size_t pos, len, cap; /* records in buf[pos, len) are not yet returned */
    bool at_end;          /* the service said buf holds the last records */
    unsigned char *buf;
    uint32_t free_next;   /* next free slot + 1 while on the free list */
    struct dirent entry;
};

/* The arena is mapped on first opendir; its base is published with a
 * release store so that dirstream_owns, which loads it with acquire, never
 * sees a base before the mapping exists. Slots are handed out under
 * arena_lock: first from the free list, then never-used ones. */
static _Atomic(uintptr_t) arena_base;
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t arena_used;      /* slots ever handed out */
static uint32_t arena_free_head; /* free slot + 1, 0 for none */

bool dirstream_owns(const DIR *dirp)
{
    uintptr_t base = atomic_load_explicit(&arena_base, memory_order_acquire);
    uintptr_t p = (uintptr_t)dirp;
    if (!base || p < base)
        return false;
    uintptr_t off = p - base;
    return off < (uintptr_t)DIR_SLOTS * sizeof(struct danaus_dir) &&
           off % sizeof(struct danaus_dir) == 0;
}

void dirstream_hold(void)
{
    pthread_mutex_lock(&arena_lock);
}

void dirstream_release(void)
{
    pthread_mutex_unlock(&arena_lock);
}

static struct danaus_dir *slot_alloc(void)
{
    struct danaus_dir *d = NULL;
    pthread_mutex_lock(&arena_lock);
    uintptr_t base = atomic_load_explicit(&arena_base, memory_order_relaxed);
    if (!base) {
        /* Raw mmap: the library never calls the names it may interpose. */
        void *m = (void *)syscall(SYS_mmap, NULL,
                                  DIR_SLOTS * sizeof(struct danaus_dir),
                                  PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                                  -1, 0);
        if (m == MAP_FAILED) {
            errno = ENOMEM;
            goto out;
        }
        base = (uintptr_t)m;
        atomic_store_explicit(&arena_base, base, memory_order_release);
    }
    struct danaus_dir *slots = (struct danaus_dir *)base;
    if (arena_free_head) {
        d = &slots[arena_free_head - 1];
        arena_free_head = d->free_next;
    } else if (arena_used < DIR_SLOTS) {
        d = &slots[arena_used++];
    } else {
        errno = EMFILE;
    }
out:
    pthread_mutex_unlock(&arena_lock);
    return d;
}

static void slot_free(struct danaus_dir *d)
{
    pthread_mutex_lock(&arena_lock);
    d->free_next = arena_free_head;
    arena_free_head =
        (uint32_t)(d - (struct danaus_dir *)atomic_load_explicit(
                           &arena_base, memory_order_relaxed)) + 1;
    pthread_mutex_unlock(&arena_lock);
}

DANAUS_EXPORT DIR *danaus_fdopendir(int fd)
{
    struct stat st;
    if (danaus_fstat(fd, &st) < 0)
        return NULL;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return NULL;
    }
    const struct service *svc = service_get();
    if (!svc)
        return NULL;
    size_t cap = svc->area.slot_buf < DIR_BUF_MAX ? svc->area.slot_buf
                                                   : DIR_BUF_MAX;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return NULL;
    struct danaus_dir *d = slot_alloc();
    if (!d) {
        free(buf);
        return NULL;
    }
    pthread_mutex_init(&d->lock, NULL);
    d->fd = fd;
    d->next = 0;
    d->pos = d->len = 0;
    d->at_end = false;
    d->cap = cap;
    d->buf = buf;
    /* The records the open answered, if no one read them yet. */
    struct fd_info h;
    unsigned char *kept;
    if (fdtable_lookup(fd, &h) &&
        (kept = listings_take(fd, &h, &d->pos, &d->len, &d->at_end))) {
        free(buf);
        d->buf = kept;
    }
    return (DIR *)d;
}

DANAUS_EXPORT DIR *danaus_opendir(const char *name)
{
    int fd = danaus_open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    DIR *dir = danaus_fdopendir(fd);
    if (!dir) {
        int saved = errno;
        danaus_close(fd);
        errno = saved;
    }
    return dir;
}

/* The Danaus DIR behind dirp, or NULL with errno EBADF when dirp is not
 * one of ours or was closed. */
static struct danaus_dir *dir_of(DIR *dirp)
{
    struct danaus_dir *d = (struct danaus_dir *)dirp;
    if (!dirstream_owns(dirp) || d->fd < 0) {
        errno = EBADF;
        return NULL;
    }
    return d;
}

/* The record at buf[at, len): its head in *rec, its name and the name's
 * length. False when it does not fit there, or its name has no end: the
 * records come from the service. */
static bool record_at(const unsigned char *buf, size_t len, size_t at,
                      struct danaus_dirent *rec, const char **name,
                      size_t *name_len)
{
    if (at > len || len - at < DANAUS_DIRENT_NAME_AT)
        return false;
    size_t left = len - at;
    memcpy(rec, buf + at, DANAUS_DIRENT_NAME_AT);
    if (rec->d_reclen <= DANAUS_DIRENT_NAME_AT || rec->d_reclen > left)
        return false;
    *name = (const char *)buf + at + DANAUS_DIRENT_NAME_AT;
    *name_len = strnlen(*name, rec->d_reclen - DANAUS_DIRENT_NAME_AT);
    return *name_len < rec->d_reclen - DANAUS_DIRENT_NAME_AT;
}

/* Asks c's GETDENTS for the records' attributes (readdirplus), which
 * ones as want says (DANAUS_LISTING_ATTRS_): packs the directory's
 * instance-relative path, which *dir gets. False when fd's path is not
 * known on c's mount (the listing is asked without). */
static bool ask_attrs(struct call *c, int fd, int want, char *dir,
                      size_t size)
{
    char abs[DANAUS_PATH_MAX];
    const char *rel;
    if (fdtable_path(fd, abs, sizeof abs) < 0 ||
        mount_table_match(&c->svc->mounts, abs, &rel) !=
            (int)c->desc.mount ||
        strlen(rel) >= size || pack_str(&c->pack, rel) < 0)
        return false;
    strcpy(dir, rel);
    c->desc.arg[1] = want;
    return true;
}

/* Keeps the attributes that came with n bytes of records at out (room
 * bytes to the buffer's end; ask_attrs, asked as want), in the name cache
 * under mount's dir/name, as lstat's and, for all but symlinks, stat's
 * answers, with whether the name has extended attributes when the
 * listing said (DANAUS_LISTING_ATTRS_XATTRS). */
static void keep_attrs(const unsigned char *out, uint64_t n, uint64_t cap,
                       uint32_t mount, struct namecache_fill *fill,
                       const char *dir, int want)
{
    const unsigned char *attrs = out + DANAUS_DIRENT_ATTRS_AT(n);
    char path[NAMECACHE_PATH];
    size_t dlen = strlen(dir);
    struct danaus_dirent rec;
    const char *name;
    size_t nlen;
    /* As many records have attributes (and then bytes) as fit: the
     * service counts them as here. */
    bool xattrs = want == DANAUS_LISTING_ATTRS_XATTRS;
    uint64_t records = 0, each = sizeof(struct danaus_stat) + xattrs;
    for (uint64_t at = 0; record_at(out, n, at, &rec, &name, &nlen);
         at += rec.d_reclen)
        records++;
    uint64_t room = cap > (uint64_t)(attrs - out) ? cap - (attrs - out) : 0;
    if (records > room / each)
        records = room / each;
    const unsigned char *no_xattrs = attrs + records * sizeof(struct danaus_stat);
    uint64_t i = 0;
    for (uint64_t at = 0; i < records; at += rec.d_reclen, i++) {
        if (!record_at(out, n, at, &rec, &name, &nlen))
            return;
        struct danaus_stat st;
        memcpy(&st, attrs, sizeof st);
        attrs += sizeof st;
        fill->no_xattrs = xattrs && no_xattrs[i] == 1;
        if (st.ino != 0 && dlen + 1 + nlen < sizeof path) {
            if (dlen)
                snprintf(path, sizeof path, "%s/%s", dir, name);
            else
                memcpy(path, name, nlen + 1);
            namecache_key(fill, mount, path, AT_SYMLINK_NOFOLLOW);
            namecache_keep(fill, 0, &st);
            if (!S_ISLNK(st.mode)) {
                namecache_key(fill, mount, path, 0);
                namecache_keep(fill, 0, &st);
            }
        }
    }
}

/* GETDENTS into buf: bytes of records (0 at the end), or -1 with errno;
 * *end: the service said nothing follows them. The records' attributes
 * come along, for the name cache, while the process stats enough of the
 * names it lists (ls -l, tar, git do), or its directories' (find and rm
 * -r stat those alone; namecache_want_listings). */
static ssize_t getdents(int fd, void *buf, size_t count, bool *end)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_GETDENTS, fd, false) < 0)
        return -1;
    char dir[NAMECACHE_PATH];
    int want = namecache_want_listings();
    bool plus = want && ask_attrs(&c, fd, want, dir, sizeof dir);
    uint64_t room = plus ? DANAUS_DIRENT_PLUS_ROOM(call_capacity(&c))
                         : call_capacity(&c);
    if (count > room)
        count = room;
    c.desc.arg[0] = (int64_t)count;
    struct namecache_fill fill;
    namecache_begin(c.svc, &fill);
    int64_t n = call_send(&c);
    if (n < 0)
        return -1;
    if ((uint64_t)n > count) {
        errno = EIO;
        return -1;
    }
    memcpy(buf, call_out(&c), (size_t)n);
    *end = ipc_slot(&c.svc->area, c.thread->slot)->listing_end == 1;
    namecache_listing_came();
    fill.listing = true;
    if (plus)
        keep_attrs(call_out(&c), (uint64_t)n, call_capacity(&c),
                   c.desc.mount, &fill, dir, want);
    return (ssize_t)n;
}

/* Opens for reading without O_DIRECTORY that found a directory, and
 * that found anything else: such an open asks for records only while one
 * in so many is a directory (tar's are; a compiler's never), so that
 * opens of files pay nothing for it. Halved as they grow. */
static _Atomic uint32_t unflagged_dirs, unflagged_others;

static bool unflagged_lists(void)
{
    uint32_t dirs = atomic_load_explicit(&unflagged_dirs,
                                         memory_order_relaxed);
    return dirs > 0 && (uint64_t)dirs * 64 >=
                           atomic_load_explicit(&unflagged_others,
                                                memory_order_relaxed);
}

/* An open with flags may read a directory's records. */
static bool opens_to_list(int flags)
{
    return (flags & O_ACCMODE) == O_RDONLY && !(flags & O_PATH);
}

void dirstream_open_found(int flags, bool dir)
{
    if ((flags & O_DIRECTORY) || !opens_to_list(flags))
        return;
    _Atomic uint32_t *count = dir ? &unflagged_dirs : &unflagged_others;
    if (atomic_fetch_add_explicit(count, 1, memory_order_relaxed) > 65536) {
        atomic_store_explicit(&unflagged_dirs,
                              atomic_load(&unflagged_dirs) / 2,
                              memory_order_relaxed);
        atomic_store_explicit(&unflagged_others,
                              atomic_load(&unflagged_others) / 2,
                              memory_order_relaxed);
    }
}

int dirstream_open_ask(struct call *c, const char *rel, int flags)
{
    if (!opens_to_list(flags) ||
        (!(flags & O_DIRECTORY) && !unflagged_lists()))
        return -1;
    int place = listings_reserve();
    if (place < 0)
        return -1;
    uint64_t room = call_capacity(c) - DANAUS_OPEN_LISTING_AT;
    size_t rlen = strlen(rel);
    int want = namecache_want_listings();
    /* Attributes are kept under dir/name: a directory named with a
     * trailing slash would key them wrong. */
    if (rlen >= NAMECACHE_PATH || (rlen && rel[rlen - 1] == '/'))
        want = 0;
    if (want)
        room = DANAUS_DIRENT_PLUS_ROOM(room);
    c->desc.arg[2] = (int64_t)(room < LISTINGS_MAX ? room : LISTINGS_MAX);
    c->desc.arg[3] = want;
    return place;
}

void dirstream_open_keep(const struct call *c, int place,
                         const struct fd_info *h, const char *rel,
                         struct namecache_fill *fill)
{
    const unsigned char *out = call_out(c);
    uint64_t listed;
    memcpy(&listed, out + offsetof(struct danaus_open_out, listed),
           sizeof listed);
    if (listed == 0 || listed > (uint64_t)c->desc.arg[2]) {
        listings_cancel(place);
        return;
    }
    const struct ipc_slot *s = ipc_slot(&c->svc->area, c->thread->slot);
    const unsigned char *records = out + DANAUS_OPEN_LISTING_AT;
    listings_fill(place, h, records, (size_t)listed, s->listing_end == 1,
                  s->pos);
    namecache_listing_came();
    if (c->desc.arg[3]) {
        fill->listing = true;
        keep_attrs(records, listed,
                   call_capacity(c) - DANAUS_OPEN_LISTING_AT, c->desc.mount,
                   fill, rel, (int)c->desc.arg[3]);
    }
}

DANAUS_EXPORT ssize_t danaus_getdents64(int fd, void *dirp, size_t count)
{
    if (!usermem_range(dirp, count)) {
        errno = EFAULT;
        return -1;
    }
    struct fd_info h;
    ssize_t got;
    if (fdtable_lookup(fd, &h) && listings_read(fd, &h, dirp, count, &got))
        return got;
    bool end;
    return getdents(fd, dirp, count, &end);
}

/* The next entry with d->lock held; NULL at the end (errno untouched) or
 * on error (errno set). */
static struct dirent *next_entry(struct danaus_dir *d)
{
    /* Entries made after the end was reached may or may not be seen
     * (POSIX readdir): a stream at its end asks no more until a seek. */
    if (d->pos >= d->len && d->at_end)
        return NULL;
    if (d->pos >= d->len) {
        int saved = errno;
        ssize_t n = getdents(d->fd, d->buf, d->cap, &d->at_end);
        if (n <= 0) {
            if (n == 0)
                errno = saved; /* end of directory leaves errno alone */
            return NULL;
        }
        d->pos = 0;
        d->len = (size_t)n;
    }
    struct danaus_dirent rec;
    const char *name;
    size_t name_len;
    if (!record_at(d->buf, d->len, d->pos, &rec, &name, &name_len) ||
        name_len >= sizeof d->entry.d_name)
        goto bad;
    d->entry.d_ino = rec.d_ino;
    d->entry.d_off = rec.d_off;
    /* The record's own length, as glibc reports the kernel's: scandir
     * copies that many bytes. */
    d->entry.d_reclen = rec.d_reclen;
    d->entry.d_type = rec.d_type;
    memcpy(d->entry.d_name, name, name_len + 1);
    d->pos += rec.d_reclen;
    d->next = rec.d_off;
    return &d->entry;
bad:
    d->pos = d->len;
    errno = EIO;
    return NULL;
}

DANAUS_EXPORT struct dirent *danaus_readdir(DIR *dirp)
{
    struct danaus_dir *d = dir_of(dirp);
    if (!d)
        return NULL;
    pthread_mutex_lock(&d->lock);
    struct dirent *e = next_entry(d);
    pthread_mutex_unlock(&d->lock);
    return e;
}

DANAUS_EXPORT int danaus_readdir_r(DIR *dirp, struct dirent *entry,
                                   struct dirent **result)
{
    struct danaus_dir *d = dir_of(dirp);
    if (!d)
        return EBADF;
    int saved = errno;
    errno = 0;
    pthread_mutex_lock(&d->lock);
    struct dirent *e = next_entry(d);
    if (e)
        memcpy(entry, e, e->d_reclen < sizeof *entry ? e->d_reclen
                                                     : sizeof *entry);
    pthread_mutex_unlock(&d->lock);
    int err = e ? 0 : errno;
    *result = e ? entry : NULL;
    errno = err ? err : saved;
    return err;
}

DANAUS_EXPORT long danaus_telldir(DIR *dirp)
{
    struct danaus_dir *d = dir_of(dirp);
    if (!d)
        return -1;
    pthread_mutex_lock(&d->lock);
    long loc = d->next;
    pthread_mutex_unlock(&d->lock);
    return loc;
}

/* seekdir and rewinddir return nothing: like glibc's, a failed seek leaves
 * the stream where the next GETDENTS finds it. */
DANAUS_EXPORT void danaus_seekdir(DIR *dirp, long loc)
{
    struct danaus_dir *d = dir_of(dirp);
    if (!d)
        return;
    int saved = errno;
    pthread_mutex_lock(&d->lock);
    if (danaus_lseek(d->fd, loc, SEEK_SET) >= 0) {
        d->pos = d->len = 0;
        d->at_end = false;
        d->next = loc;
    }
    pthread_mutex_unlock(&d->lock);
    errno = saved;
}

DANAUS_EXPORT void danaus_rewinddir(DIR *dirp)
{
    danaus_seekdir(dirp, 0);
}

DANAUS_EXPORT int danaus_dirfd(DIR *dirp)
{
    struct danaus_dir *d = dir_of(dirp);
    return d ? d->fd : -1;
}

DANAUS_EXPORT int danaus_closedir(DIR *dirp)
{
    struct danaus_dir *d = dir_of(dirp);
    if (!d)
        return -1;
    int fd = d->fd;
    d->fd = -1;
    free(d->buf);
    pthread_mutex_destroy(&d->lock);
    slot_free(d);
    return danaus_close(fd);
}

/* Frees the first n entries of list and list itself; keeps errno. */
static void free_list(struct dirent **list, size_t n)
{
    int saved = errno;
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
    errno = saved;
}

/* scandir's comparison, called through qsort_r (a function pointer does
 * not convert to void *, so it travels in a struct). */
struct order {
    int (*compar)(const struct dirent **, const struct dirent **);
};

static int by_order(const void *a, const void *b, void *arg)
{
    const struct order *order = arg;
    return order->compar((const struct dirent **)a,
                         (const struct dirent **)b);
}

DANAUS_EXPORT int danaus_scandirat(int dirfd, const char *dirp,
                                   struct dirent ***namelist,
                                   int (*filter)(const struct dirent *),
                                   int (*compar)(const struct dirent **,
                                                 const struct dirent **))
{
    int fd = danaus_openat(dirfd, dirp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    DIR *dir = danaus_fdopendir(fd);
    if (!dir) {
        int saved = errno;
        danaus_close(fd);
        errno = saved;
        return -1;
    }
    struct dirent **list = NULL;
    size_t n = 0, cap = 0;
    int saved = errno;
    errno = 0;
    struct dirent *e;
    while ((e = danaus_readdir(dir)) != NULL) {
        if (filter) {
            int selected = filter(e);
            /* filter may leave errno set; after the loop a non-zero errno
             * must mean a failed readdir or allocation. */
            errno = 0;
            if (!selected)
                continue;
        }
        if (n == cap) {
            size_t more = cap ? 2 * cap : 16;
            struct dirent **grown = realloc(list, more * sizeof *list);
            if (!grown)
                break;
            list = grown;
            cap = more;
        }
        /* Entries are d_reclen bytes long, as glibc's copies are. */
        struct dirent *copy = malloc(e->d_reclen);
        if (!copy)
            break;
        memcpy(copy, e, e->d_reclen);
        list[n++] = copy;
    }
    int err = errno;
    danaus_closedir(dir);
    if (!err && n > INT32_MAX)
        err = EOVERFLOW;
    if (err) {
        free_list(list, n);
        errno = err;
        return -1;
    }
    if (compar) {
        struct order order = {compar};
        qsort_r(list, n, sizeof *list, by_order, &order);
    }
    *namelist = list;
    errno = saved;
    return (int)n;
}

DANAUS_EXPORT int danaus_scandir(const char *dirp, struct dirent ***namelist,
                                 int (*filter)(const struct dirent *),
                                 int (*compar)(const struct dirent **,
                                               const struct dirent **))
{
    return danaus_scandirat(AT_FDCWD, dirp, namelist, filter, compar);
}
