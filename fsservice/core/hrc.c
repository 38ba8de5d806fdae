/*
 * hrc.c - each mount's hit-ratio curve (hrc.h).
 *
 * A mount's slot holds its tracker, NULL before its first read, or
 * `untracked` once no tracker was left for it (so that its reads do not
 * take the lock again). A tracker handed back is reset and given to the
 * next mount; a read that found it before it changed hands checks its
 * owner, so at most the reads in flight then count for the wrong mount.
 */
#include "hrc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/random.h>

#define NO_MOUNT UINT32_MAX

struct hrc_tracker {
    _Atomic uint32_t mount; /* its owner, or NO_MOUNT when free */
    struct reuse *reuse;
};

static struct hrc_tracker untracked = {NO_MOUNT, NULL};

void hrc_init(struct hrc_table *t)
{
    pthread_mutex_init(&t->lock, NULL);
    if (getrandom(&t->seed, sizeof t->seed, 0) != sizeof t->seed)
        t->seed = (uint64_t)(uintptr_t)t ^ 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < DANAUS_MAX_INSTANCES; i++)
        atomic_init(&t->of[i], NULL);
    t->nmade = 0;
    atomic_init(&t->counting, false);
}

void hrc_free(struct hrc_table *t)
{
    for (uint32_t i = 0; i < t->nmade; i++) {
        reuse_free(t->made[i]->reuse);
        free(t->made[i]);
    }
    t->nmade = 0;
    pthread_mutex_destroy(&t->lock);
}

/* Under lock: a free tracker, made if none is and fewer than HRC_TRACKED
 * are; NULL when none can be had. */
static struct hrc_tracker *take_free(struct hrc_table *t)
{
    for (uint32_t i = 0; i < t->nmade; i++)
        if (atomic_load(&t->made[i]->mount) == NO_MOUNT)
            return t->made[i];
    if (t->nmade == HRC_TRACKED)
        return NULL;
    struct hrc_tracker *k = malloc(sizeof *k);
    if (!k)
        return NULL;
    k->reuse = reuse_new(t->seed);
    if (!k->reuse) {
        free(k);
        return NULL;
    }
    atomic_init(&k->mount, NO_MOUNT);
    return t->made[t->nmade++] = k;
}

/* The tracker of mount, given on its first read. */
static struct hrc_tracker *tracker_of(struct hrc_table *t, uint32_t mount)
{
    struct hrc_tracker *k =
        atomic_load_explicit(&t->of[mount], memory_order_acquire);
    if (k)
        return k;
    pthread_mutex_lock(&t->lock);
    k = atomic_load_explicit(&t->of[mount], memory_order_relaxed);
    if (!k) {
        k = take_free(t);
        if (k)
            atomic_store(&k->mount, mount);
        else
            k = &untracked;
        atomic_store_explicit(&t->of[mount], k, memory_order_release);
    }
    pthread_mutex_unlock(&t->lock);
    return k;
}

void hrc_read(struct hrc_table *t, uint32_t mount, const struct ls_file *file,
              uint64_t off, uint64_t len)
{
    uint64_t key = file->ino ? file->ino : (uint64_t)(uintptr_t)file;
    if (mount >= DANAUS_MAX_INSTANCES || len == 0 ||
        !atomic_load_explicit(&t->counting, memory_order_relaxed))
        return;
    struct hrc_tracker *k = tracker_of(t, mount);
    if (atomic_load_explicit(&k->mount, memory_order_relaxed) != mount)
        return;
    uint64_t first = off / HRC_PAGE, last = (off + len - 1) / HRC_PAGE;
    reuse_read(k->reuse, key, first, last - first + 1);
}

void hrc_forget(struct hrc_table *t, uint32_t mount)
{
    if (mount >= DANAUS_MAX_INSTANCES)
        return;
    pthread_mutex_lock(&t->lock);
    struct hrc_tracker *k =
        atomic_exchange(&t->of[mount], &untracked);
    if (k && k != &untracked) {
        atomic_store(&k->mount, NO_MOUNT);
        reuse_reset(k->reuse);
    }
    pthread_mutex_unlock(&t->lock);
}

int hrc_get(struct hrc_table *t, uint32_t i, uint32_t *mount,
            struct reuse_curve *out)
{
    atomic_store_explicit(&t->counting, true, memory_order_relaxed);
    pthread_mutex_lock(&t->lock);
    int rc = -ENOENT;
    for (uint32_t j = 0; j < t->nmade; j++) {
        uint32_t m = atomic_load(&t->made[j]->mount);
        if (m == NO_MOUNT || i-- > 0)
            continue;
        *mount = m;
        reuse_curve(t->made[j]->reuse, out);
        rc = 0;
        break;
    }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void hrc_curve_ppm(const struct reuse_curve *c,
                   uint32_t hit_ppm[DANAUS_HRC_POINTS])
{
    for (unsigned i = 0; i < DANAUS_HRC_POINTS; i++)
        hit_ppm[i] = (uint32_t)(c->hit[i] * 1e6 + 0.5);
}
