/*
 * reuse.c - the sampled reuse-distance estimator (reuse.h).
 *
 * Both the sample and the recent pages are a `pageset`: pages in a fixed
 * array, found by their hash in an open-addressed table (linear probing,
 * deletion by backward shift), each with the time stamp of its last read.
 * A bitmap over time stamps marks those some page holds, with a count per
 * block of 512: the pages of the set read after a given one, its reuse
 * distance within the set, are the marks above its stamp, so a read moves
 * two bits and a count or two, and only a distance wanted adds them up.
 * Time stamps run up to about twice the set's size, then are renumbered
 * in order.
 *
 * A read of many pages asks for few distances: a page whose previous read
 * came right after (the next time stamp) that of the page the set saw
 * just before it in the same read is as far back as that one was (the
 * other's move to the top makes up for the stamp between them), so a
 * file read again in the order it was read last costs one count per run.
 *
 * The sample also keeps its pages in a max-heap by hash, whose top is
 * the next to go when the threshold falls; the recent set drops its
 * oldest page, so it holds what an LRU cache of REUSE_NEAR pages would.
 */
#include "reuse.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct entry {
    uint64_t hash;
    uint32_t time;    /* of its last read */
    uint32_t heap_at; /* its place in the heap (the sample's) */
};

/* Time stamps in a block of the bitmap. */
#define BLOCK_WORDS 8
#define BLOCK_STAMPS (64 * BLOCK_WORDS)

struct pageset {
    uint32_t cap;           /* pages it may hold at once */
    uint32_t mask;          /* of the table: 2 * cap entries */
    uint32_t window;        /* time stamps: 2 * cap, whole blocks */
    uint32_t n, now, oldest;
    uint32_t renumbered;    /* times its stamps were renumbered */
    uint32_t nspare;
    bool heaped;            /* its entries are in heap (the sample) */
    struct entry *e;        /* cap */
    uint32_t *heap;         /* cap entry indices, largest hash first */
    uint32_t *table;        /* entry index or NONE */
    uint32_t *at_time;      /* the entry read last at a time, or NONE */
    uint32_t *spare;        /* nspare entry indices not in use */
    uint32_t *block;        /* stamps held, per block of live */
    uint64_t *live;         /* a bit per time stamp some entry holds */
};

/* The last page a read found in a set, before it was read again. */
struct run {
    bool known;             /* else the next page finds its own distance */
    uint32_t time, distance, renumbered;
};

struct reuse {
    pthread_mutex_t lock;
    uint64_t seed;
    uint64_t threshold; /* pages whose hash is at most this are sampled */
    uint64_t reads;
    struct pageset sample, recent;
    double hist[REUSE_BINS]; /* sampled far reads, by scaled distance */
    double cold;             /* sampled first reads */
    uint64_t near[REUSE_BINS]; /* reads within REUSE_NEAR, by distance */
};

/* A 64-bit mix (splitmix64's finalizer) of the page and its file. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double rate_of(uint64_t threshold)
{
    return ((double)threshold + 1.0) / 18446744073709551616.0;
}

/* The bin of a distance in pages (reuse.h). */
static unsigned bin_of(uint64_t d)
{
    if (d < 16)
        return (unsigned)d;
    unsigned k = 63u - (unsigned)__builtin_clzll(d);
    unsigned b = 16 + 8 * (k - 4) + (unsigned)((d >> (k - 3)) & 7);
    return b < REUSE_BINS ? b : REUSE_BINS - 1;
}

static void live_set(struct pageset *s, uint32_t t)
{
    s->live[t / 64] |= 1ull << (t % 64);
    s->block[t / BLOCK_STAMPS]++;
}

static void live_clear(struct pageset *s, uint32_t t)
{
    s->live[t / 64] &= ~(1ull << (t % 64));
    s->block[t / BLOCK_STAMPS]--;
}

/* Entries whose time stamp is after t (t < now). */
static uint32_t live_after(const struct pageset *s, uint32_t t)
{
    uint32_t word = t / 64, b = t / BLOCK_STAMPS;
    uint32_t sum = (uint32_t)__builtin_popcountll(s->live[word] >> (t % 64) >> 1);
    for (uint32_t i = word + 1; i < (b + 1) * BLOCK_WORDS; i++)
        sum += (uint32_t)__builtin_popcountll(s->live[i]);
    for (uint32_t i = b + 1; i <= (s->now - 1) / BLOCK_STAMPS; i++)
        sum += s->block[i];
    return sum;
}

/* The table position of hash, or of the free entry where it would go. */
static uint32_t set_find(const struct pageset *s, uint64_t hash)
{
    uint32_t p = (uint32_t)hash & s->mask;
    while (s->table[p] != NONE && s->e[s->table[p]].hash != hash)
        p = (p + 1) & s->mask;
    return p;
}

/* Empties the table entry at p, moving later ones of its run back so
 * that no search stops early. */
static void table_remove(struct pageset *s, uint32_t p)
{
    uint32_t q = p;
    for (;;) {
        q = (q + 1) & s->mask;
        if (s->table[q] == NONE)
            break;
        uint32_t home = (uint32_t)s->e[s->table[q]].hash & s->mask;
        /* q's entry may fill p if its home is not in (p, q]. */
        if (((q - home) & s->mask) >= ((q - p) & s->mask)) {
            s->table[p] = s->table[q];
            p = q;
        }
    }
    s->table[p] = NONE;
}

/* Renumbers the time stamps 0..n-1 in their order. */
static void compact(struct pageset *s)
{
    uint32_t k = 0;
    for (uint32_t t = 0; t < s->window; t++) {
        uint32_t idx = s->at_time[t];
        if (idx == NONE)
            continue;
        s->at_time[t] = NONE;
        s->at_time[k] = idx;
        s->e[idx].time = k++;
    }
    memset(s->live, 0, s->window / 8);
    memset(s->block, 0, s->window / BLOCK_STAMPS * sizeof *s->block);
    for (uint32_t t = 0; t < k; t++)
        live_set(s, t);
    s->now = k;
    s->oldest = 0;
    s->renumbered++;
}

static void stamp(struct pageset *s, uint32_t idx)
{
    if (s->now == s->window)
        compact(s);
    s->e[idx].time = s->now;
    s->at_time[s->now] = idx;
    live_set(s, s->now++);
}

static void unstamp(struct pageset *s, uint32_t idx)
{
    s->at_time[s->e[idx].time] = NONE;
    live_clear(s, s->e[idx].time);
}

static bool newest(const struct pageset *s, uint32_t idx)
{
    return s->e[idx].time + 1 == s->now;
}

/* The pages of s read since entry idx was, which the read is about to
 * read again; run: the page it found in s before this one (reuse.c's
 * opening comment). */
static uint32_t set_distance(const struct pageset *s, uint32_t idx,
                             struct run *run)
{
    uint32_t t = s->e[idx].time, d;
    if (run->known && run->renumbered == s->renumbered && t == run->time + 1)
        d = run->distance;
    else
        d = newest(s, idx) ? 0 : live_after(s, t);
    *run = (struct run){true, t, d, s->renumbered};
    return d;
}

/* A read of entry idx. */
static void set_touch(struct pageset *s, uint32_t idx)
{
    if (newest(s, idx))
        return;
    unstamp(s, idx);
    stamp(s, idx);
}

/* A new entry for hash at free table position p; its index. */
static uint32_t set_insert(struct pageset *s, uint64_t hash, uint32_t p)
{
    uint32_t idx = s->spare[--s->nspare];
    s->n++;
    s->e[idx].hash = hash;
    s->table[p] = idx;
    stamp(s, idx);
    return idx;
}

/* Takes entry idx out. */
static void set_remove(struct pageset *s, uint32_t idx)
{
    unstamp(s, idx);
    table_remove(s, set_find(s, s->e[idx].hash));
    s->spare[s->nspare++] = idx;
    s->n--;
}

static void heap_place(struct pageset *s, uint32_t at, uint32_t idx)
{
    s->heap[at] = idx;
    s->e[idx].heap_at = at;
}

static void heap_up(struct pageset *s, uint32_t at)
{
    uint32_t idx = s->heap[at];
    while (at > 0 && s->e[s->heap[(at - 1) / 2]].hash < s->e[idx].hash) {
        heap_place(s, at, s->heap[(at - 1) / 2]);
        at = (at - 1) / 2;
    }
    heap_place(s, at, idx);
}

static void heap_down(struct pageset *s, uint32_t at, uint32_t size)
{
    uint32_t idx = s->heap[at];
    for (;;) {
        uint32_t c = 2 * at + 1;
        if (c >= size)
            break;
        if (c + 1 < size && s->e[s->heap[c + 1]].hash > s->e[s->heap[c]].hash)
            c++;
        if (s->e[s->heap[c]].hash <= s->e[idx].hash)
            break;
        heap_place(s, at, s->heap[c]);
        at = c;
    }
    heap_place(s, at, idx);
}

/* The sampled page with the largest hash goes; the threshold falls
 * below it and what was counted is scaled to the new rate. */
static void evict_largest(struct reuse *r)
{
    struct pageset *s = &r->sample;
    uint32_t idx = s->heap[0];
    uint64_t threshold = s->e[idx].hash ? s->e[idx].hash - 1 : 0;
    double scale = rate_of(threshold) / rate_of(r->threshold);
    r->threshold = threshold;
    for (unsigned i = 0; i < REUSE_BINS; i++)
        r->hist[i] *= scale;
    r->cold *= scale;
    heap_place(s, 0, s->heap[s->n - 1]);
    heap_down(s, 0, s->n - 1);
    set_remove(s, idx);
}

/* The bin of a distance among sampled pages, scaled to all pages. */
static unsigned scaled_bin(uint32_t sampled, uint64_t threshold)
{
    double d = sampled / rate_of(threshold);
    return d < (double)danaus_hrc_pages(REUSE_BINS) ? bin_of((uint64_t)d)
                                                    : REUSE_BINS - 1;
}

/* A read of a sampled page; far: it is not among the recent pages. */
static void sampled_read(struct reuse *r, uint64_t hash, bool far,
                         struct run *run)
{
    struct pageset *s = &r->sample;
    uint32_t p = set_find(s, hash);
    uint32_t idx = s->table[p];
    if (idx != NONE) {
        if (far)
            r->hist[scaled_bin(set_distance(s, idx, run), r->threshold)] += 1;
        else
            run->known = false;
        set_touch(s, idx);
        return;
    }
    run->known = false;
    r->cold += 1;
    idx = set_insert(s, hash, p);
    heap_place(s, s->n - 1, idx);
    heap_up(s, s->n - 1);
    if (s->n > REUSE_SAMPLES)
        evict_largest(r);
}

/* A read among the recent pages: its exact distance if it is one of
 * them (true), else it becomes the newest (false). */
static bool recent_read(struct reuse *r, uint64_t hash, struct run *run)
{
    struct pageset *s = &r->recent;
    uint32_t p = set_find(s, hash);
    uint32_t idx = s->table[p];
    if (idx != NONE) {
        r->near[bin_of(set_distance(s, idx, run))]++;
        set_touch(s, idx);
        return true;
    }
    run->known = false;
    idx = set_insert(s, hash, p);
    if (s->n > REUSE_NEAR) {
        while (s->at_time[s->oldest] == NONE)
            s->oldest++;
        set_remove(s, s->at_time[s->oldest]);
    }
    return false;
}

void reuse_read(struct reuse *r, uint64_t key, uint64_t first, uint64_t count)
{
    uint64_t file = mix(key ^ r->seed);
    struct run recent = {0}, sample = {0};
    pthread_mutex_lock(&r->lock);
    for (uint64_t page = first; page - first < count; page++) {
        uint64_t hash = mix(file + page);
        r->reads++;
        bool near = recent_read(r, hash, &recent);
        if (hash <= r->threshold)
            sampled_read(r, hash, !near, &sample);
    }
    pthread_mutex_unlock(&r->lock);
}

/* Under lock: the exact hit ratio of caches up to REUSE_NEAR pages, then
 * the far reads the sample predicts: all reads but the near ones and
 * the first reads, spread as the sampled far reads are. */
static void fill_curve(struct reuse *r, struct reuse_curve *out)
{
    double reads = (double)r->reads, rate = rate_of(r->threshold);
    double near = 0, far = 0;
    for (unsigned i = 0; i < REUSE_BINS; i++)
        near += (double)r->near[i], far += r->hist[i];
    double far_reads = reads - near - r->cold / rate;
    double per_sampled = far > 0 && far_reads > 0 ? far_reads / far : 0;
    double exact = 0, sampled = 0;
    for (unsigned i = 0; i < REUSE_BINS; i++) {
        exact += (double)r->near[i];
        sampled += r->hist[i];
        double hits = danaus_hrc_pages(i + 1) <= REUSE_NEAR
                          ? exact
                          : near + sampled * per_sampled;
        out->hit[i] = reads > 0 ? hits / reads : 0;
    }
    out->reads = r->reads;
    out->rate = rate;
    out->samples = r->sample.n;
}

void reuse_curve(struct reuse *r, struct reuse_curve *out)
{
    pthread_mutex_lock(&r->lock);
    fill_curve(r, out);
    pthread_mutex_unlock(&r->lock);
}

static void set_clear(struct pageset *s)
{
    s->n = s->now = s->oldest = 0;
    memset(s->table, 0xff, (s->mask + 1) * sizeof *s->table);
    memset(s->at_time, 0xff, s->window * sizeof *s->at_time);
    memset(s->live, 0, s->window / 8);
    memset(s->block, 0, s->window / BLOCK_STAMPS * sizeof *s->block);
    for (s->nspare = 0; s->nspare < s->cap; s->nspare++)
        s->spare[s->nspare] = s->cap - 1 - s->nspare;
}

void reuse_reset(struct reuse *r)
{
    pthread_mutex_lock(&r->lock);
    r->threshold = UINT64_MAX;
    r->reads = 0;
    set_clear(&r->sample);
    set_clear(&r->recent);
    memset(r->hist, 0, sizeof r->hist);
    memset(r->near, 0, sizeof r->near);
    r->cold = 0;
    pthread_mutex_unlock(&r->lock);
}

static void set_free(struct pageset *s)
{
    free(s->e);
    free(s->heap);
    free(s->live);
}

/* The arrays of a set of cap pages (one past it, for the page that comes
 * in before one goes): entries, the bitmap, and the rest carved from one
 * allocation. */
static bool set_init(struct pageset *s, uint32_t cap)
{
    s->cap = cap + 1;
    s->mask = 2 * cap - 1;
    s->window = (2 * s->cap + BLOCK_STAMPS - 1) / BLOCK_STAMPS * BLOCK_STAMPS;
    size_t words = (size_t)s->cap + (s->mask + 1) + s->window + s->cap +
                   s->window / BLOCK_STAMPS;
    s->e = calloc(s->cap, sizeof *s->e);
    uint32_t *w = calloc(words, sizeof *w);
    s->live = calloc(s->window / 64, sizeof *s->live);
    s->heap = w;
    if (!s->e || !w || !s->live) {
        set_free(s);
        s->e = NULL, s->heap = NULL, s->live = NULL;
        return false;
    }
    s->table = s->heap + s->cap;
    s->at_time = s->table + s->mask + 1;
    s->spare = s->at_time + s->window;
    s->block = s->spare + s->cap;
    return true;
}

struct reuse *reuse_new(uint64_t seed)
{
    struct reuse *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->sample.heaped = true;
    if (!set_init(&r->sample, REUSE_SAMPLES) ||
        !set_init(&r->recent, REUSE_NEAR)) {
        set_free(&r->sample);
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->lock, NULL);
    r->seed = seed;
    reuse_reset(r);
    return r;
}

void reuse_free(struct reuse *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->lock);
    set_free(&r->sample);
    set_free(&r->recent);
    free(r);
}
