/*
 * openfile.c - reference counting of service-side open files.
 */
#include "openfile.h"

#include <stdlib.h>

struct open_file *open_file_new(struct ls_file *file, int flags)
{
    struct open_file *of = calloc(1, sizeof *of);
    if (!of) {
        file->inst->ops->close(file);
        return NULL;
    }
    atomic_init(&of->refs, 1);
    atomic_init(&of->flags, flags);
    of->file = file;
    pthread_mutex_init(&of->pos_lock, NULL);
    return of;
}

bool open_file_tryget(struct open_file *of)
{
    long refs = atomic_load(&of->refs);
    /* Never resurrect: once the count reached zero the object is closing. */
    while (refs > 0)
        if (atomic_compare_exchange_weak(&of->refs, &refs, refs + 1))
            return true;
    return false;
}

void open_file_get(struct open_file *of)
{
    atomic_fetch_add(&of->refs, 1);
}

static void open_file_free(struct rcu_head *head)
{
    struct open_file *of = caa_container_of(head, struct open_file, rcu);
    pthread_mutex_destroy(&of->pos_lock);
    free(of);
}

struct lock_owner open_file_lock_owner(const struct open_file *of, int kind)
{
    return (struct lock_owner){kind, (uint64_t)(uintptr_t)of, -1, 0, 0};
}

void open_file_put(struct open_file *of)
{
    if (atomic_fetch_sub(&of->refs, 1) != 1)
        return;
    /* The store of locks happened before its request's put, so this
     * last put, ordered after every other by the count, sees it. */
    struct lock_table *locks = atomic_load(&of->locks);
    if (locks) {
        struct lock_owner ofd = open_file_lock_owner(of, DANAUS_LOCK_OFD);
        struct lock_owner flock = open_file_lock_owner(of, DANAUS_LOCK_FLOCK);
        lock_release(locks, &of->lock_key, &ofd);
        lock_release(locks, &of->lock_key, &flock);
    }
    of->file->inst->ops->close(of->file);
    /* Lookups may still hold the pointer inside their read-side section. */
    call_rcu(&of->rcu, open_file_free);
}
