/*
 * poolcache.c - the pool's page cache, partitioned by mount (poolcache.h).
 */
#include "poolcache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pc_page {
    uint64_t key, index;
    struct pc_page *hash_next;
    struct pc_page *lru_prev, *lru_next;   /* its mount's, newest first */
    struct pc_page *file_prev, *file_next; /* its file's */
    struct pc_file *file;
    uint32_t mount, len;
    unsigned char data[POOLCACHE_PAGE];
};

struct pc_file {
    uint64_t key;
    struct pc_file *hash_next;
    struct poolcache_version v;
    struct pc_page *pages;
};

struct pc_mount {
    struct pc_page *newest, *oldest;
    uint64_t pages, reserve, hits, misses;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static uint32_t pow2_at_least(uint64_t n, uint32_t least, uint32_t most)
{
    uint32_t b = least;
    while (b < n && b < most)
        b <<= 1;
    return b;
}

int poolcache_init(struct poolcache *pc, uint64_t bound)
{
    memset(pc, 0, sizeof *pc);
    pthread_mutex_init(&pc->lock, NULL);
    if (!bound)
        return 0;
    uint64_t pages = bound / POOLCACHE_PAGE;
    pc->page_buckets = pow2_at_least(pages / 2, 1024, 1u << 22);
    pc->file_buckets = pow2_at_least(pages / 64, 256, 1u << 18);
    pc->pages = calloc(pc->page_buckets, sizeof *pc->pages);
    pc->files = calloc(pc->file_buckets, sizeof *pc->files);
    if (!pc->pages || !pc->files) {
        poolcache_free(pc);
        return -ENOMEM;
    }
    return 0;
}

bool poolcache_on(const struct poolcache *pc)
{
    return pc->pages != NULL;
}

static struct pc_page **page_slot(struct poolcache *pc, uint64_t key,
                                  uint64_t index)
{
    struct pc_page **p =
        &pc->pages[mix(key * 0x9e3779b97f4a7c15ull + index) &
                   (pc->page_buckets - 1)];
    while (*p && ((*p)->key != key || (*p)->index != index))
        p = &(*p)->hash_next;
    return p;
}

static struct pc_file **file_slot(struct poolcache *pc, uint64_t key)
{
    struct pc_file **f = &pc->files[mix(key) & (pc->file_buckets - 1)];
    while (*f && (*f)->key != key)
        f = &(*f)->hash_next;
    return f;
}

static struct pc_mount *mount_of(struct poolcache *pc, uint32_t mount)
{
    if (mount >= DANAUS_MAX_INSTANCES)
        return NULL;
    if (!pc->mounts[mount] &&
        (pc->mounts[mount] = calloc(1, sizeof *pc->mounts[mount])))
        pc->made[pc->nmade++] = mount;
    return pc->mounts[mount];
}

static void lru_unlink(struct pc_mount *m, struct pc_page *p)
{
    if (p->lru_prev)
        p->lru_prev->lru_next = p->lru_next;
    else
        m->newest = p->lru_next;
    if (p->lru_next)
        p->lru_next->lru_prev = p->lru_prev;
    else
        m->oldest = p->lru_prev;
}

static void lru_push(struct pc_mount *m, struct pc_page *p)
{
    p->lru_prev = NULL;
    p->lru_next = m->newest;
    if (m->newest)
        m->newest->lru_prev = p;
    else
        m->oldest = p;
    m->newest = p;
}

/* p was read again: the newest of its owner's. */
static void touch(struct poolcache *pc, struct pc_page *p)
{
    struct pc_mount *owner = pc->mounts[p->mount];
    lru_unlink(owner, p);
    lru_push(owner, p);
}

/* Takes p out of every list (still counted in used); its file goes with
 * its last page. */
static void unlink_page(struct poolcache *pc, struct pc_page *p)
{
    struct pc_page **slot = page_slot(pc, p->key, p->index);
    *slot = p->hash_next;
    struct pc_mount *m = pc->mounts[p->mount];
    lru_unlink(m, p);
    m->pages--;
    struct pc_file *f = p->file;
    if (p->file_prev)
        p->file_prev->file_next = p->file_next;
    else
        f->pages = p->file_next;
    if (p->file_next)
        p->file_next->file_prev = p->file_prev;
    if (!f->pages) {
        struct pc_file **fs = file_slot(pc, f->key);
        *fs = f->hash_next;
        free(f);
    }
}

static void drop_page(struct poolcache *pc, struct pc_page *p)
{
    unlink_page(pc, p);
    pc->used--;
    free(p);
}

static void drop_file(struct poolcache *pc, uint64_t key)
{
    struct pc_file *f = *file_slot(pc, key);
    while (f) {
        struct pc_page *p = f->pages;
        f = p->file_next ? f : NULL; /* the last page frees f */
        drop_page(pc, p);
    }
}

/* The oldest page of the mount farthest above its reserve (below it, the
 * least far below): with reserves that fit the capacity, a mount under
 * its reserve always finds another over its own. */
static struct pc_page *victim(struct poolcache *pc)
{
    struct pc_mount *best = NULL;
    int64_t most = INT64_MIN;
    for (uint32_t i = 0; i < pc->nmade; i++) {
        struct pc_mount *m = pc->mounts[pc->made[i]];
        if (!m->pages)
            continue;
        int64_t over = (int64_t)m->pages - (int64_t)m->reserve;
        if (over > most) {
            most = over;
            best = m;
        }
    }
    return best ? best->oldest : NULL;
}

static void shrink_to(struct poolcache *pc, uint64_t pages)
{
    while (pc->used > pages) {
        struct pc_page *p = victim(pc);
        if (!p)
            break;
        drop_page(pc, p);
    }
}

void poolcache_resize(struct poolcache *pc, uint64_t bytes)
{
    if (!poolcache_on(pc))
        return;
    pthread_mutex_lock(&pc->lock);
    pc->capacity = bytes / POOLCACHE_PAGE;
    shrink_to(pc, pc->capacity);
    pthread_mutex_unlock(&pc->lock);
}

void poolcache_reserve(struct poolcache *pc, uint32_t mount, uint64_t pages)
{
    if (!poolcache_on(pc))
        return;
    pthread_mutex_lock(&pc->lock);
    struct pc_mount *m = mount_of(pc, mount);
    if (m)
        m->reserve = pages;
    pthread_mutex_unlock(&pc->lock);
}

void poolcache_forget_mount(struct poolcache *pc, uint32_t mount)
{
    if (!poolcache_on(pc) || mount >= DANAUS_MAX_INSTANCES)
        return;
    pthread_mutex_lock(&pc->lock);
    struct pc_mount *m = pc->mounts[mount];
    if (m)
        m->reserve = m->hits = m->misses = 0;
    pthread_mutex_unlock(&pc->lock);
}

static bool same_version(const struct poolcache_version *a,
                         const struct poolcache_version *b)
{
    return a->size == b->size && a->mtime_sec == b->mtime_sec &&
           a->mtime_nsec == b->mtime_nsec && a->ctime_sec == b->ctime_sec &&
           a->ctime_nsec == b->ctime_nsec;
}

void poolcache_check(struct poolcache *pc, uint64_t key,
                     const struct poolcache_version *v)
{
    if (!poolcache_on(pc))
        return;
    pthread_mutex_lock(&pc->lock);
    struct pc_file *f = *file_slot(pc, key);
    if (f && !same_version(&f->v, v))
        drop_file(pc, key);
    pthread_mutex_unlock(&pc->lock);
}

int64_t poolcache_read(struct poolcache *pc, uint32_t mount, uint64_t key,
                       uint64_t off, uint64_t len, void *out)
{
    if (!poolcache_on(pc))
        return -1;
    uint64_t done = 0;
    pthread_mutex_lock(&pc->lock);
    struct pc_mount *reader = mount_of(pc, mount);
    while (done < len) {
        uint64_t at = off + done;
        struct pc_page *p = *page_slot(pc, key, at / POOLCACHE_PAGE);
        if (!p) {
            if (reader)
                reader->misses++;
            pthread_mutex_unlock(&pc->lock);
            return -1;
        }
        uint64_t in = at % POOLCACHE_PAGE;
        uint64_t n = p->len > in ? p->len - in : 0;
        if (n > len - done)
            n = len - done;
        memcpy((char *)out + done, p->data + in, n);
        done += n;
        touch(pc, p);
        if (p->len < POOLCACHE_PAGE)
            break; /* the file's end */
    }
    if (reader)
        reader->hits++;
    pthread_mutex_unlock(&pc->lock);
    return (int64_t)done;
}

static uint32_t change_bucket(uint64_t key)
{
    return (uint32_t)(mix(key) % POOLCACHE_CHANGE_BUCKETS);
}

/* seq_cst with poolcache_changed's add: a fill either saw the change's
 * count or its pages are dropped after it. */
uint32_t poolcache_fill_begin(struct poolcache *pc, uint64_t key)
{
    return atomic_load(&pc->changes[change_bucket(key)]);
}

/* A page, counted in used: a new one while there is room, else the
 * victim, taken out of its lists. */
static struct pc_page *take_page(struct poolcache *pc)
{
    struct pc_page *p;
    if (pc->used < pc->capacity) {
        if ((p = malloc(sizeof *p)))
            pc->used++;
    } else if ((p = victim(pc))) {
        unlink_page(pc, p);
    }
    return p;
}

/* Key's file record, made under v when it has none (poolcache_fill has
 * dropped one under another version). */
static struct pc_file *file_for(struct poolcache *pc, uint64_t key,
                                const struct poolcache_version *v)
{
    struct pc_file **slot = file_slot(pc, key);
    if (*slot)
        return *slot;
    struct pc_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->key = key;
    f->v = *v;
    *slot = f;
    return f;
}

static void keep_page(struct poolcache *pc, uint32_t mount, uint64_t key,
                      const struct poolcache_version *v, uint64_t index,
                      const void *data, uint32_t len)
{
    struct pc_page *p = *page_slot(pc, key, index);
    if (p) {
        memcpy(p->data, data, len);
        p->len = len;
        touch(pc, p);
        return;
    }
    struct pc_mount *m = mount_of(pc, mount);
    if (!m || !(p = take_page(pc)))
        return;
    /* After take_page, whose victim may have been key's last page. */
    struct pc_file *f = file_for(pc, key, v);
    if (!f) {
        free(p);
        pc->used--;
        return;
    }
    p->key = key;
    p->index = index;
    p->mount = mount;
    p->len = len;
    memcpy(p->data, data, len);
    struct pc_page **slot = page_slot(pc, key, index);
    p->hash_next = *slot;
    *slot = p;
    p->file = f;
    p->file_prev = NULL;
    p->file_next = f->pages;
    if (f->pages)
        f->pages->file_prev = p;
    f->pages = p;
    lru_push(m, p);
    m->pages++;
}

void poolcache_fill(struct poolcache *pc, uint32_t mount, uint64_t key,
                    uint32_t seen, const struct poolcache_version *v,
                    uint64_t off, const void *data, uint64_t len, bool eof)
{
    if (!poolcache_on(pc) || off % POOLCACHE_PAGE)
        return;
    pthread_mutex_lock(&pc->lock);
    if (atomic_load(&pc->changes[change_bucket(key)]) != seen ||
        !pc->capacity) {
        pthread_mutex_unlock(&pc->lock);
        return;
    }
    /* The filler's open was checked and held since: pages under another
     * version are stale. */
    struct pc_file *f = *file_slot(pc, key);
    if (f && !same_version(&f->v, v))
        drop_file(pc, key);
    for (uint64_t at = 0; at < len; at += POOLCACHE_PAGE) {
        uint64_t n = len - at < POOLCACHE_PAGE ? len - at : POOLCACHE_PAGE;
        if (n < POOLCACHE_PAGE && !eof)
            break; /* a page cut short by the read, not by the file */
        keep_page(pc, mount, key, v, (off + at) / POOLCACHE_PAGE,
                  (const char *)data + at, (uint32_t)n);
    }
    pthread_mutex_unlock(&pc->lock);
}

void poolcache_changed(struct poolcache *pc, uint64_t key)
{
    if (!poolcache_on(pc))
        return;
    atomic_fetch_add(&pc->changes[change_bucket(key)], 1);
    pthread_mutex_lock(&pc->lock);
    drop_file(pc, key);
    pthread_mutex_unlock(&pc->lock);
}

struct poolcache_mount_stats poolcache_stats(struct poolcache *pc,
                                             uint32_t mount)
{
    struct poolcache_mount_stats s = {0};
    if (!poolcache_on(pc) || mount >= DANAUS_MAX_INSTANCES)
        return s;
    pthread_mutex_lock(&pc->lock);
    struct pc_mount *m = pc->mounts[mount];
    if (m)
        s = (struct poolcache_mount_stats){m->pages, m->reserve, m->hits,
                                           m->misses};
    pthread_mutex_unlock(&pc->lock);
    return s;
}

void poolcache_free(struct poolcache *pc)
{
    for (uint32_t i = 0; pc->pages && i < pc->page_buckets; i++)
        while (pc->pages[i]) {
            struct pc_page *p = pc->pages[i];
            pc->pages[i] = p->hash_next;
            free(p);
        }
    for (uint32_t i = 0; pc->files && i < pc->file_buckets; i++)
        while (pc->files[i]) {
            struct pc_file *f = pc->files[i];
            pc->files[i] = f->hash_next;
            free(f);
        }
    for (uint32_t i = 0; i < pc->nmade; i++)
        free(pc->mounts[pc->made[i]]);
    free(pc->pages);
    free(pc->files);
    pthread_mutex_destroy(&pc->lock);
    memset(pc, 0, sizeof *pc);
}
