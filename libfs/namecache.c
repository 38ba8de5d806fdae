/*
 * namecache.c - the process's name and attribute cache (namecache.h).
 *
 * A fixed table in the library's own memory (no allocation: a lookup may
 * come from inside an allocator's initialisation): entries in the order
 * they were first kept, and an index from a hash of the key (its place)
 * to the entry last kept there. A key keeps its entry while its place
 * names it; a new one takes the next entry, overwriting the oldest, so a
 * process writes its entries' pages one after another, and only as many
 * as it keeps answers: a fresh page costs a fault, and a walk that kept
 * its answers all over the table took two faults (a read of the zero
 * page, then the write) on nearly every page of it. An index that names
 * an entry taken since by another key finds another key there, which
 * the lookup's key check turns away. Each entry is a sequence lock among
 * the process's threads, as the read cache's blocks are (ipc/cache.c): a
 * writer makes seq odd with a compare-and-swap (a second writer backs
 * off), writes, and makes it even with a release store; a reader copies
 * between two looks at seq and discards its copy if seq moved or was
 * odd. The answer is copied a word at a time with relaxed atomics, which
 * makes the race a defined one.
 *
 * An entry counts while (ipc.h, "Announcements"):
 *   - the page is the one it was kept under (instance), the service is
 *     seen alive, and its timeout has not passed since the lookup that
 *     preceded the call;
 *   - names is what it was before the call;
 *   - for attributes, the inode bucket of the answer's st_ino is what it
 *     was right after the call, read while attrs stayed what it was
 *     before the call (so no change of any file's attributes happened
 *     between the call and that read);
 *   - no namecache_drop happened since the lookup.
 */
#include "namecache.h"

#include "writeback.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define ENTRIES 8192u /* a power of two */
#define NO_BUCKET UINT32_MAX

/* What an entry holds; copied in and out a word at a time (below). */
struct answer {
    uint32_t mount;
    int32_t flags;
    int32_t err;       /* 0: st holds attributes; else ENOENT or ENOTDIR */
    uint32_t bucket;   /* st.ino's inode bucket, NO_BUCKET for an error */
    uint64_t len;
    uint64_t instance; /* the page's */
    uint64_t names, inode, drops;
    uint64_t expires_ns;
    uint64_t listed; /* kept from a listing's attributes: its kind + 1 */
    uint64_t no_xattrs; /* the listing said the name has none */
    struct danaus_stat st;
    char path[NAMECACHE_PATH];
};

#define WORDS (sizeof(struct answer) / sizeof(uint64_t))
_Static_assert(sizeof(struct answer) % sizeof(uint64_t) == 0,
               "an answer is whole words");

union words {
    struct answer a;
    uint64_t w[WORDS];
};

struct entry {
    _Atomic uint32_t seq;
    _Atomic uint32_t place; /* where the index named it last (a hint) */
    union words u;
};

static struct entry table[ENTRIES];
/* Place -> the entry's number + 1 (0: none yet). */
static _Atomic uint32_t index_of[ENTRIES];
static _Atomic uint32_t next_entry;
static _Atomic uint64_t drops;
/* Names kept from listings, and lookups that found them, per kind. */
enum listed_kind { LISTED_OTHER, LISTED_DIR, LISTED_KINDS };
static _Atomic uint64_t listed_kept[LISTED_KINDS], listed_used[LISTED_KINDS];
/* Extended attributes asked of names by path (ls -l asks two of each). */
static _Atomic uint64_t xattr_probes;

/* The words race with a writer by design, and the sequence check decides:
 * relaxed atomic loads and stores, so the race is a defined one. */
static void copy_out(const struct entry *e, union words *out)
{
    for (size_t i = 0; i < WORDS; i++)
        out->w[i] = __atomic_load_n(&e->u.w[i], __ATOMIC_RELAXED);
}

static void copy_in(struct entry *e, const union words *in)
{
    for (size_t i = 0; i < WORDS; i++)
        __atomic_store_n(&e->u.w[i], in->w[i], __ATOMIC_RELAXED);
}

static uint64_t coarse_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t place(uint32_t mount, int flags, const char *path,
                      size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull ^ mount ^ ((uint64_t)flags << 32);
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)path[i]) * 0x100000001b3ull;
    return (uint32_t)(h ^ (h >> 32)) & (ENTRIES - 1);
}

static uint64_t load(const _Atomic uint64_t *word)
{
    return atomic_load_explicit(word, memory_order_acquire);
}

/* The entry the index names at place p, or NULL. */
static struct entry *indexed(uint32_t p)
{
    uint32_t i = atomic_load_explicit(&index_of[p], memory_order_acquire);
    return i ? &table[i - 1] : NULL;
}

/* The entry to keep place p's answer in: the one the index names while
 * it was kept for p, else the next in order, which the index then names
 * (once it is written: see namecache_keep). */
static struct entry *entry_for(uint32_t p, bool *fresh)
{
    struct entry *e = indexed(p);
    *fresh = !e || atomic_load_explicit(&e->place, memory_order_relaxed) != p;
    if (*fresh)
        e = &table[atomic_fetch_add_explicit(&next_entry, 1,
                                             memory_order_relaxed) &
                   (ENTRIES - 1)];
    return e;
}

/* Copies entry e into out if it is whole and holds the key. */
static bool read_entry(struct entry *e, uint32_t mount, int flags,
                       const char *path, uint16_t len, union words *out)
{
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_acquire);
    if (seq & 1)
        return false;
    copy_out(e, out);
    /* The second look at seq is a read-modify-write, as the read cache's
     * (ipc/cache.c): it comes after the copy and reads seq's latest
     * value, so a writer whose words the copy may have seen has moved it. */
    if (atomic_fetch_add_explicit(&e->seq, 0, memory_order_acq_rel) != seq)
        return false;
    const struct answer *a = &out->a;
    return a->len == len && a->mount == mount && a->flags == flags &&
           memcmp(a->path, path, len) == 0;
}

void namecache_begin(const struct service *svc, struct namecache_fill *fill)
{
    const struct ipc_announce *page = svc->announce;
    fill->usable = page && page->timeout_ms && service_seen_alive(svc);
    if (!fill->usable)
        return;
    fill->page = page;
    fill->drops = atomic_load_explicit(&drops, memory_order_acquire);
    fill->names = load(&page->names);
    fill->attrs = load(&page->attrs);
    fill->born_ns = coarse_now_ns();
    fill->listing = false;
    fill->no_xattrs = false;
}

void namecache_key(struct namecache_fill *fill, uint32_t mount,
                   const char *path, int flags)
{
    size_t len = strnlen(path, NAMECACHE_PATH);
    fill->usable = fill->usable && len < NAMECACHE_PATH;
    fill->mount = mount;
    fill->flags = flags;
    fill->len = (uint16_t)(len < NAMECACHE_PATH ? len : 0);
    memcpy(fill->path, path, fill->len);
}

void namecache_key_fstat(struct namecache_fill *fill, uint32_t mount,
                         uint64_t handle)
{
    char key[17];
    int n = 0;
    do {
        key[n++] = "0123456789abcdef"[handle & 15];
        handle >>= 4;
    } while (handle);
    key[n] = '\0';
    namecache_key(fill, mount, key, NAMECACHE_FSTAT);
}

/* The answer kept under fill's key, as namecache_lookup says; *no_xattrs
 * (when not NULL) whether its listing said the name has none. */
static int lookup_key(const struct namecache_fill *fill,
                      struct danaus_stat *st, bool *no_xattrs)
{
    if (!fill->usable)
        return 0;
    const struct ipc_announce *page = fill->page;
    union words copy;
    const struct answer *e = &copy.a;
    struct entry *kept =
        indexed(place(fill->mount, fill->flags, fill->path, fill->len));
    if (!kept ||
        !read_entry(kept, fill->mount, fill->flags, fill->path, fill->len,
                    &copy) ||
        e->instance != page->instance || e->drops != fill->drops ||
        e->names != fill->names || fill->born_ns >= e->expires_ns)
        return 0;
    if (!e->err && (e->bucket >= IPC_ANNOUNCE_INODES ||
                    load(&page->inodes[e->bucket]) != e->inode))
        return 0;
    if (e->listed)
        atomic_fetch_add_explicit(&listed_used[e->listed - 1], 1,
                                  memory_order_relaxed);
    if (e->err)
        return -e->err;
    *st = e->st;
    if (no_xattrs)
        *no_xattrs = e->no_xattrs;
    return 1;
}

/* namecache_lookup, and *no_xattrs as lookup_key says. */
static int lookup_path(const struct service *svc, uint32_t mount,
                       const char *path, int flags, struct danaus_stat *st,
                       struct namecache_fill *fill, bool *no_xattrs)
{
    namecache_begin(svc, fill);
    namecache_key(fill, mount, path, flags);
    return writeback_dirty() ? 0 : lookup_key(fill, st, no_xattrs);
}

int namecache_lookup(const struct service *svc, uint32_t mount,
                     const char *path, int flags, struct danaus_stat *st,
                     struct namecache_fill *fill)
{
    return lookup_path(svc, mount, path, flags, st, fill, NULL);
}

bool namecache_no_xattrs(const struct service *svc, uint32_t mount,
                         const char *path, int flags)
{
    struct namecache_fill fill;
    struct danaus_stat st;
    bool none = false;
    return lookup_path(svc, mount, path, flags, &st, &fill, &none) == 1 &&
           none;
}

int namecache_lookup_fstat(const struct service *svc, uint32_t mount,
                           uint64_t handle, struct danaus_stat *st,
                           struct namecache_fill *fill)
{
    namecache_begin(svc, fill);
    namecache_key_fstat(fill, mount, handle);
    return writeback_dirty() ? 0 : lookup_key(fill, st, NULL);
}

void namecache_keep(const struct namecache_fill *fill, int err,
                    const struct danaus_stat *st)
{
    if (!fill->usable || (err && err != ENOENT && err != ENOTDIR))
        return;
    const struct ipc_announce *page = fill->page;
    uint32_t bucket = NO_BUCKET;
    uint64_t inode = 0;
    if (!err) {
        bucket = ipc_announce_bucket(st->ino);
        /* The bucket first: a bump of it seen here comes with its bump of
         * attrs, seen below (ipc.h). */
        inode = load(&page->inodes[bucket]);
        if (load(&page->attrs) != fill->attrs)
            return;
    }
    enum listed_kind kind =
        !err && S_ISDIR(st->mode) ? LISTED_DIR : LISTED_OTHER;
    union words a = {.a = {
        .mount = fill->mount,
        .flags = fill->flags,
        .err = err,
        .bucket = bucket,
        .len = fill->len,
        .instance = page->instance,
        .names = fill->names,
        .inode = inode,
        .drops = fill->drops,
        .expires_ns = fill->born_ns + (uint64_t)page->timeout_ms * 1000000u,
        .listed = fill->listing ? kind + 1 : 0,
        .no_xattrs = fill->no_xattrs,
    }};
    if (!err)
        a.a.st = *st;
    memcpy(a.a.path, fill->path, fill->len);
    uint32_t p = place(fill->mount, fill->flags, fill->path, fill->len);
    bool fresh;
    struct entry *e = entry_for(p, &fresh);
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
    /* As an acquire, the odd seq comes before every field written below. */
    if ((seq & 1) ||
        !atomic_compare_exchange_strong_explicit(&e->seq, &seq, seq + 1,
                                                 memory_order_acq_rel,
                                                 memory_order_relaxed))
        return;
    atomic_store_explicit(&e->place, p, memory_order_relaxed);
    copy_in(e, &a);
    atomic_store_explicit(&e->seq, seq + 2, memory_order_release);
    /* Named by the index only once written: a lookup that follows it
     * (acquire) finds the entry whole or being written again. */
    if (fresh)
        atomic_store_explicit(&index_of[p],
                              (uint32_t)(e - table) + 1,
                              memory_order_release);
    /* Once per name: a listing keeps lstat's answer for every name. */
    if (fill->listing && fill->flags == AT_SYMLINK_NOFOLLOW)
        atomic_fetch_add_explicit(&listed_kept[kind], 1,
                                  memory_order_relaxed);
}

/* Whether the names of kind its listings kept are looked up enough. */
static bool kind_pays(enum listed_kind kind)
{
    uint64_t kept = atomic_load_explicit(&listed_kept[kind],
                                         memory_order_relaxed);
    uint64_t used = atomic_load_explicit(&listed_used[kind],
                                         memory_order_relaxed);
    if (kept > (1u << 16)) {
        atomic_store_explicit(&listed_kept[kind], kept / 2,
                              memory_order_relaxed);
        atomic_store_explicit(&listed_used[kind], used / 2,
                              memory_order_relaxed);
        if (kind == LISTED_OTHER)
            atomic_store_explicit(
                &xattr_probes,
                atomic_load_explicit(&xattr_probes, memory_order_relaxed) / 2,
                memory_order_relaxed);
    }
    return kept < 256 || used * 2 >= kept;
}

/* Whether listings should say which names have no extended attributes
 * (a listxattr of each, in the service): while names are asked for
 * extended attributes about as often as they are looked up, as ls -l
 * asks every name it shows (and looks each up more than once). */
static bool xattrs_pay(void)
{
    uint64_t probes = atomic_load_explicit(&xattr_probes,
                                           memory_order_relaxed);
    return probes > 0 &&
           probes * 2 >= atomic_load_explicit(&listed_used[LISTED_OTHER],
                                              memory_order_relaxed);
}

/* Listings that came while the others' names did not pay. */
static _Atomic uint32_t listings_come;

/* The service's stat of a listed name is a walk through every branch
 * of a container's union, worth about half the round trip it may save,
 * so listings pay while at least one name in two is looked up again:
 * every name for tar, ls -l and git; directories alone for find and rm
 * -r, which look up every directory they list and nothing else. The
 * first listings ask, to learn; the counts decay so that a process that
 * changes its ways is followed; and one listing in 32 asks for all,
 * for counts that would otherwise never move (counted as they come, not
 * as asked: an open that may list asks, and most opens are of files). */
int namecache_want_listings(void)
{
    if (kind_pays(LISTED_OTHER) ||
        atomic_load_explicit(&listings_come, memory_order_relaxed) % 32 == 0)
        return xattrs_pay() ? DANAUS_LISTING_ATTRS_XATTRS
                            : DANAUS_LISTING_ATTRS_ALL;
    return kind_pays(LISTED_DIR) ? DANAUS_LISTING_ATTRS_DIRS : 0;
}

void namecache_xattr_probe(void)
{
    atomic_fetch_add_explicit(&xattr_probes, 1, memory_order_relaxed);
}

void namecache_listing_came(void)
{
    if (!kind_pays(LISTED_OTHER))
        atomic_fetch_add_explicit(&listings_come, 1, memory_order_relaxed);
}

void namecache_drop(void)
{
    atomic_fetch_add_explicit(&drops, 1, memory_order_acq_rel);
}
