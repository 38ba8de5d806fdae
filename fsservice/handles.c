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

int64_t handle_insert(struct handle_table *t, struct open_file *of)
{
    struct handle_entry *e = malloc(sizeof *e);
    if (!e)
        return -ENOMEM;
    pthread_mutex_lock(&t->lock);
    if (t->count == t->arr->n) {
        int rc = grow(t);
        if (rc < 0) {
            pthread_mutex_unlock(&t->lock);
            free(e);
            return rc;
        }
    }
    uint32_t i = t->free_hint;
    while (t->arr->slots[i])
        i++;
    t->free_hint = i + 1;
    t->gens[i] = t->gens[i] == GEN_MAX ? 1 : t->gens[i] + 1;
    e->gen = t->gens[i];
    e->of = of;
    rcu_assign_pointer(t->arr->slots[i], e);
    t->count++;
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
            t->count--;
            if (i < t->free_hint)
                t->free_hint = i;
            call_rcu(&e->rcu, free_entry_rcu);
        }
    }
    pthread_mutex_unlock(&t->lock);
    return of;
}

void handle_table_destroy(struct handle_table *t)
{
    pthread_mutex_lock(&t->lock);
    struct handle_array *a = t->arr;
    for (uint32_t i = 0; i < a->n; i++) {
        struct handle_entry *e = a->slots[i];
        if (!e)
            continue;
        rcu_assign_pointer(a->slots[i], NULL);
        open_file_put(e->of);
        call_rcu(&e->rcu, free_entry_rcu);
    }
    t->arr = NULL;
    pthread_mutex_unlock(&t->lock);
    call_rcu(&a->rcu, free_array_rcu);
    free(t->gens);
    pthread_mutex_destroy(&t->lock);
}
