/*
 * hrc.c - danaus stats --hrc POOL (hrc.h): the hit-ratio curve of each
 * container of a pool, as its danausd estimates it (wire.h
 * DANAUS_DOOR_HRC), printed with its knee, and written as a CSV and,
 * with gnuplot on the PATH, a PNG in bench/plot.sh's style.
 */
#include "hrc.h"
#include "door_client.h"
#include "fail.h"
#include "size.h"
#include "state.h"

#include <danaus/wire.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CURVES 256
#define PAGE 4096.0

struct curve {
    char name[DANAUS_PATH_MAX];
    struct danaus_hrc_reply r;
    int knee; /* point, or -1 without hits */
};

static double hit(const struct curve *c, int i)
{
    return c->r.hit_ppm[i] / 1e6;
}

/* A container's root (state containers/NAME/root) is named NAME, any
 * other mount by its mount point. */
static void name_of(const char *mountpoint, char *out, size_t size)
{
    char prefix[STATE_PATH_MAX];
    state_path(prefix, "containers/");
    size_t n = strlen(prefix);
    const char *end = strncmp(mountpoint, prefix, n) == 0
                          ? strstr(mountpoint + n, "/root")
                          : NULL;
    if (end && strcmp(end, "/root") == 0)
        snprintf(out, size, "%.*s", (int)(end - mountpoint - n),
                 mountpoint + n);
    else
        snprintf(out, size, "%s", mountpoint);
}

/* Every curve the pool's danausd has; their count, or -1 (fail.h). */
static int fetch(const char *pool, struct curve *c)
{
    int n = 0;
    for (uint32_t i = 0; n < MAX_CURVES; i++) {
        int rc = door_hrc(pool, i, &c[n].r);
        if (rc < 0)
            return -1;
        if (rc == ENOENT)
            break;
        if (rc == ESTALE)
            continue;
        name_of(c[n].r.mountpoint, c[n].name, sizeof c[n].name);
        c[n].knee = danaus_hrc_knee(c[n].r.hit_ppm);
        n++;
    }
    return n;
}

static double size_of(int i)
{
    return (double)danaus_hrc_pages((unsigned)i + 1) * PAGE;
}

/* The curve's points from one page to where it stops rising, each one
 * that moved the hit ratio by at least 0.05. */
static void print_curve(const struct curve *c)
{
    char size[32];
    double shown = -1, most = hit(c, DANAUS_HRC_POINTS - 1);
    for (int i = 0; i < DANAUS_HRC_POINTS; i++) {
        if (hit(c, i) - shown < 0.05 && i != c->knee)
            continue;
        size_human(size, sizeof size, size_of(i));
        printf("  %10s %6.3f%s\n", size, hit(c, i),
               i == c->knee ? "  <- knee" : "");
        shown = hit(c, i);
        if (shown >= most)
            break;
    }
}

/* What the pool's cache needs for every container to reach its knee
 * (were each kept apart from the others: one shared LRU gives no such
 * promise, docs/cache.md). */
static void print_sum(const struct curve *c, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        if (c[i].knee >= 0)
            sum += size_of(c[i].knee);
    char size[32];
    size_human(size, sizeof size, sum);
    printf("%-22s %12s %9s %10s\n", "knees together", "", "", size);
}

static void print_all(const struct curve *c, int n)
{
    printf("%-22s %12s %9s %10s %8s %8s %10s %10s %10s %10s\n",
           "CONTAINER", "PAGE READS", "SAMPLED", "KNEE", "HIT@KNEE",
           "MAX HIT", "CACHED", "RESERVED", "HITS", "MISSES");
    for (int i = 0; i < n; i++) {
        const struct danaus_hrc_reply *r = &c[i].r;
        char knee[32] = "-", cached[32] = "-", reserved[32] = "-";
        if (c[i].knee >= 0)
            size_human(knee, sizeof knee, size_of(c[i].knee));
        /* The pool's page cache, when there is one (cache_auto). */
        bool pool = r->cache_hits + r->cache_misses > 0;
        if (pool) {
            size_human(cached, sizeof cached,
                       (double)r->cache_pages * PAGE);
            size_human(reserved, sizeof reserved,
                       (double)r->cache_reserve * PAGE);
        }
        printf("%-22s %12llu %8.2f%% %10s %8.3f %8.3f %10s %10s %10llu "
               "%10llu\n",
               c[i].name, (unsigned long long)r->reads, r->rate_ppb / 1e7,
               knee, c[i].knee >= 0 ? hit(&c[i], c[i].knee) : 0,
               hit(&c[i], DANAUS_HRC_POINTS - 1), cached, reserved,
               (unsigned long long)r->cache_hits,
               (unsigned long long)r->cache_misses);
    }
    print_sum(c, n);
    for (int i = 0; i < n; i++) {
        printf("\n%s: cache size, hit ratio\n", c[i].name);
        print_curve(&c[i]);
    }
}

/* The last point worth drawing: twice the largest knee. */
static int last_point(const struct curve *c, int n)
{
    double most = 16 * PAGE;
    for (int i = 0; i < n; i++)
        if (c[i].knee >= 0 && 2 * size_of(c[i].knee) > most)
            most = 2 * size_of(c[i].knee);
    int last = 0;
    while (last + 1 < DANAUS_HRC_POINTS && size_of(last) < most)
        last++;
    return last;
}

static int write_csv(const char *path, const struct curve *c, int n)
{
    FILE *f = fopen(path, "we");
    if (!f)
        return fail_errno("cannot write %s", path);
    fprintf(f, "cache MiB");
    for (int i = 0; i < n; i++)
        fprintf(f, ",%s", c[i].name);
    fprintf(f, "\n");
    int last = last_point(c, n);
    for (int p = 0; p <= last; p++) {
        fprintf(f, "%.4f", size_of(p) / (1024 * 1024));
        for (int i = 0; i < n; i++)
            fprintf(f, ",%.4f", hit(&c[i], p));
        fprintf(f, "\n");
    }
    return fclose(f) == 0 ? 0 : fail_errno("cannot write %s", path);
}

/* bench/plot.sh's lines, with the sizes on a log scale. */
static int plot(const char *csv, const char *png, const char *pool, int n)
{
    FILE *g = popen("gnuplot 2>/dev/null", "we");
    if (!g)
        return fail_errno("cannot run gnuplot");
    fprintf(g,
            "set terminal pngcairo size 1000,560 font 'sans,10'\n"
            "set output '%s'\nset datafile separator ','\n"
            "set key outside right top\nset grid ytics\n"
            "set title \"Hit ratio against cache size, pool %s\"\n"
            "set ylabel 'hit ratio'\nset xlabel 'cache (MiB)'\n"
            "set logscale x\nset yrange [0:1]\nset bmargin 8\n"
            "set style data linespoints\n"
            "plot for [i=2:%d] '%s' using 1:i title columnheader(i) "
            "pointsize 1.3 linewidth 2\n",
            png, pool, n + 1, csv);
    int status = pclose(g);
    if (status != 0)
        return fail("gnuplot could not draw %s", png);
    return 0;
}

static int gnuplot_found(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

int hrc_show(const char *pool)
{
    static struct curve curves[MAX_CURVES];
    if (state_check_name("pool", pool) < 0)
        return -1;
    int n = fetch(pool, curves);
    if (n < 0)
        return -1;
    if (n == 0) {
        printf("pool %s: no reads counted yet\n", pool);
        return 0;
    }
    print_all(curves, n);
    char csv[NAME_MAX_LEN + 16], png[NAME_MAX_LEN + 16];
    snprintf(csv, sizeof csv, "hrc-%s.csv", pool);
    snprintf(png, sizeof png, "hrc-%s.png", pool);
    if (write_csv(csv, curves, n) < 0)
        return -1;
    printf("\nwrote %s", csv);
    if (gnuplot_found() && plot(csv, png, pool, n) == 0)
        printf(" and %s", png);
    printf("\n");
    return 0;
}
