/*
 * api_meta.c - the danaus_* path and metadata calls: stat and friends,
 * access, mkdir/rmdir/unlink, rename/link/symlink/readlink, chmod, chown,
 * utimensat, truncate, statfs.
 *
 * The service takes only AT_SYMLINK_NOFOLLOW (and AT_EACCESS for access)
 * among the AT_ flags; the others are handled or rejected here.
 */
#include "call.h"
#include "export.h"
#include "umask.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

/* Sends a call whose only output is success or failure. */
static int send_status(struct call *c)
{
    return call_send(c) < 0 ? -1 : 0;
}

static void to_stat(const struct danaus_stat *d, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_dev = d->dev;
    st->st_ino = d->ino;
    st->st_nlink = d->nlink;
    st->st_rdev = d->rdev;
    st->st_mode = d->mode;
    st->st_uid = d->uid;
    st->st_gid = d->gid;
    st->st_blksize = d->blksize;
    st->st_size = d->size;
    st->st_blocks = d->blocks;
    st->st_atim = (struct timespec){d->atime_sec, d->atime_nsec};
    st->st_mtim = (struct timespec){d->mtime_sec, d->mtime_nsec};
    st->st_ctim = (struct timespec){d->ctime_sec, d->ctime_nsec};
}

/* Sends a STAT call begun by the caller and converts its answer. */
static int send_stat(struct call *c, int at_flags, struct stat *st)
{
    c->desc.arg[0] = at_flags;
    int64_t n = call_send(c);
    if (n < 0)
        return -1;
    struct danaus_stat d;
    memcpy(&d, call_out(c), sizeof d);
    to_stat(&d, st);
    return 0;
}

DANAUS_EXPORT int danaus_fstatat(int dirfd, const char *pathname,
                                 struct stat *statbuf, int flags)
{
    struct call c;
    struct resolved_path where;
    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT)) {
        errno = EINVAL;
        return -1;
    }
    if ((flags & AT_EMPTY_PATH) && pathname && pathname[0] == '\0') {
        if (dirfd == AT_FDCWD)
            return danaus_stat(".", statbuf);
        return danaus_fstat(dirfd, statbuf);
    }
    if (call_begin_path(&c, DANAUS_CALL_STAT, dirfd, pathname, &where) < 0)
        return -1;
    return send_stat(&c, flags & AT_SYMLINK_NOFOLLOW, statbuf);
}

DANAUS_EXPORT int danaus_stat(const char *pathname, struct stat *statbuf)
{
    return danaus_fstatat(AT_FDCWD, pathname, statbuf, 0);
}

DANAUS_EXPORT int danaus_lstat(const char *pathname, struct stat *statbuf)
{
    return danaus_fstatat(AT_FDCWD, pathname, statbuf, AT_SYMLINK_NOFOLLOW);
}

DANAUS_EXPORT int danaus_fstat(int fd, struct stat *statbuf)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_STAT, fd, true) < 0)
        return -1;
    return send_stat(&c, 0, statbuf);
}

DANAUS_EXPORT int danaus_access(const char *pathname, int mode)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_ACCESS, AT_FDCWD, pathname, &where) <
        0)
        return -1;
    c.desc.arg[0] = mode;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_mkdir(const char *pathname, mode_t mode)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_MKDIR, AT_FDCWD, pathname, &where) < 0)
        return -1;
    c.desc.arg[0] = umask_apply(mode);
    return send_status(&c);
}

/* A call whose only argument is one path. */
static int path_call(enum danaus_call id, const char *pathname)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, id, AT_FDCWD, pathname, &where) < 0)
        return -1;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_rmdir(const char *pathname)
{
    return path_call(DANAUS_CALL_RMDIR, pathname);
}

DANAUS_EXPORT int danaus_unlink(const char *pathname)
{
    return path_call(DANAUS_CALL_UNLINK, pathname);
}

/* RENAME and LINK: two paths that must be on the same mount. */
static int two_path_call(enum danaus_call id, const char *from, const char *to)
{
    struct call c;
    struct resolved_path where_from;
    struct resolved_path where_to;
    const struct service *svc = service_get();
    if (!svc)
        return -1;
    if (!to) {
        errno = EFAULT;
        return -1;
    }
    if (path_resolve(&svc->mounts, AT_FDCWD, to, &where_to) < 0 ||
        call_begin_path(&c, id, AT_FDCWD, from, &where_from) < 0)
        return -1;
    if (where_from.mount != where_to.mount) {
        errno = EXDEV;
        return -1;
    }
    if (pack_str(&c.pack, where_to.rel) < 0)
        return -1;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_rename(const char *oldpath, const char *newpath)
{
    return two_path_call(DANAUS_CALL_RENAME, oldpath, newpath);
}

DANAUS_EXPORT int danaus_link(const char *oldpath, const char *newpath)
{
    return two_path_call(DANAUS_CALL_LINK, oldpath, newpath);
}

DANAUS_EXPORT int danaus_symlink(const char *target, const char *linkpath)
{
    const struct service *svc = service_get();
    struct resolved_path where;
    struct call c;
    if (!svc)
        return -1;
    if (!target || !linkpath) {
        errno = EFAULT;
        return -1;
    }
    /* The target is stored as written, never resolved here. */
    if (path_resolve(&svc->mounts, AT_FDCWD, linkpath, &where) < 0 ||
        call_begin(&c, DANAUS_CALL_SYMLINK, where.mount, 0) < 0 ||
        pack_str(&c.pack, target) < 0 || pack_str(&c.pack, where.rel) < 0)
        return -1;
    return send_status(&c);
}

DANAUS_EXPORT ssize_t danaus_readlink(const char *pathname, char *buf,
                                      size_t bufsiz)
{
    struct call c;
    struct resolved_path where;
    if (bufsiz == 0) {
        errno = EINVAL;
        return -1;
    }
    if (call_begin_path(&c, DANAUS_CALL_READLINK, AT_FDCWD, pathname,
                        &where) < 0)
        return -1;
    size_t want = bufsiz < call_capacity(&c) ? bufsiz : call_capacity(&c);
    c.desc.arg[0] = (int64_t)want;
    int64_t n = call_send(&c);
    if (n < 0)
        return -1;
    if ((uint64_t)n > want) {
        errno = EIO;
        return -1;
    }
    memcpy(buf, call_out(&c), (size_t)n);
    return (ssize_t)n;
}

DANAUS_EXPORT int danaus_chmod(const char *pathname, mode_t mode)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_CHMOD, AT_FDCWD, pathname, &where) < 0)
        return -1;
    c.desc.arg[0] = mode;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_fchmod(int fd, mode_t mode)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_CHMOD, fd, true) < 0)
        return -1;
    c.desc.arg[0] = mode;
    return send_status(&c);
}

/* uid/gid travel as their unsigned values; (uid_t)-1 means "keep". */
DANAUS_EXPORT int danaus_chown(const char *pathname, uid_t owner, gid_t group)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_CHOWN, AT_FDCWD, pathname, &where) < 0)
        return -1;
    c.desc.arg[0] = owner;
    c.desc.arg[1] = group;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_fchown(int fd, uid_t owner, gid_t group)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_CHOWN, fd, true) < 0)
        return -1;
    c.desc.arg[0] = owner;
    c.desc.arg[1] = group;
    return send_status(&c);
}

/* Sends a UTIMENS call begun by the caller; times NULL means now. */
static int send_utimens(struct call *c, const struct timespec times[2],
                        int at_flags)
{
    struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    const struct timespec *t = times ? times : now;
    c->desc.arg[0] = t[0].tv_sec;
    c->desc.arg[1] = t[0].tv_nsec;
    c->desc.arg[2] = t[1].tv_sec;
    c->desc.arg[3] = t[1].tv_nsec;
    c->desc.arg[4] = at_flags;
    return send_status(c);
}

DANAUS_EXPORT int danaus_utimensat(int dirfd, const char *pathname,
                                   const struct timespec times[2], int flags)
{
    struct call c;
    struct resolved_path where;
    if (flags & ~AT_SYMLINK_NOFOLLOW) {
        errno = EINVAL;
        return -1;
    }
    /* As the Linux system call: no path means dirfd itself. */
    if (!pathname)
        return danaus_futimens(dirfd, times);
    if (call_begin_path(&c, DANAUS_CALL_UTIMENS, dirfd, pathname, &where) < 0)
        return -1;
    return send_utimens(&c, times, flags);
}

DANAUS_EXPORT int danaus_futimens(int fd, const struct timespec times[2])
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_UTIMENS, fd, true) < 0)
        return -1;
    return send_utimens(&c, times, 0);
}

DANAUS_EXPORT int danaus_truncate(const char *path, off_t length)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_TRUNCATE, AT_FDCWD, path, &where) < 0)
        return -1;
    c.desc.arg[0] = length;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_statfs(const char *path, struct statfs *buf)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_STATFS, AT_FDCWD, path, &where) < 0)
        return -1;
    if (call_send(&c) < 0)
        return -1;
    struct danaus_statfs d;
    memcpy(&d, call_out(&c), sizeof d);
    memset(buf, 0, sizeof *buf);
    buf->f_type = (__fsword_t)d.type;
    buf->f_bsize = (__fsword_t)d.bsize;
    buf->f_frsize = (__fsword_t)d.frsize;
    buf->f_blocks = d.blocks;
    buf->f_bfree = d.bfree;
    buf->f_bavail = d.bavail;
    buf->f_files = d.files;
    buf->f_ffree = d.ffree;
    buf->f_namelen = (__fsword_t)d.namelen;
    buf->f_flags = (__fsword_t)d.flags;
    memcpy(&buf->f_fsid, &d.fsid, sizeof buf->f_fsid);
    return 0;
}
