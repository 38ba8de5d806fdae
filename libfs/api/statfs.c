/*
 * statfs.c - what a Danaus file system is as a whole: danaus_statfs,
 * danaus_statvfs, danaus_pathconf and their descriptor twins, all from one
 * STATFS call.
 *
 * pathconf is glibc's work for a kernel path: it asks statfs of the path
 * and answers from the file system's type. A Danaus path is not the
 * kernel's (or is the FUSE door's, whose type says FUSE), so the answers
 * that depend on the file system come from the service: LINK_MAX from the
 * backend itself (statfs's link_max), NAME_MAX and the transfer sizes from
 * its statfs. The rest are the same on every Linux file system and come
 * from glibc, asked of "/".
 */
#include "libfs/call.h"
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/usermem.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* glibc's answer for a file system whose link limit it does not know
 * (Linux's LINK_MAX, <linux/limits.h>). */
#define UNKNOWN_LINK_MAX 127

/* Sends a STATFS call begun by the caller; *d gets the answer. */
static int send_statfs(struct call *c, struct danaus_statfs *d)
{
    if (call_send(c) < 0)
        return -1;
    memcpy(d, call_out(c), sizeof *d);
    return 0;
}

static int statfs_path(const char *path, struct danaus_statfs *d)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_STATFS, AT_FDCWD, path, &where) < 0)
        return -1;
    return send_statfs(&c, d);
}

static int statfs_fd(int fd, struct danaus_statfs *d)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_STATFS, fd, true) < 0)
        return -1;
    return send_statfs(&c, d);
}

static void to_statfs(const struct danaus_statfs *d, struct statfs *buf)
{
    memset(buf, 0, sizeof *buf);
    buf->f_type = (__fsword_t)d->type;
    buf->f_bsize = (__fsword_t)d->bsize;
    buf->f_frsize = (__fsword_t)d->frsize;
    buf->f_blocks = d->blocks;
    buf->f_bfree = d->bfree;
    buf->f_bavail = d->bavail;
    buf->f_files = d->files;
    buf->f_ffree = d->ffree;
    buf->f_namelen = (__fsword_t)d->namelen;
    buf->f_flags = (__fsword_t)d->flags;
    memcpy(&buf->f_fsid, &d->fsid, sizeof buf->f_fsid);
}

DANAUS_EXPORT int danaus_statfs(const char *path, struct statfs *buf)
{
    struct danaus_statfs d;
    if (statfs_path(path, &d) < 0 || usermem_out(buf, sizeof *buf) < 0)
        return -1;
    to_statfs(&d, buf);
    return 0;
}

DANAUS_EXPORT int danaus_fstatfs(int fd, struct statfs *buf)
{
    struct danaus_statfs d;
    if (statfs_fd(fd, &d) < 0 || usermem_out(buf, sizeof *buf) < 0)
        return -1;
    to_statfs(&d, buf);
    return 0;
}

/* The kernel's ST_VALID (not in the user headers): statfs's f_flags is
 * filled in. glibc's statvfs drops it from f_flag (both measured). */
#define STATFS_FLAGS_VALID 0x0020

/* As glibc's statvfs: f_fsid is the two words of statfs's, low first. */
static void to_statvfs(const struct danaus_statfs *d, struct statvfs *buf)
{
    memset(buf, 0, sizeof *buf);
    buf->f_bsize = d->bsize;
    buf->f_frsize = d->frsize ? d->frsize : d->bsize;
    buf->f_blocks = d->blocks;
    buf->f_bfree = d->bfree;
    buf->f_bavail = d->bavail;
    buf->f_files = d->files;
    buf->f_ffree = d->ffree;
    buf->f_favail = d->favail;
    buf->f_fsid = d->fsid;
    buf->f_flag = d->flags & ~(uint64_t)STATFS_FLAGS_VALID;
    buf->f_namemax = d->namelen;
}

DANAUS_EXPORT int danaus_statvfs(const char *path, struct statvfs *buf)
{
    struct danaus_statfs d;
    if (statfs_path(path, &d) < 0)
        return -1;
    to_statvfs(&d, buf);
    return 0;
}

DANAUS_EXPORT int danaus_fstatvfs(int fd, struct statvfs *buf)
{
    struct danaus_statfs d;
    if (statfs_fd(fd, &d) < 0)
        return -1;
    to_statvfs(&d, buf);
    return 0;
}

/* pathconf's answer for name from the file system's statfs d. */
static long limit_of(const struct danaus_statfs *d, int name)
{
    switch (name) {
    case _PC_LINK_MAX:
        return d->link_max ? (long)d->link_max : UNKNOWN_LINK_MAX;
    case _PC_NAME_MAX:
        return (long)d->namelen;
    case _PC_REC_MIN_XFER_SIZE:
    case _PC_REC_XFER_ALIGN:
    case _PC_ALLOC_SIZE_MIN:
        return (long)(d->frsize ? d->frsize : d->bsize);
    case _PC_FILESIZEBITS:
        return 64;
    default:
        return REAL(pathconf)("/", name);
    }
}

DANAUS_EXPORT long danaus_pathconf(const char *path, int name)
{
    struct danaus_statfs d;
    return statfs_path(path, &d) < 0 ? -1 : limit_of(&d, name);
}

DANAUS_EXPORT long danaus_fpathconf(int fd, int name)
{
    struct danaus_statfs d;
    return statfs_fd(fd, &d) < 0 ? -1 : limit_of(&d, name);
}
