/*
 * fstable.c - RCU-published snapshots of the mount table.
 */
#include "fstable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

struct fs_entry {
    char *mountpoint;
    struct ls_instance *inst;
    int removed; /* fstable_remove */
};

struct fs_snapshot {
    uint32_t n;
    struct rcu_head rcu;
    struct fs_entry e[];
};

void fstable_init(struct fstable *t)
{
    pthread_mutex_init(&t->lock, NULL);
    t->snap = NULL;
}

static void free_snapshot_rcu(struct rcu_head *h)
{
    free(caa_container_of(h, struct fs_snapshot, rcu));
}

int fstable_add(struct fstable *t, const char *mountpoint,
                struct ls_instance *inst)
{
    pthread_mutex_lock(&t->lock);
    struct fs_snapshot *old = t->snap;
    uint32_t n = old ? old->n : 0;
    int rc = -ENOSPC;
    if (n == DANAUS_MAX_INSTANCES)
        goto out;
    rc = -ENOMEM;
    struct fs_snapshot *s = malloc(sizeof *s + (n + 1) * sizeof s->e[0]);
    char *mp = strdup(mountpoint);
    if (!s || !mp) {
        free(s);
        free(mp);
        goto out;
    }
    if (old)
        memcpy(s->e, old->e, n * sizeof s->e[0]);
    for (uint32_t i = 0; i < n; i++)
        if (!s->e[i].removed && strcmp(s->e[i].mountpoint, mp) == 0) {
            free(s);
            free(mp);
            rc = -EEXIST;
            goto out;
        }
    s->e[n].mountpoint = mp;
    s->e[n].inst = inst;
    s->e[n].removed = 0;
    s->n = n + 1;
    rcu_assign_pointer(t->snap, s);
    if (old)
        call_rcu(&old->rcu, free_snapshot_rcu);
    rc = (int)n;
out:
    pthread_mutex_unlock(&t->lock);
    return rc;
}

int fstable_remove(struct fstable *t, const char *mountpoint)
{
    pthread_mutex_lock(&t->lock);
    struct fs_snapshot *old = t->snap;
    uint32_t n = old ? old->n : 0;
    int rc = -ENOENT;
    for (uint32_t i = 0; i < n; i++) {
        if (old->e[i].removed || strcmp(old->e[i].mountpoint, mountpoint))
            continue;
        rc = -ENOMEM;
        struct fs_snapshot *s = malloc(sizeof *s + n * sizeof s->e[0]);
        if (!s)
            break;
        memcpy(s->e, old->e, n * sizeof s->e[0]);
        s->e[i].removed = 1;
        s->n = n;
        rcu_assign_pointer(t->snap, s);
        call_rcu(&old->rcu, free_snapshot_rcu);
        rc = (int)i;
        break;
    }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

struct ls_instance *fstable_get(struct fstable *t, uint32_t i)
{
    struct fs_snapshot *s = rcu_dereference(t->snap);
    return s && i < s->n && !s->e[i].removed ? s->e[i].inst : NULL;
}

/* One hello entry (wire.h): the index, then the path and its NUL. */
size_t fstable_entry(char *out, size_t cap, uint32_t index, const char *path)
{
    size_t len = sizeof index + strlen(path) + 1;
    if (len > cap)
        return 0;
    memcpy(out, &index, sizeof index);
    memcpy(out + sizeof index, path, len - sizeof index);
    return len;
}

size_t fstable_list(struct fstable *t, char *out, size_t cap, uint32_t *n)
{
    size_t used = 0;
    *n = 0;
    rcu_read_lock();
    struct fs_snapshot *s = rcu_dereference(t->snap);
    for (uint32_t i = 0; s && i < s->n && *n < DANAUS_MAX_MOUNTS; i++) {
        if (s->e[i].removed)
            continue;
        size_t len = fstable_entry(out + used, cap - used, i,
                                   s->e[i].mountpoint);
        if (len == 0)
            break;
        used += len;
        (*n)++;
    }
    rcu_read_unlock();
    return used;
}

int fstable_find(struct fstable *t, const char *mountpoint)
{
    int rc = -ENOENT;
    rcu_read_lock();
    struct fs_snapshot *s = rcu_dereference(t->snap);
    for (uint32_t i = 0; s && i < s->n; i++)
        if (!s->e[i].removed && strcmp(s->e[i].mountpoint, mountpoint) == 0) {
            rc = (int)i;
            break;
        }
    rcu_read_unlock();
    return rc;
}

int fstable_mountpoint(struct fstable *t, uint32_t i, char *out, size_t cap)
{
    int rc = -ENOENT;
    rcu_read_lock();
    struct fs_snapshot *s = rcu_dereference(t->snap);
    if (s && i < s->n && !s->e[i].removed) {
        size_t len = strlen(s->e[i].mountpoint);
        rc = len < cap ? 0 : -ENAMETOOLONG;
        if (rc == 0)
            memcpy(out, s->e[i].mountpoint, len + 1);
    }
    rcu_read_unlock();
    return rc;
}

void fstable_destroy(struct fstable *t)
{
    struct fs_snapshot *s = t->snap;
    t->snap = NULL;
    for (uint32_t i = 0; s && i < s->n; i++) {
        s->e[i].inst->ops->destroy(s->e[i].inst);
        free(s->e[i].mountpoint);
    }
    free(s);
    pthread_mutex_destroy(&t->lock);
}
