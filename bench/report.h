/*
 * report.h - the benchmark's results: a table per operation, the ratios the
 * issue sets targets for, and a CSV of every measurement.
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include "workloads.h"

#include <stdbool.h>
#include <stdio.h>

/* The systems, in the order they run and are printed. */
enum system_id {
    SYS_LOCAL,
    SYS_DANAUS_LOCAL,
    SYS_LIBCEPHFS,
    SYS_HANDOFF, /* libcephfs, each call run by a thread on another cpu */
    SYS_DANAUS,
    SYS_PRELOAD,
    SYS_CEPH_FUSE,
    SYS_FUSE_DOOR, /* libc on danausd's FUSE door, in a process without
                    * DANAUS_SERVICE: every call goes to the kernel */
    SYS_UNION,   /* libc on a danausd union over Ceph, via libdanaus */
    SYS_UNIONFS, /* libc on unionfs-fuse -o cow over ceph-fuse */
    SYS_OVERLAY, /* libc on kernel overlayfs over local directories */
    SYS_COUNT
};

extern const char *const system_names[SYS_COUNT];

/* The union rows: their lower files are prepared (see workloads.h). */
static inline bool system_is_union(enum system_id sys)
{
    return sys == SYS_UNION || sys == SYS_UNIONFS || sys == SYS_OVERLAY;
}

struct results {
    bool ran[SYS_COUNT][OP_COUNT];
    struct result r[SYS_COUNT][OP_COUNT];
};

void report_table(FILE *out, const struct results *res);
void report_ratios(FILE *out, const struct results *res);
/* The preload row against the API, libcephfs and ceph-fuse. */
void report_preload_ratios(FILE *out, const struct results *res);
/* The FUSE door against ceph-fuse: the two user-level FUSE clients. */
void report_fuse_door_ratios(FILE *out, const struct results *res);
/* The union rows: unionfs-fuse and overlayfs against the Danaus union, and
 * the copy-up times in ms. */
void report_union_ratios(FILE *out, const struct results *res);
void report_csv(FILE *out, const struct results *res);

#endif
