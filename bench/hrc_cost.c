/*
 * hrc_cost.c - the cpu time the hit-ratio estimator (fsservice/core/
 * reuse.h) adds to each page read, alone, for the read patterns whose
 * cost docs/cache.md ("Cost") weighs:
 *   seq1m   1 MiB reads (256 pages) in order through a 64 MiB file, over
 *           and over: danaus-bench's seq-read-1m;
 *   copy1m  the same, with a 1 MiB copy between reads, as the service
 *           copies each read's data (the estimator's memory is then no
 *           longer in the cpu's caches);
 *   rand4k  one page at a time, at random over 20000 pages;
 *   same4k  one page over and over: danaus-bench's pread-4k.
 *
 *   hrc-cost [reads_per_pattern]
 *
 * Prints, per pattern, the estimator's ns per page: thread cpu time of
 * its calls alone (each timed, for copy1m; the loop, for the others).
 */
#include "fsservice/core/reuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FILE_PAGES 16384u
#define BIG_READ 256u
#define RANDOM_PAGES 20000u

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Knuth's MMIX linear congruential generator; its high bits. */
static uint64_t rng = 1;
static uint64_t next_random(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng >> 17;
}

static double seq1m(struct reuse *r, uint64_t reads, char *from, char *to)
{
    uint64_t spent = 0, pages = 0, start = cpu_ns();
    for (uint64_t i = 0; i < reads; i++) {
        uint64_t first = i * BIG_READ % FILE_PAGES;
        if (from) {
            memcpy(to, from, BIG_READ * 4096);
            start = cpu_ns();
        }
        reuse_read(r, 42, first, BIG_READ);
        if (from)
            spent += cpu_ns() - start;
        pages += BIG_READ;
    }
    if (!from)
        spent = cpu_ns() - start;
    return (double)spent / (double)pages;
}

static double one_page(struct reuse *r, uint64_t reads, uint32_t range)
{
    uint64_t start = cpu_ns();
    for (uint64_t i = 0; i < reads; i++)
        reuse_read(r, 42, range > 1 ? next_random() % range : 7, 1);
    return (double)(cpu_ns() - start) / (double)reads;
}

int main(int argc, char **argv)
{
    uint64_t reads = argc > 1 ? strtoull(argv[1], NULL, 0) : 4000000;
    char *from = malloc(BIG_READ * 4096), *to = malloc(BIG_READ * 4096);
    struct reuse *r = reuse_new(0x5eed);
    if (!from || !to || !r) {
        fprintf(stderr, "hrc-cost: no memory\n");
        return 1;
    }
    memset(from, 1, BIG_READ * 4096);
    memset(to, 2, BIG_READ * 4096);
    uint64_t big = reads / BIG_READ;
    /* Each pattern after a warm-up of its own on a fresh estimator. */
    reuse_reset(r);
    seq1m(r, big / 4 + 1, NULL, NULL);
    printf("seq1m  %6.1f ns/page\n", seq1m(r, big, NULL, NULL));
    reuse_reset(r);
    seq1m(r, big / 4 + 1, from, to);
    printf("copy1m %6.1f ns/page\n", seq1m(r, big, from, to));
    reuse_reset(r);
    one_page(r, reads / 4, RANDOM_PAGES);
    printf("rand4k %6.1f ns/page\n", one_page(r, reads, RANDOM_PAGES));
    reuse_reset(r);
    one_page(r, reads / 4, 1);
    printf("same4k %6.1f ns/page\n", one_page(r, reads, 1));
    reuse_free(r);
    free(from);
    free(to);
    return 0;
}
