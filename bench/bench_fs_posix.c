/*
 * bench_fs_posix.c - the benchmark's file-system table over calls with
 * libc's signatures: libc itself (the rows "local", "ceph-fuse", "preload",
 * "fuse-door" and the union rows) and the danaus_* API (the rows "danaus"
 * and "danaus-local"). The two differ only in which functions they call,
 * so one set of wrappers serves both through a table of them.
 */
#include "bench_fs.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct posix_calls {
    int (*open)(const char *path, int flags, ...);
    int (*close)(int fd);
    ssize_t (*pread)(int fd, void *buf, size_t n, off_t off);
    ssize_t (*pwrite)(int fd, const void *buf, size_t n, off_t off);
    int (*fsync)(int fd);
    int (*stat)(const char *path, struct stat *st);
    int (*unlink)(const char *path);
    int (*mkdir)(const char *path, mode_t mode);
    int (*rmdir)(const char *path);
};

static const struct posix_calls libc_calls = {
    open, close, pread, pwrite, fsync, stat, unlink, mkdir, rmdir,
};

static const struct posix_calls danaus_calls = {
    danaus_open,   danaus_close, danaus_pread,
    danaus_pwrite, danaus_fsync, danaus_stat,
    danaus_unlink, danaus_mkdir, danaus_rmdir,
};

static long ret(long rc)
{
    return rc < 0 ? -errno : rc;
}

static const struct posix_calls *calls_of(void *ctx)
{
    return ctx;
}

static int fs_open(void *ctx, const char *path, int flags, mode_t mode)
{
    return (int)ret(calls_of(ctx)->open(path, flags, mode));
}

static int fs_close(void *ctx, int fd)
{
    return (int)ret(calls_of(ctx)->close(fd));
}

static ssize_t fs_pread(void *ctx, int fd, void *buf, size_t n, off_t off)
{
    return ret(calls_of(ctx)->pread(fd, buf, n, off));
}

static ssize_t fs_pwrite(void *ctx, int fd, const void *buf, size_t n,
                         off_t off)
{
    return ret(calls_of(ctx)->pwrite(fd, buf, n, off));
}

static int fs_fsync(void *ctx, int fd)
{
    return (int)ret(calls_of(ctx)->fsync(fd));
}

static int fs_stat(void *ctx, const char *path)
{
    struct stat st;
    return (int)ret(calls_of(ctx)->stat(path, &st));
}

static int fs_unlink(void *ctx, const char *path)
{
    return (int)ret(calls_of(ctx)->unlink(path));
}

static int fs_mkdir(void *ctx, const char *path, mode_t mode)
{
    return (int)ret(calls_of(ctx)->mkdir(path, mode));
}

static int fs_rmdir(void *ctx, const char *path)
{
    return (int)ret(calls_of(ctx)->rmdir(path));
}

static void bench_fs_posix(struct bench_fs *fs, const char *name,
                           const struct posix_calls *calls)
{
    *fs = (struct bench_fs){
        .name = name,
        .ctx = (void *)calls,
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
}

void bench_fs_libc(struct bench_fs *fs, const char *name)
{
    bench_fs_posix(fs, name, &libc_calls);
}

void bench_fs_danaus(struct bench_fs *fs, const char *name)
{
    bench_fs_posix(fs, name, &danaus_calls);
}
