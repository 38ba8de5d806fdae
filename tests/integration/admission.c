/*
 * admission.c - a pool's rate on its backend (backend_ops_per_second,
 * backend_write_bytes_per_second; fsservice/core/admission.h), as an
 * operator relies on it: calls that change the name space or sync, and
 * bytes written, go at the configured rate and no faster, and while they
 * wait, another client's stat and cached reads of the same service are
 * answered at once.
 *
 *   admission DANAUSD
 *
 * On the local backend, whose calls take microseconds: what the test
 * measures is the service's pacing alone. Each pacing test runs twice:
 * through the danaus_* calls and through the FUSE door (the kernel's
 * calls on the same mount point), which take from the same rates.
 */
#include "harness.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define OPS_PER_SECOND 40
#define BYTES_PER_SECOND (1 << 20)

/* The calls of one path to the service. */
struct calls {
    int (*mkdir)(const char *, mode_t);
    int (*open)(const char *, int, ...);
    ssize_t (*write)(int, const void *, size_t);
    int (*close)(int);
    int (*stat)(const char *, struct stat *);
};

static const struct calls api = {danaus_mkdir, danaus_open, danaus_write,
                                 danaus_close, danaus_stat};
static const struct calls door = {mkdir, open, write, close, stat};

static const char *danausd;
static char host[600];
static char mnt[600];
static struct site site;
static struct daemon svc;

/* Another client (a child process) stats a file in a loop while the
 * caller's paced calls run, and counts its stats and the slow ones: as
 * cheap a call as there is, it should not wait on them at all. The sweep
 * (workers.c) would answer a stat whose bell no thread takes within a few
 * ms, so the test counts stats over SLOW_MS rather than the slowest. */
#define SLOW_MS 2.0

struct stat_counts {
    long n, slow;
    double slowest_ms;
};

struct watcher {
    const struct calls *calls;
    pid_t pid;
    volatile struct stat_counts *counts; /* shared with the child */
};

static void watcher_start(struct watcher *w)
{
    w->counts = mmap(NULL, sizeof *w->counts, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(w->counts != MAP_FAILED);
    w->counts->n = 0;
    w->pid = fork();
    assert_true(w->pid >= 0);
    if (w->pid == 0) {
        char path[700];
        snprintf(path, sizeof path, "%s/watched", mnt);
        struct stat st;
        for (;;) {
            double t0 = now_ms();
            if (w->calls->stat(path, &st) != 0)
                _exit(1);
            double took = now_ms() - t0;
            if (took > w->counts->slowest_ms)
                w->counts->slowest_ms = took;
            w->counts->slow += took > SLOW_MS;
            w->counts->n++;
            usleep(1000);
        }
    }
    while (w->counts->n == 0)
        usleep(1000);
}

/* Stops the child; its counts go to *out. */
static void watcher_stop(struct watcher *w, struct stat_counts *out)
{
    int status;
    kill(w->pid, SIGKILL);
    waitpid(w->pid, &status, 0);
    *out = *(struct stat_counts *)w->counts;
    munmap((void *)w->counts, sizeof *w->counts);
}

/* At most one stat in 20 over SLOW_MS, none over 100 ms. */
static void assert_stats_quick(const struct stat_counts *c)
{
    if (c->slow * 20 > c->n || c->slowest_ms >= 100)
        fail_msg("%ld of %ld stats took over %.0f ms, the slowest %.1f ms",
                 c->slow, c->n, SLOW_MS, c->slowest_ms);
}

static int start(void **state)
{
    (void)state;
    if (site_make(&site, "admission") < 0)
        return -1;
    snprintf(mnt, sizeof mnt, "%s/mnt", site.dir);
    snprintf(host, sizeof host, "%s/host", site.dir);
    if (mkdir(mnt, 0755) < 0 || mkdir(host, 0755) < 0 ||
        site_write_config(&site,
                          "fuse on\nbackend_ops_per_second %d\n"
                          "backend_write_bytes_per_second %d\n"
                          "mount %s local %s\n",
                          OPS_PER_SECOND, BYTES_PER_SECOND, mnt, host) < 0)
        return -1;
    site_use(&site);
    if (daemon_start(&svc, danausd, &site, "danausd", 60000) < 0)
        return -1;
    char path[700];
    snprintf(path, sizeof path, "%s/watched", mnt);
    int fd = danaus_open(path, O_CREAT | O_WRONLY, 0644);
    return fd >= 0 && danaus_close(fd) == 0 ? 0 : -1;
}

static int stop(void **state)
{
    (void)state;
    int rc = daemon_stop(&svc);
    site_remove(&site);
    return rc;
}

/* n mkdirs named tag<i>, in ms. */
static double mkdirs(const struct calls *k, const char *tag, int n)
{
    char path[700];
    double t0 = now_ms();
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s%d", mnt, tag, i);
        assert_int_equal(k->mkdir(path, 0755), 0);
    }
    return now_ms() - t0;
}

/* mkdirs at 40 a second: a burst of 4 at once, then 3 s for 120 more;
 * another client's stats are answered at once meanwhile. */
static void ops_paced(const struct calls *k, const char *tag)
{
    char burst[32], paced[32];
    snprintf(burst, sizeof burst, "%s-burst", tag);
    snprintf(paced, sizeof paced, "%s-paced", tag);
    sleep(1); /* the bucket full again */
    assert_true(mkdirs(k, burst, OPS_PER_SECOND / 10) < 100);
    struct watcher w = {.calls = k};
    struct stat_counts stats;
    watcher_start(&w);
    double took = mkdirs(k, paced, 3 * OPS_PER_SECOND);
    watcher_stop(&w, &stats);
    if (took < 2900 || took >= 6000)
        fail_msg("%d mkdirs (%s) took %.0f ms (expected 2,900 to 6,000)",
                 3 * OPS_PER_SECOND, tag, took);
    assert_stats_quick(&stats);
}

static void test_ops_paced(void **state)
{
    (void)state;
    ops_paced(&api, "api");
}

static void test_door_ops_paced(void **state)
{
    (void)state;
    ops_paced(&door, "door");
}

/* n writes of size bytes, at 1 MiB a second: about 3 s for 3 MiB, less
 * the burst (0.1 MiB); another client's stats are answered at once
 * meanwhile, also when the writes are small ones the service would run
 * without handing its queue on. */
static void bytes_paced(const struct calls *k, size_t size, int n)
{
    char path[700];
    snprintf(path, sizeof path, "%s/paced", mnt);
    int fd = k->open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    assert_true(fd >= 0);
    char *buf = calloc(1, size);
    assert_non_null(buf);
    sleep(1);
    struct watcher w = {.calls = k};
    struct stat_counts stats;
    watcher_start(&w);
    double t0 = now_ms();
    for (int i = 0; i < n; i++)
        assert_int_equal(k->write(fd, buf, size), size);
    double took = now_ms() - t0;
    watcher_stop(&w, &stats);
    assert_int_equal(k->close(fd), 0);
    free(buf);
    if (took < 2800 || took >= 6000)
        fail_msg("%d writes of %zu bytes took %.0f ms (expected 2,800 to "
                 "6,000)", n, size, took);
    assert_stats_quick(&stats);
}

static void test_bytes_paced(void **state)
{
    (void)state;
    bytes_paced(&api, 1 << 20, 3);
    bytes_paced(&api, 48 << 10, 64);
}

static void test_door_bytes_paced(void **state)
{
    (void)state;
    bytes_paced(&door, 1 << 20, 3);
    bytes_paced(&door, 48 << 10, 64);
}

/* What a cache answers is never paced: thousands of stats, opens for
 * reading and reads, and small writes, well within a second. */
static void test_cached_calls_not_paced(void **state)
{
    (void)state;
    char path[700];
    snprintf(path, sizeof path, "%s/watched", mnt);
    struct stat st;
    char byte;
    double t0 = now_ms();
    for (int i = 0; i < 2000; i++) {
        assert_int_equal(danaus_stat(path, &st), 0);
        int fd = danaus_open(path, O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(danaus_pread(fd, &byte, 1, 0), 0);
        assert_int_equal(danaus_close(fd), 0);
    }
    assert_true(now_ms() - t0 < 1000);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: admission DANAUSD\n");
        return 2;
    }
    danausd = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_paced),
        cmocka_unit_test(test_bytes_paced),
        cmocka_unit_test(test_door_ops_paced),
        cmocka_unit_test(test_door_bytes_paced),
        cmocka_unit_test(test_cached_calls_not_paced),
    };
    return cmocka_run_group_tests_name("admission", tests, start, stop);
}
