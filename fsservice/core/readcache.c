/*
 * readcache.c - registry of handles whose data clients may have cached
 * (readcache.h): two chained hash tables over the same records, one by
 * the backend's key (to find who to tell of a change), one by client and
 * handle (for PREADs and closes).
 */
#include "readcache.h"

#include "client.h"

#include <stdbool.h>
#include <stdlib.h>

struct readcache_reader {
    struct client *c; /* no reference: forgotten before the client goes */
    uint64_t handle;
    uint64_t key;
    uint32_t gen;     /* the handle's generation now, 0: none */
    uint32_t last;    /* the last one handed out: generations of a handle
                         are never reused, so nothing kept under an old
                         one can count again */
    bool pending;     /* a hold is being asked for: an announcement
                         clears it, and the hold then gives nothing */
    bool writes_back; /* was given IPC_GEN_WRITES_BACK: the client may
                         hold pages of it */
    bool kept;        /* its file went to rc->kept (kept.h) */
    struct readcache_reader *next_by_key, *next_by_handle;
};

static uint32_t key_bucket(uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 52);
}

static uint32_t handle_bucket(const struct client *c, uint64_t handle)
{
    uint64_t h = handle ^ ((uint64_t)c->id << 40);
    return (uint32_t)((h * 0x9E3779B97F4A7C15ull) >> 52);
}

void readcache_init(struct readcache *rc)
{
    *rc = (struct readcache){0};
    pthread_mutex_init(&rc->lock, NULL);
    pthread_cond_init(&rc->flushed, NULL);
}

void readcache_free(struct readcache *rc)
{
    for (uint32_t b = 0; b < READCACHE_BUCKETS; b++)
        while (rc->by_handle[b]) {
            struct readcache_reader *r = rc->by_handle[b];
            rc->by_handle[b] = r->next_by_handle;
            free(r);
        }
    pthread_mutex_destroy(&rc->lock);
    pthread_cond_destroy(&rc->flushed);
}

static struct readcache_reader **find(struct readcache *rc,
                                      const struct client *c, uint64_t handle)
{
    struct readcache_reader **p = &rc->by_handle[handle_bucket(c, handle)];
    while (*p && !((*p)->c == c && (*p)->handle == handle))
        p = &(*p)->next_by_handle;
    return p;
}

static void set_gen(struct readcache_reader *r, uint32_t gen)
{
    r->gen = gen;
    ipc_cache_set_gen(&r->c->area, (uint32_t)r->handle, gen);
}

static struct readcache_reader *add(struct readcache *rc, struct client *c,
                                    uint64_t handle, uint64_t key)
{
    struct readcache_reader **slot = find(rc, c, handle);
    if (*slot)
        return *slot;
    struct readcache_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->c = c;
    r->handle = handle;
    r->key = key;
    *slot = r;
    uint32_t kb = key_bucket(key);
    r->next_by_key = rc->by_key[kb];
    rc->by_key[kb] = r;
    rc->readers++;
    return r;
}

/* The next generation after last: below IPC_GEN_WRITES_BACK, never 0. */
static uint32_t next_gen(uint32_t last)
{
    uint32_t gen = (last + 1) & ~IPC_GEN_WRITES_BACK;
    return gen ? gen : 1;
}

static void tell(struct readcache *rc, const struct kept_write *w, int fd)
{
    if (rc->kept.keep)
        rc->kept.keep(rc->kept.arg, w, fd);
}

/* Hands r's file, and its client's area the first time, to rc->kept,
 * before the generation that lets the client keep pages of it. */
static void keep_file(struct readcache *rc, struct readcache_reader *r,
                      struct ls_file *file)
{
    int (*write_fd)(struct ls_file *) = file->inst->ops->write_fd;
    int fd = rc->kept.keep && write_fd ? write_fd(file) : -1;
    if (fd < 0)
        return;
    struct client *c = r->c;
    if (!c->area_kept) {
        const struct ipc_area *a = &c->area;
        struct kept_write w = {.op = KEPT_AREA, .client = c->id,
                               .uid = c->cred.uid, .gid = c->cred.gid,
                               .nslots = a->nslots, .slot_buf = a->slot_buf,
                               .cache_blocks = a->cache_blocks,
                               .dirty_pages = a->dirty_pages};
        tell(rc, &w, a->fd);
        c->area_kept = true;
    }
    struct kept_write w = {.op = KEPT_FILE, .client = c->id,
                           .handle = r->handle};
    tell(rc, &w, fd);
    r->kept = true;
}

uint32_t readcache_begin(struct readcache *rc, struct client *c,
                         uint64_t handle, struct ls_file *file,
                         bool writes_back)
{
    int (*hold)(struct ls_file *, uint64_t *) = file->inst->ops->cache_hold;
    if (!c->area.cache_blocks || !hold)
        return 0;
    writes_back &= c->area.dirty_pages != 0;
    uint64_t key;
    pthread_mutex_lock(&rc->lock);
    struct readcache_reader *r = *find(rc, c, handle);
    if (r && r->gen && (!writes_back || r->writes_back)) {
        uint32_t gen = r->gen;
        pthread_mutex_unlock(&rc->lock);
        return gen;
    }
    if (!r) {
        /* The first time: the key comes with the first hold. */
        pthread_mutex_unlock(&rc->lock);
        if (hold(file, &key) < 1)
            return 0;
        pthread_mutex_lock(&rc->lock);
        r = add(rc, c, handle, key);
    }
    if (r)
        r->pending = true;
    pthread_mutex_unlock(&rc->lock);
    int held = r ? hold(file, &key) : 0;
    if (held < 1)
        return 0;
    writes_back &= (held & LS_HOLD_WRITES) != 0;
    pthread_mutex_lock(&rc->lock);
    uint32_t gen = 0;
    r = *find(rc, c, handle);
    if (r && r->pending && r->key == key) {
        r->pending = false;
        r->last = next_gen(r->last);
        if (writes_back && !r->kept)
            keep_file(rc, r, file);
        r->writes_back |= writes_back;
        set_gen(r, r->last | (writes_back ? IPC_GEN_WRITES_BACK : 0));
        gen = r->gen;
    }
    pthread_mutex_unlock(&rc->lock);
    return gen;
}

static void unlink_by_key(struct readcache *rc, struct readcache_reader *r)
{
    struct readcache_reader **p = &rc->by_key[key_bucket(r->key)];
    while (*p != r)
        p = &(*p)->next_by_key;
    *p = r->next_by_key;
}

/* Takes the record at *slot (of the handle table) out of both tables. */
static void drop(struct readcache *rc, struct readcache_reader **slot)
{
    struct readcache_reader *r = *slot;
    *slot = r->next_by_handle;
    unlink_by_key(rc, r);
    rc->readers--;
    free(r);
}

void readcache_forget(struct readcache *rc, struct client *c, uint64_t handle)
{
    pthread_mutex_lock(&rc->lock);
    struct readcache_reader **slot = find(rc, c, handle);
    if (*slot) {
        set_gen(*slot, 0);
        /* Before the file closes: the keeper's copy of its descriptor
         * would keep the backend's lease alive. */
        if ((*slot)->kept) {
            struct kept_write w = {.op = KEPT_FORGET_FILE, .client = c->id,
                                   .handle = handle};
            tell(rc, &w, -1);
        }
        drop(rc, slot);
    }
    pthread_mutex_unlock(&rc->lock);
}

void readcache_forget_client(struct readcache *rc, struct client *c)
{
    pthread_mutex_lock(&rc->lock);
    while (rc->flushing)
        pthread_cond_wait(&rc->flushed, &rc->lock);
    for (uint32_t b = 0; rc->readers && b < READCACHE_BUCKETS; b++) {
        struct readcache_reader **p = &rc->by_handle[b];
        while (*p) {
            if ((*p)->c == c)
                drop(rc, p);
            else
                p = &(*p)->next_by_handle;
        }
    }
    if (c->area_kept) {
        struct kept_write w = {.op = KEPT_FORGET_CLIENT, .client = c->id};
        tell(rc, &w, -1);
        c->area_kept = false;
    }
    pthread_mutex_unlock(&rc->lock);
}

void readcache_flush_client(struct readcache *rc, struct client *c)
{
    if (c->area.dirty_pages && rc->flush)
        rc->flush(rc->flush_arg, c, 0);
}

void readcache_wrote(struct readcache *rc, struct client *c, uint64_t handle)
{
    pthread_mutex_lock(&rc->lock);
    struct readcache_reader *r = *find(rc, c, handle);
    uint64_t key = r ? r->key : 0;
    pthread_mutex_unlock(&rc->lock);
    if (r) {
        readcache_changed(rc, key);
        readcache_flush_key(rc, key);
    }
}

/* A write-back handle to flush once the lock is let go. */
struct to_flush {
    struct client *c;
    uint64_t handle;
};

void readcache_changed(void *arg, uint64_t key)
{
    struct readcache *rc = arg;
    pthread_mutex_lock(&rc->lock);
    for (struct readcache_reader *r = rc->by_key[key_bucket(key)]; r;
         r = r->next_by_key)
        if (r->key == key) {
            r->pending = false;
            if (r->gen)
                set_gen(r, 0);
        }
    pthread_mutex_unlock(&rc->lock);
}

/* After readcache_changed, every generation is 0, so no client keeps a
 * page more: the pages are written without the lock (a flush takes it to
 * announce), their clients kept by the count of flushes under way. */
void readcache_flush_key(void *arg, uint64_t key)
{
    struct readcache *rc = arg;
    pthread_mutex_lock(&rc->lock);
    uint32_t n = 0;
    for (struct readcache_reader *r = rc->by_key[key_bucket(key)]; r;
         r = r->next_by_key)
        n += r->key == key && r->writes_back;
    struct to_flush few[8];
    struct to_flush *v = !n || !rc->flush ? NULL
                         : n <= 8          ? few
                                           : calloc(n, sizeof *v);
    uint32_t k = 0;
    for (struct readcache_reader *r = rc->by_key[key_bucket(key)]; v && r;
         r = r->next_by_key)
        if (r->key == key && r->writes_back && k < n)
            v[k++] = (struct to_flush){r->c, r->handle};
    rc->flushing += k;
    pthread_mutex_unlock(&rc->lock);
    for (uint32_t i = 0; i < k; i++)
        rc->flush(rc->flush_arg, v[i].c, v[i].handle);
    if (v != few)
        free(v);
    if (!k)
        return;
    pthread_mutex_lock(&rc->lock);
    rc->flushing -= k;
    pthread_cond_broadcast(&rc->flushed);
    pthread_mutex_unlock(&rc->lock);
}

void readcache_writing_back(struct readcache *rc, struct client *c,
                            uint64_t handle)
{
    pthread_mutex_lock(&rc->lock);
    struct readcache_reader *r = *find(rc, c, handle);
    uint64_t key = r ? r->key : 0;
    for (r = r ? rc->by_key[key_bucket(key)] : NULL; r; r = r->next_by_key)
        if (r->key == key) {
            r->pending = false;
            if (r->gen)
                set_gen(r, 0);
        }
    pthread_mutex_unlock(&rc->lock);
}
