/*
 * handles.c - the RCU-protected handle table.
 *
 * Layout: an array of pointers to small immutable entries {gen, open file}.
 * An entry is never changed in place: insert publishes a new one, remove
 * unpublishes it and frees it after a grace period. A reader therefore sees
 * either the whole old entry or the whole new one, and the generation it
 * checks always belongs to the open file it gets. The array grows by
 * publishing a larger copy; the old copy goes after a grace period.
 */
#include "handles.h"

#include <danaus/wire.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

struct handle_entry {
    uint32_t gen;
    struct open_file *of;
    struct rcu_head rcu;
};

struct handle_array {
    uint32_t n;
    struct rcu_head rcu;
    struct handle_entry *slots[];
};

#define GEN_MAX 0x7fffffffu /* handles stay non-negative as int64 */

static struct handle_array *array_new(uint32_t n)
{
    struct handle_array *a = calloc(1, sizeof *a + n * sizeof a->slots[0]);
    if (a)
        a->n = n;
    return a;
}

static void free_array_rcu(struct rcu_head *h)
{
    free(caa_container_of(h, struct handle_array, rcu));
}

static void free_entry_rcu(struct rcu_head *h)
{
    free(caa_container_of(h, struct handle_entry, rcu));
}

int handle_table_init(struct handle_table *t)
{
    memset(t, 0, sizeof *t);
    t->limit = HANDLES_MAX;
    pthread_mutex_init(&t->lock, NULL);
    t->arr = array_new(16);
    t->gens = calloc(16, sizeof *t->gens);
    if (!t->arr || !t->gens) {
        free(t->arr);
        free(t->gens);
        return -ENOMEM;
    }
    return 0;
}

/* Doubles the array; called with the lock held. */
static int grow(struct handle_table *t)
{
    struct handle_array *old = t->arr;
    uint32_t n = old->n * 2;
    if (n > HANDLES_MAX)
        return -EMFILE;
    struct handle_array *a = array_new(n);
    uint32_t *gens = realloc(t->gens, n * sizeof *gens);
    if (!a || !gens) {
        free(a);
        if (gens)
            t->gens = gens;
        return -ENOMEM;
    }
    memset(gens + old->n, 0, (n - old->n) * sizeof *gens);
    t->gens = gens;
    memcpy(a->slots, old->slots, old->n * sizeof old->slots[0]);
    rcu_assign_pointer(t->arr, a);
    call_rcu(&old->rcu, free_array_rcu);
    return 0;
}

/* One more live handle in t, charged to its uid (lock held): 0 or
 * -EMFILE. */
static int charge(struct handle_table *t)
{
    if (t->count >= t->limit)
        return -EMFILE;
    if (t->shares && share_take(t->shares, SHARE_HANDLES, t->uid) < 0)
        return -EMFILE;
    t->count++;
    return 0;
}

/* One live handle less in t (lock held). */
static void uncharge(struct handle_table *t)
{
    t->count--;
    if (t->shares)
        share_give(t->shares, SHARE_HANDLES, t->uid);
}

int64_t handle_insert(struct handle_table *t, struct open_file *of)
{
    struct handle_entry *e = malloc(sizeof *e);
    if (!e)
        return -ENOMEM;
    pthread_mutex_lock(&t->lock);
    int rc = charge(t);
    if (rc == 0 && t->count > t->arr->n && (rc = grow(t)) < 0)
        uncharge(t);
    if (rc < 0) {
        pthread_mutex_unlock(&t->lock);
        free(e);
        return rc;
    }
    uint32_t i = t->free_hint;
    while (t->arr->slots[i])
        i++;
    t->free_hint = i + 1;
    t->gens[i] = t->gens[i] == GEN_MAX ? 1 : t->gens[i] + 1;
    e->gen = t->gens[i];
    e->of = of;
    rcu_assign_pointer(t->arr->slots[i], e);
    pthread_mutex_unlock(&t->lock);
    return (int64_t)DANAUS_HANDLE(i, e->gen);
}

struct open_file *handle_get(struct handle_table *t, uint64_t handle)
{
    uint32_t i = DANAUS_HANDLE_INDEX(handle);
    struct open_file *of = NULL;
    rcu_read_lock();
    struct handle_array *a = rcu_dereference(t->arr);
    if (i < a->n) {
        struct handle_entry *e = rcu_dereference(a->slots[i]);
        if (e && e->gen == DANAUS_HANDLE_GEN(handle) &&
            open_file_tryget(e->of))
            of = e->of;
    }
    rcu_read_unlock();
    return of;
}

struct open_file *handle_remove(struct handle_table *t, uint64_t handle)
{
    uint32_t i = DANAUS_HANDLE_INDEX(handle);
    struct open_file *of = NULL;
    pthread_mutex_lock(&t->lock);
    if (i < t->arr->n) {
        struct handle_entry *e = t->arr->slots[i];
        if (e && e->gen == DANAUS_HANDLE_GEN(handle)) {
            of = e->of;
            rcu_assign_pointer(t->arr->slots[i], NULL);
            uncharge(t);
            if (i < t->free_hint)
                t->free_hint = i;
            call_rcu(&e->rcu, free_entry_rcu);
        }
    }
    pthread_mutex_unlock(&t->lock);
    return of;
}

/* Makes index i exist in t; called with t's lock held. */
static int reach(struct handle_table *t, uint32_t i)
{
    while (i >= t->arr->n) {
        int rc = grow(t);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Publishes of at index i with generation gen in t (lock held), taking a
 * reference. */
static int put_at(struct handle_table *t, uint32_t i, uint32_t gen,
                  struct open_file *of)
{
    int rc = reach(t, i);
    if (rc < 0)
        return rc;
    struct handle_entry *e = malloc(sizeof *e);
    if (!e)
        return -ENOMEM;
    if ((rc = charge(t)) < 0) {
        free(e);
        return rc;
    }
    if (!open_file_tryget(of)) {
        uncharge(t);
        free(e);
        return -EBADF;
    }
    e->gen = gen;
    e->of = of;
    t->gens[i] = gen;
    rcu_assign_pointer(t->arr->slots[i], e);
    return 0;
}

/* Drops every handle of t (lock held). */
static void drop_all(struct handle_table *t)
{
    struct handle_array *a = t->arr;
    for (uint32_t i = 0; i < a->n; i++) {
        struct handle_entry *e = a->slots[i];
        if (!e)
            continue;
        rcu_assign_pointer(a->slots[i], NULL);
        open_file_put(e->of);
        call_rcu(&e->rcu, free_entry_rcu);
        uncharge(t);
    }
    t->free_hint = 0;
}

int handle_table_copy(struct handle_table *dst, struct handle_table *src,
                      const uint64_t *only, uint32_t n)
{
    int rc = 0;
    pthread_mutex_lock(&src->lock);
    pthread_mutex_lock(&dst->lock);
    if (dst->count) {
        rc = -EBUSY;
        goto out;
    }
    uint32_t count = only ? n : src->arr->n;
    for (uint32_t k = 0; k < count && rc == 0; k++) {
        uint32_t i = only ? DANAUS_HANDLE_INDEX(only[k]) : k;
        struct handle_entry *e = i < src->arr->n ? src->arr->slots[i] : NULL;
        if (!e) {
            rc = only ? -EBADF : 0;
            continue;
        }
        if (only && e->gen != DANAUS_HANDLE_GEN(only[k]))
            rc = -EBADF;
        else if (i < dst->arr->n && dst->arr->slots[i])
            continue; /* listed twice */
        else
            rc = put_at(dst, i, e->gen, e->of);
    }
    if (rc < 0)
        drop_all(dst);
out:
    pthread_mutex_unlock(&dst->lock);
    pthread_mutex_unlock(&src->lock);
    return rc;
}

void handle_table_destroy(struct handle_table *t)
{
    pthread_mutex_lock(&t->lock);
    struct handle_array *a = t->arr;
    drop_all(t);
    t->arr = NULL;
    pthread_mutex_unlock(&t->lock);
    call_rcu(&a->rcu, free_array_rcu);
    free(t->gens);
    pthread_mutex_destroy(&t->lock);
}
