/*
 * protect.c - kernel protections that libcephfs 16 leaves out, for the
 * CephFS libservice (both doors reach Ceph through it).
 *
 * Measured through both doors before this file (a file of uid 65534, mode
 * 6755, and the same calls on a host directory for reference):
 *  - a write by the owner kept setuid and setgid, where the kernel clears
 *    them (file_remove_privs: setuid always, setgid when group-executable,
 *    unless the writer has CAP_FSETID); Ceph already cleared them for O_TRUNC,
 *    truncate(), chown and chgrp, and for a write by a non-owner.
 *  - a hard link to a file its user could not read gave EACCES where Linux
 *    with fs.protected_hardlinks = 1 gives EPERM.
 *  - listxattr by a non-root user showed trusted.* names, which Linux lists
 *    only to CAP_SYS_ADMIN.
 * Setting trusted.* and security.capability, and reading trusted.*, were
 * already refused as by Linux (EPERM, ENODATA).
 *
 * Root clients stand for processes with every capability (CAP_FSETID,
 * CAP_FOWNER), as elsewhere in this libservice.
 */
#include "ceph.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The bits a write or size change by a process without CAP_FSETID removes
 * from a file of this mode. */
static mode_t privs_to_kill(mode_t mode)
{
    mode_t kill = mode & S_ISUID;
    if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
        kill |= S_ISGID;
    return kill;
}

int ceph_kill_privs(struct cephfs_client *cl, struct Inode *in,
                    const struct ls_cred *cred)
{
    if (cred->uid == 0)
        return 0;
    UserPerm *mount = ceph_mount_perms(cl->cmount);
    struct ceph_statx stx;
    int r = ceph_ll_getattr(cl->cmount, in, &stx, CEPH_STATX_MODE, 0, mount);
    if (r < 0)
        return r;
    mode_t kill = privs_to_kill(stx.stx_mode);
    if (kill == 0)
        return 0;
    /* The writer need not own the file: the mount's credentials clear them,
     * as the kernel does for any writer. */
    struct ceph_statx set = {.stx_mode = stx.stx_mode & 07777 & ~kill};
    return ceph_setattr(cl, in, &set, CEPH_SETATTR_MODE, mount);
}

/* fs.protected_hardlinks of the host, read once: 1 (the default) or 0. */
static int protected_hardlinks(void)
{
    static int value = -1;
    if (value < 0) {
        int v = 1;
        FILE *f = fopen("/proc/sys/fs/protected_hardlinks", "re");
        if (f) {
            if (fscanf(f, "%d", &v) != 1)
                v = 1;
            fclose(f);
        }
        value = v != 0;
    }
    return value;
}

int ceph_may_link(struct cephfs_client *cl, struct Inode *in,
                  const struct ls_cred *cred)
{
    if (cred->uid == 0 || !protected_hardlinks())
        return 0;
    struct ceph_statx stx;
    int r = ceph_ll_getattr(cl->cmount, in, &stx,
                            CEPH_STATX_MODE | CEPH_STATX_UID | CEPH_STATX_GID,
                            0, ceph_mount_perms(cl->cmount));
    if (r < 0)
        return r;
    /* Linux's may_linkat: the owner may; anyone else only a regular file
     * without setuid or setgid-and-executable that they can read and
     * write. */
    if (stx.stx_uid == cred->uid)
        return 0;
    if (!S_ISREG(stx.stx_mode) || privs_to_kill(stx.stx_mode) ||
        ceph_may_access(&stx, cred, R_OK | W_OK) < 0)
        return -EPERM;
    return 0;
}

ssize_t ceph_listxattr_unprivileged(struct cephfs_client *cl, struct Inode *in,
                                    const struct ls_cred *cred, char *list,
                                    size_t size)
{
    /* The whole list is needed to know the size without trusted.*. */
    size_t len = 0;
    int r = ceph_ll_listxattr(cl->cmount, in, NULL, 0, &len, ceph_perm(cred));
    if (r < 0)
        return r;
    char *all = malloc(len + 1);
    if (!all)
        return -ENOMEM;
    size_t got = 0;
    r = ceph_ll_listxattr(cl->cmount, in, all, len, &got, ceph_perm(cred));
    if (r < 0 || got > len) {
        free(all);
        return r < 0 ? r : -ERANGE; /* grew meanwhile: as the kernel would */
    }
    size_t kept = 0;
    for (size_t at = 0; at < got;) {
        size_t n = strnlen(all + at, got - at) + 1;
        if (strncmp(all + at, "trusted.", 8) != 0) {
            memmove(all + kept, all + at, n);
            kept += n;
        }
        at += n;
    }
    if (size > 0 && kept > size)
        r = -ERANGE;
    else if (size > 0)
        memcpy(list, all, kept);
    free(all);
    return r < 0 ? r : (ssize_t)kept;
}
