/*
 * workloads.h - the operations the benchmark times, each in a directory of
 * its own under a system's base directory.
 *
 * One measurement: an untimed warm-up batch, then `repeats` timed batches.
 * Latency is the median over the batches of (batch time / operations in the
 * batch); context switches are the total over the timed batches divided by
 * the operations timed. Only the calls of the operation are timed: the files
 * that create leaves and that unlink needs are removed and made between
 * batches, outside the clock and outside the context-switch window.
 *
 * Union rows (prepared lower files): stat, open+close and pread-4k use the
 * 4 KiB file <op dir>/file that bench/run-union.sh put in the union's
 * read-only branch before mounting, so they look through the writable branch
 * into the lower one; copyup-64m opens copyup/c<batch> (64 MiB, lower only)
 * for writing and writes its first 4 KiB, one copy-up per batch, no warm-up.
 * The other operations make their files through the union (writable branch).
 */
#ifndef BENCH_WORKLOADS_H
#define BENCH_WORKLOADS_H

#include "bench_fs.h"

#include <stdbool.h>
#include <sys/types.h>

enum op {
    OP_STAT,
    OP_OPEN_CLOSE,
    OP_PREAD_4K,
    /* pread-4k through a descriptor open for reading and writing, as a
     * database opens its files */
    OP_PREAD_4K_RW,
    OP_PWRITE_4K,
    /* 4 KiB calls over a 16 MiB file, at random or consecutive offsets:
     * offset 0 alone flatters every cache. */
    OP_PREAD_4K_RAND,
    OP_PREAD_4K_SEQ,
    OP_PWRITE_4K_RAND,
    OP_PWRITE_4K_SEQ,
    /* a 4 KiB pwrite then a 4 KiB pread elsewhere in the 16 MiB file, as a
     * database writes a page and reads the next it needs */
    OP_PWRITE_PREAD_4K,
    OP_CREATE,
    OP_UNLINK,
    OP_SEQ_READ,
    OP_SEQ_WRITE,
    OP_COPYUP,
    OP_COUNT
};

extern const char *const op_names[OP_COUNT];

/* Sequential operations: one operation is one 1 MiB call. */
static inline bool op_is_seq(enum op op)
{
    return op == OP_SEQ_READ || op == OP_SEQ_WRITE;
}

struct params {
    int iters;      /* operations per batch: stat, open+close, pread, pwrite */
    int meta_iters; /* operations per batch: create, unlink */
    int warmup;     /* operations of the warm-up batch, percent of a batch */
    int repeats;    /* timed batches */
    int seq_mib;    /* file size of the sequential operations, MiB */
    int copyup_files; /* copyup-64m batches: prepared files c1..cN */
    int threads;    /* client threads, each on files of its own (1..) */
};

/* The processes that serve a system, for their context switches: none (the
 * kernel), a service, or a FUSE file system over another one. */
#define MAX_SERVERS 2
struct servers {
    int n;
    pid_t pid[MAX_SERVERS];
};

struct result {
    bool ok;
    char error[160];
    int ops;              /* operations per timed batch */
    int repeats;
    double ns_per_op;     /* median over batches */
    double mb_per_s;      /* sequential operations: 1e6 bytes per second */
    double csw_client;    /* per operation, this process's threads */
    double csw_server;    /* per operation, the servers' threads; < 0: none */
};

/* Runs op over fs in base/<op name>, with the switches of the servers (summed
 * over them) as the server's; prepared: a union row, its lower files made
 * (see above). With p->threads > 1 each thread works in a directory of its
 * own (base/<op name>-<k>), all at once: ns_per_op is a batch's time over
 * all threads' operations. */
void workload_run(const struct bench_fs *fs, const char *base,
                  const struct servers *servers, bool prepared, enum op op,
                  const struct params *p, struct result *out);

#endif
