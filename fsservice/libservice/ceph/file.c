/*
 * file.c - open files and directories of the CephFS libservice.
 *
 * A regular file is a Ceph file handle (Fh) from ceph_ll_open/ceph_ll_create;
 * a directory is a ceph_dir_result from ceph_ll_opendir. Both keep a
 * reference on their inode until close.
 *
 * Appends: Ceph's Client::_write takes an offset < 0 to mean "at the handle's
 * position", and when the handle was opened with O_APPEND it first moves that
 * position to the end of the file (measured: ll_write(-1) on a handle without
 * O_APPEND writes at position 0). So every writable handle is opened with
 * O_APPEND, which leaves writes at an explicit offset where they are
 * (measured), and pwrite(off < 0) becomes ll_write(-1); the handle's position
 * after it is the end the caller gets.
 *
 * Directory cookies: d_off is Ceph's telldir value after the entry (1 after
 * ".", 2 after "..", then hash-ordered values Ceph gives), which seekdir
 * accepts back; 0 is the start. Ceph lists "." and ".." itself.
 */
#include "ceph.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct ceph_file *cfile(struct ls_file *f)
{
    return (struct ceph_file *)f;
}

static struct cephfs_client *fclient(struct ls_file *f)
{
    return ceph_inst(f->inst)->client;
}

static int new_file(struct ls_instance *inst, struct Inode *in, int is_dir,
                    int flags, struct ceph_file **out)
{
    struct ceph_file *cf = calloc(1, sizeof(*cf));
    if (cf == NULL)
        return -ENOMEM;
    cf->base.inst = inst;
    cf->base.is_dir = is_dir;
    cf->in = in;
    cf->flags = flags;
    pthread_mutex_init(&cf->lock, NULL);
    pthread_mutex_init(&cf->deleg_lock, NULL);
    *out = cf;
    return 0;
}

static void free_file(struct ceph_file *cf)
{
    pthread_mutex_destroy(&cf->lock);
    pthread_mutex_destroy(&cf->deleg_lock);
    free(cf);
}

/* Flags for ceph_ll_open/create: see the note on appends above. */
static int ceph_open_flags(int flags)
{
    int f = flags & (O_ACCMODE | O_TRUNC);
    if ((flags & O_ACCMODE) != O_RDONLY)
        f |= O_APPEND;
    return f;
}

/* What opening an inode needs to know of it. */
#define OPEN_WANT                                                              \
    (CEPH_STATX_MODE | CEPH_STATX_UID | CEPH_STATX_GID | CEPH_STATX_INO |     \
     CEPH_STATX_SIZE)

/* O_PATH: a reference on the inode and nothing more, whatever its type and
 * its permissions, as Linux's O_PATH; the service lets only fstat, fstatfs,
 * dup and close reach it. Takes over the reference on in; known as for
 * open_inode. */
static int open_path_only(struct ls_instance *inst, const struct ls_cred *cred,
                          struct Inode *in, const struct ceph_statx *known,
                          int flags, struct ls_file **out)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct ceph_statx stx;
    int r = 0;
    if (known)
        stx = *known;
    else
        r = ceph_ll_getattr(ci->client->cmount, in, &stx, CEPH_STATX_MODE, 0,
                            ceph_perm(cred));
    if (r == 0 && (flags & O_DIRECTORY) && !S_ISDIR(stx.stx_mode))
        r = -ENOTDIR;
    struct ceph_file *cf = NULL;
    if (r == 0)
        r = new_file(inst, in, S_ISDIR(stx.stx_mode), flags, &cf);
    if (r < 0) {
        ceph_inode_put(ci, in);
        return r;
    }
    *out = &cf->base;
    return 0;
}

/* Opens an inode that exists; takes over the reference on in. known: its
 * OPEN_WANT fields as the lookup that found it brought them, or NULL to
 * ask for them. */
static int open_inode(struct ls_instance *inst, const struct ls_cred *cred,
                      struct Inode *in, const struct ceph_statx *known,
                      int flags, struct ls_file **out)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct ceph_mount_info *cm = ci->client->cmount;
    struct ceph_statx stx;
    struct ceph_file *cf = NULL;
    int r = 0;
    if (known)
        stx = *known;
    else
        r = ceph_ll_getattr(cm, in, &stx, OPEN_WANT, 0, ceph_perm(cred));
    if (r < 0)
        goto fail;
    int accmode = flags & O_ACCMODE;
    if (S_ISLNK(stx.stx_mode)) {
        r = -ELOOP; /* O_NOFOLLOW, or a link made after the walk */
    } else if (S_ISDIR(stx.stx_mode)) {
        r = (accmode != O_RDONLY || (flags & O_TRUNC)) ? -EISDIR : 0;
    } else if (flags & O_DIRECTORY) {
        r = -ENOTDIR;
    } else if (!S_ISREG(stx.stx_mode)) {
        /* Devices, FIFOs, sockets: the client opens them through the
         * kernel (see ls_ops.open). */
        r = ceph_may_access(&stx, cred,
                            accmode == O_RDWR     ? R_OK | W_OK
                            : accmode == O_WRONLY ? W_OK
                                                  : R_OK);
        if (r == 0)
            r = LS_OPEN_SPECIAL;
    }
    if (r != 0)
        goto fail;
    r = new_file(inst, in, S_ISDIR(stx.stx_mode), flags, &cf);
    if (r < 0)
        goto fail;
    cf->base.ino = stx.stx_ino;
    if (cf->base.is_dir)
        r = ceph_ll_opendir(cm, in, &cf->dir, ceph_perm(cred));
    else
        r = ceph_ll_open(cm, in, ceph_open_flags(flags), &cf->fh,
                         ceph_perm(cred));
    if (r < 0)
        goto fail;
    /* What the truncate freed is this open file's to write again without
     * taking room (file.c's pwrite). */
    if (flags & O_TRUNC)
        atomic_store(&cf->known_end, stx.stx_size);
    *out = &cf->base;
    return 0;

fail:
    if (cf != NULL)
        free_file(cf);
    ceph_inode_put(ci, in);
    return r;
}

/*
 * O_CREAT: opens l's name, creating it unless it exists; takes over l's
 * reference. The walk has followed a last symlink already (a dangling one
 * names its target, which is created here, as Linux does), except under
 * O_EXCL (the link itself exists: EEXIST) and O_NOFOLLOW (ELOOP from
 * open_inode).
 */
static int open_create(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path, struct ceph_last *l, int flags,
                       mode_t mode, struct ls_file **out)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct ceph_mount_info *cm = ci->client->cmount;
    struct Inode *in;
    struct ceph_statx stx;
    int r = ceph_ll_lookup(cm, l->dir, l->name, &in, &stx, OPEN_WANT, 0,
                           ceph_perm(cred));
    if (r == 0) {
        ceph_inode_put(ci, l->dir);
        if (flags & O_EXCL) {
            ceph_ll_put(cm, in);
            return -EEXIST;
        }
        return open_inode(inst, cred, in, &stx, flags, out);
    }
    if (r != -ENOENT) {
        ceph_inode_put(ci, l->dir);
        return r;
    }
    struct ceph_file *cf;
    r = new_file(inst, NULL, 0, flags, &cf);
    if (r < 0) {
        ceph_inode_put(ci, l->dir);
        return r;
    }
    r = ceph_ll_create(cm, l->dir, l->name, mode & 07777,
                       ceph_open_flags(flags) | O_CREAT | O_EXCL, &cf->in,
                       &cf->fh, &stx, CEPH_STATX_INO, 0, ceph_perm(cred));
    ceph_inode_put(ci, l->dir);
    if (r < 0) {
        free_file(cf);
        /* Lost a race with another creator: without O_EXCL, open theirs. */
        if (r == -EEXIST && !(flags & O_EXCL))
            return ceph_file_open(inst, cred, path, flags & ~O_CREAT, mode,
                                  out);
        return r;
    }
    cf->base.ino = stx.stx_ino;
    *out = &cf->base;
    return 0;
}

int ceph_file_open(struct ls_instance *inst, const struct ls_cred *cred,
                   const char *path, int flags, mode_t mode,
                   struct ls_file **out)
{
    struct ceph_instance *ci = ceph_inst(inst);
    flags &= ~LS_OPEN_SEEN_REGULAR; /* nothing to look for first */
    if ((flags & O_ACCMODE) == O_ACCMODE)
        return -EINVAL;
    if (flags & O_CREAT) {
        struct ceph_last l;
        int follow = !(flags & (O_EXCL | O_NOFOLLOW));
        int r = ceph_walk_parent(ci, cred, path, follow, &l);
        if (r < 0)
            return r;
        /* As Linux: a trailing slash asks for a directory, which O_CREAT
         * does not make; "", "." and ".." are directories that exist. */
        if (l.slash || ceph_name_is_special(l.name)) {
            ceph_inode_put(ci, l.dir);
            return (flags & O_EXCL) && !l.slash ? -EEXIST : -EISDIR;
        }
        return open_create(inst, cred, path, &l, flags, mode, out);
    }
    struct Inode *in;
    struct ceph_statx stx;
    bool have_stx;
    int r = ceph_walk_stat(ci, cred, path, !(flags & O_NOFOLLOW), OPEN_WANT,
                           &in, &stx, &have_stx);
    if (r < 0)
        return r;
    const struct ceph_statx *known = have_stx ? &stx : NULL;
    if (flags & O_PATH)
        return open_path_only(inst, cred, in, known, flags, out);
    return open_inode(inst, cred, in, known, flags, out);
}

void ceph_file_close(struct ls_file *f)
{
    struct ceph_file *cf = cfile(f);
    struct ceph_mount_info *cm = fclient(f)->cmount;
    if (cf->dir != NULL)
        ceph_ll_releasedir(cm, cf->dir);
    if (cf->fh != NULL) {
        ceph_deleg_drop(cf);
        ceph_ll_close(cm, cf->fh);
    }
    ceph_inode_put(ceph_inst(f->inst), cf->in);
    free_file(cf);
}

ssize_t ceph_file_pread(struct ls_file *f, const struct ls_cred *cred,
                        void *buf, size_t n, off_t off)
{
    if (f->is_dir)
        return -EISDIR;
    if (off < 0)
        return -EINVAL;
    if (n > INT_MAX)
        n = INT_MAX; /* ceph_ll_read returns an int */
    return ceph_ll_read(fclient(f)->cmount, cfile(f)->fh, off, n, buf);
}

/* Ceph's Striper asserts on a write of 0 bytes (measured: the process
 * aborts), so an empty write never reaches it; it changes nothing. */
static ssize_t empty_write(struct ls_file *f, const struct ls_cred *cred,
                           off_t off, off_t *end)
{
    if ((cfile(f)->flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    if (end == NULL)
        return 0;
    if (off >= 0) {
        *end = off;
        return 0;
    }
    struct ceph_statx stx;
    int r = ceph_ll_getattr(fclient(f)->cmount, cfile(f)->in, &stx,
                            CEPH_STATX_SIZE, 0, ceph_perm(cred));
    if (r < 0)
        return r;
    *end = (off_t)stx.stx_size;
    return 0;
}

/* Whether n bytes at off (-1: the end) lie inside the file as this
 * client knows it (its cached size, which counts its own writes). */
static bool inside_file(struct ls_file *f, const struct ls_cred *cred,
                        off_t off, size_t n)
{
    struct ceph_statx stx;
    return off >= 0 &&
           ceph_ll_getattr(fclient(f)->cmount, cfile(f)->in, &stx,
                           CEPH_STATX_SIZE, AT_STATX_DONT_SYNC,
                           ceph_perm(cred)) == 0 &&
           (uint64_t)off + n <= stx.stx_size;
}

static void known_end_at_least(struct ceph_file *cf, uint64_t end)
{
    uint64_t known = atomic_load(&cf->known_end);
    while (known < end &&
           !atomic_compare_exchange_weak(&cf->known_end, &known, end))
        ;
}

ssize_t ceph_file_pwrite(struct ls_file *f, const struct ls_cred *cred,
                         const void *buf, size_t n, off_t off, off_t *end)
{
    struct ceph_file *cf = cfile(f);
    struct ceph_mount_info *cm = fclient(f)->cmount;
    if (f->is_dir)
        return -EISDIR;
    if (n > INT_MAX)
        n = INT_MAX; /* ceph_ll_write returns an int */
    if (n == 0)
        return empty_write(f, cred, off, end);
    /* What fits before the cluster is full, then ENOSPC (space.h). A
     * write inside the file takes no room: inside what this open file
     * wrote it is not counted (an overwriter would otherwise count its
     * rewrites as new bytes and run out of room it never took), and the
     * file's size is asked only when the room is short. */
    uint64_t room = cephfs_client_room(fclient(f));
    bool rewrite = off >= 0 && (uint64_t)off + n <= atomic_load(&cf->known_end);
    bool counted = !rewrite && (room >= n || !inside_file(f, cred, off, n));
    if (counted && room == 0)
        return -ENOSPC;
    if (counted && n > room)
        n = room;
    int killed = ceph_kill_privs(fclient(f), cf->in, cred);
    if (killed < 0)
        return killed;
    int r;
    if (off >= 0) {
        r = ceph_ll_write(cm, cf->fh, off, n, buf);
        if (r >= 0 && end != NULL)
            *end = off + r;
    } else {
        pthread_mutex_lock(&cf->lock);
        r = ceph_ll_write(cm, cf->fh, -1, n, buf);
        if (r >= 0 && end != NULL)
            *end = ceph_ll_lseek(cm, cf->fh, 0, SEEK_CUR);
        pthread_mutex_unlock(&cf->lock);
    }
    if (r > 0 && counted)
        cephfs_client_wrote(fclient(f), (uint64_t)r);
    if (r > 0 && off >= 0)
        known_end_at_least(cf, (uint64_t)off + (uint64_t)r);
    return r;
}

int ceph_file_fsync(struct ls_file *f, const struct ls_cred *cred,
                    int datasync)
{
    struct ceph_mount_info *cm = fclient(f)->cmount;
    if (f->is_dir)
        return ceph_ll_sync_inode(cm, cfile(f)->in, datasync);
    /* On a full cluster libcephfs fails writes with ENOSPC but its fsync
     * waits, for as long as the cluster stays full, for data it cannot
     * flush (seen with a memstore OSD at its full ratio): say ENOSPC now,
     * as a local file system would have at the write. */
    if (cephfs_client_full(fclient(f)))
        return -ENOSPC;
    return ceph_ll_fsync(cm, cfile(f)->fh, datasync);
}

/*
 * The permission to change the size was checked when the file was opened for
 * writing (ftruncate(2) does not check it again), so the mount's own
 * credentials carry the change: a file created 0444 can still be truncated
 * through the descriptor that created it.
 */
int ceph_file_ftruncate(struct ls_file *f, const struct ls_cred *cred,
                        off_t len)
{
    struct ceph_mount_info *cm = fclient(f)->cmount;
    if (f->is_dir || (cfile(f)->flags & O_ACCMODE) == O_RDONLY || len < 0)
        return -EINVAL;
    int r = ceph_kill_privs(fclient(f), cfile(f)->in, cred);
    if (r < 0)
        return r;
    /* Up to the larger of the two ends this open file may write without
     * taking room: below the new one it truncated to, and below the old
     * one what it freed (the size as this client knows it). */
    struct ceph_statx before;
    uint64_t end = (uint64_t)len;
    if (ceph_ll_getattr(cm, cfile(f)->in, &before, CEPH_STATX_SIZE,
                        AT_STATX_DONT_SYNC, ceph_perm(cred)) == 0 &&
        before.stx_size > end)
        end = before.stx_size;
    struct ceph_statx stx = {.stx_size = (uint64_t)len};
    r = ceph_setattr(fclient(f), cfile(f)->in, &stx, CEPH_SETATTR_SIZE,
                     ceph_mount_perms(cm));
    if (r == 0)
        atomic_store(&cfile(f)->known_end, end);
    return r;
}

/*
 * libcephfs.h documents mode 0, FALLOC_FL_KEEP_SIZE and FALLOC_FL_PUNCH_HOLE
 * (with KEEP_SIZE); other modes get libcephfs's own error. As with
 * ftruncate, the write permission was checked at open; the set-id bits go
 * as the kernel's fallocate drops them (file_modified).
 */
int ceph_file_fallocate(struct ls_file *f, const struct ls_cred *cred,
                        int mode, off_t off, off_t len)
{
    struct ceph_mount_info *cm = fclient(f)->cmount;
    int r = ceph_kill_privs(fclient(f), cfile(f)->in, cred);
    if (r < 0)
        return r;
    return ceph_ll_fallocate(cm, cfile(f)->fh, mode, off, len);
}

int ceph_file_fstat(struct ls_file *f, const struct ls_cred *cred,
                    struct danaus_stat *out)
{
    return ceph_do_stat(fclient(f), cfile(f)->in, cred, out);
}

int ceph_file_fchmod(struct ls_file *f, const struct ls_cred *cred,
                     mode_t mode)
{
    return ceph_do_chmod(fclient(f), cfile(f)->in, cred, mode);
}

int ceph_file_fchown(struct ls_file *f, const struct ls_cred *cred, uid_t uid,
                     gid_t gid)
{
    return ceph_do_chown(fclient(f), cfile(f)->in, cred, uid, gid);
}

int ceph_file_futimens(struct ls_file *f, const struct ls_cred *cred,
                       const struct timespec ts[2])
{
    return ceph_do_utimens(fclient(f), cfile(f)->in, cred, ts);
}

int ceph_file_fstatfs(struct ls_file *f, const struct ls_cred *cred,
                      struct danaus_statfs *out)
{
    return ceph_do_statfs(fclient(f), cfile(f)->in, out);
}

static size_t dirent_reclen(size_t namelen)
{
    size_t len = offsetof(struct danaus_dirent, d_name) + namelen + 1;
    return (len + 7) & ~(size_t)7;
}

ssize_t ceph_file_getdents(struct ls_file *f, const struct ls_cred *cred,
                           void *buf, size_t n, off_t *pos)
{
    struct ceph_file *cf = cfile(f);
    struct ceph_instance *ci = ceph_inst(f->inst);
    struct ceph_mount_info *cm = ci->client->cmount;
    if (!f->is_dir)
        return -ENOTDIR;
    pthread_mutex_lock(&cf->lock);
    if (cf->dir_pos != *pos) {
        ceph_seekdir(cm, cf->dir, *pos);
        cf->dir_pos = *pos;
    }
    size_t used = 0;
    ssize_t r = 0;
    int lost = 0;
    for (;;) {
        int64_t before = ceph_telldir(cm, cf->dir);
        struct dirent de;
        int got = ceph_readdir_r(cm, cf->dir, &de);
        if (got <= 0) {
            if (got < 0 && used == 0)
                r = got;
            lost = got < 0;
            break;
        }
        size_t namelen = strlen(de.d_name);
        size_t reclen = dirent_reclen(namelen);
        if (used + reclen > n) {
            /* Give the entry back for the next call. */
            ceph_seekdir(cm, cf->dir, before);
            if (used == 0)
                r = -EINVAL;
            break;
        }
        struct danaus_dirent *d =
            (struct danaus_dirent *)((char *)buf + used);
        d->d_ino = de.d_ino;
        /* ".." of the instance root is the root itself, as in a chroot. */
        if (cf->in == ci->root && strcmp(de.d_name, "..") == 0)
            d->d_ino = ci->root_ino;
        int64_t off = ceph_telldir(cm, cf->dir);
        d->d_off = off;
        d->d_reclen = (uint16_t)reclen;
        d->d_type = de.d_type;
        memcpy(d->d_name, de.d_name, namelen + 1);
        memset(d->d_name + namelen + 1, 0,
               reclen - offsetof(struct danaus_dirent, d_name) - namelen - 1);
        used += reclen;
        *pos = off; /* never read back from buf */
    }
    /* After a failed read, where Ceph's stream stands is not known. */
    cf->dir_pos = lost ? -1 : *pos;
    pthread_mutex_unlock(&cf->lock);
    return r < 0 ? r : (ssize_t)used;
}

ssize_t ceph_file_fgetxattr(struct ls_file *f, const struct ls_cred *cred,
                            const char *name, void *value, size_t size)
{
    return ceph_ll_getxattr(fclient(f)->cmount, cfile(f)->in, name, value,
                            size, ceph_perm(cred));
}

int ceph_file_fsetxattr(struct ls_file *f, const struct ls_cred *cred,
                        const char *name, const void *value, size_t size,
                        int xflags)
{
    return ceph_durable(fclient(f), cfile(f)->in,
                        ceph_ll_setxattr(fclient(f)->cmount, cfile(f)->in,
                                         name, value, size, xflags,
                                         ceph_perm(cred)));
}

ssize_t ceph_file_flistxattr(struct ls_file *f, const struct ls_cred *cred,
                             char *list, size_t size)
{
    return ceph_do_listxattr(fclient(f), cfile(f)->in, cred, list, size);
}

int ceph_file_fremovexattr(struct ls_file *f, const struct ls_cred *cred,
                           const char *name)
{
    return ceph_durable(fclient(f), cfile(f)->in,
                        ceph_ll_removexattr(fclient(f)->cmount, cfile(f)->in,
                                            name, ceph_perm(cred)));
}
