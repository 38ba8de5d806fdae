/*
 * fuse_ops.c - the FUSE door's operations: each FUSE request becomes one
 * libservice call on the exported instance, with the requester's
 * credentials (fuse_cred.c).
 *
 * libfuse's high-level API hands us absolute paths inside the mount
 * ("/a/b"); the instance wants them relative ("a/b", "" for the root).
 * Every result is already 0 or -errno, as FUSE wants. Attributes and
 * readdir's d_ino come from the exported instance unchanged, with use_ino
 * set (fuse_door.c), so inode numbers, sizes, times and modes read through
 * FUSE are those the preload path reads: a union's own answer (the st_ino a
 * copy-up keeps, libservice/union/origin.c), not its branches'.
 */
#include "fuse_export.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

static struct fuse_export *current_export(void)
{
    return fuse_get_context()->private_data;
}

/* The instance-relative form of a FUSE path. */
static const char *rel(const char *path)
{
    while (*path == '/')
        path++;
    return path;
}

static struct ls_file *file_of(const struct fuse_file_info *fi)
{
    return (struct ls_file *)(uintptr_t)fi->fh;
}

/* Declares ex, inst and cred for an operation, or fails it with ENOMEM,
 * or with EACCES for a user the door does not serve (fuse_cred.h). */
#define BEGIN                                                   \
    struct fuse_export *ex = current_export();                  \
    struct ls_instance *inst = ex->inst;                        \
    const struct ls_cred *cred = fuse_cred_current(ex->creds);  \
    (void)inst;                                                 \
    if (!cred)                                                  \
        return -ENOMEM;                                         \
    if (!fuse_cred_admitted(ex->creds, cred))                   \
        return -EACCES

static void to_stat(const struct danaus_stat *d, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_dev = d->dev;
    st->st_ino = d->ino;
    st->st_nlink = d->nlink;
    st->st_mode = d->mode;
    st->st_uid = d->uid;
    st->st_gid = d->gid;
    st->st_rdev = d->rdev;
    st->st_size = d->size;
    st->st_blksize = d->blksize;
    st->st_blocks = d->blocks;
    st->st_atim = (struct timespec){d->atime_sec, d->atime_nsec};
    st->st_mtim = (struct timespec){d->mtime_sec, d->mtime_nsec};
    st->st_ctim = (struct timespec){d->ctime_sec, d->ctime_nsec};
}

static int op_getattr(const char *path, struct stat *st,
                      struct fuse_file_info *fi)
{
    BEGIN;
    struct danaus_stat d;
    int rc = fi ? inst->ops->fstat(file_of(fi), cred, &d)
                : inst->ops->stat(inst, cred, rel(path), AT_SYMLINK_NOFOLLOW,
                                  &d);
    if (rc == 0)
        to_stat(&d, st);
    return rc;
}

static int op_access(const char *path, int mask)
{
    BEGIN;
    return inst->ops->access(inst, cred, rel(path), mask, 0);
}

static int op_readlink(const char *path, char *buf, size_t size)
{
    BEGIN;
    if (size == 0)
        return -EINVAL;
    ssize_t n = inst->ops->readlink(inst, cred, rel(path), buf, size - 1);
    if (n < 0)
        return (int)n;
    buf[n] = '\0';
    return 0;
}

static int op_mkdir(const char *path, mode_t mode)
{
    BEGIN;
    return inst->ops->mkdir(inst, cred, rel(path), mode);
}

/* The kernel has checked the type (and CAP_MKNOD for devices) and applied
 * the umask; the backend checks them again for the preload path. */
static int op_mknod(const char *path, mode_t mode, dev_t dev)
{
    BEGIN;
    return inst->ops->mknod(inst, cred, rel(path), mode, dev);
}

static int op_unlink(const char *path)
{
    BEGIN;
    return inst->ops->unlink(inst, cred, rel(path));
}

static int op_rmdir(const char *path)
{
    BEGIN;
    return inst->ops->rmdir(inst, cred, rel(path));
}

static int op_symlink(const char *target, const char *linkpath)
{
    BEGIN;
    return inst->ops->symlink(inst, cred, target, rel(linkpath));
}

/* After a rename through FUSE, open files keep the path FUSE now knows
 * them by (their entry or a directory above it moved). */
static void rename_open_files(struct fuse_export *ex, const char *from,
                              const char *to)
{
    size_t lf = strlen(from);
    pthread_mutex_lock(&ex->open_lock);
    for (struct fuse_open_file *o = ex->open; o; o = o->next) {
        if (strncmp(o->path, from, lf) != 0 ||
            (o->path[lf] != '\0' && o->path[lf] != '/'))
            continue;
        size_t lt = strlen(to), rest = strlen(o->path + lf);
        char *p = malloc(lt + rest + 1);
        if (!p)
            continue;
        memcpy(p, to, lt);
        memcpy(p + lt, o->path + lf, rest + 1);
        free(o->path);
        o->path = p;
    }
    pthread_mutex_unlock(&ex->open_lock);
}

static int op_rename(const char *from, const char *to, unsigned flags)
{
    BEGIN;
    int rc = inst->ops->rename(inst, cred, rel(from), rel(to), flags);
    if (rc == 0 && atomic_load(&ex->nopen) > 0)
        rename_open_files(ex, from, to);
    return rc;
}

static int op_link(const char *existing, const char *newpath)
{
    BEGIN;
    return inst->ops->link(inst, cred, rel(existing), rel(newpath));
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    BEGIN;
    return fi ? inst->ops->fchmod(file_of(fi), cred, mode)
              : inst->ops->chmod(inst, cred, rel(path), mode, 0);
}

static int op_chown(const char *path, uid_t uid, gid_t gid,
                    struct fuse_file_info *fi)
{
    BEGIN;
    /* FUSE names the very inode to change: a symbolic link itself when
     * lchown reached us. */
    return fi ? inst->ops->fchown(file_of(fi), cred, uid, gid)
              : inst->ops->chown(inst, cred, rel(path), uid, gid,
                                 AT_SYMLINK_NOFOLLOW);
}

static int op_truncate(const char *path, off_t len, struct fuse_file_info *fi)
{
    BEGIN;
    return fi ? inst->ops->ftruncate(file_of(fi), cred, len)
              : inst->ops->truncate(inst, cred, rel(path), len);
}

static int op_utimens(const char *path, const struct timespec ts[2],
                      struct fuse_file_info *fi)
{
    BEGIN;
    return fi ? inst->ops->futimens(file_of(fi), cred, ts)
              : inst->ops->utimens(inst, cred, rel(path), ts,
                                   AT_SYMLINK_NOFOLLOW);
}

/* Lists an open file for fuse_door_data_changed. */
static int remember_open(struct fuse_export *ex, const struct ls_cred *cred,
                         const char *path, struct ls_file *file, bool exec)
{
    struct danaus_stat d;
    int rc = ex->inst->ops->fstat(file, cred, &d);
    if (rc < 0)
        return rc;
    struct fuse_open_file *o = malloc(sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        return -ENOMEM;
    }
    o->file = file;
    o->ino = d.ino;
    o->exec = exec;
    pthread_mutex_lock(&ex->open_lock);
    o->next = ex->open;
    ex->open = o;
    atomic_fetch_add(&ex->nopen, 1);
    if (exec)
        atomic_fetch_add(&ex->nexec, 1);
    pthread_mutex_unlock(&ex->open_lock);
    return 0;
}

static void forget_open(struct fuse_export *ex, struct ls_file *file)
{
    pthread_mutex_lock(&ex->open_lock);
    for (struct fuse_open_file **p = &ex->open; *p; p = &(*p)->next) {
        if ((*p)->file != file)
            continue;
        struct fuse_open_file *o = *p;
        *p = o->next;
        atomic_fetch_sub(&ex->nopen, 1);
        if (o->exec)
            atomic_fetch_sub(&ex->nexec, 1);
        free(o->path);
        free(o);
        break;
    }
    pthread_mutex_unlock(&ex->open_lock);
}

/* The kernel's mark on the open of a program it is about to run
 * (asm-generic/fcntl.h: "FMODE_EXEC is 0x20"), which FUSE passes on. */
#define KERNEL_FMODE_EXEC 0x20

static int open_common(const char *path, struct fuse_file_info *fi, int flags,
                       mode_t mode)
{
    BEGIN;
    struct ls_file *file;
    int rc = inst->ops->open(inst, cred, rel(path), flags, mode, &file);
    if (rc < 0)
        return rc;
    rc = remember_open(ex, cred, path, file, fi->flags & KERNEL_FMODE_EXEC);
    if (rc < 0) {
        inst->ops->close(file);
        return rc;
    }
    fi->fh = (uint64_t)(uintptr_t)file;
    /* Appends land where the backend says the end is, which the kernel's
     * cached size may not know: such files bypass the page cache. */
    fi->direct_io = ex->direct_io || (flags & O_APPEND);
    fi->keep_cache = 0;
    return 0;
}

/* The open flags a backend is given. The kernel also sends its own bits
 * (O_LARGEFILE, __FMODE_EXEC for execve), which the local backend's
 * openat2 rejects with EINVAL; and O_DIRECT would make the backend demand
 * aligned I/O that the page cache above does not promise. */
#define BACKEND_OPEN_FLAGS                                                 \
    (O_ACCMODE | O_APPEND | O_TRUNC | O_NONBLOCK | O_SYNC | O_DSYNC |      \
     O_NOATIME)

static int op_open(const char *path, struct fuse_file_info *fi)
{
    return open_common(path, fi, fi->flags & BACKEND_OPEN_FLAGS, 0);
}

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    return open_common(path, fi,
                       (fi->flags & (BACKEND_OPEN_FLAGS | O_EXCL)) | O_CREAT,
                       mode);
}

static int op_read(const char *path, char *buf, size_t n, off_t off,
                   struct fuse_file_info *fi)
{
    BEGIN;
    return (int)inst->ops->pread(file_of(fi), cred, buf, n, off);
}

static int op_write(const char *path, const char *buf, size_t n, off_t off,
                    struct fuse_file_info *fi)
{
    BEGIN;
    off_t end;
    return (int)inst->ops->pwrite(file_of(fi), cred, buf, n,
                                  (fi->flags & O_APPEND) ? -1 : off, &end);
}

/* Mode 0 only, as the preload's fallocate (libfs/api/fdctl.c): a file
 * shorter than off + len gets a zero as the range's last byte, which
 * extends it with zeros; the kernel has checked the descriptor. */
static int op_fallocate(const char *path, int mode, off_t off, off_t len,
                        struct fuse_file_info *fi)
{
    BEGIN;
    if (mode != 0)
        return -EOPNOTSUPP;
    struct danaus_stat d;
    int rc = inst->ops->fstat(file_of(fi), cred, &d);
    if (rc < 0 || d.size >= off + len)
        return rc;
    static const char zero;
    off_t end;
    ssize_t n = inst->ops->pwrite(file_of(fi), cred, &zero, 1, off + len - 1,
                                  &end);
    return n < 0 ? (int)n : 0;
}

static int op_statfs(const char *path, struct statvfs *out)
{
    BEGIN;
    struct danaus_statfs s;
    int rc = inst->ops->statfs(inst, cred, rel(path), &s);
    if (rc < 0)
        return rc;
    memset(out, 0, sizeof *out);
    out->f_bsize = s.bsize;
    out->f_frsize = s.frsize;
    out->f_blocks = s.blocks;
    out->f_bfree = s.bfree;
    out->f_bavail = s.bavail;
    out->f_files = s.files;
    out->f_ffree = s.ffree;
    out->f_favail = s.favail;
    out->f_fsid = s.fsid;
    out->f_namemax = s.namelen;
    out->f_flag = s.flags;
    return 0;
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
    struct fuse_export *ex = current_export();
    forget_open(ex, file_of(fi));
    ex->inst->ops->close(file_of(fi));
    return 0;
}

static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    BEGIN;
    return inst->ops->fsync(file_of(fi), cred, datasync);
}

static int op_setxattr(const char *path, const char *name, const char *value,
                       size_t size, int flags)
{
    BEGIN;
    return inst->ops->setxattr(inst, cred, rel(path), name, value, size,
                               flags, AT_SYMLINK_NOFOLLOW);
}

static int op_getxattr(const char *path, const char *name, char *value,
                       size_t size)
{
    BEGIN;
    return (int)inst->ops->getxattr(inst, cred, rel(path), name, value, size,
                                    AT_SYMLINK_NOFOLLOW);
}

static int op_listxattr(const char *path, char *list, size_t size)
{
    BEGIN;
    return (int)inst->ops->listxattr(inst, cred, rel(path), list, size,
                                     AT_SYMLINK_NOFOLLOW);
}

static int op_removexattr(const char *path, const char *name)
{
    BEGIN;
    return inst->ops->removexattr(inst, cred, rel(path), name,
                                  AT_SYMLINK_NOFOLLOW);
}

static int op_opendir(const char *path, struct fuse_file_info *fi)
{
    BEGIN;
    struct ls_file *dir;
    int rc = inst->ops->open(inst, cred, rel(path), O_RDONLY | O_DIRECTORY, 0,
                             &dir);
    if (rc == 0)
        fi->fh = (uint64_t)(uintptr_t)dir;
    return rc;
}

/* Entries from cookie off on, each passed with its own cookie so that the
 * kernel resumes exactly after the last one it accepted. */
static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
                      off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags)
{
    BEGIN;
    char records[16384] __attribute__((aligned(8)));
    off_t pos = off;
    for (;;) {
        ssize_t n = inst->ops->getdents(file_of(fi), cred, records,
                                        sizeof records, &pos);
        if (n <= 0)
            return (int)n;
        for (ssize_t at = 0; at < n;) {
            const struct danaus_dirent *e =
                (const struct danaus_dirent *)(records + at);
            struct stat st;
            memset(&st, 0, sizeof st);
            st.st_ino = e->d_ino;
            st.st_mode = DTTOIF(e->d_type);
            if (fill(buf, e->d_name, &st, e->d_off, 0))
                return 0;
            at += e->d_reclen;
        }
    }
}

static int op_releasedir(const char *path, struct fuse_file_info *fi)
{
    current_export()->inst->ops->close(file_of(fi));
    return 0;
}

static int op_fsyncdir(const char *path, int datasync,
                       struct fuse_file_info *fi)
{
    BEGIN;
    return inst->ops->fsync(file_of(fi), cred, datasync);
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    struct fuse_export *ex = current_export();
    /* Attributes and names are never cached by the kernel: the preload
     * path changes them without telling it. Data pages are (unless
     * fuse_direct_io), and fuse_door_data_changed drops them. */
    cfg->use_ino = 1;
    cfg->entry_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->attr_timeout = 0;
    cfg->kernel_cache = 0;
    cfg->auto_cache = 0;
    cfg->direct_io = ex->direct_io;
    /* Unlinked open files stay readable in every backend; no .fuse_hidden
     * renames, which the preload path would see. */
    cfg->hard_remove = 1;
    cfg->nullpath_ok = 1;
    /* Only on request: with attributes never cached, auto_inval_data makes
     * the kernel ask the service for them before every cached read (43x
     * ceph-fuse's time for a 4 KiB read, measured). The doors stay
     * coherent without it (FUSE writes update the pages, preload writes
     * and truncates drop them, every open drops them); what it adds is
     * noticing a same-size overwrite by a writer outside this service (an
     * other Ceph client) on a file held open through FUSE. */
    if (ex->revalidate)
        conn->want |= conn->capable & FUSE_CAP_AUTO_INVAL_DATA;
    else
        conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
    return ex;
}

const struct fuse_operations fuse_export_ops = {
    .getattr = op_getattr,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .chmod = op_chmod,
    .chown = op_chown,
    .truncate = op_truncate,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .statfs = op_statfs,
    .release = op_release,
    .fsync = op_fsync,
    .setxattr = op_setxattr,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
    .removexattr = op_removexattr,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .releasedir = op_releasedir,
    .fsyncdir = op_fsyncdir,
    .init = op_init,
    .access = op_access,
    .create = op_create,
    .utimens = op_utimens,
    .fallocate = op_fallocate,
};
