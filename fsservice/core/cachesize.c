/*
 * cachesize.c - the backends' caches sized by the mounts' knees
 * (cachesize.h).
 */
#include "cachesize.h"

#include "fsservice/libservice/libservice.h"

#include <stdio.h>
#include <string.h>

int cache_size_start(struct cache_size *s, uint64_t bound, char *err,
                     size_t errlen)
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
    s->size = first;
    return 0;
}

uint64_t cache_size_wanted(struct hrc_table *t, uint64_t bound,
                           uint32_t *mounts)
{
    static struct reuse_curve curve; /* the sweeper's alone */
    static uint32_t hit_ppm[DANAUS_HRC_POINTS];
    uint64_t pages = 0;
    uint32_t mount;
    *mounts = 0;
    for (uint32_t i = 0; hrc_get(t, i, &mount, &curve) == 0; i++) {
        hrc_curve_ppm(&curve, hit_ppm);
        int knee = danaus_hrc_knee(hit_ppm);
        if (knee < 0)
            continue;
        pages += danaus_hrc_pages((unsigned)knee + 1);
        (*mounts)++;
    }
    uint64_t bytes = CACHE_SIZE_FLOOR + pages * HRC_PAGE;
    return bytes < bound ? bytes : bound;
}

void cache_size_tick(struct cache_size *s, struct hrc_table *t,
                     uint64_t now_ns)
{
    if (!s->bound || now_ns < s->next_ns)
        return;
    s->next_ns = now_ns + CACHE_SIZE_PERIOD_S * 1000000000ull;
    uint32_t mounts;
    uint64_t want = cache_size_wanted(t, s->bound, &mounts);
    uint64_t step = s->size / 8;
    if (s->size && want <= s->size + step && want + step >= s->size)
        return;
    if (ls_backends_resize_cache(want) <= 0)
        return;
    fprintf(stderr, "danausd: cache: %.1f MiB for the knees of %u mounts "
            "(cache_auto, at most %.1f MiB)\n", (double)want / (1 << 20),
            mounts, (double)s->bound / (1 << 20));
    s->size = want;
}
