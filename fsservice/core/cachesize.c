/*
 * cachesize.c - the backends' caches sized by the mounts' knees
 * (cachesize.h).
 */
#include "cachesize.h"

#include "fsservice/libservice/libservice.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int cache_size_start(struct cache_size *s, uint64_t bound,
                     struct poolcache *pool, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!bound)
        return 0;
    uint64_t first = bound < CACHE_SIZE_FLOOR ? bound : CACHE_SIZE_FLOOR;
    int rc = ls_backends_resize_cache(first);
    if (rc == 0)
        snprintf(err, errlen, "cache_auto: no mount's backend keeps a cache "
                 "of file data of its own (a local directory's is the "
                 "kernel's page cache, bounded by the pool's memory)");
    else if (rc < 0)
        snprintf(err, errlen, "cache_auto: the backend refused a cache of "
                 "%llu bytes: %s", (unsigned long long)first, strerror(-rc));
    if (rc <= 0)
        return -1;
    s->bound = bound;
    s->pool = pool;
    s->size = first;
    return 0;
}

/* Each tracked mount's knee. */
static uint32_t knees_of(struct hrc_table *t, struct cache_knee *out)
{
    static struct reuse_curve curve; /* the sweeper's alone */
    static uint32_t hit_ppm[DANAUS_HRC_POINTS];
    uint32_t n = 0;
    for (uint32_t i = 0;
         n < HRC_TRACKED && hrc_get(t, i, &out[n].mount, &curve) == 0; i++) {
        hrc_curve_ppm(&curve, hit_ppm);
        int knee = danaus_hrc_knee(hit_ppm);
        out[n].pages = knee < 0 ? 0 : danaus_hrc_pages((unsigned)knee + 1);
        out[n].hits = knee < 0 ? 0 : curve.hit[knee] * (double)curve.reads;
        n++;
    }
    return n;
}

static uint64_t wanted(const struct cache_knee *k, uint32_t n, uint64_t bound,
                       uint32_t *mounts)
{
    uint64_t pages = 0;
    *mounts = 0;
    for (uint32_t i = 0; i < n; i++) {
        pages += k[i].pages;
        *mounts += k[i].pages != 0;
    }
    uint64_t bytes = CACHE_SIZE_FLOOR + pages * HRC_PAGE;
    return bytes < bound ? bytes : bound;
}

uint64_t cache_size_wanted(struct hrc_table *t, uint64_t bound,
                           uint32_t *mounts)
{
    static struct cache_knee k[HRC_TRACKED];
    return wanted(k, knees_of(t, k), bound, mounts);
}

void cache_size_reserves(const struct cache_knee *knee, uint32_t n,
                         uint64_t capacity, uint64_t *reserve)
{
    bool given[HRC_TRACKED] = {false};
    for (uint32_t i = 0; i < n; i++)
        reserve[i] = 0;
    for (uint32_t round = 0; round < n && round < HRC_TRACKED; round++) {
        int best = -1;
        for (uint32_t i = 0; i < n && i < HRC_TRACKED; i++)
            if (!given[i] && knee[i].pages &&
                (best < 0 || knee[i].hits * (double)knee[best].pages >
                                 knee[best].hits * (double)knee[i].pages))
                best = (int)i;
        if (best < 0 || !capacity)
            return;
        given[best] = true;
        reserve[best] = knee[best].pages < capacity ? knee[best].pages
                                                    : capacity;
        capacity -= reserve[best];
    }
}

/* What of bytes of cache is the pool's, above the backend's floor. */
static uint64_t above_floor(uint64_t bytes)
{
    return bytes < CACHE_SIZE_FLOOR ? 0 : bytes - CACHE_SIZE_FLOOR;
}

void cache_size_tick(struct cache_size *s, struct hrc_table *t,
                     uint64_t now_ns)
{
    static struct cache_knee k[HRC_TRACKED];
    static uint64_t reserve[HRC_TRACKED];
    if (!s->bound || now_ns < s->next_ns)
        return;
    s->next_ns = now_ns + CACHE_SIZE_PERIOD_S * 1000000000ull;
    uint32_t mounts, n = knees_of(t, k);
    uint64_t want = wanted(k, n, s->bound, &mounts);
    uint64_t step = s->size / 8;
    if (!s->size || want > s->size + step || want + step < s->size) {
        poolcache_resize(s->pool, above_floor(want));
        fprintf(stderr, "danausd: cache: %.1f MiB for the knees of %u "
                "mounts (cache_auto, at most %.1f MiB)\n",
                (double)want / (1 << 20), mounts,
                (double)s->bound / (1 << 20));
        s->size = want;
    }
    cache_size_reserves(k, n, above_floor(s->size) / HRC_PAGE, reserve);
    for (uint32_t i = 0; i < n; i++)
        poolcache_reserve(s->pool, k[i].mount, reserve[i]);
}
