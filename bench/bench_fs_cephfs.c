/*
 * bench_fs_cephfs.c - the benchmark's file-system table over libcephfs linked
 * into the benchmark (the row "libcephfs", the floor Danaus's Ceph backend
 * builds on): the path API on a mount of its own at the file system's root.
 * libcephfs calls return -errno themselves.
 */
#include "bench_fs.h"

#include <cephfs/libcephfs.h>

static int fs_open(void *ctx, const char *path, int flags, mode_t mode)
{
    return ceph_open(ctx, path, flags, mode);
}

static int fs_close(void *ctx, int fd)
{
    return ceph_close(ctx, fd);
}

static ssize_t fs_pread(void *ctx, int fd, void *buf, size_t n, off_t off)
{
    return ceph_read(ctx, fd, buf, (int64_t)n, off);
}

static ssize_t fs_pwrite(void *ctx, int fd, const void *buf, size_t n,
                         off_t off)
{
    return ceph_write(ctx, fd, buf, (int64_t)n, off);
}

static int fs_fsync(void *ctx, int fd)
{
    return ceph_fsync(ctx, fd, 0);
}

/* Flags 0 is AT_STATX_SYNC_AS_STAT: what stat(2) promises. */
static int fs_stat(void *ctx, const char *path)
{
    struct ceph_statx stx;
    return ceph_statx(ctx, path, &stx, CEPH_STATX_BASIC_STATS, 0);
}

static int fs_unlink(void *ctx, const char *path)
{
    return ceph_unlink(ctx, path);
}

static int fs_mkdir(void *ctx, const char *path, mode_t mode)
{
    return ceph_mkdir(ctx, path, mode);
}

static int fs_rmdir(void *ctx, const char *path)
{
    return ceph_rmdir(ctx, path);
}

int bench_fs_cephfs_mount(struct bench_fs *fs, const char *name,
                          const char *conf_path)
{
    struct ceph_mount_info *cm;
    int rc = ceph_create(&cm, NULL);
    if (rc < 0)
        return rc;
    rc = ceph_conf_read_file(cm, conf_path);
    if (rc == 0)
        rc = ceph_mount(cm, "/");
    if (rc < 0) {
        ceph_release(cm);
        return rc;
    }
    *fs = (struct bench_fs){
        .name = name,
        .ctx = cm,
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

void bench_fs_cephfs_unmount(struct bench_fs *fs)
{
    ceph_unmount(fs->ctx);
    ceph_release(fs->ctx);
    fs->ctx = NULL;
}
