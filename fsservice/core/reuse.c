/*
 * reuse.c - the sampled reuse-distance estimator (reuse.h).
 *
 * Each set keeps the time stamp of its members' last reads in `stamps`: a
 * bitmap over time stamps marks those some member holds, with a count per
 * block of 512, so the members read after a given one (its reuse distance
 * within the set) are the marks above its stamp: a read moves two bits
 * and a count or two, and only a distance wanted adds them up. Time
 * stamps run up to about twice the set's size, then are renumbered in
 * order.
 *
 * The sample's members are pages, found by their hash in an `index` (an
 * open-addressed table, linear probing, deletion by backward shift), also
 * in a max-heap by hash, whose top is the next to go when the threshold
 * falls. The recent set's members are the pages of chunks of CHUNK_PAGES
 * pages of a file, and its index finds chunks: a read of many pages looks
 * a chunk up once for all its pages there, and a page coming or going
 * moves only its chunk's slot, its stamp, and the chunk itself when it
 * was the first or last of it. It drops its oldest page, so it holds the
 * pages an LRU cache of REUSE_NEAR pages would.
 *
 * A read of many pages asks for few distances: a page whose previous read
 * came right after (the next time stamp) that of the page the set saw
 * just before it in the same read is as far back as that one was (the
 * other's move to the top makes up for the stamp between them), so a
 * file read again in the order it was read last costs one count per run;
 * and the sample finds such a page at that next stamp, not in its table.
 */
#include "reuse.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* Time stamps in a block of the bitmap. */
#define BLOCK_WORDS 8
#define BLOCK_STAMPS (64 * BLOCK_WORDS)
/* Pages of a chunk of the recent set. */
#define CHUNK_PAGES 16

/* Members are numbered 0 to cap - 1 by their set. */
struct stamps {
    uint32_t window;     /* time stamps: about 2 * cap, whole blocks */
    uint32_t now, oldest;
    uint32_t renumbered; /* times the stamps were renumbered */
    uint32_t *time;      /* per member: its last read's, or NONE */
    uint32_t *at_time;   /* per time: the member read last then, or NONE */
    uint32_t *block;     /* stamps held, per block of live */
    uint64_t *live;      /* a bit per time stamp some member holds */
};

/* Entries found by a 64-bit hash. */
struct index {
    uint32_t cap, mask; /* entries; of the table: 2 * cap - 2 slots */
    uint32_t n, nspare;
    uint64_t *hash;     /* per entry */
    uint32_t *table;    /* entry index or NONE */
    uint32_t *spare;    /* nspare entry indices not in use */
};

struct sample {
    struct index ix;    /* its pages; members are entries */
    struct stamps st;
    uint32_t *heap;     /* entry indices, largest hash first */
    uint32_t *heap_at;  /* per entry: its place in heap */
};

struct recent {
    struct index ix;    /* its chunks */
    struct stamps st;   /* member: chunk * CHUNK_PAGES + page in it */
    uint32_t pages;
    uint8_t *held;      /* per chunk: its pages in the set */
};

/* The last page a read found in a set, before it was read again. */
struct run {
    bool known;         /* else the next page finds its own distance */
    uint32_t time, distance, renumbered;
};

/* The chunk of the recent set a read looked up last. */
struct cursor {
    bool valid;
    uint64_t chunk;
    uint32_t idx;
};

struct reuse {
    pthread_mutex_t lock;
    uint64_t seed;
    uint64_t threshold; /* pages whose hash is at most this are sampled */
    uint64_t reads;
    struct sample sample;
    struct recent recent;
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

static void live_set(struct stamps *st, uint32_t t)
{
    st->live[t / 64] |= 1ull << (t % 64);
    st->block[t / BLOCK_STAMPS]++;
}

static void live_clear(struct stamps *st, uint32_t t)
{
    st->live[t / 64] &= ~(1ull << (t % 64));
    st->block[t / BLOCK_STAMPS]--;
}

/* Members whose time stamp is after t (t < now). */
static uint32_t live_after(const struct stamps *st, uint32_t t)
{
    uint32_t word = t / 64, b = t / BLOCK_STAMPS;
    uint32_t sum =
        (uint32_t)__builtin_popcountll(st->live[word] >> (t % 64) >> 1);
    for (uint32_t i = word + 1; i < (b + 1) * BLOCK_WORDS; i++)
        sum += (uint32_t)__builtin_popcountll(st->live[i]);
    for (uint32_t i = b + 1; i <= (st->now - 1) / BLOCK_STAMPS; i++)
        sum += st->block[i];
    return sum;
}

/* Renumbers the time stamps 0..n-1 in their order. */
static void compact(struct stamps *st)
{
    uint32_t k = 0;
    for (uint32_t t = 0; t < st->now; t++) {
        uint32_t m = st->at_time[t];
        if (m == NONE)
            continue;
        st->at_time[t] = NONE;
        st->at_time[k] = m;
        st->time[m] = k++;
    }
    memset(st->live, 0, st->window / 8);
    memset(st->block, 0, st->window / BLOCK_STAMPS * sizeof *st->block);
    for (uint32_t t = 0; t < k; t++)
        live_set(st, t);
    st->now = k;
    st->oldest = 0;
    st->renumbered++;
}

static void stamp(struct stamps *st, uint32_t m)
{
    if (st->now == st->window)
        compact(st);
    st->time[m] = st->now;
    st->at_time[st->now] = m;
    live_set(st, st->now++);
}

static void unstamp(struct stamps *st, uint32_t m)
{
    st->at_time[st->time[m]] = NONE;
    live_clear(st, st->time[m]);
}

/* A read of member m. */
static void touch(struct stamps *st, uint32_t m)
{
    if (st->time[m] + 1 == st->now)
        return;
    unstamp(st, m);
    stamp(st, m);
}

/* The members read since m was, which the read is about to read again;
 * run: the member it found in the set before this one (the opening
 * comment). */
static uint32_t distance(const struct stamps *st, uint32_t m, struct run *run)
{
    uint32_t t = st->time[m], d;
    if (run->known && run->renumbered == st->renumbered && t == run->time + 1)
        d = run->distance;
    else
        d = t + 1 == st->now ? 0 : live_after(st, t);
    *run = (struct run){true, t, d, st->renumbered};
    return d;
}

/* The member read longest ago. */
static uint32_t oldest(struct stamps *st)
{
    while (st->at_time[st->oldest] == NONE)
        st->oldest++;
    return st->at_time[st->oldest];
}

/* The table position of hash, or of the free slot where it would go. */
static uint32_t index_find(const struct index *ix, uint64_t hash)
{
    uint32_t p = (uint32_t)hash & ix->mask;
    while (ix->table[p] != NONE && ix->hash[ix->table[p]] != hash)
        p = (p + 1) & ix->mask;
    return p;
}

/* A new entry for hash at free table position p; its index. */
static uint32_t index_add(struct index *ix, uint64_t hash, uint32_t p)
{
    uint32_t idx = ix->spare[--ix->nspare];
    ix->n++;
    ix->hash[idx] = hash;
    ix->table[p] = idx;
    return idx;
}

/* Takes entry idx out, moving later entries of its run of the table back
 * so that no search stops early. */
static void index_remove(struct index *ix, uint32_t idx)
{
    uint32_t p = index_find(ix, ix->hash[idx]), q = p;
    for (;;) {
        q = (q + 1) & ix->mask;
        if (ix->table[q] == NONE)
            break;
        uint32_t home = (uint32_t)ix->hash[ix->table[q]] & ix->mask;
        /* q's entry may fill p if its home is not in (p, q]. */
        if (((q - home) & ix->mask) >= ((q - p) & ix->mask)) {
            ix->table[p] = ix->table[q];
            p = q;
        }
    }
    ix->table[p] = NONE;
    ix->spare[ix->nspare++] = idx;
    ix->n--;
}

static void heap_place(struct sample *s, uint32_t at, uint32_t idx)
{
    s->heap[at] = idx;
    s->heap_at[idx] = at;
}

static void heap_up(struct sample *s, uint32_t at)
{
    uint32_t idx = s->heap[at];
    const uint64_t *hash = s->ix.hash;
    while (at > 0 && hash[s->heap[(at - 1) / 2]] < hash[idx]) {
        heap_place(s, at, s->heap[(at - 1) / 2]);
        at = (at - 1) / 2;
    }
    heap_place(s, at, idx);
}

static void heap_down(struct sample *s, uint32_t at, uint32_t size)
{
    uint32_t idx = s->heap[at];
    const uint64_t *hash = s->ix.hash;
    for (;;) {
        uint32_t c = 2 * at + 1;
        if (c >= size)
            break;
        if (c + 1 < size && hash[s->heap[c + 1]] > hash[s->heap[c]])
            c++;
        if (hash[s->heap[c]] <= hash[idx])
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
    struct sample *s = &r->sample;
    uint32_t idx = s->heap[0];
    uint64_t hash = s->ix.hash[idx];
    uint64_t threshold = hash ? hash - 1 : 0;
    double scale = rate_of(threshold) / rate_of(r->threshold);
    r->threshold = threshold;
    for (unsigned i = 0; i < REUSE_BINS; i++)
        r->hist[i] *= scale;
    r->cold *= scale;
    heap_place(s, 0, s->heap[s->ix.n - 1]);
    heap_down(s, 0, s->ix.n - 1);
    unstamp(&s->st, idx);
    index_remove(&s->ix, idx);
}

/* The bin of a distance among sampled pages, scaled to all pages. */
static unsigned scaled_bin(uint32_t sampled, uint64_t threshold)
{
    double d = sampled / rate_of(threshold);
    return d < (double)danaus_hrc_pages(REUSE_BINS) ? bin_of((uint64_t)d)
                                                    : REUSE_BINS - 1;
}

/* The member read right after the one the read found last, before that
 * one's read now: the next page of a file read again in its last order,
 * found without the table; NONE if no such member. */
static uint32_t next_in_run(const struct stamps *st, const struct run *run)
{
    if (!run->known || run->renumbered != st->renumbered ||
        run->time + 1 >= st->now)
        return NONE;
    return st->at_time[run->time + 1];
}

/* A read of a sampled page; far: it is not among the recent pages. */
static void sampled_read(struct reuse *r, uint64_t hash, bool far,
                         struct run *run)
{
    struct sample *s = &r->sample;
    uint32_t p = 0, idx = next_in_run(&s->st, run);
    if (idx == NONE || s->ix.hash[idx] != hash) {
        p = index_find(&s->ix, hash);
        idx = s->ix.table[p];
    }
    if (idx != NONE) {
        if (far)
            r->hist[scaled_bin(distance(&s->st, idx, run), r->threshold)] += 1;
        else
            run->known = false;
        touch(&s->st, idx);
        return;
    }
    run->known = false;
    r->cold += 1;
    idx = index_add(&s->ix, hash, p);
    stamp(&s->st, idx);
    heap_place(s, s->ix.n - 1, idx);
    heap_up(s, s->ix.n - 1);
    if (s->ix.n > REUSE_SAMPLES)
        evict_largest(r);
}

/* A read of a page of file among the recent pages: its exact distance if
 * it is one of them (true), else it becomes the newest (false). at: the
 * chunk this read looked up last, which holds the newest page. */
static bool recent_read(struct reuse *r, uint64_t file, uint64_t page,
                        struct run *run, struct cursor *at)
{
    struct recent *s = &r->recent;
    uint64_t chunk = page / CHUNK_PAGES;
    if (!at->valid || at->chunk != chunk) {
        uint64_t hash = mix(file + chunk);
        uint32_t p = index_find(&s->ix, hash);
        uint32_t idx = s->ix.table[p];
        if (idx == NONE)
            idx = index_add(&s->ix, hash, p);
        *at = (struct cursor){true, chunk, idx};
    }
    uint32_t m = at->idx * CHUNK_PAGES + (uint32_t)(page % CHUNK_PAGES);
    if (s->st.time[m] != NONE) {
        r->near[bin_of(distance(&s->st, m, run))]++;
        touch(&s->st, m);
        return true;
    }
    run->known = false;
    stamp(&s->st, m);
    s->held[at->idx]++;
    if (++s->pages > REUSE_NEAR) {
        uint32_t old = oldest(&s->st);
        unstamp(&s->st, old);
        s->st.time[old] = NONE;
        s->pages--;
        if (--s->held[old / CHUNK_PAGES] == 0)
            index_remove(&s->ix, old / CHUNK_PAGES);
    }
    return false;
}

void reuse_read(struct reuse *r, uint64_t key, uint64_t first, uint64_t count)
{
    uint64_t file = mix(key ^ r->seed);
    struct run recent = {0}, sample = {0};
    struct cursor at = {0};
    pthread_mutex_lock(&r->lock);
    for (uint64_t page = first; page - first < count; page++) {
        uint64_t hash = mix(file + page);
        r->reads++;
        bool near = recent_read(r, file, page, &recent, &at);
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
    out->samples = r->sample.ix.n;
}

void reuse_curve(struct reuse *r, struct reuse_curve *out)
{
    pthread_mutex_lock(&r->lock);
    fill_curve(r, out);
    pthread_mutex_unlock(&r->lock);
}

static void index_clear(struct index *ix)
{
    ix->n = 0;
    memset(ix->table, 0xff, (ix->mask + 1) * sizeof *ix->table);
    for (ix->nspare = 0; ix->nspare < ix->cap; ix->nspare++)
        ix->spare[ix->nspare] = ix->cap - 1 - ix->nspare;
}

static void stamps_clear(struct stamps *st, uint32_t members)
{
    st->now = st->oldest = 0;
    memset(st->time, 0xff, members * sizeof *st->time);
    memset(st->at_time, 0xff, st->window * sizeof *st->at_time);
    memset(st->live, 0, st->window / 8);
    memset(st->block, 0, st->window / BLOCK_STAMPS * sizeof *st->block);
}

void reuse_reset(struct reuse *r)
{
    pthread_mutex_lock(&r->lock);
    r->threshold = UINT64_MAX;
    r->reads = 0;
    index_clear(&r->sample.ix);
    stamps_clear(&r->sample.st, r->sample.ix.cap);
    index_clear(&r->recent.ix);
    stamps_clear(&r->recent.st, r->recent.ix.cap * CHUNK_PAGES);
    memset(r->recent.held, 0, r->recent.ix.cap);
    r->recent.pages = 0;
    memset(r->hist, 0, sizeof r->hist);
    memset(r->near, 0, sizeof r->near);
    r->cold = 0;
    pthread_mutex_unlock(&r->lock);
}

/* An index of cap entries (one past what a set holds, for the one that
 * comes in before one goes); false without memory. */
static bool index_init(struct index *ix, uint32_t cap)
{
    ix->cap = cap + 1;
    ix->mask = 2 * cap - 1;
    ix->hash = calloc(ix->cap, sizeof *ix->hash);
    ix->table = calloc(ix->mask + 1, sizeof *ix->table);
    ix->spare = calloc(ix->cap, sizeof *ix->spare);
    return ix->hash && ix->table && ix->spare;
}

/* Stamps of members of a set holding at most held of them at once. */
static bool stamps_init(struct stamps *st, uint32_t members, uint32_t held)
{
    st->window = (2 * held + BLOCK_STAMPS - 1) / BLOCK_STAMPS * BLOCK_STAMPS;
    st->time = calloc(members, sizeof *st->time);
    st->at_time = calloc(st->window, sizeof *st->at_time);
    st->block = calloc(st->window / BLOCK_STAMPS, sizeof *st->block);
    st->live = calloc(st->window / 64, sizeof *st->live);
    return st->time && st->at_time && st->block && st->live;
}

void reuse_free(struct reuse *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->lock);
    struct index *ixs[] = {&r->sample.ix, &r->recent.ix};
    struct stamps *sts[] = {&r->sample.st, &r->recent.st};
    for (int i = 0; i < 2; i++) {
        free(ixs[i]->hash);
        free(ixs[i]->table);
        free(ixs[i]->spare);
        free(sts[i]->time);
        free(sts[i]->at_time);
        free(sts[i]->block);
        free(sts[i]->live);
    }
    free(r->sample.heap);
    free(r->sample.heap_at);
    free(r->recent.held);
    free(r);
}

struct reuse *reuse_new(uint64_t seed)
{
    struct reuse *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    pthread_mutex_init(&r->lock, NULL);
    struct sample *s = &r->sample;
    struct recent *n = &r->recent;
    bool made = index_init(&s->ix, REUSE_SAMPLES) &&
                stamps_init(&s->st, s->ix.cap, s->ix.cap) &&
                (s->heap = calloc(s->ix.cap, sizeof *s->heap)) &&
                (s->heap_at = calloc(s->ix.cap, sizeof *s->heap_at)) &&
                index_init(&n->ix, REUSE_NEAR) &&
                stamps_init(&n->st, n->ix.cap * CHUNK_PAGES, REUSE_NEAR + 1) &&
                (n->held = calloc(n->ix.cap, 1));
    if (!made) {
        reuse_free(r);
        return NULL;
    }
    r->seed = seed;
    reuse_reset(r);
    return r;
}
