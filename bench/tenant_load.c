/*
 * tenant_load.c - one tenant's workload for bench/run-tenants.sh and
 * bench/run-scale.sh: plain libc file I/O in a directory for a fixed time,
 * so it runs unchanged on the host, on a FUSE mount, or in a Danaus
 * container under the preload. Prints one line of key=value results:
 * operations per second, MB/s, and p50/p99 latency per operation (from a
 * log-scale histogram, 2% wide buckets).
 *
 *   tenant-load MODE DIR SECONDS
 *   tenant-load at PROGRAM [ARGS...]
 *
 * With TENANT_START (seconds since the epoch, as `date +%s.%N` prints) in
 * the environment, the timed part starts then, after the mode's setup, so
 * that tenants whose setups differ in length overlap exactly; `at` waits
 * for it and execs PROGRAM (db_bench, which has no setup of its own).
 *
 *   victim      stat and a 4 KiB pread at a random offset of a cached
 *               4 MiB file, alternately (issue 18's victim); also reports
 *               the stat and pread percentiles apart
 *   fileserver  over a tree of 400 small files (16 KiB): create and write
 *               whole, append 4 KiB, read whole, stat, delete, at random
 *   seq         sequential 1 MiB writes of a 128 MiB file, fsync, then
 *               1 MiB reads of it; over and over
 *   noisy       random 4 KiB writes into a 64 MiB file, each with fsync
 *   writer      dd if=/dev/zero of=big bs=1M count=256 conv=fsync, over
 *               and over (issue 18's neighbour)
 *   storm       metadata storm: create and unlink empty files
 *   spin        burn the CPU, no I/O (for oversubscription)
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 1400 /* 1.02^1400 ns covers 1 ns .. beyond 100 s */
#define MIB (1 << 20)

struct histogram {
    uint64_t count[BUCKETS];
    uint64_t total;
};

static struct histogram all_ops, stat_ops, pread_ops;
static uint64_t bytes_moved;
static double started_ns; /* the timed part's start, after a mode's setup */
static char buf[MIB];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "tenant-load: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double late_s; /* how long after TENANT_START the timed part began */

/* Sleeps until TENANT_START, if it is set and still ahead. */
static void wait_for_start(void)
{
    const char *at = getenv("TENANT_START");
    if (!at)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double left = atof(at) - (ts.tv_sec + ts.tv_nsec / 1e9);
    if (left < 0)
        late_s = -left;
    if (left > 0) {
        ts.tv_sec = (time_t)left;
        ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
        nanosleep(&ts, NULL);
    }
}

/* Starts the timed part: returns its end, SECONDS from now. */
static double timed_part(double seconds)
{
    wait_for_start();
    bytes_moved = 0;
    started_ns = now_ns();
    return started_ns + seconds * 1e9;
}

static void record(struct histogram *h, double ns)
{
    int b = ns <= 1 ? 0 : (int)(log(ns) / log(1.02));
    if (b >= BUCKETS)
        b = BUCKETS - 1;
    h->count[b]++;
    h->total++;
}

/* The latency below which a fraction q of the operations fell, in us. */
static double percentile_us(const struct histogram *h, double q)
{
    uint64_t want = (uint64_t)ceil(q * h->total), seen = 0;
    for (int b = 0; b < BUCKETS; b++) {
        seen += h->count[b];
        if (seen >= want && seen > 0)
            return pow(1.02, b + 1) / 1e3;
    }
    return 0;
}

/* Times one operation into the overall histogram and, if given, another. */
#define TIMED(extra, call)                                                     \
    do {                                                                       \
        struct histogram *extra_ = (extra);                                    \
        double t0_ = now_ns();                                                 \
        call;                                                                  \
        double dt_ = now_ns() - t0_;                                           \
        record(&all_ops, dt_);                                                 \
        if (extra_)                                                            \
            record(extra_, dt_);                                              \
    } while (0)

static void write_all(int fd, size_t len, const char *path)
{
    while (len > 0) {
        size_t n = len < sizeof buf ? len : sizeof buf;
        ssize_t w = write(fd, buf, n);
        if (w <= 0)
            die("write", path);
        len -= (size_t)w;
        bytes_moved += (uint64_t)w;
    }
}

static void fill_file(const char *path, size_t len, int sync)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("open", path);
    write_all(fd, len, path);
    if (sync && fsync(fd) != 0)
        die("fsync", path);
    close(fd);
}

static size_t read_all(int fd, const char *path)
{
    size_t total = 0;
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        total += (size_t)r;
    if (r < 0)
        die("read", path);
    bytes_moved += total;
    return total;
}

static void victim(const char *dir, double seconds)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/victim.dat", dir);
    fill_file(path, 4 * MIB, 0);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        die("open", path);
    read_all(fd, path); /* cached from here on */
    struct stat st;
    double end = timed_part(seconds);
    while (now_ns() < end) {
        TIMED(&stat_ops, if (stat(path, &st) != 0) die("stat", path));
        off_t off = (off_t)(random() % 1024) * 4096;
        TIMED(&pread_ops, if (pread(fd, buf, 4096, off) != 4096)
                              die("pread", path));
    }
    close(fd);
}

static void fileserver(const char *dir, double seconds)
{
    enum { FILES = 400, DIRS = 20, SIZE = 16384 };
    char path[4096];
    struct stat st;
    for (int d = 0; d < DIRS; d++) {
        snprintf(path, sizeof path, "%s/fs%02d", dir, d);
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            die("mkdir", path);
    }
    for (int i = 0; i < FILES; i++) {
        snprintf(path, sizeof path, "%s/fs%02d/f%04d", dir, i % DIRS, i);
        fill_file(path, SIZE, 0);
    }
    double end = timed_part(seconds);
    while (now_ns() < end) {
        int i = (int)(random() % FILES);
        snprintf(path, sizeof path, "%s/fs%02d/f%04d", dir, i % DIRS, i);
        int fd;
        switch (random() % 5) {
        case 0: /* delete, then create and write whole */
            TIMED(NULL, if (unlink(path) != 0 && errno != ENOENT)
                            die("unlink", path));
            TIMED(NULL, fill_file(path, SIZE, 0));
            break;
        case 1:
            TIMED(NULL, {
                fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
                if (fd < 0)
                    die("open", path);
                write_all(fd, 4096, path);
                close(fd);
            });
            break;
        case 2:
        case 3:
            TIMED(NULL, {
                fd = open(path, O_RDONLY | O_CREAT, 0644);
                if (fd < 0)
                    die("open", path);
                read_all(fd, path);
                close(fd);
            });
            break;
        default:
            TIMED(NULL, if (stat(path, &st) != 0 && errno != ENOENT)
                            die("stat", path));
        }
    }
}

static void seq(const char *dir, double seconds)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/seq.dat", dir);
    double end = timed_part(seconds);
    while (now_ns() < end) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            die("open", path);
        for (int i = 0; i < 128 && now_ns() < end; i++)
            TIMED(NULL, write_all(fd, MIB, path));
        TIMED(NULL, if (fsync(fd) != 0) die("fsync", path));
        for (off_t off = 0; now_ns() < end; off += MIB) {
            ssize_t r;
            TIMED(NULL, r = pread(fd, buf, MIB, off));
            if (r < 0)
                die("pread", path);
            if (r == 0)
                break;
            bytes_moved += (uint64_t)r;
        }
        close(fd);
    }
}

static void noisy(const char *dir, double seconds)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/noisy.dat", dir);
    fill_file(path, 64 * MIB, 1);
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        die("open", path);
    double end = timed_part(seconds);
    while (now_ns() < end) {
        off_t off = (off_t)(random() % (64 * 256)) * 4096;
        TIMED(NULL, {
            if (pwrite(fd, buf, 4096, off) != 4096)
                die("pwrite", path);
            if (fsync(fd) != 0)
                die("fsync", path);
        });
        bytes_moved += 4096;
    }
    close(fd);
}

static void writer(const char *dir, double seconds)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/big", dir);
    double end = timed_part(seconds);
    while (now_ns() < end) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            die("open", path);
        for (int i = 0; i < 256; i++)
            TIMED(NULL, write_all(fd, MIB, path));
        TIMED(NULL, if (fsync(fd) != 0) die("fsync", path));
        close(fd);
    }
}

static void storm(const char *dir, double seconds)
{
    char path[4096];
    double end = timed_part(seconds);
    for (long i = 0; now_ns() < end; i++) {
        snprintf(path, sizeof path, "%s/storm%ld", dir, i % 64);
        TIMED(NULL, {
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0)
                die("create", path);
            close(fd);
        });
        TIMED(NULL, if (unlink(path) != 0) die("unlink", path));
    }
}

static void spin(const char *dir, double seconds)
{
    (void)dir;
    volatile uint64_t x = 0;
    double end = timed_part(seconds);
    while (now_ns() < end)
        for (int i = 0; i < 100000; i++)
            x += (uint64_t)i;
}

static const struct {
    const char *name;
    void (*run)(const char *dir, double seconds);
} modes[] = {
    {"victim", victim}, {"fileserver", fileserver}, {"seq", seq},
    {"noisy", noisy},   {"writer", writer},         {"storm", storm},
    {"spin", spin},
};

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "at") == 0) {
        wait_for_start();
        execvp(argv[2], argv + 2);
        die("exec", argv[2]);
    }
    if (argc != 4 || atof(argv[3]) <= 0) {
        fprintf(stderr, "usage: tenant-load MODE DIR SECONDS | at PROGRAM...\n");
        return 2;
    }
    size_t m = 0;
    while (m < sizeof modes / sizeof modes[0] &&
           strcmp(modes[m].name, argv[1]) != 0)
        m++;
    if (m == sizeof modes / sizeof modes[0]) {
        fprintf(stderr, "tenant-load: unknown mode '%s'\n", argv[1]);
        return 2;
    }
    srandom((unsigned)getpid());
    memset(buf, 'x', sizeof buf);
    if (mkdir(argv[2], 0755) != 0 && errno != EEXIST)
        die("mkdir", argv[2]);
    modes[m].run(argv[2], atof(argv[3]));
    double elapsed = (now_ns() - started_ns) / 1e9;
    printf("mode=%s ops=%llu seconds=%.3f ops_s=%.1f mb_s=%.1f "
           "p50_us=%.2f p99_us=%.2f late_s=%.2f",
           argv[1], (unsigned long long)all_ops.total, elapsed,
           all_ops.total / elapsed, bytes_moved / elapsed / 1e6,
           percentile_us(&all_ops, 0.5), percentile_us(&all_ops, 0.99),
           late_s);
    if (stat_ops.total)
        printf(" stat_p50_us=%.2f stat_p99_us=%.2f pread_p50_us=%.2f "
               "pread_p99_us=%.2f",
               percentile_us(&stat_ops, 0.5), percentile_us(&stat_ops, 0.99),
               percentile_us(&pread_ops, 0.5),
               percentile_us(&pread_ops, 0.99));
    printf("\n");
    return 0;
}
