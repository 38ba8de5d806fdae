/*
 * fuse_handles.c - the FUSE door's open files and directories
 * (fuse_handles.h).
 */
#include "fuse_handles.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HANDLES (1ull << 20)

enum { HANDLE_FREE, HANDLE_FILE, HANDLE_DIR };

struct handle_rec {
    uint64_t node;
    uint64_t ino;
    int32_t flags;
    uint32_t generation; /* how often the record was given out */
    uint32_t writes;     /* begun since the last fsync through it ended */
    uint8_t state;
    uint8_t exec;
    uint8_t lost;        /* a dead service may have lost some of them */
};

/* A handle is its record's index and, above, the record's generation: a
 * RELEASE the kernel sends again after a restart, for a handle the dead
 * service had already ended and given out anew, names an older
 * generation and ends nothing. */
static uint64_t index_of(uint64_t fh)
{
    return fh & 0xffffffffu;
}

static uint64_t handle_of(uint64_t i, const struct handle_rec *r)
{
    return (uint64_t)r->generation << 32 | i;
}

static struct handle_rec *rec(const struct fuse_handles *h, uint64_t i)
{
    return record_area_at(&h->area, i);
}

static bool given(const struct fuse_handles *h, uint64_t fh)
{
    uint64_t i = index_of(fh);
    return i >= 1 && i < h->top && rec(h, i)->state != HANDLE_FREE &&
           handle_of(i, rec(h, i)) == fh;
}

static void count(struct fuse_handles *h, const struct handle_rec *r, int by)
{
    if (r->state != HANDLE_FILE)
        return;
    atomic_fetch_add(&h->nopen, by);
    if (r->exec)
        atomic_fetch_add(&h->nexec, by);
}

/* Makes the area and the files hold handles below n. */
static int room_for(struct fuse_handles *h, uint64_t n)
{
    void *files = h->files;
    int rc = record_area_make_room(&h->area, n, &files, sizeof *h->files);
    h->files = files;
    return rc;
}

static void start(struct fuse_handles *h)
{
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->lock, NULL);
    h->top = 1;
}

int fuse_handles_init(struct fuse_handles *h)
{
    start(h);
    int rc = record_area_create(&h->area, "danaus-fuse-handles",
                                sizeof(struct handle_rec), MAX_HANDLES);
    if (rc == 0)
        rc = (h->files = calloc(h->area.count, sizeof *h->files)) ? 0
                                                                  : -ENOMEM;
    if (rc < 0)
        fuse_handles_free(h, NULL);
    return rc;
}

int fuse_handles_adopt(struct fuse_handles *h, int fd, bool writes_lost)
{
    start(h);
    int rc = record_area_adopt(&h->area, fd, sizeof(struct handle_rec),
                               MAX_HANDLES);
    if (rc == 0)
        rc = (h->files = calloc(h->area.count, sizeof *h->files)) ? 0
                                                                  : -ENOMEM;
    if (rc < 0) {
        fuse_handles_free(h, NULL);
        return rc;
    }
    for (uint64_t i = 1; i < h->area.count; i++) {
        struct handle_rec *r = rec(h, i);
        if (r->state > HANDLE_DIR)
            r->state = HANDLE_FREE;
        if (r->state != HANDLE_FREE) {
            h->top = i + 1;
            count(h, r, 1);
        }
        if (r->state == HANDLE_FILE && writes_lost && r->writes)
            r->lost = 1;
        r->writes = 0;
    }
    for (uint64_t i = 1; i < h->top; i++)
        if (rec(h, i)->state == HANDLE_FREE)
            free_ids_push(&h->free, i);
    return 0;
}

int fuse_handles_fd(const struct fuse_handles *h)
{
    return h->area.fd;
}

void fuse_handles_free(struct fuse_handles *h,
                       void (*close_file)(struct ls_file *))
{
    for (uint64_t i = 1; close_file && i < h->top; i++)
        if (h->files[i])
            close_file(h->files[i]);
    record_area_free(&h->area);
    free(h->files);
    free_ids_clear(&h->free);
    pthread_mutex_destroy(&h->lock);
    h->files = NULL;
    h->top = 0;
}

uint64_t fuse_handles_add(struct fuse_handles *h,
                          const struct fuse_handle *what,
                          struct ls_file *file)
{
    pthread_mutex_lock(&h->lock);
    uint64_t i = 0, fh = 0;
    if (!free_ids_pop(&h->free, &i) && room_for(h, h->top + 1) == 0)
        i = h->top++;
    if (i) {
        struct handle_rec *r = rec(h, i);
        r->generation++;
        fh = handle_of(i, r);
        r->node = what->node;
        r->ino = what->ino;
        r->flags = what->flags;
        r->exec = what->exec;
        r->writes = 0;
        r->lost = 0;
        r->state = what->dir ? HANDLE_DIR : HANDLE_FILE;
        h->files[i] = file;
        count(h, r, 1);
    }
    pthread_mutex_unlock(&h->lock);
    return fh;
}

int fuse_handles_get(struct fuse_handles *h, uint64_t fh,
                     struct fuse_handle *what, struct ls_file **file)
{
    pthread_mutex_lock(&h->lock);
    int rc = given(h, fh) ? 0 : -EBADF;
    if (rc == 0) {
        const struct handle_rec *r = rec(h, index_of(fh));
        *what = (struct fuse_handle){.node = r->node,
                                     .ino = r->ino,
                                     .flags = r->flags,
                                     .dir = r->state == HANDLE_DIR,
                                     .exec = r->exec};
        *file = h->files[index_of(fh)];
    }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

struct ls_file *fuse_handles_set(struct fuse_handles *h, uint64_t fh,
                                 struct ls_file *file)
{
    uint64_t i = index_of(fh);
    pthread_mutex_lock(&h->lock);
    if (given(h, fh) && !h->files[i])
        h->files[i] = file;
    struct ls_file *held = given(h, fh) ? h->files[i] : NULL;
    pthread_mutex_unlock(&h->lock);
    return held;
}

struct ls_file *fuse_handles_remove(struct fuse_handles *h, uint64_t fh)
{
    struct ls_file *file = NULL;
    pthread_mutex_lock(&h->lock);
    if (given(h, fh)) {
        uint64_t i = index_of(fh);
        struct handle_rec *r = rec(h, i);
        count(h, r, -1);
        r->state = HANDLE_FREE;
        file = h->files[i];
        h->files[i] = NULL;
        free_ids_push(&h->free, i);
    }
    pthread_mutex_unlock(&h->lock);
    return file;
}

bool fuse_handles_find(struct fuse_handles *h, uint64_t ino, bool exec_only,
                       uint64_t *node)
{
    bool found = false;
    pthread_mutex_lock(&h->lock);
    for (uint64_t i = 1; i < h->top && !found; i++) {
        const struct handle_rec *r = rec(h, i);
        found = r->state == HANDLE_FILE && r->ino == ino &&
                (r->exec || !exec_only);
        if (found && node)
            *node = r->node;
    }
    pthread_mutex_unlock(&h->lock);
    return found;
}

int fuse_handles_on_node(struct fuse_handles *h, uint64_t node,
                         int (*fn)(struct ls_file *, void *), void *arg)
{
    int rc = -ESTALE;
    pthread_mutex_lock(&h->lock);
    for (uint64_t i = 1; i < h->top; i++)
        if (rec(h, i)->state == HANDLE_FILE && rec(h, i)->node == node &&
            h->files[i]) {
            rc = fn(h->files[i], arg);
            break;
        }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

void fuse_handles_writing(struct fuse_handles *h, uint64_t fh)
{
    pthread_mutex_lock(&h->lock);
    if (given(h, fh))
        rec(h, index_of(fh))->writes++;
    pthread_mutex_unlock(&h->lock);
}

int fuse_handles_sync_begin(struct fuse_handles *h, uint64_t fh,
                            uint32_t *mark)
{
    int rc = 0;
    pthread_mutex_lock(&h->lock);
    if (given(h, fh)) {
        const struct handle_rec *mine = rec(h, index_of(fh));
        *mark = mine->writes;
        /* fsync flushes the file, whichever descriptor wrote: a loss
         * through any handle of its inode is reported, once. */
        for (uint64_t i = 1; i < h->top; i++) {
            struct handle_rec *r = rec(h, i);
            if (r->state == HANDLE_FILE && r->ino == mine->ino && r->lost) {
                r->lost = 0;
                rc = -EIO;
            }
        }
    }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

void fuse_handles_synced(struct fuse_handles *h, uint64_t fh, uint32_t mark)
{
    pthread_mutex_lock(&h->lock);
    if (given(h, fh) && rec(h, index_of(fh))->writes == mark)
        rec(h, index_of(fh))->writes = 0;
    pthread_mutex_unlock(&h->lock);
}
