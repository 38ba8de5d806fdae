/*
 * bench_fs_libc.c - the benchmark's file-system table over plain libc calls:
 * the rows "local" (a host directory) and "ceph-fuse" (a FUSE mount).
 */
#include "bench_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int ret(long rc)
{
    return rc < 0 ? -errno : (int)rc;
}

static int fs_open(void *ctx, const char *path, int flags, mode_t mode)
{
    return ret(open(path, flags, mode));
}

static int fs_close(void *ctx, int fd)
{
    return ret(close(fd));
}

static ssize_t fs_pread(void *ctx, int fd, void *buf, size_t n, off_t off)
{
    ssize_t rc = pread(fd, buf, n, off);
    return rc < 0 ? -errno : rc;
}

static ssize_t fs_pwrite(void *ctx, int fd, const void *buf, size_t n,
                         off_t off)
{
    ssize_t rc = pwrite(fd, buf, n, off);
    return rc < 0 ? -errno : rc;
}

static int fs_fsync(void *ctx, int fd)
{
    return ret(fsync(fd));
}

static int fs_stat(void *ctx, const char *path)
{
    struct stat st;
    return ret(stat(path, &st));
}

static int fs_unlink(void *ctx, const char *path)
{
    return ret(unlink(path));
}

static int fs_mkdir(void *ctx, const char *path, mode_t mode)
{
    return ret(mkdir(path, mode));
}

static int fs_rmdir(void *ctx, const char *path)
{
    return ret(rmdir(path));
}

void bench_fs_libc(struct bench_fs *fs, const char *name)
{
    *fs = (struct bench_fs){
        .name = name,
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
