/*
 * test_reuse.c - the sampled reuse-distance estimator
 * (fsservice/core/reuse.h) against an exact LRU stack simulation of the
 * same traces: uniform reads of a working set, zipf reads, a hot set
 * with a scan through it, and a loop larger than the sample set. At every
 * size of the curve (the bins' edges) the estimate is within 5% absolute
 * hit ratio of the exact one; the estimator holds no more than its
 * samples whatever the trace; a small working set is counted exactly; a
 * read of many pages counts as they would one by one.
 * REUSE_SEED in the environment keys the estimator's hash otherwise
 * (bench/run-hrc-accuracy.sh runs it with several).
 */
#include "fsservice/core/reuse.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define READS 1000000u
#define TOLERANCE 0.05

struct trace {
    uint32_t *page; /* page ids, below npages */
    uint32_t n, npages;
};

/* A deterministic generator (xorshift64*), so that runs agree. */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static struct trace trace_new(uint32_t npages)
{
    struct trace t = {calloc(READS, sizeof(uint32_t)), READS, npages};
    assert_non_null(t.page);
    return t;
}

static struct trace uniform(uint32_t npages)
{
    struct trace t = trace_new(npages);
    for (uint32_t i = 0; i < t.n; i++)
        t.page[i] = (uint32_t)(next_random() % npages);
    return t;
}

/* Page k read with probability proportional to 1 / (k + 1)^alpha. */
static struct trace zipf(uint32_t npages, double alpha)
{
    struct trace t = trace_new(npages);
    double *cdf = malloc(npages * sizeof *cdf), sum = 0;
    assert_non_null(cdf);
    for (uint32_t k = 0; k < npages; k++)
        cdf[k] = sum += 1 / pow(k + 1, alpha);
    for (uint32_t i = 0; i < t.n; i++) {
        double u = (double)(next_random() >> 11) / 9007199254740992.0 * sum;
        uint32_t lo = 0, hi = npages - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        t.page[i] = lo;
    }
    free(cdf);
    return t;
}

/* Every other read goes to a hot set, the rest scan pages never read
 * before. */
static struct trace hot_and_scan(uint32_t hot)
{
    struct trace t = trace_new(hot + READS / 2);
    for (uint32_t i = 0; i < t.n; i++)
        t.page[i] = i % 2 ? (uint32_t)(next_random() % hot) : hot + i / 2;
    return t;
}

static struct trace loop(uint32_t npages)
{
    struct trace t = trace_new(npages);
    for (uint32_t i = 0; i < t.n; i++)
        t.page[i] = i % npages;
    return t;
}

/* Exact LRU: the stack distance of each read from a Fenwick tree over
 * read times, binned as the estimator bins. */
static unsigned bin_of(uint64_t d)
{
    unsigned i = 0;
    while (i + 1 < REUSE_BINS && danaus_hrc_pages(i + 1) <= d)
        i++;
    return i;
}

static void exact_curve(const struct trace *t, double *hit)
{
    uint32_t *tree = calloc(t->n + 1, sizeof *tree);
    int64_t *last = malloc(t->npages * sizeof *last);
    uint64_t *bins = calloc(REUSE_BINS, sizeof *bins);
    assert_true(tree && last && bins);
    memset(last, 0xff, t->npages * sizeof *last);
    uint32_t live = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        int64_t was = last[t->page[i]];
        if (was >= 0) {
            uint32_t upto = 0;
            for (uint32_t j = (uint32_t)was + 1; j > 0; j -= j & -j)
                upto += tree[j];
            bins[bin_of(live - upto)]++;
            for (uint32_t j = (uint32_t)was + 1; j <= t->n; j += j & -j)
                tree[j]--;
            live--;
        }
        for (uint32_t j = i + 1; j <= t->n; j += j & -j)
            tree[j]++;
        live++;
        last[t->page[i]] = i;
    }
    uint64_t hits = 0;
    for (unsigned b = 0; b < REUSE_BINS; b++)
        hit[b] = (double)(hits += bins[b]) / t->n;
    free(tree);
    free(last);
    free(bins);
}

/* The file a page belongs to: pages are spread over a few files. */
static void estimate(const struct trace *t, struct reuse_curve *c)
{
    const char *seed = getenv("REUSE_SEED");
    struct reuse *r = reuse_new(seed ? strtoull(seed, NULL, 0) : 0x5eed);
    assert_non_null(r);
    for (uint32_t i = 0; i < t->n; i++)
        reuse_read(r, 1000 + t->page[i] % 7, t->page[i] / 7, 1);
    reuse_curve(r, c);
    reuse_free(r);
}

/* The largest difference over the curve's sizes, and the size. */
static double compare(const struct trace *t, const char *name)
{
    static double exact[REUSE_BINS];
    static struct reuse_curve est;
    exact_curve(t, exact);
    estimate(t, &est);
    double worst = 0, sum = 0;
    unsigned at = 0;
    for (unsigned b = 0; b < REUSE_BINS; b++) {
        double e = fabs(est.hit[b] - exact[b]);
        sum += e;
        if (e > worst)
            worst = e, at = b;
    }
    printf("%-12s rate %.4f samples %u: max error %.4f at %llu pages "
           "(exact %.3f, estimate %.3f), mean %.4f\n",
           name, est.rate, est.samples, worst,
           (unsigned long long)danaus_hrc_pages(at + 1), exact[at], est.hit[at],
           sum / REUSE_BINS);
    assert_true(est.samples <= REUSE_SAMPLES);
    assert_int_equal(est.reads, t->n);
    free(t->page);
    return worst;
}

static void test_uniform(void **state)
{
    (void)state;
    struct trace t = uniform(20000);
    assert_true(compare(&t, "uniform") <= TOLERANCE);
}

static void test_zipf(void **state)
{
    (void)state;
    struct trace t = zipf(200000, 0.9);
    assert_true(compare(&t, "zipf") <= TOLERANCE);
}

static void test_hot_and_scan(void **state)
{
    (void)state;
    struct trace t = hot_and_scan(3000);
    assert_true(compare(&t, "hot+scan") <= TOLERANCE);
}

static void test_loop(void **state)
{
    (void)state;
    struct trace t = loop(25600);
    assert_true(compare(&t, "loop") <= TOLERANCE);
}

/* Fewer pages than samples (more than the recent ones): nothing is left
 * out, so the curve is the exact one at every size. */
static void test_small_set_exact(void **state)
{
    (void)state;
    struct trace t = uniform(3000);
    assert_true(compare(&t, "small") < 1e-9);
}

/* A read of many pages counts as those pages read one by one: files read
 * again in runs, whole and in parts, in the order they were read and out
 * of it, with single pages among them, near (the recent pages) and far
 * (the sample), long enough for the time stamps to be renumbered. */
static void test_runs_as_pages(void **state)
{
    (void)state;
    struct reuse *runs = reuse_new(11), *pages = reuse_new(11);
    assert_true(runs && pages);
    static struct reuse_curve a, b;
    for (uint32_t i = 0; i < 40000; i++) {
        uint64_t key = next_random() % 3, count = 1 + next_random() % 300;
        uint64_t first = i % 5 ? next_random() % 3000
                               : (i / 5 * 256) % 4096;
        if (i % 7 == 0)
            count = 1;
        reuse_read(runs, key, first, count);
        for (uint64_t p = first; p < first + count; p++)
            reuse_read(pages, key, p, 1);
    }
    reuse_curve(runs, &a);
    reuse_curve(pages, &b);
    assert_int_equal(a.reads, b.reads);
    for (unsigned i = 0; i < REUSE_BINS; i++)
        assert_true(a.hit[i] == b.hit[i]);
    reuse_free(runs);
    reuse_free(pages);
}

/* A stream of pages never read again keeps the estimator at its size:
 * its samples, and a curve of no hits at all. */
static void test_bounded(void **state)
{
    (void)state;
    struct reuse *r = reuse_new(7);
    assert_non_null(r);
    static struct reuse_curve c;
    for (uint64_t i = 0; i < 4 * READS; i++)
        reuse_read(r, i >> 20, i, 1);
    reuse_curve(r, &c);
    assert_true(c.samples == REUSE_SAMPLES);
    assert_true(c.rate < 0.01);
    assert_true(c.hit[REUSE_BINS - 1] < 0.01);
    reuse_reset(r);
    reuse_curve(r, &c);
    assert_int_equal(c.reads, 0);
    assert_int_equal(c.samples, 0);
    reuse_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_zipf),
        cmocka_unit_test(test_hot_and_scan),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_small_set_exact),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_runs_as_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
