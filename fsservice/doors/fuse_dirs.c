/*
 * fuse_dirs.c - the directory listings the FUSE door keeps open itself
 * (fuse_dirs.h).
 */
#include "fuse_dirs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void close_dir(struct ls_file *dir)
{
    dir->inst->ops->close(dir);
}

int fuse_dirs_init(struct fuse_dirs *d, uint64_t inherited_top)
{
    memset(d->kept, 0, sizeof d->kept);
    d->clock = 0;
    pthread_mutex_init(&d->lock, NULL);
    d->listed = calloc(FUSE_DIRS_LISTED, sizeof *d->listed);
    d->inherited_top = inherited_top;
    d->inherited = NULL;
    if (inherited_top > 0) {
        size_t bytes = (inherited_top + 7) / 8;
        d->inherited = malloc(bytes);
        if (d->inherited)
            memset(d->inherited, 0xff, bytes);
    }
    return d->listed && (d->inherited || !inherited_top) ? 0 : -ENOMEM;
}

void fuse_dirs_free(struct fuse_dirs *d)
{
    for (size_t i = 0; i < FUSE_DIRS_KEPT; i++)
        if (d->kept[i].dir)
            close_dir(d->kept[i].dir);
    memset(d->kept, 0, sizeof d->kept);
    free(d->listed);
    d->listed = NULL;
    free(d->inherited);
    d->inherited = NULL;
    pthread_mutex_destroy(&d->lock);
}

struct ls_file *fuse_dirs_take(struct fuse_dirs *d, uint64_t node,
                               uint64_t ino, off_t at)
{
    struct fuse_kept_dir *found = NULL;
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < FUSE_DIRS_KEPT; i++) {
        struct fuse_kept_dir *k = &d->kept[i];
        if (!k->dir || k->node != node || k->ino != ino)
            continue;
        if (k->next == at) {
            found = k;
            break;
        }
        if (at != 0 && (!found || k->kept_at > found->kept_at))
            found = k;
    }
    struct ls_file *dir = found ? found->dir : NULL;
    if (found)
        found->dir = NULL;
    pthread_mutex_unlock(&d->lock);
    return dir;
}

void fuse_dirs_keep(struct fuse_dirs *d, uint64_t node, uint64_t ino,
                    off_t next, struct ls_file *dir)
{
    pthread_mutex_lock(&d->lock);
    struct fuse_kept_dir *slot = &d->kept[0];
    for (size_t i = 0; i < FUSE_DIRS_KEPT; i++) {
        struct fuse_kept_dir *k = &d->kept[i];
        if (!k->dir) {
            slot = k;
            break;
        }
        if (k->kept_at < slot->kept_at)
            slot = k;
    }
    struct ls_file *evicted = slot->dir;
    *slot = (struct fuse_kept_dir){.dir = dir,
                                   .node = node,
                                   .ino = ino,
                                   .next = next,
                                   .kept_at = ++d->clock};
    pthread_mutex_unlock(&d->lock);
    if (evicted)
        close_dir(evicted);
}

int fuse_dirs_on_node(struct fuse_dirs *d, uint64_t node, uint64_t ino,
                      int (*fn)(struct ls_file *, void *), void *arg)
{
    int rc = -ESTALE;
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < FUSE_DIRS_KEPT && rc == -ESTALE; i++)
        if (d->kept[i].dir && d->kept[i].node == node &&
            d->kept[i].ino == ino)
            rc = fn(d->kept[i].dir, arg);
    pthread_mutex_unlock(&d->lock);
    return rc;
}

void fuse_dirs_listed(struct fuse_dirs *d, uint64_t node)
{
    __atomic_store_n(&d->listed[node % FUSE_DIRS_LISTED], node,
                     __ATOMIC_RELAXED);
}

bool fuse_dirs_unlist(struct fuse_dirs *d, uint64_t node)
{
    uint64_t expected = node;
    if (__atomic_compare_exchange_n(&d->listed[node % FUSE_DIRS_LISTED],
                                    &expected, 0, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
        return true;
    if (node >= d->inherited_top)
        return false;
    uint8_t bit = (uint8_t)(1u << (node % 8));
    return __atomic_fetch_and(&d->inherited[node / 8], (uint8_t)~bit,
                              __ATOMIC_RELAXED) & bit;
}
