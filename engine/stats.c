/*
 * stats.c - danaus stats (stats.h). Two samples one second apart: the CPU
 * time and resident memory of the processes in each container's PID
 * namespace and in each pool's cgroup (/proc), the pool's cgroup memory
 * charge, and the service's counters of each container's root
 * (wire.h DANAUS_DOOR_STATS). Calls through the FUSE door (execve, mmap,
 * programs without the preload) are not among them. top lists the
 * processes of that PID namespace.
 */
#include "stats.h"
#include "cgroup.h"
#include "door_client.h"
#include "fail.h"
#include "query.h"
#include "record.h"
#include "service.h"
#include "size.h"
#include "state.h"

#include <danaus/wire.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROWS 256

struct usage {
    double cpu_s;      /* user + system time of the processes */
    uint64_t rss;      /* their resident memory, bytes */
    struct danaus_stats_reply fs;
};

struct row {
    char name[NAME_MAX_LEN + 1];
    char pool[NAME_MAX_LEN + 1];
    int is_pool;
    ino_t pidns;       /* containers: their PID namespace */
    struct usage at[2];
};

/* CPU seconds and resident bytes of process pid: 0, or -1 if it is gone. */
static int proc_usage(pid_t pid, double *cpu_s, uint64_t *rss)
{
    char buf[1024];
    const char *fields = proc_stat_fields(pid, buf, sizeof buf);
    /* utime and stime are fields 14 and 15, rss field 24 (proc(5)). */
    unsigned long long utime, stime, pages;
    if (!fields ||
        sscanf(fields, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                       "%llu %llu %*d %*d %*d %*d %*d %*d %*u %*u %llu",
               &utime, &stime, &pages) != 3)
        return -1;
    *cpu_s = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    *rss = pages * (uint64_t)sysconf(_SC_PAGESIZE);
    return 0;
}

static ino_t pidns_of(pid_t pid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)pid);
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* Calls fn with every process in PID namespace ns. */
static void each_in_namespace(ino_t ns, void (*fn)(pid_t, void *), void *arg)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid > 0 && pidns_of(pid) == ns)
            fn(pid, arg);
    }
    if (d)
        closedir(d);
}

static void add_usage(pid_t pid, void *arg)
{
    struct usage *u = arg;
    double cpu;
    uint64_t rss;
    if (proc_usage(pid, &cpu, &rss) == 0) {
        u->cpu_s += cpu;
        u->rss += rss;
    }
}

static void sample(struct row *rows, int n, int k)
{
    for (int i = 0; i < n; i++) {
        struct row *r = &rows[i];
        struct usage *u = &r->at[k];
        memset(u, 0, sizeof *u);
        char root[STATE_PATH_MAX];
        if (r->is_pool) {
            int np;
            pid_t *pids = cgroup_pids(r->pool, &np);
            for (int j = 0; j < np; j++) {
                double cpu;
                uint64_t rss;
                if (proc_usage(pids[j], &cpu, &rss) == 0)
                    u->cpu_s += cpu;
            }
            free(pids);
            u->rss = cgroup_memory_used(r->pool);
            door_stats(r->pool, "", &u->fs);
        } else {
            each_in_namespace(r->pidns, add_usage, u);
            state_path(root, "containers/%s/root", r->name);
            door_stats(r->pool, root, &u->fs);
        }
    }
    fail_clear();
}

/* The start of a service-time bucket (wire.h), in ns. */
static double bucket_start(int b)
{
    if (b < 4)
        return b;
    double base = (double)(1ull << (b / 4));
    return base + base * (b % 4) / 4;
}

/* The p-quantile of the calls counted between the two samples, as the end
 * of the bucket it falls in, in us; -1 without calls. */
static double quantile(const struct usage *a, const struct usage *b, double p)
{
    uint64_t total = b->fs.calls - a->fs.calls, seen = 0;
    if (total == 0)
        return -1;
    for (int i = 0; i < DANAUS_STATS_BUCKETS; i++) {
        seen += b->fs.time_ns[i] - a->fs.time_ns[i];
        if ((double)seen >= p * (double)total)
            return bucket_start(i + 1) / 1000;
    }
    return bucket_start(DANAUS_STATS_BUCKETS) / 1000;
}

static void print_row(const struct row *r, double seconds)
{
    const struct usage *a = &r->at[0], *b = &r->at[1];
    char mem[32], rd[32], wr[32], p50[32], p99[32], name[64];
    size_human(mem, sizeof mem, (double)b->rss);
    size_human(rd, sizeof rd, (double)(b->fs.bytes_read - a->fs.bytes_read) / seconds);
    size_human(wr, sizeof wr,
          (double)(b->fs.bytes_written - a->fs.bytes_written) / seconds);
    double q50 = quantile(a, b, 0.5), q99 = quantile(a, b, 0.99);
    snprintf(p50, sizeof p50, q50 < 0 ? "-" : "%.1fus", q50);
    snprintf(p99, sizeof p99, q99 < 0 ? "-" : "%.1fus", q99);
    snprintf(name, sizeof name, "%s%s", r->is_pool ? "pool " : "", r->name);
    printf("%-22s %-12s %6.1f%% %10s %10.0f %10s/s %10s/s %9s %9s\n", name,
           r->pool, 100 * (b->cpu_s - a->cpu_s) / seconds, mem,
           (double)(b->fs.calls - a->fs.calls) / seconds, rd, wr, p50, p99);
}

/* The record of a running container, loaded; else -1 (fail.h). */
static int load_running(const char *name, struct record *rec)
{
    if (query_container(name, rec) < 0)
        return -1;
    const char *status = record_get(rec, "status");
    if (status && strcmp(status, "running") == 0 && service_alive(rec))
        return 0;
    record_free(rec);
    return fail("container '%s' is not running", name);
}

/* Adds the container (if running) and its pool (once) to rows. */
static int add(struct row *rows, int *n, const char *name)
{
    struct record rec;
    if (load_running(name, &rec) < 0)
        return -1;
    pid_t pid = (pid_t)record_num(&rec, "pid", 0);
    int rc = 0;
    if (*n + 2 > MAX_ROWS) {
        rc = fail("stats: more than %d rows", MAX_ROWS);
    } else {
        const char *pool = record_get(&rec, "pool");
        struct row *r = &rows[(*n)++];
        memset(r, 0, sizeof *r);
        snprintf(r->name, sizeof r->name, "%s", name);
        snprintf(r->pool, sizeof r->pool, "%s", pool);
        r->pidns = pidns_of(pid);
        int have = 0;
        for (int i = 0; i < *n - 1; i++)
            have |= rows[i].is_pool && strcmp(rows[i].pool, pool) == 0;
        if (!have) {
            struct row *p = &rows[(*n)++];
            memset(p, 0, sizeof *p);
            snprintf(p->name, sizeof p->name, "%s", pool);
            snprintf(p->pool, sizeof p->pool, "%s", pool);
            p->is_pool = 1;
        }
    }
    record_free(&rec);
    return rc;
}

int stats_show(char **names, int n)
{
    static struct row rows[MAX_ROWS];
    int nrows = 0;
    int nall = 0;
    char **all = n ? NULL : state_list("containers", &nall);
    for (int i = 0; i < (n ? n : nall); i++) {
        if (add(rows, &nrows, n ? names[i] : all[i]) < 0 && n) {
            state_list_free(all, nall);
            return -1;
        }
        fail_clear();
    }
    state_list_free(all, nall);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sample(rows, nrows, 0);
    /* Without the state lock meanwhile: other commands go on. */
    state_unlock();
    nanosleep(&(struct timespec){1, 0}, NULL);
    state_lock();
    sample(rows, nrows, 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) +
                     (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%-22s %-12s %7s %10s %10s %12s %12s %9s %9s\n", "NAME", "POOL",
           "CPU", "MEM", "FS CALLS/S", "READ", "WRITE", "P50", "P99");
    for (int i = 0; i < nrows; i++)
        print_row(&rows[i], seconds);
    return 0;
}

/* The value of a "Key:\tfirst value" line of /proc/PID/status, or -1. */
static long status_number(pid_t pid, const char *key)
{
    char path[64], line[256];
    long v = -1;
    size_t len = strlen(key);
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0 && line[len] == ':') {
            v = strtol(line + len + 1, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* One line of top: the process's host ids, CPU time and command line. */
static void top_line(pid_t pid, void *arg)
{
    (void)arg;
    char path[64], cmd[512] = "";
    double cpu;
    uint64_t rss;
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "re");
    size_t n = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
    if (f)
        fclose(f);
    for (size_t i = 0; i + 1 < n; i++)
        cmd[i] = cmd[i] ? cmd[i] : ' ';
    cmd[n] = '\0';
    if (proc_usage(pid, &cpu, &rss) < 0)
        return; /* gone meanwhile */
    printf("%-10ld %-8d %-8ld %9.2f %s\n", status_number(pid, "Uid"),
           (int)pid, status_number(pid, "PPid"), cpu, cmd);
}

int stats_top(const char *name)
{
    struct record rec;
    if (load_running(name, &rec) < 0)
        return -1;
    pid_t pid = (pid_t)record_num(&rec, "pid", 0);
    record_free(&rec);
    printf("%-10s %-8s %-8s %9s %s\n", "UID", "PID", "PPID", "CPU(s)", "CMD");
    each_in_namespace(pidns_of(pid), top_line, NULL);
    return 0;
}
