/*
 * attr.c - attributes for the CephFS libservice: statx to danaus_stat,
 * statvfs to danaus_statfs, the permission check behind access(), and the
 * setattr/getattr/xattr calls that both path and file operations make.
 */
#include "ceph.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What Linux's CephFS client reports as f_type. */
#define CEPH_SUPER_MAGIC 0x00c36400

void ceph_stat_fill(const struct cephfs_client *cl,
                    const struct ceph_statx *stx, struct danaus_stat *out)
{
    *out = (struct danaus_stat){
        .dev = cl->dev,
        .ino = stx->stx_ino,
        .nlink = stx->stx_nlink,
        .rdev = stx->stx_rdev,
        .mode = stx->stx_mode,
        .uid = stx->stx_uid,
        .gid = stx->stx_gid,
        .blksize = stx->stx_blksize,
        .size = (int64_t)stx->stx_size,
        .blocks = (int64_t)stx->stx_blocks,
        .atime_sec = stx->stx_atime.tv_sec,
        .mtime_sec = stx->stx_mtime.tv_sec,
        .ctime_sec = stx->stx_ctime.tv_sec,
        .btime_sec = stx->stx_btime.tv_sec,
        .atime_nsec = (uint32_t)stx->stx_atime.tv_nsec,
        .mtime_nsec = (uint32_t)stx->stx_mtime.tv_nsec,
        .ctime_nsec = (uint32_t)stx->stx_ctime.tv_nsec,
        .btime_nsec = (uint32_t)stx->stx_btime.tv_nsec,
    };
}

void ceph_statfs_fill(const struct statvfs *sv, struct danaus_statfs *out)
{
    *out = (struct danaus_statfs){
        .type = CEPH_SUPER_MAGIC,
        .bsize = sv->f_bsize,
        .frsize = sv->f_frsize,
        .blocks = sv->f_blocks,
        .bfree = sv->f_bfree,
        .bavail = sv->f_bavail,
        .files = sv->f_files,
        .ffree = sv->f_ffree,
        .favail = sv->f_favail,
        .fsid = sv->f_fsid,
        .namelen = sv->f_namemax,
        .flags = sv->f_flag,
    };
}

static int in_group(const struct ls_cred *cred, gid_t gid)
{
    if (cred->gid == gid)
        return 1;
    for (int i = 0; i < cred->ngroups; i++)
        if (cred->groups[i] == gid)
            return 1;
    return 0;
}

int ceph_may_access(const struct ceph_statx *stx, const struct ls_cred *cred,
                    int mask)
{
    mode_t mode = stx->stx_mode;
    if (cred->uid == 0) {
        /* root passes read and write checks; execute needs some x bit,
         * except on directories (search). */
        if (!(mask & X_OK) || S_ISDIR(mode) || (mode & 0111))
            return 0;
        return -EACCES;
    }
    mode_t bits;
    if (cred->uid == stx->stx_uid)
        bits = (mode >> 6) & 7;
    else if (in_group(cred, stx->stx_gid))
        bits = (mode >> 3) & 7;
    else
        bits = mode & 7;
    return ((mode_t)mask & ~bits) ? -EACCES : 0;
}

int ceph_do_stat(struct cephfs_client *cl, struct Inode *in,
                 const struct ls_cred *cred, struct danaus_stat *out)
{
    struct ceph_statx stx;
    int r = ceph_ll_getattr(cl->cmount, in, &stx, CEPH_WANT_STAT, 0,
                            ceph_perm(cred));
    if (r == 0)
        ceph_stat_fill(cl, &stx, out);
    return r;
}

int ceph_do_statfs(struct cephfs_client *cl, struct Inode *in,
                   struct danaus_statfs *out)
{
    struct statvfs sv;
    int r = ceph_ll_statfs(cl->cmount, in, &sv);
    if (r == 0)
        ceph_statfs_fill(&sv, out);
    return r;
}

int ceph_durable(struct cephfs_client *cl, struct Inode *in, int r)
{
    if (r == 0 && cl->write_through)
        r = ceph_ll_sync_inode(cl->cmount, in, 0);
    return r;
}

int ceph_setattr(struct cephfs_client *cl, struct Inode *in,
                 struct ceph_statx *stx, int mask, UserPerm *perm)
{
    return ceph_durable(cl, in, ceph_ll_setattr(cl->cmount, in, stx, mask,
                                                perm));
}

int ceph_do_chmod(struct cephfs_client *cl, struct Inode *in,
                  const struct ls_cred *cred, mode_t mode)
{
    struct ceph_statx stx = {.stx_mode = mode & 07777};
    return ceph_setattr(cl, in, &stx, CEPH_SETATTR_MODE, ceph_perm(cred));
}

int ceph_do_chown(struct cephfs_client *cl, struct Inode *in,
                  const struct ls_cred *cred, uid_t uid, gid_t gid)
{
    struct ceph_statx stx = {.stx_uid = uid, .stx_gid = gid};
    int mask = 0;
    /* -1 leaves that id as it is, as chown(2). */
    if (uid != (uid_t)-1)
        mask |= CEPH_SETATTR_UID;
    if (gid != (gid_t)-1)
        mask |= CEPH_SETATTR_GID;
    if (mask == 0)
        return 0;
    return ceph_setattr(cl, in, &stx, mask, ceph_perm(cred));
}

/*
 * UTIME_NOW is sent as the current time plus Ceph's *_NOW bit: the bit makes
 * Ceph's permission check the one for "set to now" (write access suffices),
 * while explicit times need ownership, as utimensat(2).
 */
int ceph_do_utimens(struct cephfs_client *cl, struct Inode *in,
                    const struct ls_cred *cred, const struct timespec ts[2])
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct timespec t[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    if (ts != NULL) {
        t[0] = ts[0];
        t[1] = ts[1];
    }
    struct ceph_statx stx = {0};
    int mask = 0;
    for (int i = 0; i < 2; i++) {
        if (t[i].tv_nsec == UTIME_OMIT)
            continue;
        if (t[i].tv_nsec != UTIME_NOW &&
            (t[i].tv_nsec < 0 || t[i].tv_nsec >= 1000000000))
            return -EINVAL;
        struct timespec v = t[i].tv_nsec == UTIME_NOW ? now : t[i];
        if (i == 0) {
            stx.stx_atime = v;
            mask |= CEPH_SETATTR_ATIME;
            if (t[i].tv_nsec == UTIME_NOW)
                mask |= CEPH_SETATTR_ATIME_NOW;
        } else {
            stx.stx_mtime = v;
            mask |= CEPH_SETATTR_MTIME;
            if (t[i].tv_nsec == UTIME_NOW)
                mask |= CEPH_SETATTR_MTIME_NOW;
        }
    }
    if (mask == 0)
        return 0;
    return ceph_setattr(cl, in, &stx, mask, ceph_perm(cred));
}

ssize_t ceph_do_listxattr(struct cephfs_client *cl, struct Inode *in,
                          const struct ls_cred *cred, char *list, size_t size)
{
    if (cred->uid != 0)
        return ceph_listxattr_unprivileged(cl, in, cred, list, size);
    size_t len = 0;
    int r = ceph_ll_listxattr(cl->cmount, in, list, size, &len,
                              ceph_perm(cred));
    return r < 0 ? r : (ssize_t)len;
}
