/*
 * report.c - prints the benchmark's results (see report.h).
 *
 * Ratios are of time per operation (for the sequential operations, time per
 * 1 MiB call, the inverse of bandwidth), so danaus/libcephfs above 1 means
 * Danaus is slower than the library it wraps, ceph-fuse/danaus above 1
 * means Danaus is faster than ceph-fuse, and fuse-door/ceph-fuse above 1
 * means the FUSE door is slower than ceph-fuse.
 */
#include "report.h"

const char *const system_names[SYS_COUNT] = {
    [SYS_LOCAL] = "local",
    [SYS_DANAUS_LOCAL] = "danaus-local",
    [SYS_LIBCEPHFS] = "libcephfs",
    [SYS_HANDOFF] = "handoff",
    [SYS_DANAUS] = "danaus",
    [SYS_PRELOAD] = "preload",
    [SYS_CEPH_FUSE] = "ceph-fuse",
    [SYS_FUSE_DOOR] = "fuse-door",
    [SYS_UNION] = "danaus-union",
    [SYS_UNIONFS] = "unionfs-fuse",
    [SYS_OVERLAY] = "overlayfs",
};

/* Targets from the issue: danaus within 1.5x of libcephfs for these ops,
 * 20x faster than ceph-fuse for those, and under 0.05 switches per op. */
#define MAX_VS_LIBCEPHFS 1.5
#define MIN_VS_FUSE 20.0
#define MAX_CSW 0.05
/* The preload row (libc calls routed by the interposers): within 10% of
 * the danaus_* API and 1.6x of libcephfs. */
#define MAX_PRELOAD_VS_API 1.1
#define MAX_PRELOAD_VS_LIBCEPHFS 1.6
/* The FUSE door no slower than ceph-fuse, for every op. */
#define MAX_FUSE_DOOR_VS_CEPH_FUSE 1.0
/* The Danaus union at least 10x faster than unionfs-fuse over ceph-fuse. */
#define MIN_UNIONFS_VS_UNION 10.0

static bool target_vs_libcephfs(enum op op)
{
    return op == OP_STAT || op == OP_OPEN_CLOSE || op == OP_PREAD_4K ||
           op == OP_PWRITE_4K;
}

static bool target_vs_fuse(enum op op)
{
    return op == OP_STAT || op == OP_PWRITE_4K;
}

static bool target_vs_unionfs(enum op op)
{
    return op == OP_CREATE || op == OP_UNLINK || op == OP_OPEN_CLOSE ||
           op == OP_PWRITE_4K;
}

/* create and unlink wait for the MDS's reply, which arrives on a libcephfs
 * messenger thread that must wake the waiting one: switches are inherent. */
static bool target_csw(enum op op)
{
    return op != OP_CREATE && op != OP_UNLINK;
}

static const struct result *get(const struct results *res, int sys, int op)
{
    if (!res->ran[sys][op] || !res->r[sys][op].ok)
        return NULL;
    return &res->r[sys][op];
}

static double csw_total(const struct result *r)
{
    return r->csw_client + (r->csw_server > 0 ? r->csw_server : 0);
}

void report_table(FILE *out, const struct results *res)
{
    fprintf(out, "%-13s %-13s %12s %9s %9s %9s %9s\n", "op", "system",
            "ns/op", "MB/s", "csw/op", "client", "server");
    for (int op = 0; op < OP_COUNT; op++) {
        for (int sys = 0; sys < SYS_COUNT; sys++) {
            if (!res->ran[sys][op])
                continue;
            const struct result *r = &res->r[sys][op];
            fprintf(out, "%-13s %-13s ", op_names[op], system_names[sys]);
            if (!r->ok) {
                fprintf(out, "error: %s\n", r->error);
                continue;
            }
            fprintf(out, "%12.0f ", r->ns_per_op);
            if (op_is_seq(op))
                fprintf(out, "%9.0f ", r->mb_per_s);
            else
                fprintf(out, "%9s ", "-");
            fprintf(out, "%9.4f %9.4f ", csw_total(r), r->csw_client);
            if (r->csw_server >= 0)
                fprintf(out, "%9.4f\n", r->csw_server);
            else
                fprintf(out, "%9s\n", "-");
        }
    }
}

/* One ratio column: the value and, where a target applies, its verdict. */
static void ratio(FILE *out, const struct result *num,
                  const struct result *den, bool has_target, bool ok_if_below,
                  double target)
{
    if (!num || !den) {
        fprintf(out, " %10s %-9s", "-", "");
        return;
    }
    double v = num->ns_per_op / den->ns_per_op;
    fprintf(out, " %10.2f ", v);
    if (!has_target)
        fprintf(out, "%-9s", "");
    else
        fprintf(out, "%-9s",
                (ok_if_below ? v <= target : v >= target) ? "ok" : "MISSED");
}

void report_ratios(FILE *out, const struct results *res)
{
    fprintf(out, "%-13s %10s %-9s %10s %-9s %10s %s\n", "op",
            "danaus/", "(<=1.5)", "ceph-fuse/", "(>=20)", "danaus", "(<0.05)");
    fprintf(out, "%-13s %10s %-9s %10s %-9s %10s\n", "", "libcephfs", "",
            "danaus", "", "csw/op");
    for (int op = 0; op < OP_COUNT; op++) {
        if (op == OP_COPYUP) /* union rows only */
            continue;
        const struct result *d = get(res, SYS_DANAUS, op);
        fprintf(out, "%-13s", op_names[op]);
        ratio(out, d, get(res, SYS_LIBCEPHFS, op), target_vs_libcephfs(op),
              true, MAX_VS_LIBCEPHFS);
        ratio(out, get(res, SYS_CEPH_FUSE, op), d, target_vs_fuse(op), false,
              MIN_VS_FUSE);
        if (!d) {
            fprintf(out, " %10s\n", "-");
            continue;
        }
        double c = csw_total(d);
        fprintf(out, " %10.4f %s\n", c,
                !target_csw(op) ? "" : c < MAX_CSW ? "ok" : "MISSED");
    }
}

static void csw_column(FILE *out, const struct result *r)
{
    if (r)
        fprintf(out, " %10.4f", csw_total(r));
    else
        fprintf(out, " %10s", "-");
}

void report_fuse_door_ratios(FILE *out, const struct results *res)
{
    fprintf(out, "%-13s %10s %-9s %10s %10s\n", "op", "fuse-door/",
            "(<=1)", "fuse-door", "ceph-fuse");
    fprintf(out, "%-13s %10s %-9s %10s %10s\n", "", "ceph-fuse", "",
            "csw/op", "csw/op");
    for (int op = 0; op < OP_COUNT; op++) {
        if (op == OP_COPYUP) /* union rows only */
            continue;
        const struct result *d = get(res, SYS_FUSE_DOOR, op);
        const struct result *f = get(res, SYS_CEPH_FUSE, op);
        fprintf(out, "%-13s", op_names[op]);
        ratio(out, d, f, true, true, MAX_FUSE_DOOR_VS_CEPH_FUSE);
        csw_column(out, d);
        csw_column(out, f);
        fprintf(out, "\n");
    }
}

void report_preload_ratios(FILE *out, const struct results *res)
{
    fprintf(out, "%-13s %10s %-9s %10s %-9s %10s %-9s %10s %10s\n", "op",
            "preload/", "(<=1.1)", "preload/", "(<=1.6)", "ceph-fuse/",
            "(>=20)", "preload", "ceph-fuse");
    fprintf(out, "%-13s %10s %-9s %10s %-9s %10s %-9s %10s %10s\n", "",
            "danaus", "", "libcephfs", "", "preload", "", "csw/op", "csw/op");
    for (int op = 0; op < OP_COUNT; op++) {
        if (op == OP_COPYUP) /* union rows only */
            continue;
        const struct result *p = get(res, SYS_PRELOAD, op);
        const struct result *f = get(res, SYS_CEPH_FUSE, op);
        fprintf(out, "%-13s", op_names[op]);
        ratio(out, p, get(res, SYS_DANAUS, op), target_vs_libcephfs(op),
              true, MAX_PRELOAD_VS_API);
        ratio(out, p, get(res, SYS_LIBCEPHFS, op), target_vs_libcephfs(op),
              true, MAX_PRELOAD_VS_LIBCEPHFS);
        ratio(out, f, p, target_vs_fuse(op), false, MIN_VS_FUSE);
        if (p)
            fprintf(out, " %10.4f", csw_total(p));
        else
            fprintf(out, " %10s", "-");
        if (f)
            fprintf(out, " %10.4f\n", csw_total(f));
        else
            fprintf(out, " %10s\n", "-");
    }
}


void report_union_ratios(FILE *out, const struct results *res)
{
    fprintf(out, "%-13s %10s %-9s %10s %-9s %10s %10s %10s\n", "op",
            "unionfs/", "(>=10)", "overlayfs/", "", "d-union", "unionfs",
            "overlayfs");
    fprintf(out, "%-13s %10s %-9s %10s %-9s %10s %10s %10s\n", "",
            "d-union", "", "d-union", "", "csw/op", "csw/op", "csw/op");
    for (int op = 0; op < OP_COUNT; op++) {
        const struct result *u = get(res, SYS_UNION, op);
        const struct result *f = get(res, SYS_UNIONFS, op);
        const struct result *o = get(res, SYS_OVERLAY, op);
        if (!u && !f && !o)
            continue;
        fprintf(out, "%-13s", op_names[op]);
        ratio(out, f, u, target_vs_unionfs(op), false, MIN_UNIONFS_VS_UNION);
        ratio(out, o, u, false, false, 0);
        csw_column(out, u);
        csw_column(out, f);
        csw_column(out, o);
        fprintf(out, "\n");
    }
    const enum system_id rows[] = {SYS_UNION, SYS_UNIONFS, SYS_OVERLAY};
    fprintf(out, "\ncopyup-64m, ms per first write (open, 4 KiB, close) into "
                 "a 64 MiB lower file:\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct result *r = get(res, rows[i], OP_COPYUP);
        if (r)
            fprintf(out, "  %-13s %9.1f ms (median of %d files)\n",
                    system_names[rows[i]], r->ns_per_op / 1e6, r->repeats);
        else if (res->ran[rows[i]][OP_COPYUP])
            fprintf(out, "  %-13s error\n", system_names[rows[i]]);
    }
}

void report_csv(FILE *out, const struct results *res)
{
    fprintf(out, "system,op,ops_per_batch,batches,ns_per_op,mb_per_s,"
                 "csw_per_op,csw_client_per_op,csw_server_per_op,error\n");
    for (int sys = 0; sys < SYS_COUNT; sys++) {
        for (int op = 0; op < OP_COUNT; op++) {
            if (!res->ran[sys][op])
                continue;
            const struct result *r = &res->r[sys][op];
            fprintf(out, "%s,%s,%d,%d,", system_names[sys], op_names[op],
                    r->ops, r->repeats);
            if (!r->ok) {
                fprintf(out, ",,,,,\"%s\"\n", r->error);
                continue;
            }
            fprintf(out, "%.1f,", r->ns_per_op);
            if (op_is_seq(op))
                fprintf(out, "%.1f", r->mb_per_s);
            fprintf(out, ",%.5f,%.5f,", csw_total(r), r->csw_client);
            if (r->csw_server >= 0)
                fprintf(out, "%.5f", r->csw_server);
            fprintf(out, ",\n");
        }
    }
}
