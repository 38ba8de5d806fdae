/*
 * meta.c - the danaus_* path and metadata calls: stat and friends,
 * access, mkdir/mknod/mkfifo/rmdir/unlink, rename/link/symlink/readlink,
 * chmod, chown, utimensat, truncate, and their *at twins (statfs and
 * pathconf are in statfs.c).
 *
 * The service takes only AT_SYMLINK_NOFOLLOW (and AT_EACCESS for access)
 * among the AT_ flags; the others are handled or rejected here.
 */
#include "libfs/call.h"
#include "libfs/cwd.h"
#include "libfs/export.h"
#include "libfs/fdtable.h"
#include "libfs/kmounts.h"
#include "libfs/namecache.h"
#include "libfs/umask.h"
#include "libfs/usermem.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

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

/* Sends a STAT call begun by the caller; *d gets the service's answer. */
static int send_stat(struct call *c, int at_flags, struct danaus_stat *d)
{
    c->desc.arg[0] = at_flags;
    if (call_send(c) < 0)
        return -1;
    memcpy(d, call_out(c), sizeof *d);
    return 0;
}

/* Sends an fstat begun by the caller, unless the name cache has its
 * answer; only a success is kept. */
static int send_fstat(struct call *c, struct danaus_stat *d)
{
    struct namecache_fill fill;
    if (namecache_lookup_fstat(c->svc, c->desc.mount, c->desc.handle, d,
                               &fill) > 0)
        return 0;
    int rc = send_stat(c, 0, d);
    if (rc == 0)
        namecache_keep(&fill, 0, d);
    return rc;
}

/* fstatat's lookup, shared with statx: the service's attributes of the
 * file pathname names relative to dirfd, with AT_EMPTY_PATH meaning dirfd
 * itself. The caller has checked the flags. */
static int stat_at(int dirfd, const char *pathname, int flags,
                   struct danaus_stat *d)
{
    struct call c;
    struct resolved_path where;
    if ((flags & AT_EMPTY_PATH) && usermem_string(pathname, DANAUS_PATH_MAX) &&
        pathname[0] == '\0') {
        if (dirfd == AT_FDCWD)
            pathname = ".";
        else if (call_begin_fd(&c, DANAUS_CALL_STAT, dirfd, true) < 0)
            return -1;
        else
            return send_fstat(&c, d);
    }
    if (call_begin_path(&c, DANAUS_CALL_STAT, dirfd, pathname, &where) < 0)
        return -1;
    /* The path as packed (with a trailing '/' kept) is the cache's key. */
    int at = flags & AT_SYMLINK_NOFOLLOW;
    struct namecache_fill fill;
    int cached = namecache_lookup(c.svc, where.mount, call_out(&c), at, d,
                                  &fill);
    if (cached != 0) {
        errno = cached < 0 ? -cached : errno;
        return cached < 0 ? -1 : 0;
    }
    int rc = send_stat(&c, at, d);
    namecache_keep(&fill, rc < 0 ? errno : 0, d);
    return rc;
}

DANAUS_EXPORT int danaus_fstatat(int dirfd, const char *pathname,
                                 struct stat *statbuf, int flags)
{
    struct danaus_stat d;
    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT)) {
        errno = EINVAL;
        return -1;
    }
    if (stat_at(dirfd, pathname, flags, &d) < 0 ||
        usermem_out(statbuf, sizeof *statbuf) < 0)
        return -1;
    to_stat(&d, statbuf);
    return 0;
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
    return danaus_fstatat(fd, "", statbuf, AT_EMPTY_PATH);
}

/* The btime the service reports is 0 when the backend does not know it. */
static void to_statx(const struct danaus_stat *d, struct statx *stx)
{
    memset(stx, 0, sizeof *stx);
    stx->stx_mask = STATX_BASIC_STATS;
    stx->stx_blksize = d->blksize;
    stx->stx_nlink = (uint32_t)d->nlink;
    stx->stx_uid = d->uid;
    stx->stx_gid = d->gid;
    stx->stx_mode = (uint16_t)d->mode;
    stx->stx_ino = d->ino;
    stx->stx_size = (uint64_t)d->size;
    stx->stx_blocks = (uint64_t)d->blocks;
    stx->stx_atime = (struct statx_timestamp){d->atime_sec, d->atime_nsec, 0};
    stx->stx_mtime = (struct statx_timestamp){d->mtime_sec, d->mtime_nsec, 0};
    stx->stx_ctime = (struct statx_timestamp){d->ctime_sec, d->ctime_nsec, 0};
    if (d->btime_sec != 0 || d->btime_nsec != 0) {
        stx->stx_mask |= STATX_BTIME;
        stx->stx_btime =
            (struct statx_timestamp){d->btime_sec, d->btime_nsec, 0};
    }
    stx->stx_rdev_major = major(d->rdev);
    stx->stx_rdev_minor = minor(d->rdev);
    stx->stx_dev_major = major(d->dev);
    stx->stx_dev_minor = minor(d->dev);
}

/* As Linux, the mask asks and stx_mask tells what was filled: every field
 * the service has, whatever was asked. The AT_STATX_ sync flags ask a
 * network file system to (or not to) refresh its cache; the service's
 * attributes are as fresh as its backend makes them, so they are accepted
 * and have no effect. */
DANAUS_EXPORT int danaus_statx(int dirfd, const char *pathname, int flags,
                               unsigned int mask, struct statx *statxbuf)
{
    struct danaus_stat d;
    if ((flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT |
                   AT_STATX_SYNC_TYPE)) ||
        (flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE ||
        (mask & STATX__RESERVED)) {
        errno = EINVAL;
        return -1;
    }
    if (stat_at(dirfd, pathname, flags, &d) < 0 ||
        usermem_out(statxbuf, sizeof *statxbuf) < 0)
        return -1;
    to_statx(&d, statxbuf);
    return 0;
}

DANAUS_EXPORT int danaus_faccessat(int dirfd, const char *pathname, int mode,
                                   int flags)
{
    struct call c;
    struct resolved_path where;
    if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW)) {
        errno = EINVAL;
        return -1;
    }
    if (call_begin_path(&c, DANAUS_CALL_ACCESS, dirfd, pathname, &where) < 0)
        return -1;
    c.desc.arg[0] = mode;
    c.desc.arg[1] = flags;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_access(const char *pathname, int mode)
{
    return danaus_faccessat(AT_FDCWD, pathname, mode, 0);
}

DANAUS_EXPORT int danaus_euidaccess(const char *pathname, int mode)
{
    return danaus_faccessat(AT_FDCWD, pathname, mode, AT_EACCESS);
}

DANAUS_EXPORT int danaus_mkdirat(int dirfd, const char *pathname, mode_t mode)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_name(&c, DANAUS_CALL_MKDIR, dirfd, pathname, &where) < 0)
        return -1;
    c.desc.arg[0] = umask_apply(mode);
    return send_status(&c);
}

DANAUS_EXPORT int danaus_mkdir(const char *pathname, mode_t mode)
{
    return danaus_mkdirat(AT_FDCWD, pathname, mode);
}

DANAUS_EXPORT int danaus_mknodat(int dirfd, const char *pathname, mode_t mode,
                                 dev_t dev)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_name(&c, DANAUS_CALL_MKNOD, dirfd, pathname, &where) < 0)
        return -1;
    c.desc.arg[0] = (mode & S_IFMT) | umask_apply(mode & 07777);
    c.desc.arg[1] = (int64_t)dev;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_mknod(const char *pathname, mode_t mode, dev_t dev)
{
    return danaus_mknodat(AT_FDCWD, pathname, mode, dev);
}

DANAUS_EXPORT int danaus_mkfifoat(int dirfd, const char *pathname,
                                  mode_t mode)
{
    return danaus_mknodat(dirfd, pathname, S_IFIFO | (mode & 07777), 0);
}

DANAUS_EXPORT int danaus_mkfifo(const char *pathname, mode_t mode)
{
    return danaus_mknodat(AT_FDCWD, pathname, S_IFIFO | (mode & 07777), 0);
}

DANAUS_EXPORT int danaus_unlinkat(int dirfd, const char *pathname, int flags)
{
    struct call c;
    struct resolved_path where;
    if (flags & ~AT_REMOVEDIR) {
        errno = EINVAL;
        return -1;
    }
    enum danaus_call id =
        flags & AT_REMOVEDIR ? DANAUS_CALL_RMDIR : DANAUS_CALL_UNLINK;
    if (call_begin_name(&c, id, dirfd, pathname, &where) < 0)
        return -1;
    /* Linux refuses to remove a directory something is mounted on. */
    if ((flags & AT_REMOVEDIR) && kmounts_mount_point(where.abs)) {
        errno = EBUSY;
        return -1;
    }
    return send_status(&c);
}

DANAUS_EXPORT int danaus_rmdir(const char *pathname)
{
    return danaus_unlinkat(AT_FDCWD, pathname, AT_REMOVEDIR);
}

DANAUS_EXPORT int danaus_unlink(const char *pathname)
{
    return danaus_unlinkat(AT_FDCWD, pathname, 0);
}

/* from (resolved, perhaps with a trailing '/') without its trailing '/'. */
static void without_slash(const char *from, char *out)
{
    size_t n = strlen(from);
    while (n > 1 && from[n - 1] == '/')
        n--;
    memcpy(out, from, n);
    out[n] = '\0';
}

static void moved(const char *from, const char *to)
{
    fdtable_renamed(from, to);
    cwd_renamed(from, to);
}

/* After a rename this process made: its descriptors and its cwd follow
 * their files, as the kernel's do. */
static void follow_rename(const char *from_abs, const char *to_abs,
                          unsigned flags)
{
    char from[DANAUS_LONG_PATH_MAX], to[DANAUS_LONG_PATH_MAX];
    without_slash(from_abs, from);
    without_slash(to_abs, to);
    if (flags & RENAME_EXCHANGE) {
        /* Through a name no path has, so neither side is taken for the
         * other's. */
        static const char swap[] = "/\001danaus-exchange";
        moved(from, swap);
        moved(to, from);
        moved(swap, to);
    } else {
        moved(from, to);
    }
}

/* RENAME and LINK: two paths that must be on the same mount; arg0 is
 * RENAME's flags. */
static int two_path_call(enum danaus_call id, int fromfd, const char *from,
                         int tofd, const char *to, unsigned int arg0)
{
    struct call c;
    struct resolved_path where_from;
    struct resolved_path where_to;
    const struct service *svc = service_get();
    if (!svc)
        return -1;
    if (!usermem_string(to, DANAUS_PATH_MAX)) {
        errno = EFAULT;
        return -1;
    }
    if (resolve_for_call(&svc->mounts, tofd, to, true, &where_to) < 0 ||
        call_begin_name(&c, id, fromfd, from, &where_from) < 0)
        return -1;
    if (where_from.mount != where_to.mount) {
        errno = EXDEV;
        return -1;
    }
    if (pack_path(&c.pack, where_to.rel) < 0)
        return -1;
    c.desc.arg[0] = arg0;
    if (send_status(&c) < 0)
        return -1;
    if (id == DANAUS_CALL_RENAME)
        follow_rename(where_from.abs, where_to.abs, arg0);
    return 0;
}

DANAUS_EXPORT int danaus_renameat2(int olddirfd, const char *oldpath,
                                   int newdirfd, const char *newpath,
                                   unsigned int flags)
{
    return two_path_call(DANAUS_CALL_RENAME, olddirfd, oldpath, newdirfd,
                         newpath, flags);
}

DANAUS_EXPORT int danaus_renameat(int olddirfd, const char *oldpath,
                                  int newdirfd, const char *newpath)
{
    return danaus_renameat2(olddirfd, oldpath, newdirfd, newpath, 0);
}

DANAUS_EXPORT int danaus_rename(const char *oldpath, const char *newpath)
{
    return danaus_renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

/* LINK links the name itself, a symbolic link included. AT_SYMLINK_FOLLOW
 * links what the name resolves to, which is found here. AT_EMPTY_PATH
 * (link an open file by its descriptor) needs a LINK by handle the service
 * does not have: it fails with ENOENT, as Linux answers a caller without
 * CAP_DAC_READ_SEARCH. */
DANAUS_EXPORT int danaus_linkat(int olddirfd, const char *oldpath,
                                int newdirfd, const char *newpath, int flags)
{
    char target[DANAUS_PATH_MAX];
    struct resolved_path where;
    const struct service *svc = service_get();
    if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)) {
        errno = EINVAL;
        return -1;
    }
    if (!svc)
        return -1;
    if (!usermem_string(oldpath, DANAUS_PATH_MAX)) {
        errno = EFAULT;
        return -1;
    }
    if (flags & AT_SYMLINK_FOLLOW) {
        if (path_resolve(&svc->mounts, olddirfd, oldpath, &where) < 0 ||
            !danaus_realpath(where.abs, target))
            return -1;
        return two_path_call(DANAUS_CALL_LINK, AT_FDCWD, target, newdirfd,
                             newpath, 0);
    }
    return two_path_call(DANAUS_CALL_LINK, olddirfd, oldpath, newdirfd,
                         newpath, 0);
}

DANAUS_EXPORT int danaus_link(const char *oldpath, const char *newpath)
{
    return danaus_linkat(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

DANAUS_EXPORT int danaus_symlinkat(const char *target, int newdirfd,
                                   const char *linkpath)
{
    const struct service *svc = service_get();
    struct resolved_path where;
    struct call c;
    if (!svc)
        return -1;
    if (!usermem_string(target, DANAUS_PATH_MAX) ||
        !usermem_string(linkpath, DANAUS_PATH_MAX)) {
        errno = EFAULT;
        return -1;
    }
    /* The target is stored as written, never resolved here. */
    if (resolve_for_call(&svc->mounts, newdirfd, linkpath, true, &where) < 0 ||
        call_begin(&c, DANAUS_CALL_SYMLINK, where.mount, 0) < 0 ||
        pack_str(&c.pack, target) < 0 || pack_path(&c.pack, where.rel) < 0)
        return -1;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_symlink(const char *target, const char *linkpath)
{
    return danaus_symlinkat(target, AT_FDCWD, linkpath);
}

DANAUS_EXPORT ssize_t danaus_readlinkat(int dirfd, const char *pathname,
                                        char *buf, size_t bufsiz)
{
    struct call c;
    struct resolved_path where;
    if (bufsiz == 0) {
        errno = EINVAL;
        return -1;
    }
    if (call_begin_path(&c, DANAUS_CALL_READLINK, dirfd, pathname, &where) <
        0)
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
    if (usermem_out(buf, (size_t)n) < 0)
        return -1;
    memcpy(buf, call_out(&c), (size_t)n);
    return (ssize_t)n;
}

DANAUS_EXPORT ssize_t danaus_readlink(const char *pathname, char *buf,
                                      size_t bufsiz)
{
    return danaus_readlinkat(AT_FDCWD, pathname, buf, bufsiz);
}

DANAUS_EXPORT int danaus_fchmodat(int dirfd, const char *pathname,
                                  mode_t mode, int flags)
{
    struct call c;
    struct resolved_path where;
    if (flags & ~AT_SYMLINK_NOFOLLOW) {
        errno = EINVAL;
        return -1;
    }
    if (call_begin_path(&c, DANAUS_CALL_CHMOD, dirfd, pathname, &where) < 0)
        return -1;
    c.desc.arg[0] = mode;
    c.desc.arg[1] = flags;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_chmod(const char *pathname, mode_t mode)
{
    return danaus_fchmodat(AT_FDCWD, pathname, mode, 0);
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
DANAUS_EXPORT int danaus_fchownat(int dirfd, const char *pathname,
                                  uid_t owner, gid_t group, int flags)
{
    struct call c;
    struct resolved_path where;
    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) {
        errno = EINVAL;
        return -1;
    }
    if ((flags & AT_EMPTY_PATH) && usermem_string(pathname, DANAUS_PATH_MAX) &&
        pathname[0] == '\0') {
        if (dirfd != AT_FDCWD)
            return danaus_fchown(dirfd, owner, group);
        pathname = ".";
    }
    if (call_begin_path(&c, DANAUS_CALL_CHOWN, dirfd, pathname, &where) < 0)
        return -1;
    c.desc.arg[0] = owner;
    c.desc.arg[1] = group;
    c.desc.arg[2] = flags & AT_SYMLINK_NOFOLLOW;
    return send_status(&c);
}

DANAUS_EXPORT int danaus_chown(const char *pathname, uid_t owner, gid_t group)
{
    return danaus_fchownat(AT_FDCWD, pathname, owner, group, 0);
}

DANAUS_EXPORT int danaus_lchown(const char *pathname, uid_t owner, gid_t group)
{
    return danaus_fchownat(AT_FDCWD, pathname, owner, group,
                           AT_SYMLINK_NOFOLLOW);
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
