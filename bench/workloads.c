/*
 * workloads.c - the timed operations (see workloads.h).
 *
 * Each operation is four steps over a struct work: setup (its directory and
 * files), prepare (untimed, before each batch), body (the timed calls) and
 * finish (untimed, after each batch); teardown removes what setup made.
 */
#include "workloads.h"

#include "csw.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK 4096
#define SEQ_CALL (1024 * 1024)
#define SPREAD_BLOCKS 4096 /* the 16 MiB file of the offset patterns */

const char *const op_names[OP_COUNT] = {
    [OP_STAT] = "stat",
    [OP_OPEN_CLOSE] = "open+close",
    [OP_PREAD_4K] = "pread-4k",
    [OP_PREAD_4K_RW] = "pread-4k-rw",
    [OP_PWRITE_4K] = "pwrite-4k",
    [OP_PREAD_4K_RAND] = "pread-4k-rand",
    [OP_PREAD_4K_SEQ] = "pread-4k-seq",
    [OP_PWRITE_4K_RAND] = "pwrite-4k-rand",
    [OP_PWRITE_4K_SEQ] = "pwrite-4k-seq",
    [OP_PWRITE_PREAD_4K] = "pwrite-pread-4k",
    [OP_CREATE] = "create",
    [OP_UNLINK] = "unlink",
    [OP_SEQ_READ] = "seq-read-1m",
    [OP_SEQ_WRITE] = "seq-write-1m",
    [OP_COPYUP] = "copyup-64m",
};

static const char *const op_dirs[OP_COUNT] = {
    [OP_STAT] = "stat",
    [OP_OPEN_CLOSE] = "open-close",
    [OP_PREAD_4K] = "pread-4k",
    [OP_PREAD_4K_RW] = "pread-4k-rw",
    [OP_PWRITE_4K] = "pwrite-4k",
    [OP_PREAD_4K_RAND] = "pread-4k-rand",
    [OP_PREAD_4K_SEQ] = "pread-4k-seq",
    [OP_PWRITE_4K_RAND] = "pwrite-4k-rand",
    [OP_PWRITE_4K_SEQ] = "pwrite-4k-seq",
    [OP_PWRITE_PREAD_4K] = "pwrite-pread-4k",
    [OP_CREATE] = "create",
    [OP_UNLINK] = "unlink",
    [OP_SEQ_READ] = "seq-read",
    [OP_SEQ_WRITE] = "seq-write",
    [OP_COPYUP] = "copyup",
};

struct work {
    const struct bench_fs *fs;
    enum op op;
    bool prepared;       /* union row: the read ops' files are in the lower branch */
    char dir[PATH_MAX / 2];
    char file[PATH_MAX]; /* the one file of stat, open, pread, pwrite, seq */
    int fd;              /* open on file for pread, pwrite, seq; else -1 */
    unsigned char *buf;  /* SEQ_CALL bytes */
    int seq_calls;       /* 1 MiB calls per pass over the sequential file */
    char error[160];
};

/* The offset-pattern ops (workloads.h). */
static bool spread(enum op op)
{
    return op == OP_PREAD_4K_RAND || op == OP_PREAD_4K_SEQ ||
           op == OP_PWRITE_4K_RAND || op == OP_PWRITE_4K_SEQ ||
           op == OP_PWRITE_PREAD_4K;
}

static bool reads_only(enum op op)
{
    return op == OP_PREAD_4K || op == OP_PREAD_4K_RAND ||
           op == OP_PREAD_4K_SEQ || op == OP_SEQ_READ;
}

/* Records the first failure; the op's directory names the file. */
static int fail(struct work *w, const char *what, long rc)
{
    if (!w->error[0])
        snprintf(w->error, sizeof w->error, "%s: %s", what,
                 strerror((int)-rc));
    return (int)rc;
}

/* Whether this op's file is one the script prepared in the lower branch. */
static bool uses_lower_file(const struct work *w)
{
    return w->prepared && (w->op == OP_STAT || w->op == OP_OPEN_CLOSE ||
                           w->op == OP_PREAD_4K || w->op == OP_COPYUP);
}

/* The name of the i-th file of batch b in a create or unlink directory. */
static void batch_name(const struct work *w, char *out, int b, int i)
{
    snprintf(out, PATH_MAX, "%s/f%d-%d", w->dir, b, i);
}

static int make_file(struct work *w, const char *path)
{
    int fd = w->fs->open(w->fs->ctx, path, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0)
        return fail(w, "create", fd);
    int rc = w->fs->close(w->fs->ctx, fd);
    return rc < 0 ? fail(w, "close", rc) : 0;
}

static int write_all(struct work *w, size_t len)
{
    for (size_t off = 0; off < len; off += SEQ_CALL) {
        size_t n = len - off < SEQ_CALL ? len - off : SEQ_CALL;
        ssize_t rc = w->fs->pwrite(w->fs->ctx, w->fd, w->buf, n, (off_t)off);
        if (rc != (ssize_t)n)
            return fail(w, "pwrite", rc < 0 ? rc : -EIO);
    }
    return 0;
}

static int setup(struct work *w, const struct params *p)
{
    const struct bench_fs *fs = w->fs;
    int rc = fs->mkdir(fs->ctx, w->dir, 0755);
    if (rc < 0 && rc != -EEXIST)
        return fail(w, "mkdir", rc);
    snprintf(w->file, sizeof w->file, "%s/file", w->dir);
    if (uses_lower_file(w)) {
        if (w->op != OP_PREAD_4K)
            return 0;
        w->fd = fs->open(fs->ctx, w->file, O_RDONLY, 0);
        return w->fd < 0 ? fail(w, "open", w->fd) : 0;
    }
    switch (w->op) {
    case OP_STAT:
    case OP_OPEN_CLOSE:
        return make_file(w, w->file);
    case OP_PREAD_4K:
    case OP_PREAD_4K_RW:
    case OP_PWRITE_4K:
    case OP_PREAD_4K_RAND:
    case OP_PREAD_4K_SEQ:
    case OP_PWRITE_4K_RAND:
    case OP_PWRITE_4K_SEQ:
    case OP_PWRITE_PREAD_4K:
    case OP_SEQ_READ:
    case OP_SEQ_WRITE:
        w->fd = fs->open(fs->ctx, w->file, O_CREAT | O_TRUNC | O_RDWR, 0644);
        if (w->fd < 0)
            return fail(w, "open", w->fd);
        if (w->op == OP_PREAD_4K || w->op == OP_PREAD_4K_RW)
            rc = write_all(w, BLOCK);
        else if (spread(w->op))
            rc = write_all(w, (size_t)SPREAD_BLOCKS * BLOCK);
        else if (w->op == OP_SEQ_READ &&
                 (rc = write_all(w, (size_t)p->seq_mib * SEQ_CALL)) == 0 &&
                 (rc = fs->fsync(fs->ctx, w->fd)) < 0)
            return fail(w, "fsync", rc);
        if (rc < 0 || !reads_only(w->op))
            return rc;
        /* Readers read through a descriptor opened for reading, as a
         * program reading its data or a container its image does. */
        fs->close(fs->ctx, w->fd);
        w->fd = fs->open(fs->ctx, w->file, O_RDONLY, 0);
        return w->fd < 0 ? fail(w, "open", w->fd) : 0;
    case OP_CREATE:
    case OP_UNLINK:
    case OP_COPYUP:
    case OP_COUNT:
        break;
    }
    return 0;
}

static void teardown(struct work *w)
{
    const struct bench_fs *fs = w->fs;
    if (w->fd >= 0)
        fs->close(fs->ctx, w->fd);
    /* The lower files stay: the script removes the branches, and checks the
     * copied-up files in the writable one. */
    if (uses_lower_file(w))
        return;
    fs->unlink(fs->ctx, w->file);
    fs->rmdir(fs->ctx, w->dir);
}

static int prepare(struct work *w, int batch, int n)
{
    if (w->op != OP_UNLINK)
        return 0;
    char path[PATH_MAX];
    for (int i = 0; i < n; i++) {
        batch_name(w, path, batch, i);
        int rc = make_file(w, path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int finish(struct work *w, int batch, int n)
{
    const struct bench_fs *fs = w->fs;
    if (w->op == OP_CREATE) {
        char path[PATH_MAX];
        for (int i = 0; i < n; i++) {
            batch_name(w, path, batch, i);
            int rc = fs->unlink(fs->ctx, path);
            if (rc < 0)
                return fail(w, "unlink", rc);
        }
    }
    /* Each write batch starts from a clean cache, as the first one did. */
    if (w->op == OP_SEQ_WRITE) {
        int rc = fs->fsync(fs->ctx, w->fd);
        if (rc < 0)
            return fail(w, "fsync", rc);
    }
    return 0;
}

/* The first write into lower file c<batch>: open for writing, 4 KiB at the
 * start, close. Overlayfs copies up at the open, Danaus and unionfs-fuse at
 * the open or the write; timing all three calls covers each. */
static long copy_up(struct work *w, int batch)
{
    const struct bench_fs *fs = w->fs;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/c%d", w->dir, batch);
    int fd = fs->open(fs->ctx, path, O_WRONLY, 0);
    if (fd < 0)
        return fd;
    ssize_t rc = fs->pwrite(fs->ctx, fd, w->buf, BLOCK, 0);
    int crc = fs->close(fs->ctx, fd);
    if (rc != BLOCK)
        return rc < 0 ? rc : -EIO;
    return crc;
}

/* Where the i-th 4 KiB call of batch b lands: offset 0 for pread-4k and
 * pwrite-4k; for the spread ops the same pseudo-random sequence of blocks
 * for every system (a 64-bit mix of b and i), or consecutive blocks. */
static off_t block_offset(enum op op, int b, int i)
{
    if (!spread(op))
        return 0;
    uint64_t block = (uint64_t)b * 1000003u + (uint64_t)i;
    if (op == OP_PREAD_4K_RAND || op == OP_PWRITE_4K_RAND ||
        op == OP_PWRITE_PREAD_4K) {
        block *= 0x9e3779b97f4a7c15ull;
        block ^= block >> 29;
    }
    return (off_t)(block % SPREAD_BLOCKS) * BLOCK;
}

/* The timed calls: n operations of batch b. */
static int body(struct work *w, int batch, int n)
{
    const struct bench_fs *fs = w->fs;
    void *ctx = fs->ctx;
    char path[PATH_MAX];
    for (int i = 0; i < n; i++) {
        long rc = 0;
        switch (w->op) {
        case OP_STAT:
            rc = fs->stat(ctx, w->file);
            break;
        case OP_OPEN_CLOSE:
            rc = fs->open(ctx, w->file, O_RDONLY, 0);
            if (rc >= 0)
                rc = fs->close(ctx, (int)rc);
            break;
        case OP_PREAD_4K:
        case OP_PREAD_4K_RW:
        case OP_PREAD_4K_RAND:
        case OP_PREAD_4K_SEQ:
            rc = fs->pread(ctx, w->fd, w->buf, BLOCK,
                           block_offset(w->op, batch, i));
            rc = rc == BLOCK ? 0 : rc < 0 ? rc : -EIO;
            break;
        case OP_PWRITE_4K:
        case OP_PWRITE_4K_RAND:
        case OP_PWRITE_4K_SEQ:
            rc = fs->pwrite(ctx, w->fd, w->buf, BLOCK,
                            block_offset(w->op, batch, i));
            rc = rc == BLOCK ? 0 : rc < 0 ? rc : -EIO;
            break;
        case OP_PWRITE_PREAD_4K:
            rc = fs->pwrite(ctx, w->fd, w->buf, BLOCK,
                            block_offset(w->op, batch, 2 * i));
            if (rc == BLOCK)
                rc = fs->pread(ctx, w->fd, w->buf, BLOCK,
                               block_offset(w->op, batch, 2 * i + 1));
            rc = rc == BLOCK ? 0 : rc < 0 ? rc : -EIO;
            break;
        case OP_CREATE:
            batch_name(w, path, batch, i);
            rc = fs->open(ctx, path, O_CREAT | O_EXCL | O_WRONLY, 0644);
            if (rc >= 0)
                rc = fs->close(ctx, (int)rc);
            break;
        case OP_UNLINK:
            batch_name(w, path, batch, i);
            rc = fs->unlink(ctx, path);
            break;
        case OP_SEQ_READ:
        case OP_SEQ_WRITE: {
            off_t off = (off_t)(i % w->seq_calls) * SEQ_CALL;
            rc = w->op == OP_SEQ_READ
                     ? fs->pread(ctx, w->fd, w->buf, SEQ_CALL, off)
                     : fs->pwrite(ctx, w->fd, w->buf, SEQ_CALL, off);
            rc = rc == SEQ_CALL ? 0 : rc < 0 ? rc : -EIO;
            break;
        }
        case OP_COPYUP:
            rc = copy_up(w, batch);
            break;
        case OP_COUNT:
            break;
        }
        if (rc < 0)
            return fail(w, op_names[w->op], rc);
    }
    return 0;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Snapshots are big; one measurement runs at a time. */
static struct csw_snap client_before, client_after;
static struct csw_snap server_before[MAX_SERVERS], server_after[MAX_SERVERS];

/* Snapshots of every server into snaps; false if one has gone. */
static bool snap_servers(const struct servers *s, struct csw_snap *snaps)
{
    for (int i = 0; i < s->n; i++)
        if (csw_snap(s->pid[i], &snaps[i]) < 0)
            return false;
    return true;
}

#define MAX_THREADS 16

struct runner {
    pthread_t thread;
    struct work *w;
    int batch, n, rc;
};

static void *run_body(void *arg)
{
    struct runner *r = arg;
    r->rc = body(r->w, r->batch, r->n);
    return NULL;
}

/* batch b of n operations in every work at once; the first error. */
static int bodies(struct work *ws, int nw, int batch, int n)
{
    if (nw == 1)
        return body(ws, batch, n);
    struct runner r[MAX_THREADS];
    int started = 0, rc = 0;
    for (; started < nw; started++) {
        r[started] = (struct runner){.w = &ws[started], .batch = batch, .n = n};
        if (pthread_create(&r[started].thread, NULL, run_body,
                           &r[started]) != 0) {
            rc = fail(&ws[started], "pthread_create", -EAGAIN);
            break;
        }
    }
    for (int i = 0; i < started; i++) {
        pthread_join(r[i].thread, NULL);
        if (rc == 0)
            rc = r[i].rc;
    }
    return rc;
}

/* prepare or finish (step) in every work; the first error. */
static int each(int (*step)(struct work *, int, int), struct work *ws,
                int nw, int batch, int n)
{
    for (int i = 0; i < nw; i++) {
        int rc = step(&ws[i], batch, n);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The timed batches; fills ns_per_op, mb_per_s and the switch counts. */
static int measure(struct work *ws, int nw, const struct servers *servers,
                   int n, int repeats, struct result *out)
{
    double *ns = calloc((size_t)repeats, sizeof *ns);
    if (!ns)
        return fail(ws, "measure", -ENOMEM);
    uint64_t client_sw = 0, server_sw = 0;
    bool server_seen = servers->n > 0;
    int rc = 0;
    for (int b = 1; b <= repeats && rc == 0; b++) {
        if ((rc = each(prepare, ws, nw, b, n)) < 0)
            break;
        csw_snap(0, &client_before);
        if (server_seen && !snap_servers(servers, server_before))
            server_seen = false;
        double t0 = now_ns();
        rc = bodies(ws, nw, b, n);
        double t1 = now_ns();
        csw_snap(0, &client_after);
        if (server_seen && !snap_servers(servers, server_after))
            server_seen = false;
        client_sw += csw_delta(&client_before, &client_after);
        for (int i = 0; server_seen && i < servers->n; i++)
            server_sw += csw_delta(&server_before[i], &server_after[i]);
        ns[b - 1] = (t1 - t0) / ((double)n * nw);
        if (rc == 0)
            rc = each(finish, ws, nw, b, n);
    }
    if (rc == 0) {
        double total = (double)n * nw * repeats;
        out->ns_per_op = median(ns, repeats);
        out->mb_per_s = op_is_seq(ws->op) ? SEQ_CALL / out->ns_per_op * 1e3
                                          : 0;
        out->csw_client = (double)client_sw / total;
        out->csw_server = server_seen ? (double)server_sw / total : -1;
    }
    free(ns);
    return rc;
}

void workload_run(const struct bench_fs *fs, const char *base,
                  const struct servers *servers, bool prepared, enum op op,
                  const struct params *p, struct result *out)
{
    int repeats = op == OP_COPYUP ? p->copyup_files : p->repeats;
    int nw = p->threads < 1 ? 1 : p->threads > MAX_THREADS ? MAX_THREADS
                                                           : p->threads;
    *out = (struct result){.repeats = repeats, .csw_server = -1};
    struct work ws[MAX_THREADS];
    int n = op == OP_CREATE || op == OP_UNLINK ? p->meta_iters
            : op_is_seq(op)                    ? p->seq_mib
            : op == OP_COPYUP                  ? 1
                                               : p->iters;
    /* A sequential warm-up is one whole pass, which also fills the cache;
     * each lower file copies up once, so copy-up has none. */
    int warm = op_is_seq(op)      ? n
               : op == OP_COPYUP ? 0
                                 : (n * p->warmup + 99) / 100;
    out->ops = n;

    int rc = 0, ready = 0;
    for (; ready < nw && rc == 0; ready++) {
        struct work *w = &ws[ready];
        *w = (struct work){.fs = fs, .op = op, .prepared = prepared, .fd = -1,
                           .seq_calls = p->seq_mib};
        int len = ready ? snprintf(w->dir, sizeof w->dir, "%s/%s-%d", base,
                                   op_dirs[op], ready)
                        : snprintf(w->dir, sizeof w->dir, "%s/%s", base,
                                   op_dirs[op]);
        if (len >= (int)sizeof w->dir) {
            rc = fail(w, "base path", -ENAMETOOLONG);
            continue;
        }
        /* A program's buffer as malloc gives it: one this large is
         * mapped apart, 16 bytes past a page boundary (glibc, checked
         * here), so a 4 KiB transfer spans two pages, as in most
         * programs. */
        w->buf = malloc(SEQ_CALL);
        if (!w->buf) {
            rc = fail(w, "buffer", -ENOMEM);
            continue;
        }
        memset(w->buf, 'd', SEQ_CALL);
        rc = setup(w, p);
    }
    if (rc == 0 && warm > 0) {
        rc = each(prepare, ws, ready, 0, warm);
        if (rc == 0)
            rc = bodies(ws, ready, 0, warm);
        if (rc == 0)
            rc = each(finish, ws, ready, 0, warm);
    }
    if (rc == 0)
        rc = measure(ws, ready, servers, n, repeats, out);
    out->ok = rc == 0;
    for (int i = 0; i < ready; i++) {
        if (!out->ok && !out->error[0] && ws[i].error[0])
            snprintf(out->error, sizeof out->error, "%s", ws[i].error);
        if (ws[i].buf)
            teardown(&ws[i]);
        free(ws[i].buf);
    }
}
