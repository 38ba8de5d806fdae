/*
 * danaus_bench.c - danaus-bench: the core data path of Danaus side by side
 * with its peers, in one run on one Ceph cluster.
 *
 * Systems (each one runs when its directory is given):
 *   local         libc on a host directory
 *   danaus-local  the danaus_* API on a mount of danausd's local backend
 *   libcephfs     libcephfs linked into this program, a mount of its own
 *   handoff       the same, each call run by a thread on another cpu that
 *                 the caller hands it to by spinning (bench_fs_handoff.c):
 *                 the floor of any design serving calls from another cpu
 *   danaus        the danaus_* API on a mount of danausd's Ceph backend
 *   preload       libc on that mount: this program links libdanaus.so, whose
 *                 exported open, read, stat ... stand in front of libc's as
 *                 they do under LD_PRELOAD, so these are the preload path's
 *                 calls (and the local and ceph-fuse rows pay its check for
 *                 "not a Danaus path")
 *   ceph-fuse     libc on a ceph-fuse mount
 *   fuse-door     libc on danausd's FUSE door over the same Ceph: run in a
 *                 process without DANAUS_SERVICE, where libdanaus's
 *                 interposers pass every call to libc and so to the kernel
 *                 and FUSE (refused otherwise: the calls would take the
 *                 shared-memory path and the row would measure preload)
 *   danaus-union  libc on a danausd union over Ceph (preload path, as above)
 *   unionfs-fuse  libc on unionfs-fuse -o cow over two ceph-fuse directories
 *   overlayfs     libc on kernel overlayfs over local directories
 * The union rows read files prepared in their lower branch and add the op
 * copyup-64m (see workloads.h); bench/run-union.sh drives them.
 *
 * The program starts nothing: bench/run-core.sh starts the cluster, danausd
 * (DANAUS_SERVICE/DANAUS_RUNDIR name it) and ceph-fuse, and passes their pids
 * so their threads' context switches are counted. Systems run one after the
 * other; libcephfs is mounted only while its own operations run, so its
 * threads do not add switches to the other rows of this process.
 */
#include "bench_fs.h"
#include "report.h"
#include "workloads.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct options {
    const char *dir[SYS_COUNT];
    struct servers server[SYS_COUNT];
    const char *ceph_conf;
    const char *csv;
    bool run_op[OP_COUNT];
    struct params p;
};

static void usage(void)
{
    fprintf(stderr,
        "usage: danaus-bench [options]\n"
        "  --local DIR           libc on a host directory\n"
        "  --danaus-local DIR    danaus_* API, DIR under a local-backend mount\n"
        "  --danaus DIR          danaus_* API, DIR under a Ceph-backend mount\n"
        "  --preload DIR         libc calls on DIR under a Ceph-backend mount,\n"
        "                        routed by libdanaus's interposers\n"
        "  --danausd-pid PID     the danausd serving the danaus rows and\n"
        "                        the FUSE door\n"
        "  --fuse-door DIR       libc, DIR inside a danausd FUSE door mount\n"
        "                        (needs DANAUS_SERVICE unset)\n"
        "  --libcephfs DIR       libcephfs linked in; DIR is a CephFS path\n"
        "  --handoff DIR         the same, each call run on another cpu by a\n"
        "                        spinning thread (one client thread only)\n"
        "  --ceph-conf PATH      the cluster's ceph.conf (for --libcephfs)\n"
        "  --ceph-fuse DIR       libc, DIR inside a ceph-fuse mount\n"
        "  --ceph-fuse-pid PID   the ceph-fuse process of that mount\n"
        "  --union DIR           libc, DIR in a danausd union over Ceph\n"
        "  --union-pid PID       the danausd serving that union\n"
        "  --unionfs DIR         libc, DIR in unionfs-fuse over ceph-fuse\n"
        "  --unionfs-pid PID     that unionfs-fuse process\n"
        "  --unionfs-ceph-fuse-pid PID  the ceph-fuse under it\n"
        "  --overlay DIR         libc, DIR in a kernel overlayfs\n"
        "  --iters N             ops per batch: stat, open, pread, pwrite (5000)\n"
        "  --meta-iters N        ops per batch: create, unlink (300)\n"
        "  --repeats N           timed batches per measurement (5)\n"
        "  --warmup PCT          warm-up batch size, percent of a batch (10)\n"
        "  --threads N           client threads at once, each on files of its\n"
        "                        own; ns/op is then per op of all of them (1)\n"
        "  --seq-mib N           file size for the 1 MiB sequential ops (64)\n"
        "  --copyup-files N      copyup-64m batches, one file each (3)\n"
        "  --ops LIST            comma-separated ops to run (default: all)\n"
        "  --csv FILE            write the CSV to FILE (default: stdout)\n"
        "Each directory's parent must exist; the directory is created.\n"
        "A union row's DIR must hold, in the lower branch, stat/file,\n"
        "open-close/file, pread-4k/file (4 KiB) and copyup/c1..cN (64 MiB).\n");
    exit(2);
}

static long number(const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < min || v > max) {
        fprintf(stderr, "danaus-bench: '%s' is not a number from %ld to %ld\n",
                s, min, max);
        exit(2);
    }
    return v;
}

static void add_server(struct options *o, int sys, const char *pid)
{
    struct servers *s = &o->server[sys];
    if (s->n == MAX_SERVERS)
        usage();
    s->pid[s->n++] = (pid_t)number(pid, 1, 1 << 30);
}

static void select_ops(struct options *o, const char *list)
{
    char *copy = strdup(list), *save;
    memset(o->run_op, 0, sizeof o->run_op);
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int op = 0;
        while (op < OP_COUNT && strcmp(op_names[op], w) != 0)
            op++;
        if (op == OP_COUNT) {
            fprintf(stderr, "danaus-bench: unknown op '%s'\n", w);
            exit(2);
        }
        o->run_op[op] = true;
    }
    free(copy);
}

static void parse(int argc, char **argv, struct options *o)
{
    *o = (struct options){
        .p = {.iters = 5000, .meta_iters = 300, .warmup = 10, .repeats = 5,
              .seq_mib = 64, .copyup_files = 3, .threads = 1},
    };
    for (int op = 0; op < OP_COUNT; op++)
        o->run_op[op] = true;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        i++;
        if (!strcmp(k, "--local"))
            o->dir[SYS_LOCAL] = v;
        else if (!strcmp(k, "--danaus-local"))
            o->dir[SYS_DANAUS_LOCAL] = v;
        else if (!strcmp(k, "--danaus"))
            o->dir[SYS_DANAUS] = v;
        else if (!strcmp(k, "--preload"))
            o->dir[SYS_PRELOAD] = v;
        else if (!strcmp(k, "--danausd-pid")) {
            add_server(o, SYS_DANAUS, v);
            add_server(o, SYS_DANAUS_LOCAL, v);
            add_server(o, SYS_PRELOAD, v);
            add_server(o, SYS_FUSE_DOOR, v);
        }
        else if (!strcmp(k, "--fuse-door"))
            o->dir[SYS_FUSE_DOOR] = v;
        else if (!strcmp(k, "--libcephfs"))
            o->dir[SYS_LIBCEPHFS] = v;
        else if (!strcmp(k, "--handoff"))
            o->dir[SYS_HANDOFF] = v;
        else if (!strcmp(k, "--ceph-conf"))
            o->ceph_conf = v;
        else if (!strcmp(k, "--ceph-fuse"))
            o->dir[SYS_CEPH_FUSE] = v;
        else if (!strcmp(k, "--ceph-fuse-pid"))
            add_server(o, SYS_CEPH_FUSE, v);
        else if (!strcmp(k, "--union"))
            o->dir[SYS_UNION] = v;
        else if (!strcmp(k, "--union-pid"))
            add_server(o, SYS_UNION, v);
        else if (!strcmp(k, "--unionfs"))
            o->dir[SYS_UNIONFS] = v;
        else if (!strcmp(k, "--unionfs-pid") ||
                 !strcmp(k, "--unionfs-ceph-fuse-pid"))
            add_server(o, SYS_UNIONFS, v);
        else if (!strcmp(k, "--overlay"))
            o->dir[SYS_OVERLAY] = v;
        else if (!strcmp(k, "--iters"))
            o->p.iters = (int)number(v, 1, 100000000);
        else if (!strcmp(k, "--meta-iters"))
            o->p.meta_iters = (int)number(v, 1, 10000000);
        else if (!strcmp(k, "--repeats"))
            o->p.repeats = (int)number(v, 1, 1000);
        else if (!strcmp(k, "--warmup"))
            o->p.warmup = (int)number(v, 0, 1000);
        else if (!strcmp(k, "--threads"))
            o->p.threads = (int)number(v, 1, 16);
        else if (!strcmp(k, "--seq-mib"))
            o->p.seq_mib = (int)number(v, 1, 65536);
        else if (!strcmp(k, "--copyup-files"))
            o->p.copyup_files = (int)number(v, 1, 1000);
        else if (!strcmp(k, "--ops"))
            select_ops(o, v);
        else if (!strcmp(k, "--csv"))
            o->csv = v;
        else
            usage();
    }
    if ((o->dir[SYS_LIBCEPHFS] || o->dir[SYS_HANDOFF]) && !o->ceph_conf) {
        fprintf(stderr, "danaus-bench: --libcephfs and --handoff need "
                "--ceph-conf\n");
        exit(2);
    }
    if (o->dir[SYS_HANDOFF] && o->p.threads > 1) {
        fprintf(stderr, "danaus-bench: --handoff takes one client thread\n");
        exit(2);
    }
    if (o->dir[SYS_FUSE_DOOR] && getenv("DANAUS_SERVICE")) {
        fprintf(stderr, "danaus-bench: --fuse-door needs DANAUS_SERVICE "
                "unset: with it, libdanaus routes the calls to the service's "
                "shared memory, not through FUSE\n");
        exit(2);
    }
}

/* Runs every selected op over one system; false if any failed. */
static bool run_system(const struct options *o, int sys,
                       const struct bench_fs *fs, struct results *res)
{
    bool all_ok = true;
    const char *base = o->dir[sys];
    int rc = fs->mkdir(fs->ctx, base, 0755);
    if (rc < 0 && rc != -EEXIST) {
        fprintf(stderr, "danaus-bench: %s: mkdir %s: %s\n", fs->name, base,
                strerror(-rc));
        return false;
    }
    bool is_union = system_is_union(sys);
    for (int op = 0; op < OP_COUNT; op++) {
        if (!o->run_op[op] || (op == OP_COPYUP && !is_union))
            continue;
        struct result *r = &res->r[sys][op];
        workload_run(fs, base, &o->server[sys], is_union, op, &o->p, r);
        res->ran[sys][op] = true;
        if (r->ok)
            fprintf(stderr, "danaus-bench: %-12s %-12s %10.0f ns/op\n",
                    fs->name, op_names[op], r->ns_per_op);
        else
            fprintf(stderr, "danaus-bench: %-12s %-12s error: %s\n", fs->name,
                    op_names[op], r->error);
        all_ok = all_ok && r->ok;
    }
    fs->rmdir(fs->ctx, base);
    return all_ok;
}

int main(int argc, char **argv)
{
    struct options o;
    parse(argc, argv, &o);
    static struct results res;
    bool all_ok = true;

    for (int sys = 0; sys < SYS_COUNT; sys++) {
        if (!o.dir[sys])
            continue;
        struct bench_fs fs, cephfs;
        if (sys == SYS_LIBCEPHFS || sys == SYS_HANDOFF) {
            int rc = bench_fs_cephfs_mount(&cephfs, system_names[sys],
                                           o.ceph_conf);
            if (rc < 0) {
                fprintf(stderr, "danaus-bench: libcephfs mount of %s: %s\n",
                        o.ceph_conf, strerror(-rc));
                all_ok = false;
                continue;
            }
            fs = cephfs;
            if (sys == SYS_HANDOFF &&
                (rc = bench_fs_handoff_start(&fs, system_names[sys],
                                             &cephfs)) < 0) {
                fprintf(stderr, "danaus-bench: handoff: %s\n", strerror(-rc));
                bench_fs_cephfs_unmount(&cephfs);
                all_ok = false;
                continue;
            }
        } else if (sys == SYS_DANAUS || sys == SYS_DANAUS_LOCAL) {
            bench_fs_danaus(&fs, system_names[sys]);
        } else {
            bench_fs_libc(&fs, system_names[sys]);
        }
        all_ok = run_system(&o, sys, &fs, &res) && all_ok;
        if (sys == SYS_HANDOFF)
            bench_fs_handoff_stop(&fs);
        if (sys == SYS_LIBCEPHFS || sys == SYS_HANDOFF)
            bench_fs_cephfs_unmount(&cephfs);
    }

    printf("danaus-bench: %d ops per batch (create, unlink: %d; 1 MiB ops: "
           "%d MiB file; copyup-64m: 1, %d batches, no warm-up), %d timed "
           "batches after a warm-up of %d%%, %d client thread%s.\n"
           "ns/op: median over batches of the batch mean. csw/op: voluntary + "
           "involuntary switches,\nall threads of this process (client) and "
           "of the server process, per op over all batches.\n\n",
           o.p.iters, o.p.meta_iters, o.p.seq_mib, o.p.copyup_files,
           o.p.repeats, o.p.warmup, o.p.threads,
           o.p.threads == 1 ? "" : "s");
    report_table(stdout, &res);
    if (o.dir[SYS_DANAUS] || o.dir[SYS_LIBCEPHFS]) {
        printf("\nRatios of time per op (targets in parentheses):\n");
        report_ratios(stdout, &res);
    }
    if (o.dir[SYS_FUSE_DOOR]) {
        printf("\nThe two user-level FUSE clients (target: the FUSE door no "
               "slower than ceph-fuse):\n");
        report_fuse_door_ratios(stdout, &res);
    }
    if (o.dir[SYS_PRELOAD]) {
        printf("\nThe preload path (libc calls routed by libdanaus):\n");
        report_preload_ratios(stdout, &res);
    }
    if (o.dir[SYS_UNION] || o.dir[SYS_UNIONFS] || o.dir[SYS_OVERLAY]) {
        printf("\nThe union rows (d-union: danaus-union; targets in "
               "parentheses):\n");
        report_union_ratios(stdout, &res);
    }
    if (o.csv) {
        FILE *f = fopen(o.csv, "w");
        if (!f) {
            fprintf(stderr, "danaus-bench: %s: %s\n", o.csv, strerror(errno));
            return 1;
        }
        report_csv(f, &res);
        if (fclose(f) != 0) {
            fprintf(stderr, "danaus-bench: %s: write failed\n", o.csv);
            return 1;
        }
    } else {
        printf("\nCSV:\n");
        report_csv(stdout, &res);
    }
    return all_ok ? 0 : 1;
}
