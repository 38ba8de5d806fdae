/*
 * bench_fs_handoff.c - the row "handoff": another table's calls (libcephfs
 * linked in, in danaus-bench) run by a second thread on another cpu, handed
 * over through memory by two threads that spin and never sleep.
 *
 * The caller copies a call's path and input into the hand-off buffer, as a
 * Danaus client copies them into its slot, publishes the call and spins; the
 * server thread, spinning on the other cpu, runs it on the inner table and
 * publishes the result, and the caller copies any output back. Nothing is
 * checked, queued or woken, so no design that serves a program from a
 * thread on another cpu (danausd is one) does a small call in less time:
 * the row is the floor of issue 12's ratios to libcephfs on this machine.
 * For the 1 MiB calls it is only a copy-then-call hand-off (Danaus overlaps
 * its copies with the call), not a floor.
 *
 * One caller thread at a time. Neither thread is pinned, as danausd's and
 * its clients' threads are not: the scheduler keeps the two spinners on
 * different cpus and can move them off a cpu that the cluster's daemons
 * keep busy (with the serving thread pinned to the daemons' cpu, run-core
 * saw a 4 KiB pwrite take 14 us instead of 5).
 */
#include "bench_fs.h"
#include "ipc/ipc.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HANDOFF_DATA (1u << 20) /* the largest call danaus-bench makes */

enum handoff_call {
    H_OPEN, H_CLOSE, H_PREAD, H_PWRITE, H_FSYNC, H_STAT, H_UNLINK, H_MKDIR,
    H_RMDIR,
};

struct handoff {
    struct bench_fs inner;
    pthread_t server;
    /* The call: written by the caller before it publishes posted (release),
     * read by the server after it saw posted change (acquire). */
    enum handoff_call call;
    int fd, flags;
    mode_t mode;
    size_t n;
    off_t off;
    char path[PATH_MAX];
    int64_t result; /* written before done is published */
    /* Call numbers: posted by the caller, done by the server; stop tells
     * the server to return. Each on a line of its own, so the two spinners
     * do not fight over a line that only one of them writes. */
    _Alignas(64) _Atomic uint64_t posted;
    _Alignas(64) _Atomic uint64_t done;
    _Alignas(64) _Atomic bool stop;
    _Alignas(64) unsigned char data[HANDOFF_DATA];
};

static int64_t run_call(struct handoff *h)
{
    const struct bench_fs *in = &h->inner;
    switch (h->call) {
    case H_OPEN:
        return in->open(in->ctx, h->path, h->flags, h->mode);
    case H_CLOSE:
        return in->close(in->ctx, h->fd);
    case H_PREAD:
        return in->pread(in->ctx, h->fd, h->data, h->n, h->off);
    case H_PWRITE:
        return in->pwrite(in->ctx, h->fd, h->data, h->n, h->off);
    case H_FSYNC:
        return in->fsync(in->ctx, h->fd);
    case H_STAT:
        return in->stat(in->ctx, h->path);
    case H_UNLINK:
        return in->unlink(in->ctx, h->path);
    case H_MKDIR:
        return in->mkdir(in->ctx, h->path, h->mode);
    case H_RMDIR:
        return in->rmdir(in->ctx, h->path);
    }
    return -EINVAL;
}

static void *server_main(void *arg)
{
    struct handoff *h = arg;
    uint64_t seen = 0;
    for (;;) {
        uint64_t seq;
        while ((seq = atomic_load_explicit(&h->posted, memory_order_acquire)) ==
               seen) {
            if (atomic_load_explicit(&h->stop, memory_order_relaxed))
                return NULL;
            ipc_cpu_relax();
        }
        h->result = run_call(h);
        seen = seq;
        atomic_store_explicit(&h->done, seq, memory_order_release);
    }
}

/* Publishes the call filled in h and spins for its result. */
static int64_t hand_over(struct handoff *h)
{
    uint64_t seq = atomic_load_explicit(&h->posted, memory_order_relaxed) + 1;
    atomic_store_explicit(&h->posted, seq, memory_order_release);
    while (atomic_load_explicit(&h->done, memory_order_acquire) != seq)
        ipc_cpu_relax();
    return h->result;
}

static int64_t path_call(void *ctx, enum handoff_call call, const char *path,
                         int flags, mode_t mode)
{
    struct handoff *h = ctx;
    size_t len = strlen(path);
    if (len >= sizeof h->path)
        return -ENAMETOOLONG;
    memcpy(h->path, path, len + 1);
    h->call = call;
    h->flags = flags;
    h->mode = mode;
    return hand_over(h);
}

static int64_t fd_call(void *ctx, enum handoff_call call, int fd, size_t n,
                       off_t off)
{
    struct handoff *h = ctx;
    h->call = call;
    h->fd = fd;
    h->n = n;
    h->off = off;
    return hand_over(h);
}

static int fs_open(void *ctx, const char *path, int flags, mode_t mode)
{
    return (int)path_call(ctx, H_OPEN, path, flags, mode);
}

static int fs_close(void *ctx, int fd)
{
    return (int)fd_call(ctx, H_CLOSE, fd, 0, 0);
}

static ssize_t fs_pread(void *ctx, int fd, void *buf, size_t n, off_t off)
{
    struct handoff *h = ctx;
    if (n > sizeof h->data)
        return -E2BIG;
    ssize_t got = (ssize_t)fd_call(ctx, H_PREAD, fd, n, off);
    if (got > 0)
        memcpy(buf, h->data, (size_t)got);
    return got;
}

static ssize_t fs_pwrite(void *ctx, int fd, const void *buf, size_t n,
                         off_t off)
{
    struct handoff *h = ctx;
    if (n > sizeof h->data)
        return -E2BIG;
    memcpy(h->data, buf, n);
    return (ssize_t)fd_call(ctx, H_PWRITE, fd, n, off);
}

static int fs_fsync(void *ctx, int fd)
{
    return (int)fd_call(ctx, H_FSYNC, fd, 0, 0);
}

static int fs_stat(void *ctx, const char *path)
{
    return (int)path_call(ctx, H_STAT, path, 0, 0);
}

static int fs_unlink(void *ctx, const char *path)
{
    return (int)path_call(ctx, H_UNLINK, path, 0, 0);
}

static int fs_mkdir(void *ctx, const char *path, mode_t mode)
{
    return (int)path_call(ctx, H_MKDIR, path, 0, mode);
}

static int fs_rmdir(void *ctx, const char *path)
{
    return (int)path_call(ctx, H_RMDIR, path, 0, 0);
}

int bench_fs_handoff_start(struct bench_fs *fs, const char *name,
                           const struct bench_fs *inner)
{
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) < 0)
        return -errno;
    if (CPU_COUNT(&cpus) < 2)
        return -ENXIO; /* the two would take turns on one cpu */
    struct handoff *h = aligned_alloc(64, sizeof *h);
    if (!h)
        return -ENOMEM;
    memset(h, 0, sizeof *h);
    h->inner = *inner;
    int rc = -pthread_create(&h->server, NULL, server_main, h);
    if (rc < 0) {
        free(h);
        return rc;
    }
    *fs = (struct bench_fs){
        .name = name,
        .ctx = h,
        .open = fs_open,
        .close = fs_close,
        .pread = fs_pread,
        .pwrite = fs_pwrite,
        .fsync = fs_fsync,
        .stat = fs_stat,
        .unlink = fs_unlink,
        .mkdir = fs_mkdir,
        .rmdir = fs_rmdir,
    };
    return 0;
}

void bench_fs_handoff_stop(struct bench_fs *fs)
{
    struct handoff *h = fs->ctx;
    atomic_store(&h->stop, true);
    pthread_join(h->server, NULL);
    free(h);
}
