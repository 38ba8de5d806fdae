/*
 * bench_fs.h - the file-system calls the benchmark makes, as a table, so one
 * workload runs unchanged over libc (a host directory or a ceph-fuse mount),
 * the danaus_* API, and libcephfs linked in.
 *
 * Every call returns its result or -errno; errno is not used.
 */
#ifndef BENCH_FS_H
#define BENCH_FS_H

#include <stddef.h>
#include <sys/types.h>

struct bench_fs {
    const char *name;
    void *ctx; /* libcephfs: the mount; otherwise unused */
    int (*open)(void *ctx, const char *path, int flags, mode_t mode);
    int (*close)(void *ctx, int fd);
    ssize_t (*pread)(void *ctx, int fd, void *buf, size_t n, off_t off);
    ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t n, off_t off);
    int (*fsync)(void *ctx, int fd);
    int (*stat)(void *ctx, const char *path); /* the basic attributes */
    int (*unlink)(void *ctx, const char *path);
    int (*mkdir)(void *ctx, const char *path, mode_t mode);
    int (*rmdir)(void *ctx, const char *path);
};

/* libc: a host directory or a FUSE mount. */
void bench_fs_libc(struct bench_fs *fs, const char *name);

/* The danaus_* API; the service comes from DANAUS_SERVICE/DANAUS_RUNDIR. */
void bench_fs_danaus(struct bench_fs *fs, const char *name);

/* libcephfs, its own mount of the cluster of conf_path at "/". Returns 0 or
 * -errno; bench_fs_cephfs_unmount releases the mount (and its threads). */
int bench_fs_cephfs_mount(struct bench_fs *fs, const char *name,
                          const char *conf_path);
void bench_fs_cephfs_unmount(struct bench_fs *fs);

/* inner's calls, each handed to a spinning thread of its own, which runs
 * on another cpu than the spinning caller (bench_fs_handoff.c). 0 or
 * -errno (-ENXIO: only one cpu); bench_fs_handoff_stop ends the thread.
 * One caller thread at a time. */
int bench_fs_handoff_start(struct bench_fs *fs, const char *name,
                           const struct bench_fs *inner);
void bench_fs_handoff_stop(struct bench_fs *fs);

#endif
