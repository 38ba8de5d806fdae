/*
 * ceph.c - the CephFS libservice: an instance is a directory of the
 * service's Ceph mount, served through libcephfs's low-level API (ceph_ll_*)
 * with each client's own UserPerm, so one mount and one cache serve clients
 * of every uid. Paths are resolved by walk.c inside the instance root;
 * open files live in file.c.
 */
#include "ceph.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static struct cephfs_client *iclient(struct ls_instance *inst)
{
    return ceph_inst(inst)->client;
}

static int check_at(int at, int allowed)
{
    return (at & ~allowed) ? -EINVAL : 0;
}

/* Resolves path (following a final symlink unless at says not to); stx
 * not NULL: with its stat, if the lookup that found it brought it
 * (ceph_walk_stat). */
static int resolve_at_stat(struct ls_instance *inst,
                           const struct ls_cred *cred, const char *path,
                           int at, struct Inode **in, struct ceph_statx *stx,
                           bool *have_stx)
{
    int r = check_at(at, AT_SYMLINK_NOFOLLOW);
    if (r < 0)
        return r;
    return ceph_walk_stat(ceph_inst(inst), cred, path,
                          !(at & AT_SYMLINK_NOFOLLOW), CEPH_WANT_STAT, in,
                          stx, have_stx);
}

static int resolve_at(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, int at, struct Inode **in)
{
    return resolve_at_stat(inst, cred, path, at, in, NULL, NULL);
}

static int cfs_stat(struct ls_instance *inst, const struct ls_cred *cred,
                     const char *path, int at, struct danaus_stat *out)
{
    struct Inode *in;
    struct ceph_statx stx;
    bool have_stx;
    int r = resolve_at_stat(inst, cred, path, at, &in, &stx, &have_stx);
    if (r < 0)
        return r;
    if (have_stx)
        ceph_stat_fill(iclient(inst), &stx, out);
    else
        r = ceph_do_stat(iclient(inst), in, cred, out);
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

/* The service has one credential per client, so AT_EACCESS changes
 * nothing: real and effective ids are the same. */
static int cfs_access(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path, int mode, int at)
{
    if (mode & ~(R_OK | W_OK | X_OK))
        return -EINVAL;
    int r = check_at(at, AT_SYMLINK_NOFOLLOW | AT_EACCESS);
    if (r < 0)
        return r;
    struct Inode *in;
    r = ceph_walk(ceph_inst(inst), cred, path, !(at & AT_SYMLINK_NOFOLLOW),
                  &in);
    if (r < 0)
        return r;
    struct ceph_statx stx;
    r = ceph_ll_getattr(iclient(inst)->cmount, in, &stx,
                        CEPH_STATX_MODE | CEPH_STATX_UID | CEPH_STATX_GID, 0,
                        ceph_perm(cred));
    if (r == 0)
        r = ceph_may_access(&stx, cred, mode);
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

/* Looks up the last component without following it: 0 with its mode and
 * inode number, -ENOENT, or another error. */
static int lookup_last(struct ceph_instance *ci, const struct ls_cred *cred,
                       const struct ceph_last *l, struct ceph_statx *stx)
{
    struct Inode *in;
    int r = ceph_ll_lookup(ci->client->cmount, l->dir, l->name, &in, stx,
                           CEPH_STATX_MODE | CEPH_STATX_INO, 0,
                           ceph_perm(cred));
    if (r == 0)
        ceph_ll_put(ci->client->cmount, in);
    return r;
}

/* link and symlink given a new name with a trailing slash: EEXIST when the
 * name exists, else ENOENT (no directory is being made), as Linux. */
static int slash_create_error(struct ceph_instance *ci,
                              const struct ls_cred *cred,
                              const struct ceph_last *l)
{
    struct ceph_statx stx;
    int r = lookup_last(ci, cred, l, &stx);
    return r == 0 ? -EEXIST : r;
}

/*
 * Operations that create a name: "" / "." / ".." as the last component
 * already exist (EEXIST, as Linux's filename_create). mkdir and rmdir take
 * a trailing slash: they name a directory.
 */
static int cfs_mkdir(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, mode_t mode)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct ceph_last l;
    int r = ceph_walk_parent(ci, cred, path, 0, &l);
    if (r < 0)
        return r;
    if (ceph_name_is_special(l.name)) {
        r = -EEXIST;
    } else {
        struct Inode *in;
        struct ceph_statx stx;
        r = ceph_ll_mkdir(ci->client->cmount, l.dir, l.name, mode & 07777,
                          &in, &stx, 0, 0, ceph_perm(cred));
        if (r == 0)
            ceph_ll_put(ci->client->cmount, in);
    }
    ceph_inode_put(ci, l.dir);
    return r;
}

static int cfs_rmdir(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct ceph_last l;
    int r = ceph_walk_parent(ci, cred, path, 0, &l);
    if (r < 0)
        return r;
    /* As Linux: the root is busy, "." is invalid, ".." is not empty. */
    if (l.name[0] == '\0')
        r = -EBUSY;
    else if (strcmp(l.name, ".") == 0)
        r = -EINVAL;
    else if (strcmp(l.name, "..") == 0)
        r = -ENOTEMPTY;
    else
        r = ceph_ll_rmdir(ci->client->cmount, l.dir, l.name, ceph_perm(cred));
    ceph_inode_put(ci, l.dir);
    return r;
}

/* unlink("name/") removes nothing: ENOENT, EISDIR or ENOTDIR for what the
 * name is (a symlink is not followed), as Linux's do_unlinkat. */
static int cfs_unlink(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct ceph_last l;
    int r = ceph_walk_parent(ci, cred, path, 0, &l);
    if (r < 0)
        return r;
    if (ceph_name_is_special(l.name)) {
        r = -EISDIR;
    } else if (l.slash) {
        struct ceph_statx stx;
        r = lookup_last(ci, cred, &l, &stx);
        if (r == 0)
            r = S_ISDIR(stx.stx_mode) ? -EISDIR : -ENOTDIR;
    } else {
        r = ceph_ll_unlink(ci->client->cmount, l.dir, l.name, ceph_perm(cred));
    }
    ceph_inode_put(ci, l.dir);
    return r;
}

/*
 * What Linux's renameat2 checks before it renames, in its order: 1 when
 * there is nothing to do, 0 to go on, or -errno. Two names of one file
 * (the same name, or hard links) are left as they are, as rename(2) says;
 * Ceph's client must not see such a rename: it drops both names from its
 * cache (measured: both stay on the MDS, yet every later lookup through
 * this client gives ENOENT).
 */
static int rename_check(struct ceph_instance *ci, const struct ls_cred *cred,
                        const struct ceph_last *from,
                        const struct ceph_last *to, unsigned flags)
{
    if (ceph_name_is_special(from->name) || ceph_name_is_special(to->name))
        return -EBUSY;
    struct ceph_statx src, dst;
    int r = lookup_last(ci, cred, from, &src);
    if (r < 0)
        return r;
    r = lookup_last(ci, cred, to, &dst);
    if (r < 0 && r != -ENOENT)
        return r;
    int exists = r == 0;
    if (exists && (flags & RENAME_NOREPLACE))
        return -EEXIST;
    /* A trailing slash on either name says "directory". */
    if (!S_ISDIR(src.stx_mode) && (from->slash || to->slash))
        return -ENOTDIR;
    return exists && src.stx_ino == dst.stx_ino;
}

/* RENAME_NOREPLACE is checked with a lookup before the rename, so it is not
 * atomic against another client creating the target in between. Ceph has no
 * RENAME_EXCHANGE: EINVAL, as a Linux file system without it. */
static int cfs_rename(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *from, const char *to, unsigned flags)
{
    struct ceph_instance *ci = ceph_inst(inst);
    if (flags & ~(unsigned)RENAME_NOREPLACE)
        return -EINVAL;
    struct ceph_last fl, tl;
    int r = ceph_walk_parent(ci, cred, from, 0, &fl);
    if (r < 0)
        return r;
    r = ceph_walk_parent(ci, cred, to, 0, &tl);
    if (r < 0) {
        ceph_inode_put(ci, fl.dir);
        return r;
    }
    r = rename_check(ci, cred, &fl, &tl, flags);
    if (r == 0)
        r = ceph_ll_rename(ci->client->cmount, fl.dir, fl.name, tl.dir,
                           tl.name, ceph_perm(cred));
    ceph_inode_put(ci, fl.dir);
    ceph_inode_put(ci, tl.dir);
    return r < 0 ? r : 0;
}

/* A link protected_hardlinks refuses: Linux finds an existing new name
 * first (EEXIST), then refuses (EPERM). */
static int link_refused_error(struct ceph_instance *ci,
                              const struct ls_cred *cred,
                              const struct ceph_last *l)
{
    struct ceph_statx stx;
    int r = lookup_last(ci, cred, l, &stx);
    if (r == 0)
        return -EEXIST;
    return r == -ENOENT ? -EPERM : r;
}

/* link(2) does not follow a final symlink in existing. */
static int cfs_link(struct ls_instance *inst, const struct ls_cred *cred,
                     const char *existing, const char *newpath)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct Inode *in;
    struct ceph_last l;
    int r = ceph_walk(ci, cred, existing, 0, &in);
    if (r < 0)
        return r;
    r = ceph_walk_parent(ci, cred, newpath, 0, &l);
    if (r < 0) {
        ceph_inode_put(ci, in);
        return r;
    }
    if (ceph_name_is_special(l.name))
        r = -EEXIST;
    else if (l.slash)
        r = slash_create_error(ci, cred, &l);
    else if ((r = ceph_may_link(ci->client, in, cred)) == 0)
        r = ceph_ll_link(ci->client->cmount, in, l.dir, l.name,
                         ceph_perm(cred));
    else if (r == -EPERM)
        r = link_refused_error(ci, cred, &l);
    ceph_inode_put(ci, l.dir);
    ceph_inode_put(ci, in);
    return r;
}

/* The parent of a name link, symlink or mknod is about to make: 0 with
 * l->dir held, or the error Linux gives for the name (l released). */
static int walk_new_name(struct ceph_instance *ci, const struct ls_cred *cred,
                         const char *path, struct ceph_last *l)
{
    int r = ceph_walk_parent(ci, cred, path, 0, l);
    if (r < 0)
        return r;
    if (ceph_name_is_special(l->name))
        r = -EEXIST;
    else if (l->slash)
        r = slash_create_error(ci, cred, l);
    else
        return 0;
    ceph_inode_put(ci, l->dir);
    return r;
}

static int cfs_symlink(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *target, const char *linkpath)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct ceph_last l;
    if (target[0] == '\0')
        return -ENOENT;
    if (strnlen(target, DANAUS_PATH_MAX) >= DANAUS_PATH_MAX)
        return -ENAMETOOLONG;
    int r = walk_new_name(ci, cred, linkpath, &l);
    if (r < 0)
        return r;
    struct Inode *in;
    struct ceph_statx stx;
    r = ceph_ll_symlink(ci->client->cmount, l.dir, l.name, target, &in, &stx,
                        0, 0, ceph_perm(cred));
    if (r == 0)
        ceph_ll_put(ci->client->cmount, in);
    ceph_inode_put(ci, l.dir);
    return r;
}

/* Devices need CAP_MKNOD, which Linux's mknod checks after the parent's
 * write permission; here the client's uid 0 stands for it. */
static int cfs_mknod(struct ls_instance *inst, const struct ls_cred *cred,
                     const char *path, mode_t mode, dev_t dev)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct ceph_last l;
    int r = walk_new_name(ci, cred, path, &l);
    if (r < 0)
        return r;
    struct Inode *in;
    struct ceph_statx stx;
    if ((S_ISCHR(mode) || S_ISBLK(mode)) && cred->uid != 0) {
        r = ceph_ll_getattr(ci->client->cmount, l.dir, &stx,
                            CEPH_STATX_MODE | CEPH_STATX_UID |
                                CEPH_STATX_GID,
                            0, ceph_perm(cred));
        if (r == 0)
            r = ceph_may_access(&stx, cred, W_OK | X_OK);
        if (r == 0)
            r = -EPERM;
    }
    if (r == 0)
        r = ceph_ll_mknod(ci->client->cmount, l.dir, l.name, mode, dev, &in,
                          &stx, 0, 0, ceph_perm(cred));
    if (r == 0)
        ceph_ll_put(ci->client->cmount, in);
    ceph_inode_put(ci, l.dir);
    return r;
}

static ssize_t cfs_readlink(struct ls_instance *inst,
                             const struct ls_cred *cred, const char *path,
                             char *buf, size_t size)
{
    struct ceph_instance *ci = ceph_inst(inst);
    struct Inode *in;
    int r = ceph_walk(ci, cred, path, 0, &in);
    if (r < 0)
        return r;
    struct ceph_statx stx;
    r = ceph_ll_getattr(ci->client->cmount, in, &stx, CEPH_STATX_MODE, 0,
                        ceph_perm(cred));
    if (r == 0 && !S_ISLNK(stx.stx_mode))
        r = -EINVAL;
    if (r == 0)
        r = ceph_ll_readlink(ci->client->cmount, in, buf, size,
                             ceph_perm(cred));
    ceph_inode_put(ci, in);
    return r;
}

static int cfs_chmod(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, mode_t mode, int at)
{
    struct Inode *in;
    int r = resolve_at(inst, cred, path, at, &in);
    if (r < 0)
        return r;
    r = ceph_do_chmod(iclient(inst), in, cred, mode);
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

static int cfs_chown(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, uid_t uid, gid_t gid, int at)
{
    struct Inode *in;
    int r = resolve_at(inst, cred, path, at, &in);
    if (r < 0)
        return r;
    r = ceph_do_chown(iclient(inst), in, cred, uid, gid);
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

static int cfs_utimens(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *path, const struct timespec ts[2], int at)
{
    struct Inode *in;
    int r = resolve_at(inst, cred, path, at, &in);
    if (r < 0)
        return r;
    r = ceph_do_utimens(iclient(inst), in, cred, ts);
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

static int cfs_truncate(struct ls_instance *inst, const struct ls_cred *cred,
                         const char *path, off_t len)
{
    struct ceph_instance *ci = ceph_inst(inst);
    if (len < 0)
        return -EINVAL;
    struct Inode *in;
    int r = ceph_walk(ci, cred, path, 1, &in);
    if (r < 0)
        return r;
    struct ceph_statx stx;
    r = ceph_ll_getattr(ci->client->cmount, in, &stx, CEPH_STATX_MODE, 0,
                        ceph_perm(cred));
    if (r == 0 && S_ISDIR(stx.stx_mode))
        r = -EISDIR;
    else if (r == 0 && !S_ISREG(stx.stx_mode))
        r = -EINVAL;
    if (r == 0) {
        /* Ceph checks write permission for a size change. */
        struct ceph_statx set = {.stx_size = (uint64_t)len};
        r = ceph_setattr(ci->client, in, &set, CEPH_SETATTR_SIZE,
                         ceph_perm(cred));
    }
    ceph_inode_put(ci, in);
    return r;
}

static int cfs_statfs(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path, struct danaus_statfs *out)
{
    struct Inode *in;
    int r = ceph_walk(ceph_inst(inst), cred, path, 1, &in);
    if (r < 0)
        return r;
    r = ceph_do_statfs(iclient(inst), in, out);
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

static ssize_t cfs_getxattr(struct ls_instance *inst,
                             const struct ls_cred *cred, const char *path,
                             const char *name, void *value, size_t size,
                             int at)
{
    struct Inode *in;
    int r = resolve_at(inst, cred, path, at, &in);
    if (r < 0)
        return r;
    r = ceph_ll_getxattr(iclient(inst)->cmount, in, name, value, size,
                         ceph_perm(cred));
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

static int cfs_setxattr(struct ls_instance *inst, const struct ls_cred *cred,
                         const char *path, const char *name, const void *value,
                         size_t size, int xflags, int at)
{
    struct Inode *in;
    int r = resolve_at(inst, cred, path, at, &in);
    if (r < 0)
        return r;
    r = ceph_durable(iclient(inst), in,
                     ceph_ll_setxattr(iclient(inst)->cmount, in, name, value,
                                      size, xflags, ceph_perm(cred)));
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

static ssize_t cfs_listxattr(struct ls_instance *inst,
                              const struct ls_cred *cred, const char *path,
                              char *list, size_t size, int at)
{
    struct Inode *in;
    int r = resolve_at(inst, cred, path, at, &in);
    if (r < 0)
        return r;
    ssize_t n = ceph_do_listxattr(iclient(inst), in, cred, list, size);
    ceph_inode_put(ceph_inst(inst), in);
    return n;
}

static int cfs_removexattr(struct ls_instance *inst,
                            const struct ls_cred *cred, const char *path,
                            const char *name, int at)
{
    struct Inode *in;
    int r = resolve_at(inst, cred, path, at, &in);
    if (r < 0)
        return r;
    r = ceph_durable(iclient(inst), in,
                     ceph_ll_removexattr(iclient(inst)->cmount, in, name,
                                         ceph_perm(cred)));
    ceph_inode_put(ceph_inst(inst), in);
    return r;
}

static void cfs_destroy(struct ls_instance *inst)
{
    struct ceph_instance *ci = ceph_inst(inst);
    ceph_ll_put(ci->client->cmount, ci->root);
    free(ci);
}

static const struct ls_ops ceph_ops = {
    .name = "cephfs",
    .open = ceph_file_open,
    .close = ceph_file_close,
    .pread = ceph_file_pread,
    .pwrite = ceph_file_pwrite,
    .fsync = ceph_file_fsync,
    .ftruncate = ceph_file_ftruncate,
    .fallocate = ceph_file_fallocate,
    .fstat = ceph_file_fstat,
    .fchmod = ceph_file_fchmod,
    .fchown = ceph_file_fchown,
    .futimens = ceph_file_futimens,
    .fstatfs = ceph_file_fstatfs,
    .getdents = ceph_file_getdents,
    .fgetxattr = ceph_file_fgetxattr,
    .fsetxattr = ceph_file_fsetxattr,
    .flistxattr = ceph_file_flistxattr,
    .fremovexattr = ceph_file_fremovexattr,
    .cache_hold = ceph_file_cache_hold,
    .stat = cfs_stat,
    .access = cfs_access,
    .mkdir = cfs_mkdir,
    .mknod = cfs_mknod,
    .rmdir = cfs_rmdir,
    .unlink = cfs_unlink,
    .rename = cfs_rename,
    .link = cfs_link,
    .symlink = cfs_symlink,
    .readlink = cfs_readlink,
    .chmod = cfs_chmod,
    .chown = cfs_chown,
    .utimens = cfs_utimens,
    .truncate = cfs_truncate,
    .statfs = cfs_statfs,
    .getxattr = cfs_getxattr,
    .setxattr = cfs_setxattr,
    .listxattr = cfs_listxattr,
    .removexattr = cfs_removexattr,
    .destroy = cfs_destroy,
};

/*
 * Finds (creating with mode 0755 as the mount's own credentials, root) each
 * directory of root, from the client's mount root. "." and ".." are
 * refused: the root must be named plainly.
 */
static int open_root(struct ceph_mount_info *cm, const char *root,
                     struct Inode **out, struct ceph_statx *stx)
{
    UserPerm *perm = ceph_mount_perms(cm);
    struct Inode *cur;
    int r = ceph_ll_lookup_root(cm, &cur);
    if (r < 0)
        return r;
    r = ceph_ll_getattr(cm, cur, stx, CEPH_STATX_MODE | CEPH_STATX_INO, 0,
                        perm);
    const char *p = root;
    while (r == 0) {
        p += strspn(p, "/");
        size_t len = strcspn(p, "/");
        if (len == 0)
            break;
        char name[NAME_MAX + 1];
        if (len > NAME_MAX)
            r = -ENAMETOOLONG;
        else if ((len == 1 && p[0] == '.') ||
                 (len == 2 && p[0] == '.' && p[1] == '.'))
            r = -EINVAL;
        if (r < 0)
            break;
        memcpy(name, p, len);
        name[len] = '\0';
        struct Inode *next;
        r = ceph_ll_lookup(cm, cur, name, &next, stx,
                           CEPH_STATX_MODE | CEPH_STATX_INO, 0, perm);
        if (r == -ENOENT)
            r = ceph_ll_mkdir(cm, cur, name, 0755, &next, stx,
                              CEPH_STATX_MODE | CEPH_STATX_INO, 0, perm);
        if (r == 0 && !S_ISDIR(stx->stx_mode)) {
            ceph_ll_put(cm, next);
            r = -ENOTDIR;
        }
        if (r < 0)
            break;
        ceph_ll_put(cm, cur);
        cur = next;
        p += len;
    }
    if (r < 0) {
        ceph_ll_put(cm, cur);
        return r;
    }
    *out = cur;
    return 0;
}

struct ls_instance *cephfs_instance_new(struct cephfs_client *cl,
                                        const char *root, char *err,
                                        size_t errlen)
{
    /* The client sees the file system from its mount root down. */
    size_t len = strlen(cl->root);
    if (strncmp(root, cl->root, len) != 0 ||
        (root[len] != '\0' && root[len] != '/')) {
        snprintf(err, errlen, "ceph: %s is outside the mounted %s", root,
                 cl->root);
        return NULL;
    }
    struct ceph_instance *ci = calloc(1, sizeof(*ci));
    if (ci == NULL) {
        snprintf(err, errlen, "ceph: out of memory");
        return NULL;
    }
    struct ceph_statx stx;
    int r = open_root(cl->cmount, root + len, &ci->root, &stx);
    if (r < 0) {
        snprintf(err, errlen, "ceph: cannot use %s as a root: %s", root,
                 strerror(-r));
        free(ci);
        return NULL;
    }
    ci->base.ops = &ceph_ops;
    ci->client = cl;
    ci->root_ino = stx.stx_ino;
    return &ci->base;
}
