/*
 * bench_fs_danaus.c - the benchmark's file-system table over the danaus_*
 * API of libdanaus.so: the rows "danaus" (Ceph backend) and "danaus-local"
 * (local backend), which differ only in the mount the paths fall under.
 */
#include "bench_fs.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static int ret(long rc)
{
    return rc < 0 ? -errno : (int)rc;
}

static int fs_open(void *ctx, const char *path, int flags, mode_t mode)
{
    return ret(danaus_open(path, flags, mode));
}

static int fs_close(void *ctx, int fd)
{
    return ret(danaus_close(fd));
}

static ssize_t fs_pread(void *ctx, int fd, void *buf, size_t n, off_t off)
{
    ssize_t rc = danaus_pread(fd, buf, n, off);
    return rc < 0 ? -errno : rc;
}

static ssize_t fs_pwrite(void *ctx, int fd, const void *buf, size_t n,
                         off_t off)
{
    ssize_t rc = danaus_pwrite(fd, buf, n, off);
    return rc < 0 ? -errno : rc;
}

static int fs_fsync(void *ctx, int fd)
{
    return ret(danaus_fsync(fd));
}

static int fs_stat(void *ctx, const char *path)
{
    struct stat st;
    return ret(danaus_stat(path, &st));
}

static int fs_unlink(void *ctx, const char *path)
{
    return ret(danaus_unlink(path));
}

static int fs_mkdir(void *ctx, const char *path, mode_t mode)
{
    return ret(danaus_mkdir(path, mode));
}

static int fs_rmdir(void *ctx, const char *path)
{
    return ret(danaus_rmdir(path));
}

void bench_fs_danaus(struct bench_fs *fs, const char *name)
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
