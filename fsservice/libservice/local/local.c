/*
 * local.c - the local-directory libservice: every operation of
 * struct ls_ops over a host directory, through ordinary system calls.
 *
 * This is danausd's embedded default backend (no Ceph cluster needed). The
 * instance keeps its root as an O_PATH directory fd; every path is resolved
 * beneath it with openat2(RESOLVE_IN_ROOT) (path.c), and every call
 * first takes on the client's identity on the calling thread
 * (cred.c), so the kernel checks permissions as for the client. A
 * service not running as root cannot switch and acts as itself for all.
 * Clients may cache the data of files open for reading while the service
 * holds a read lease on them (lease.c).
 *
 * Two kinds of path operations:
 *  - on a name (mkdir, rmdir, unlink, rename, link, symlink, readlink): the
 *    parent is resolved in the root, or found among the directories the
 *    thread resolved lately (dirs.h), and the *at call acts on the last
 *    component. A last component of "." or "..", or no component at all
 *    ("" is the instance root, which a client reaches as its mount point),
 *    never reaches the *at call: it gets the errno Linux gives for the same
 *    call on "x/.", "x/.." or a mount point "/" (measured on ext4).
 *  - on an existing inode (stat, access, chmod, chown, utimens, truncate,
 *    statfs, xattrs): the whole path is opened O_PATH in the root (with
 *    O_NOFOLLOW for AT_SYMLINK_NOFOLLOW, giving an fd of the symlink itself)
 *    and the call acts on that fd; a stat, access, chmod, chown, utimens,
 *    getxattr or listxattr of a plain last name that is no symlink to
 *    follow acts on it from its parent's handle, never following it.
 *    Calls without an fd-relative form use the fd's /proc/self/fd/N link,
 *    which leads to the O_PATH target itself (measured: getxattr on the
 *    link of an O_NOFOLLOW fd reads the symlink's own xattrs, and chmod
 *    through it gives EOPNOTSUPP as lchmod does).
 *
 * Creation modes arrive with the client's umask applied (libfs), so they
 * must reach the kernel unmasked; but a process umask of 0 would make
 * every file the service creates for itself world-writable. So a thread
 * that calls this backend gets a file-system context of its own
 * (unshare(CLONE_FS): umask, current and root directory) with umask 0,
 * once, on its first call; the process keeps its umask (danausd: at
 * least 022).
 */
#include "local.h"
#include "cred.h"
#include "dirs.h"
#include "lease.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

struct local_instance {
    struct ls_instance base;
    int root_fd;      /* O_PATH directory fd of the root */
    int switch_creds; /* 0 when the service is not root: act as itself */
    /* The root on a read-only clone of its mount (local_seal), which the
     * files handed out are opened beneath; -1: not sealed. */
    int sealed_root;
};

struct local_file {
    struct ls_file base;
    int fd;
    bool passable; /* opened beneath sealed_root: a regular file */
    struct local_lease lease; /* lease.h */
    /* getdents seeks then reads; the pair must not interleave with another
     * thread's on the same open directory. */
    pthread_mutex_t dir_lock;
    off_t dir_at; /* under dir_lock: fd's offset, -1 when not known */
};

static struct local_instance *local(struct ls_instance *inst)
{
    return (struct local_instance *)inst;
}

static struct local_file *lfile(struct ls_file *file)
{
    return (struct local_file *)file;
}

/* The calling thread's umask is 0 (see the head comment). A thread that
 * cannot have a context of its own (never seen) keeps the process's: its
 * creations are masked more, never less. */
static void thread_umask_zero(void)
{
    static __thread bool done;
    if (done)
        return;
    done = true;
    if (unshare(CLONE_FS) == 0)
        umask(0);
}

static int enter(struct local_instance *li, const struct ls_cred *cred)
{
    thread_umask_zero();
    return li->switch_creds ? local_cred_enter(cred) : 0;
}

static int enter_file(struct ls_file *file, const struct ls_cred *cred)
{
    return enter(local(file->inst), cred);
}

static int neg_errno(long rc)
{
    return rc < 0 ? -errno : (int)rc;
}

static ssize_t neg_errno_size(ssize_t rc)
{
    return rc < 0 ? -errno : rc;
}

static int in_root(struct local_instance *li, const char *path, int flags,
                   mode_t mode)
{
    return local_open_in_root(li->root_fd, li->base.link_prefix, path, flags,
                              mode);
}

static int name_in_root(struct local_instance *li, const char *path,
                        struct local_name *out)
{
    return local_name_resolve(li->root_fd, li->base.link_prefix, path, out);
}

/* The O_PATH fd of an existing inode; AT_SYMLINK_NOFOLLOW gives the
 * symlink itself. */
static int open_inode(struct local_instance *li, const char *path, int at)
{
    int flags = O_PATH | O_CLOEXEC;
    if (at & AT_SYMLINK_NOFOLLOW)
        flags |= O_NOFOLLOW;
    return in_root(li, path, flags, 0);
}

struct proc_link {
    char path[32];
};

static struct proc_link proc_link_of(int fd)
{
    struct proc_link link;
    snprintf(link.path, sizeof link.path, "/proc/self/fd/%d", fd);
    return link;
}

static void stat_from_statx(const struct statx *sx, struct danaus_stat *out)
{
    memset(out, 0, sizeof *out);
    out->dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
    out->ino = sx->stx_ino;
    out->nlink = sx->stx_nlink;
    out->rdev = makedev(sx->stx_rdev_major, sx->stx_rdev_minor);
    out->mode = sx->stx_mode;
    out->uid = sx->stx_uid;
    out->gid = sx->stx_gid;
    out->blksize = sx->stx_blksize;
    out->size = (int64_t)sx->stx_size;
    out->blocks = (int64_t)sx->stx_blocks;
    out->atime_sec = sx->stx_atime.tv_sec;
    out->atime_nsec = sx->stx_atime.tv_nsec;
    out->mtime_sec = sx->stx_mtime.tv_sec;
    out->mtime_nsec = sx->stx_mtime.tv_nsec;
    out->ctime_sec = sx->stx_ctime.tv_sec;
    out->ctime_nsec = sx->stx_ctime.tv_nsec;
    if (sx->stx_mask & STATX_BTIME) {
        out->btime_sec = sx->stx_btime.tv_sec;
        out->btime_nsec = sx->stx_btime.tv_nsec;
    }
}

static int statx_fd(int fd, struct statx *sx)
{
    return statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, sx);
}

static int stat_fd(int fd, struct danaus_stat *out)
{
    struct statx sx;
    if (statx_fd(fd, &sx) < 0)
        return -errno;
    stat_from_statx(&sx, out);
    return 0;
}

static int statfs_fd(int fd, struct danaus_statfs *out)
{
    struct statfs sf;
    if (fstatfs(fd, &sf) < 0)
        return -errno;
    memset(out, 0, sizeof *out);
    out->type = (uint64_t)sf.f_type;
    out->bsize = (uint64_t)sf.f_bsize;
    out->frsize = (uint64_t)sf.f_frsize;
    out->blocks = sf.f_blocks;
    out->bfree = sf.f_bfree;
    out->bavail = sf.f_bavail;
    out->files = sf.f_files;
    out->ffree = sf.f_ffree;
    out->favail = sf.f_ffree; /* statfs has no favail; glibc's statvfs
                                 reports f_ffree for it too */
    out->fsid = (uint64_t)(uint32_t)sf.f_fsid.__val[0] |
                (uint64_t)(uint32_t)sf.f_fsid.__val[1] << 32;
    out->namelen = (uint64_t)sf.f_namelen;
    out->flags = (uint64_t)sf.f_flags;
    /* glibc knows the limit of each kernel file system by its type (and
     * tells ext2/3 from ext4 by the mount table); -1 is "no limit known". */
    long link_max = fpathconf(fd, _PC_LINK_MAX);
    out->link_max = link_max > 0 ? (uint64_t)link_max : 0;
    return 0;
}

/* ---- names from their parent's handle ---- */

/* An operation on a last name from its parent's handle (dirs.h):
 * -EAGAIN when only the walk in the root can do it (a symlink to follow,
 * at). */
typedef int by_name_fn(int dir_fd, const char *name, int at, void *a);

/* Whether path ends in a name: not in ".", "..", a slash or the root,
 * which only the walk answers as the kernel does, without the parent. */
static bool ends_in_name(const char *path)
{
    const char *last = strrchr(path, '/');
    last = last ? last + 1 : path;
    return *last && strcmp(last, ".") != 0 && strcmp(last, "..") != 0;
}

/* by_name on path's last name; -EAGAIN when only the whole path's
 * walk can do it as the kernel would: the parent cannot be had (its walk
 * gives the errno), or the path ends in ".", "..", a slash or the root. */
static int by_parent(struct local_instance *li, const char *path, int at,
                     by_name_fn *by_name, void *a)
{
    struct local_name n;
    if (!ends_in_name(path) || name_in_root(li, path, &n) < 0)
        return -EAGAIN;
    int rc = by_name(n.dir_fd, n.name, at, a);
    local_name_release(&n);
    return rc;
}

/* ---- open files ---- */

/* The access an open's mode asks for, as faccessat's mode. */
static int open_access(int flags)
{
    switch (flags & O_ACCMODE) {
    case O_WRONLY:
        return W_OK;
    case O_RDWR:
        return R_OK | W_OK;
    default:
        return R_OK;
    }
}

/* Whether an open may meet a FIFO, device or socket, which must not be
 * opened here: a FIFO would block a service thread (or wake a writer
 * waiting for a reader that then never reads), a device would run its
 * driver in the service. O_PATH opens nothing, O_DIRECTORY and
 * O_CREAT | O_EXCL meet only directories and new regular files. */
static bool may_meet_special(int flags)
{
    return !(flags & (O_PATH | O_DIRECTORY)) &&
           (flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL);
}

/* An fd of a file just opened, with its attributes in *st; -errno (the fd
 * closed) when they cannot be read. */
static int with_stat(int fd, struct statx *st)
{
    if (fd < 0 || statx_fd(fd, st) == 0)
        return fd;
    int rc = -errno;
    close(fd);
    return rc;
}

/* What an open by name is asked and answers (open_by_name). */
struct open_args {
    int flags;
    bool seen_regular; /* LS_OPEN_SEEN_REGULAR */
    mode_t mode;
    struct statx *st;
    bool *special;
};

/* The flags a regular file or directory found by name is opened with.
 * O_NONBLOCK keeps a FIFO swapped in after the look from blocking the
 * thread, and makes an open for writing fail with EWOULDBLOCK instead of
 * waiting while another open file holds a lease (lease.c); the walk
 * waits for that. The descriptor keeps it: it has no effect on a regular
 * file's or a directory's I/O (open(2)), and the flags a client sees are
 * the service's record of its open (core/calls_fd.c). O_NOCTTY keeps a
 * device swapped in from becoming the service's terminal. */
#define FOUND_FLAGS (O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)

/* Whether an open by name that failed with err, asked with flags asked
 * and made with opened, is the walk's to answer: the name is a symlink
 * to follow (with O_DIRECTORY a symlink gives ENOTDIR, not ELOOP:
 * measured), changed since the look, or held by a lease (FOUND_FLAGS). */
static bool walk_decides(int err, int asked, int opened, bool created)
{
    if (err == ELOOP || (err == ENOTDIR && (opened & O_DIRECTORY)))
        return !(asked & O_NOFOLLOW);
    return (err == EEXIST && created) ||
           (err == ENOENT && (asked & O_CREAT)) || err == EWOULDBLOCK;
}

/*
 * An open of a last name from its parent's handle: openat on the name,
 * never following a symlink (one to follow is the walk's, -EAGAIN).
 * Where the open may meet a FIFO, device or socket, a statx looks first:
 * such a file answers LS_OPEN_SPECIAL once the caller's access is
 * checked, a regular file or directory is opened with FOUND_FLAGS and
 * must be the inode the statx saw; a name that is missing under O_CREAT
 * is created with O_EXCL, so only a new regular file can be opened. A
 * name the caller saw a regular file at (LS_OPEN_SEEN_REGULAR) is opened
 * with FOUND_FLAGS without the look, and must be a regular file or
 * directory. A name changed since the look (or an unlooked open that
 * failed) gives -EAGAIN, and the walk decides.
 */
static int open_by_name(int dir_fd, const char *name, int at, void *a)
{
    const struct open_args *o = a;
    int flags = o->flags;
    bool may_be_special = may_meet_special(flags);
    bool unlooked = may_be_special && o->seen_regular && !(flags & O_CREAT);
    bool looked = may_be_special && !unlooked, created = false;
    struct statx seen;
    (void)at;
    if (flags & O_PATH)
        return -EAGAIN;
    if (looked && statx(dir_fd, name, AT_SYMLINK_NOFOLLOW,
                        STATX_TYPE | STATX_INO, &seen) < 0) {
        if (errno != ENOENT || !(flags & O_CREAT))
            return -errno;
        looked = false;
        created = true;
        flags |= O_EXCL;
    } else if (looked && S_ISLNK(seen.stx_mode)) {
        return flags & O_NOFOLLOW ? -ELOOP : -EAGAIN;
    } else if (looked && !S_ISREG(seen.stx_mode) && !S_ISDIR(seen.stx_mode)) {
        int rc = neg_errno(faccessat(dir_fd, name, open_access(flags),
                                     AT_SYMLINK_NOFOLLOW | AT_EACCESS));
        *o->special = rc == 0;
        return rc;
    } else if (looked || unlooked) {
        flags = (flags & ~(O_CREAT | O_EXCL)) | FOUND_FLAGS;
    }
    int fd = openat(dir_fd, name, flags | O_NOFOLLOW, o->mode);
    /* Unlooked, an error may be a special file's (ENXIO: a FIFO without
     * a reader): the walk looks. */
    if (fd < 0 && (unlooked || walk_decides(errno, o->flags, flags, created)))
        return -EAGAIN;
    fd = with_stat(neg_errno(fd), o->st);
    if (fd < 0 || !(looked || unlooked))
        return fd;
    const struct statx *st = o->st;
    bool as_found = looked ? st->stx_ino == seen.stx_ino &&
                                 st->stx_dev_major == seen.stx_dev_major &&
                                 st->stx_dev_minor == seen.stx_dev_minor &&
                                 (st->stx_mode & S_IFMT) ==
                                     (seen.stx_mode & S_IFMT)
                           : S_ISREG(st->stx_mode) || S_ISDIR(st->stx_mode);
    if (!as_found) {
        close(fd);
        return -EAGAIN;
    }
    return fd;
}

/*
 * The walk in the root, for what the parent's handle cannot do: an open
 * that may meet a special file first resolves the name O_PATH, which
 * opens nothing, and looks at what it found: a regular file or directory
 * is then reopened with the caller's flags through the fd's
 * /proc/self/fd link (the kernel checks access as for any open, O_TRUNC
 * applies); a FIFO, device or socket answers LS_OPEN_SPECIAL once the
 * caller's access is checked. Under O_CREAT a name that cannot be
 * resolved (it does not exist, or the kernel has its own errno for
 * creating it) is opened as asked; one made a FIFO between the two steps
 * is the only open that can meet one here.
 */
static int open_fd(struct local_instance *li, const char *path, int flags,
                   bool seen_regular, mode_t mode, struct statx *st,
                   bool *special)
{
    *special = false;
    struct open_args args = {flags, seen_regular, mode, st, special};
    int rc = by_parent(li, path, 0, open_by_name, &args);
    if (rc != -EAGAIN)
        return rc;
    if (!may_meet_special(flags))
        return with_stat(in_root(li, path, flags, mode), st);
    /* The root's probe is the instance's own handle (kept open). */
    bool root = path[0] == '\0';
    int probe = root ? li->root_fd
                     : in_root(li, path,
                               O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW), 0);
    if (probe < 0 && (flags & O_CREAT))
        return with_stat(in_root(li, path, flags, mode), st);
    if (probe < 0)
        return probe;
    rc = statx_fd(probe, st) < 0 ? -errno : 0;
    if (rc == 0 && S_ISLNK(st->stx_mode))
        rc = -ELOOP; /* O_NOFOLLOW on a symbolic link */
    else if (rc == 0 && !S_ISREG(st->stx_mode) && !S_ISDIR(st->stx_mode)) {
        rc = neg_errno(faccessat(probe, "", open_access(flags),
                                 AT_EMPTY_PATH | AT_EACCESS));
        *special = rc == 0;
    } else if (rc == 0)
        /* Without O_NONBLOCK: see FOUND_FLAGS. */
        rc = neg_errno(open(proc_link_of(probe).path,
                            flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW |
                                      O_NONBLOCK)));
    if (!root)
        close(probe);
    return rc;
}

static int local_open(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, int flags, mode_t mode,
                      struct ls_file **out)
{
    struct local_instance *li = local(inst);
    int rc = enter(li, cred);
    if (rc < 0)
        return rc;
    /* openat2, unlike open, rejects a mode without O_CREAT/O_TMPFILE and
     * mode bits outside 07777. */
    if (!(flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE)
        mode = 0;
    bool seen_regular = flags & LS_OPEN_SEEN_REGULAR;
    flags &= ~LS_OPEN_SEEN_REGULAR;
    /* A file opened only to be read, of a sealed instance, is opened
     * beneath the sealed root, as a copy of the instance rooted there
     * (whose parents' handles dirs.c keeps apart, by root): a descriptor
     * on the read-only mount, which may be handed out. */
    struct local_instance sealed;
    bool beneath_sealed = li->sealed_root >= 0 &&
                          (flags & O_ACCMODE) == O_RDONLY &&
                          !(flags & (O_PATH | O_DIRECTORY | O_CREAT |
                                     O_TRUNC));
    if (beneath_sealed) {
        sealed = *li;
        sealed.root_fd = li->sealed_root;
    }
    struct statx st;
    bool special;
    int fd = open_fd(beneath_sealed ? &sealed : li, path, flags | O_CLOEXEC,
                     seen_regular, mode & 07777, &st, &special);
    if (special)
        return LS_OPEN_SPECIAL;
    if (fd < 0)
        return fd;
    struct local_file *file = calloc(1, sizeof *file);
    if (!file) {
        close(fd);
        return -ENOMEM;
    }
    file->base.inst = inst;
    file->base.is_dir = S_ISDIR(st.stx_mode);
    file->base.ino = (uint64_t)st.stx_ino;
    stat_from_statx(&st, &file->base.attrs);
    file->base.has_attrs = true;
    file->fd = fd;
    file->passable = beneath_sealed && S_ISREG(st.stx_mode);
    local_lease_init(&file->lease, &file->base.attrs, flags);
    file->dir_at = 0;
    pthread_mutex_init(&file->dir_lock, NULL);
    *out = &file->base;
    return 0;
}

static void local_close(struct ls_file *base)
{
    struct local_file *file = lfile(base);
    local_lease_end(file->fd, &file->lease);
    close(file->fd);
    pthread_mutex_destroy(&file->dir_lock);
    free(file);
}

static int local_cache_hold(struct ls_file *file, uint64_t *key)
{
    return local_lease_hold(lfile(file)->fd, &lfile(file)->lease, key);
}

static int local_write_fd(struct ls_file *file)
{
    return lfile(file)->fd;
}

static int local_reader_fd(struct ls_file *file)
{
    return lfile(file)->passable ? lfile(file)->fd : -1;
}

/* The sealed root: a detached clone of the root's mount, read-only,
 * nosuid and nodev (open_tree(2), mount_setattr(2)). Every descriptor
 * opened beneath it is on that mount, where the kernel refuses any change
 * (EROFS) whoever holds the descriptor. Only opens for reading use it:
 * the kernel's answer to access(W_OK), which a union asks of a read-only
 * branch before a copy-up, is EROFS there whatever the mode. */
static int local_seal(struct ls_instance *inst)
{
    struct local_instance *li = local(inst);
    if (li->sealed_root >= 0)
        return 0;
    int clone = (int)syscall(SYS_open_tree, li->root_fd, "",
                             OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
                                 AT_EMPTY_PATH);
    if (clone < 0)
        return -errno;
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY |
                                          MOUNT_ATTR_NOSUID |
                                          MOUNT_ATTR_NODEV};
    if (syscall(SYS_mount_setattr, clone, "", AT_EMPTY_PATH, &attr,
                sizeof attr) < 0) {
        int rc = -errno;
        close(clone);
        return rc;
    }
    li->sealed_root = clone;
    return 0;
}

static ssize_t local_pread(struct ls_file *file, const struct ls_cred *cred,
                           void *buf, size_t n, off_t off)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return neg_errno_size(pread(lfile(file)->fd, buf, n, off));
}

/*
 * Appends use pwritev2(RWF_APPEND) with offset -1, atomic whether or not
 * the fd was opened O_APPEND (libfs may have set O_APPEND later with
 * fcntl). Measured: it appends and moves the file offset to the new end,
 * which lseek then reports. Two threads appending through one open file
 * may each read the other's end; the file offset of one open file is
 * shared state under Linux as well.
 */
static ssize_t local_pwrite(struct ls_file *file, const struct ls_cred *cred,
                            const void *buf, size_t n, off_t off, off_t *end)
{
    int fd = lfile(file)->fd;
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    if (off >= 0) {
        ssize_t done = pwrite(fd, buf, n, off);
        if (done < 0)
            return -errno;
        if (end)
            *end = off + done;
        return done;
    }
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = n};
    ssize_t done = pwritev2(fd, &iov, 1, -1, RWF_APPEND);
    if (done < 0)
        return -errno;
    if (end) {
        off_t pos = lseek(fd, 0, SEEK_CUR);
        if (pos < 0)
            return -errno;
        *end = pos;
    }
    return done;
}

static int local_fsync(struct ls_file *file, const struct ls_cred *cred,
                       int datasync)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    int fd = lfile(file)->fd;
    return neg_errno(datasync ? fdatasync(fd) : fsync(fd));
}

static int local_ftruncate(struct ls_file *file, const struct ls_cred *cred,
                           off_t len)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return neg_errno(ftruncate(lfile(file)->fd, len));
}

/* The host's file system decides which modes it has. */
static int local_fallocate(struct ls_file *file, const struct ls_cred *cred,
                           int mode, off_t off, off_t len)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return neg_errno(fallocate(lfile(file)->fd, mode, off, len));
}

static int local_fstat(struct ls_file *file, const struct ls_cred *cred,
                       struct danaus_stat *out)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return stat_fd(lfile(file)->fd, out);
}

/* rc, after telling dirs.c of a change of a directory's permissions,
 * owner or ACLs, which guard every name below it. */
static int dir_changed(struct ls_file *file, int rc)
{
    if (rc == 0 && file->is_dir)
        local_dirs_changed();
    return rc;
}

/* rc, after telling dirs.c of a change it cannot tie to a file: any
 * path may lead to a directory. */
static int changed(int rc)
{
    if (rc == 0)
        local_dirs_changed();
    return rc;
}

static int local_fchmod(struct ls_file *file, const struct ls_cred *cred,
                        mode_t mode)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return dir_changed(file, neg_errno(fchmod(lfile(file)->fd, mode)));
}

static int local_fchown(struct ls_file *file, const struct ls_cred *cred,
                        uid_t uid, gid_t gid)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return dir_changed(file, neg_errno(fchown(lfile(file)->fd, uid, gid)));
}

static int local_futimens(struct ls_file *file, const struct ls_cred *cred,
                          const struct timespec ts[2])
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return neg_errno(futimens(lfile(file)->fd, ts));
}

static int local_fstatfs(struct ls_file *file, const struct ls_cred *cred,
                         struct danaus_statfs *out)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return statfs_fd(lfile(file)->fd, out);
}

/*
 * The kernel's linux_dirent64 records are danaus_dirent records, so
 * getdents64 fills buf directly; it never splits a record (EINVAL when not
 * even one fits). The cookie is the d_off of the last record returned,
 * which lseek on the directory accepts to resume after it; it is also the
 * offset the call leaves the fd at (fs/readdir.c writes the position it
 * stopped at into the last record), so a listing read in order seeks
 * only once, at its start if not at 0.
 */
static ssize_t local_getdents(struct ls_file *file, const struct ls_cred *cred,
                              void *buf, size_t n, off_t *pos)
{
    struct local_file *lf = lfile(file);
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    if (n > INT_MAX)
        n = INT_MAX;

    pthread_mutex_lock(&lf->dir_lock);
    ssize_t got = -1;
    if (lf->dir_at == *pos || lseek(lf->fd, *pos, SEEK_SET) >= 0)
        got = syscall(SYS_getdents64, lf->fd, buf, n);
    ssize_t result = got < 0 ? -errno : got;
    lf->dir_at = result < 0 ? -1 : *pos;
    if (result <= 0) {
        pthread_mutex_unlock(&lf->dir_lock);
        return result;
    }

    /* buf is the service's own (core/calls_fd.c): nobody rewrites it
     * under the walk. Bounded all the same: a record never ends past the
     * answer nor is shorter than its header. */
    size_t at = 0, last = 0;
    while (at + offsetof(struct danaus_dirent, d_name) <= (size_t)result) {
        uint16_t reclen;
        memcpy(&reclen, (char *)buf + at + offsetof(struct danaus_dirent,
                                                    d_reclen),
               sizeof reclen);
        last = at;
        if (reclen < offsetof(struct danaus_dirent, d_name) ||
            reclen > (size_t)result - at)
            break;
        at += reclen;
    }
    int64_t cookie;
    memcpy(&cookie, (char *)buf + last + offsetof(struct danaus_dirent, d_off),
           sizeof cookie);
    *pos = (off_t)cookie;
    lf->dir_at = *pos;
    pthread_mutex_unlock(&lf->dir_lock);
    return result;
}

static ssize_t local_fgetxattr(struct ls_file *file, const struct ls_cred *cred,
                               const char *name, void *value, size_t size)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return neg_errno_size(fgetxattr(lfile(file)->fd, name, value, size));
}

static int local_fsetxattr(struct ls_file *file, const struct ls_cred *cred,
                           const char *name, const void *value, size_t size,
                           int xflags)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return dir_changed(
        file, neg_errno(fsetxattr(lfile(file)->fd, name, value, size, xflags)));
}

static ssize_t local_flistxattr(struct ls_file *file,
                                const struct ls_cred *cred, char *list,
                                size_t size)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return neg_errno_size(flistxattr(lfile(file)->fd, list, size));
}

static int local_fremovexattr(struct ls_file *file, const struct ls_cred *cred,
                              const char *name)
{
    int rc = enter_file(file, cred);
    if (rc < 0)
        return rc;
    return dir_changed(file, neg_errno(fremovexattr(lfile(file)->fd, name)));
}

/* ---- operations on an existing inode ---- */

/* Take on the client's identity and open the inode of path; >= 0 an O_PATH
 * fd the caller closes, or -errno. */
static int enter_inode(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path, int at, int allowed_at)
{
    struct local_instance *li = local(inst);
    if (at & ~allowed_at)
        return -EINVAL;
    int rc = enter(li, cred);
    if (rc < 0)
        return rc;
    return open_inode(li, path, at);
}

/* An operation on the inode path names: by_name, or by_fd(fd, a) on an
 * O_PATH fd of the inode where only the walk can find it. */
struct inode_op {
    by_name_fn *by_name;
    int (*by_fd)(int fd, void *a);
    void *a;
};

static int on_inode(struct ls_instance *inst, const struct ls_cred *cred,
                    const char *path, int at, const struct inode_op *op)
{
    struct local_instance *li = local(inst);
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    int rc = enter(li, cred);
    if (rc < 0)
        return rc;
    /* The root is the instance's own O_PATH handle: nothing to walk. */
    if (path[0] == '\0')
        return op->by_fd(li->root_fd, op->a);
    rc = by_parent(li, path, at, op->by_name, op->a);
    if (rc != -EAGAIN)
        return rc;
    int fd = open_inode(li, path, at);
    if (fd < 0)
        return fd;
    rc = op->by_fd(fd, op->a);
    close(fd);
    return rc;
}

/* One statx. */
static int stat_by_name(int dir_fd, const char *name, int at, void *a)
{
    struct statx sx;
    if (statx(dir_fd, name, AT_SYMLINK_NOFOLLOW,
              STATX_BASIC_STATS | STATX_BTIME, &sx) < 0)
        return -errno;
    if (S_ISLNK(sx.stx_mode) && !(at & AT_SYMLINK_NOFOLLOW))
        return -EAGAIN;
    stat_from_statx(&sx, a);
    return 0;
}

static int stat_by_fd(int fd, void *a)
{
    return stat_fd(fd, a);
}

static int local_stat(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, int at, struct danaus_stat *out)
{
    struct inode_op op = {stat_by_name, stat_by_fd, out};
    return on_inode(inst, cred, path, at, &op);
}

static int local_stat_in(struct ls_file *dir, const struct ls_cred *cred,
                         const char *name, struct danaus_stat *out)
{
    int rc = enter_file(dir, cred);
    if (rc < 0)
        return rc;
    return stat_by_name(lfile(dir)->fd, name, AT_SYMLINK_NOFOLLOW, out);
}

/* Whether a change by name may go ahead: the name is no symlink to
 * follow (a statx tells, unless the caller asked not to follow). A name
 * made a symlink between the statx and the change gets the change
 * itself, inside the root, never its target: every change by name is
 * made with AT_SYMLINK_NOFOLLOW. 0, -EAGAIN or -errno. */
static int may_change_name(int dir_fd, const char *name, int at)
{
    struct statx sx;
    if (at & AT_SYMLINK_NOFOLLOW)
        return 0;
    if (statx(dir_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) < 0)
        return -errno;
    return S_ISLNK(sx.stx_mode) ? -EAGAIN : 0;
}

/* Always AT_EACCESS: without it the kernel checks the real uid, which the
 * per-thread switch leaves as the service's; the client has one identity.
 * By name, a name to follow is looked at first: faccessat on a symlink
 * with AT_SYMLINK_NOFOLLOW checks the link, and without it the kernel
 * would follow it out of the root; such a name takes the walk. */
static int access_by_name(int dir_fd, const char *name, int at, void *mode)
{
    int rc = may_change_name(dir_fd, name, at);
    if (rc < 0)
        return rc;
    return neg_errno(faccessat(dir_fd, name, *(int *)mode,
                               AT_EACCESS | AT_SYMLINK_NOFOLLOW));
}

static int access_by_fd(int fd, void *mode)
{
    return neg_errno(faccessat(fd, "", *(int *)mode,
                               AT_EMPTY_PATH | AT_EACCESS));
}

static int local_access(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *path, int mode, int at)
{
    if (at & ~(AT_SYMLINK_NOFOLLOW | AT_EACCESS))
        return -EINVAL;
    struct inode_op op = {access_by_name, access_by_fd, &mode};
    return on_inode(inst, cred, path, at & AT_SYMLINK_NOFOLLOW, &op);
}

/* glibc 2.36 has no fchmodat2 (Linux 6.6), the one chmod that takes
 * AT_SYMLINK_NOFOLLOW: measured here, it changes a file's mode through an
 * O_PATH directory fd and gives EOPNOTSUPP on a symlink, as the /proc
 * link of an O_NOFOLLOW fd does. Its number is the same on every
 * architecture; without it (ENOSYS) the path is walked. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* A mode or an owner to set by path, and the type of what it was set on,
 * looked at after the change (0: not known): a directory's guard every
 * name below it, a file's none (dirs.h). After, not before: a directory
 * put in the name's place meanwhile is seen, and one taken away went by
 * a rename or rmdir, which told dirs.c itself. */
struct attr_change {
    mode_t mode;
    uid_t uid;
    gid_t gid;
    mode_t type;
};

static int changed_by_name(int dir_fd, const char *name, int rc,
                           struct attr_change *c)
{
    struct statx sx;
    if (rc == 0 &&
        statx(dir_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) == 0)
        c->type = sx.stx_mode & S_IFMT;
    return rc;
}

/* rc, after telling dirs.c of a change c that may guard walks. */
static int attr_changed(const struct attr_change *c, int rc)
{
    return c->type && !S_ISDIR(c->type) ? rc : changed(rc);
}

static int chmod_by_name(int dir_fd, const char *name, int at, void *a)
{
    struct attr_change *c = a;
    int rc = may_change_name(dir_fd, name, at);
    if (rc < 0)
        return rc;
    long done = syscall(SYS_fchmodat2, dir_fd, name, c->mode,
                        AT_SYMLINK_NOFOLLOW);
    if (done < 0 && errno == ENOSYS)
        return -EAGAIN;
    return changed_by_name(dir_fd, name, neg_errno(done), c);
}

static int chmod_by_fd(int fd, void *a)
{
    const struct attr_change *c = a;
    return neg_errno(chmod(proc_link_of(fd).path, c->mode));
}

static int local_chmod(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path, mode_t mode, int at)
{
    struct attr_change c = {.mode = mode};
    struct inode_op op = {chmod_by_name, chmod_by_fd, &c};
    return attr_changed(&c, on_inode(inst, cred, path, at, &op));
}

static int chown_by_name(int dir_fd, const char *name, int at, void *a)
{
    struct attr_change *c = a;
    int rc = may_change_name(dir_fd, name, at);
    if (rc < 0)
        return rc;
    rc = neg_errno(fchownat(dir_fd, name, c->uid, c->gid,
                            AT_SYMLINK_NOFOLLOW));
    return changed_by_name(dir_fd, name, rc, c);
}

static int chown_by_fd(int fd, void *a)
{
    const struct attr_change *c = a;
    return neg_errno(fchownat(fd, "", c->uid, c->gid, AT_EMPTY_PATH));
}

static int local_chown(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path, uid_t uid, gid_t gid, int at)
{
    struct attr_change c = {.uid = uid, .gid = gid};
    struct inode_op op = {chown_by_name, chown_by_fd, &c};
    return attr_changed(&c, on_inode(inst, cred, path, at, &op));
}

static int utimens_by_name(int dir_fd, const char *name, int at, void *a)
{
    int rc = may_change_name(dir_fd, name, at);
    return rc < 0 ? rc
                  : neg_errno(utimensat(dir_fd, name, a, AT_SYMLINK_NOFOLLOW));
}

static int utimens_by_fd(int fd, void *a)
{
    return neg_errno(utimensat(fd, "", a, AT_EMPTY_PATH));
}

static int local_utimens(struct ls_instance *inst, const struct ls_cred *cred,
                         const char *path, const struct timespec ts[2], int at)
{
    struct inode_op op = {utimens_by_name, utimens_by_fd, (void *)ts};
    return on_inode(inst, cred, path, at, &op);
}

static int local_truncate(struct ls_instance *inst, const struct ls_cred *cred,
                          const char *path, off_t len)
{
    int fd = enter_inode(inst, cred, path, 0, 0);
    if (fd < 0)
        return fd;
    int rc = neg_errno(truncate(proc_link_of(fd).path, len));
    close(fd);
    return rc;
}

static int local_statfs(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *path, struct danaus_statfs *out)
{
    int fd = enter_inode(inst, cred, path, 0, 0);
    if (fd < 0)
        return fd;
    int rc = statfs_fd(fd, out);
    close(fd);
    return rc;
}

/* getxattrat, listxattrat, setxattrat and removexattrat (Linux 6.13) read
 * and change a name's xattrs from its parent's handle, without the O_PATH
 * open and /proc link the older calls need. glibc 2.36 has none of them;
 * their numbers are the same on every architecture. Measured here: with
 * AT_SYMLINK_NOFOLLOW they read and change a symlink's own xattrs (user.
 * ones on a link: EPERM, as lsetxattr), and give ENODATA, ERANGE, EEXIST
 * and a size query as the path calls do; on an O_PATH fd with
 * AT_EMPTY_PATH, EBADF, so a path only the walk can find keeps the /proc
 * link. A kernel without them (ENOSYS, noted once) takes the walk every
 * time. */
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif
#ifndef SYS_listxattrat
#define SYS_listxattrat 465
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif

struct xattr_at_args {
    uint64_t value;
    uint32_t size;
    uint32_t flags;
};

static _Atomic bool xattrs_at_missing;

/* Whether an *xattrat call may act on name from dir_fd: 0, or -EAGAIN
 * for the walk's way (a kernel without them, a symlink to follow), or
 * -errno. */
static int xattr_at_ready(int dir_fd, const char *name, int at)
{
    if (atomic_load_explicit(&xattrs_at_missing, memory_order_relaxed))
        return -EAGAIN;
    return may_change_name(dir_fd, name, at);
}

/* Whether the kernel has the *xattrat call that returned n: one without
 * them is noted, so later calls take the walk at once. */
static bool xattr_at_there(long n)
{
    if (n >= 0 || errno != ENOSYS)
        return true;
    atomic_store_explicit(&xattrs_at_missing, true, memory_order_relaxed);
    return false;
}

/* One xattr read: name's value, or (name NULL) the list; got its size or
 * -errno. */
struct xattr_read {
    const char *name;
    void *value;
    size_t size;
    ssize_t got;
};

static int xattr_by_name(int dir_fd, const char *name, int at, void *a)
{
    struct xattr_read *x = a;
    int rc = xattr_at_ready(dir_fd, name, at);
    if (rc < 0)
        return rc;
    uint32_t size = x->size > UINT32_MAX ? UINT32_MAX : (uint32_t)x->size;
    struct xattr_at_args args = {(uintptr_t)x->value, size, 0};
    long n = x->name ? syscall(SYS_getxattrat, dir_fd, name,
                               AT_SYMLINK_NOFOLLOW, x->name, &args,
                               sizeof args)
                     : syscall(SYS_listxattrat, dir_fd, name,
                               AT_SYMLINK_NOFOLLOW, x->value, x->size);
    if (!xattr_at_there(n))
        return -EAGAIN;
    x->got = n < 0 ? -errno : n;
    return 0;
}

static int xattr_by_fd(int fd, void *a)
{
    struct xattr_read *x = a;
    struct proc_link link = proc_link_of(fd);
    x->got = neg_errno_size(
        x->name ? getxattr(link.path, x->name, x->value, x->size)
                : listxattr(link.path, x->value, x->size));
    return 0;
}

static ssize_t local_getxattr(struct ls_instance *inst,
                              const struct ls_cred *cred, const char *path,
                              const char *name, void *value, size_t size,
                              int at)
{
    struct xattr_read x = {name, value, size, 0};
    struct inode_op op = {xattr_by_name, xattr_by_fd, &x};
    int rc = on_inode(inst, cred, path, at, &op);
    return rc < 0 ? rc : x.got;
}

/* One xattr change: name set to value (size bytes, setxattr's flags), or
 * removed. */
struct xattr_write {
    const char *name;
    const void *value;
    size_t size;
    int flags;
    bool remove;
};

static int xattr_change_by_name(int dir_fd, const char *name, int at,
                                void *a)
{
    const struct xattr_write *x = a;
    if (x->size > UINT32_MAX)
        return -E2BIG;
    int rc = xattr_at_ready(dir_fd, name, at);
    if (rc < 0)
        return rc;
    struct xattr_at_args args = {(uintptr_t)x->value, (uint32_t)x->size,
                                 (uint32_t)x->flags};
    long done = x->remove ? syscall(SYS_removexattrat, dir_fd, name,
                                    AT_SYMLINK_NOFOLLOW, x->name)
                          : syscall(SYS_setxattrat, dir_fd, name,
                                    AT_SYMLINK_NOFOLLOW, x->name, &args,
                                    sizeof args);
    return xattr_at_there(done) ? neg_errno(done) : -EAGAIN;
}

static int xattr_change_by_fd(int fd, void *a)
{
    const struct xattr_write *x = a;
    struct proc_link link = proc_link_of(fd);
    return neg_errno(x->remove ? removexattr(link.path, x->name)
                               : setxattr(link.path, x->name, x->value,
                                          x->size, x->flags));
}

static int local_setxattr(struct ls_instance *inst, const struct ls_cred *cred,
                          const char *path, const char *name,
                          const void *value, size_t size, int xflags, int at)
{
    struct xattr_write x = {name, value, size, xflags, false};
    struct inode_op op = {xattr_change_by_name, xattr_change_by_fd, &x};
    return changed(on_inode(inst, cred, path, at, &op));
}

static ssize_t local_listxattr(struct ls_instance *inst,
                               const struct ls_cred *cred, const char *path,
                               char *list, size_t size, int at)
{
    struct xattr_read x = {NULL, list, size, 0};
    struct inode_op op = {xattr_by_name, xattr_by_fd, &x};
    int rc = on_inode(inst, cred, path, at, &op);
    return rc < 0 ? rc : x.got;
}

static int local_removexattr(struct ls_instance *inst,
                             const struct ls_cred *cred, const char *path,
                             const char *name, int at)
{
    struct xattr_write x = {name, NULL, 0, 0, true};
    struct inode_op op = {xattr_change_by_name, xattr_change_by_fd, &x};
    return changed(on_inode(inst, cred, path, at, &op));
}

/* ---- operations on a name ---- */

/* Take on the client's identity and resolve the parent of path. */
static int enter_name(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, struct local_name *out)
{
    struct local_instance *li = local(inst);
    int rc = enter(li, cred);
    if (rc < 0)
        return rc;
    return name_in_root(li, path, out);
}

static int local_mkdir(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path, mode_t mode)
{
    struct local_name n;
    int rc = enter_name(inst, cred, path, &n);
    if (rc < 0)
        return rc;
    if (n.kind == LOCAL_LAST_NAME)
        rc = neg_errno(mkdirat(n.dir_fd, n.name, mode));
    else
        rc = -EEXIST;
    local_name_release(&n);
    return rc;
}

static int local_mknod(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path, mode_t mode, dev_t dev)
{
    struct local_name n;
    int rc = enter_name(inst, cred, path, &n);
    if (rc < 0)
        return rc;
    if (n.kind == LOCAL_LAST_NAME)
        rc = neg_errno(mknodat(n.dir_fd, n.name, mode, dev));
    else
        rc = -EEXIST;
    local_name_release(&n);
    return rc;
}

static int local_rmdir(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path)
{
    struct local_name n;
    int rc = enter_name(inst, cred, path, &n);
    if (rc < 0)
        return rc;
    switch (n.kind) {
    case LOCAL_LAST_NAME:
        rc = neg_errno(unlinkat(n.dir_fd, n.name, AT_REMOVEDIR));
        if (rc == 0)
            local_dirs_removed(path);
        break;
    case LOCAL_LAST_DOT:
        rc = -EINVAL;
        break;
    case LOCAL_LAST_DOTDOT:
        rc = -ENOTEMPTY;
        break;
    case LOCAL_LAST_ROOT:
        rc = -EBUSY;
        break;
    }
    local_name_release(&n);
    return rc;
}

static int local_unlink(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *path)
{
    struct local_name n;
    int rc = enter_name(inst, cred, path, &n);
    if (rc < 0)
        return rc;
    if (n.kind == LOCAL_LAST_NAME)
        rc = neg_errno(unlinkat(n.dir_fd, n.name, 0));
    else
        rc = -EISDIR;
    if (rc == 0)
        local_dirs_unlinked();
    local_name_release(&n);
    return rc;
}

static int local_rename(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *from, const char *to, unsigned flags)
{
    struct local_name src, dst;
    int rc = enter_name(inst, cred, from, &src);
    if (rc < 0)
        return rc;
    rc = name_in_root(local(inst), to, &dst);
    if (rc < 0) {
        local_name_release(&src);
        return rc;
    }
    /* The kernel's order: a special source is EBUSY; a special target is
     * EEXIST under RENAME_NOREPLACE and EBUSY otherwise. */
    if (src.kind != LOCAL_LAST_NAME)
        rc = -EBUSY;
    else if (dst.kind != LOCAL_LAST_NAME)
        rc = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
    else
        rc = changed(neg_errno(
            renameat2(src.dir_fd, src.name, dst.dir_fd, dst.name, flags)));
    local_name_release(&dst);
    local_name_release(&src);
    return rc;
}

static int local_link(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *existing, const char *newpath)
{
    struct local_name src, dst;
    int rc = enter_name(inst, cred, existing, &src);
    if (rc < 0)
        return rc;
    rc = name_in_root(local(inst), newpath, &dst);
    if (rc < 0) {
        local_name_release(&src);
        return rc;
    }
    /* "x/.", "x/.." and the root are directories, which cannot be linked. */
    if (dst.kind != LOCAL_LAST_NAME)
        rc = -EEXIST;
    else if (src.kind != LOCAL_LAST_NAME)
        rc = -EPERM;
    else
        rc = neg_errno(linkat(src.dir_fd, src.name, dst.dir_fd, dst.name, 0));
    local_name_release(&dst);
    local_name_release(&src);
    return rc;
}

/* The target is stored as given; it is only ever followed inside the root. */
static int local_symlink(struct ls_instance *inst, const struct ls_cred *cred,
                         const char *target, const char *linkpath)
{
    struct local_name n;
    int rc = enter_name(inst, cred, linkpath, &n);
    if (rc < 0)
        return rc;
    if (n.kind == LOCAL_LAST_NAME)
        rc = neg_errno(symlinkat(target, n.dir_fd, n.name));
    else
        rc = -EEXIST;
    local_name_release(&n);
    return rc;
}

static ssize_t local_readlink(struct ls_instance *inst,
                              const struct ls_cred *cred, const char *path,
                              char *buf, size_t size)
{
    struct local_name n;
    int rc = enter_name(inst, cred, path, &n);
    if (rc < 0)
        return rc;
    ssize_t got = -EINVAL; /* ".", ".." and the root are not symlinks */
    if (n.kind == LOCAL_LAST_NAME)
        got = neg_errno_size(readlinkat(n.dir_fd, n.name, buf, size));
    local_name_release(&n);
    return got;
}

static void local_destroy(struct ls_instance *inst)
{
    struct local_instance *li = local(inst);
    local_dirs_forget(li->root_fd);
    close(li->root_fd);
    if (li->sealed_root >= 0) {
        local_dirs_forget(li->sealed_root);
        close(li->sealed_root);
    }
    free(li);
}

static const struct ls_ops local_ops = {
    .name = "local",
    .open = local_open,
    .close = local_close,
    .cache_hold = local_cache_hold,
    .write_fd = local_write_fd,
    .reader_fd = local_reader_fd,
    .pread = local_pread,
    .pwrite = local_pwrite,
    .fsync = local_fsync,
    .ftruncate = local_ftruncate,
    .fallocate = local_fallocate,
    .fstat = local_fstat,
    .fchmod = local_fchmod,
    .fchown = local_fchown,
    .futimens = local_futimens,
    .fstatfs = local_fstatfs,
    .getdents = local_getdents,
    .stat_in = local_stat_in,
    .fgetxattr = local_fgetxattr,
    .fsetxattr = local_fsetxattr,
    .flistxattr = local_flistxattr,
    .fremovexattr = local_fremovexattr,
    .stat = local_stat,
    .access = local_access,
    .mkdir = local_mkdir,
    .mknod = local_mknod,
    .rmdir = local_rmdir,
    .unlink = local_unlink,
    .rename = local_rename,
    .link = local_link,
    .symlink = local_symlink,
    .readlink = local_readlink,
    .chmod = local_chmod,
    .chown = local_chown,
    .utimens = local_utimens,
    .truncate = local_truncate,
    .statfs = local_statfs,
    .getxattr = local_getxattr,
    .setxattr = local_setxattr,
    .listxattr = local_listxattr,
    .removexattr = local_removexattr,
    .seal = local_seal,
    .destroy = local_destroy,
};

struct ls_instance *local_instance_new(const char *root_dir, char *err,
                                       size_t errlen)
{
    /* Relative to danausd's own directory, it would mean nothing to the
     * operator who wrote it. */
    if (root_dir[0] != '/') {
        snprintf(err, errlen,
                 "local backend: source '%s' must be an absolute path",
                 root_dir);
        return NULL;
    }
    int root_fd = open(root_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        snprintf(err, errlen, "local backend: cannot open root %s: %s",
                 root_dir, strerror(errno));
        return NULL;
    }
    int probe = local_open_in_root(root_fd, NULL, "", O_PATH | O_CLOEXEC, 0);
    if (probe < 0) {
        snprintf(err, errlen,
                 "local backend: openat2(RESOLVE_IN_ROOT) on %s failed: %s%s",
                 root_dir, strerror(-probe),
                 probe == -ENOSYS ? " (Linux >= 5.6 needed)" : "");
        close(root_fd);
        return NULL;
    }
    close(probe);

    struct local_instance *li = calloc(1, sizeof *li);
    if (!li) {
        snprintf(err, errlen, "local backend: out of memory");
        close(root_fd);
        return NULL;
    }
    li->base.ops = &local_ops;
    li->base.kernel_name_space = true;
    li->root_fd = root_fd;
    li->sealed_root = -1;
    li->switch_creds = local_cred_can_switch();
    return &li->base;
}

static struct ls_instance *backend_instance_new(struct ls_backend *b,
                                                const char *source, char *err,
                                                size_t errlen)
{
    return local_instance_new(source, err, errlen);
}

static int backend_enable_cache(struct ls_backend *b,
                                const struct ls_change_sink *sink)
{
    return local_backend_enable_cache(sink);
}

/* "local": needs no start and keeps nothing per client. */
struct ls_backend local_backend = {
    .name = "local",
    .instance_new = backend_instance_new,
    .enable_cache = backend_enable_cache,
};
