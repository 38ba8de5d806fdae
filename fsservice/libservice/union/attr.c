/*
 * attr.c - changes to an existing entry: chmod, chown, utimens,
 * truncate and xattrs. An entry of a lower branch is copied up first and
 * changed in the top branch; the client's identity makes the change, so
 * the backend checks it as for any file.
 *
 * A regular file's copy-up copies no data (partial.c), so the metadata
 * changes cost the same for any size; truncate goes through an open file,
 * where partial.c keeps the copy's map in step.
 *
 * Where Linux refuses the change without looking at the data (chmod or
 * chown by someone who is not the owner, truncate without write
 * permission), the refusal comes before the copy-up, so a refused call
 * leaves no copy behind.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_owner_or_root(const struct ls_cred *cred,
                            const struct danaus_stat *st)
{
    return cred->uid == 0 || cred->uid == st->uid;
}

/* Finds path and, if it is in a lower branch, copies it up (owner_only:
 * after checking the client owns it). */
static int find_for_change(struct union_instance *u, const struct ls_cred *cred,
                           const char *path, int at, off_t keep_len,
                           int owner_only, struct union_node *n)
{
    int flags = (at & AT_SYMLINK_NOFOLLOW) ? 0 : UNION_FOLLOW;
    int rc = union_lookup(u, cred, path, flags | UNION_FAST, n);
    if (rc < 0 || n->branch == 0)
        return rc;
    if ((rc = union_need_writable(u)) < 0)
        return rc;
    if (owner_only && !is_owner_or_root(cred, &n->st))
        return -EPERM;
    return union_copyup(u, cred, n, keep_len);
}

/* rc, after noting a change of n's mode, owner or xattrs if n is a
 * directory: those guard the walks through it (lookup.c's memo), and a
 * copy-up made it merge the top branch. A file's guard no walk. */
static int changed_entry(const struct union_node *n, int rc)
{
    if (rc == 0 && S_ISDIR(n->st.mode))
        union_changed_at(n->path);
    return rc;
}

int union_chmod(struct ls_instance *inst, const struct ls_cred *cred,
                const char *path, mode_t mode, int at)
{
    struct union_instance *u = union_of(inst);
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    struct union_node n;
    int rc = find_for_change(u, cred, path, at, -1, 1, &n);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    return changed_entry(&n, top->ops->chmod(top, cred, n.path, mode, at));
}

int union_chown(struct ls_instance *inst, const struct ls_cred *cred,
                const char *path, uid_t uid, gid_t gid, int at)
{
    struct union_instance *u = union_of(inst);
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    struct union_node n;
    int rc = find_for_change(u, cred, path, at, -1, 1, &n);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    return changed_entry(&n, top->ops->chown(top, cred, n.path, uid, gid, at));
}

int union_utimens(struct ls_instance *inst, const struct ls_cred *cred,
                  const char *path, const struct timespec ts[2], int at)
{
    struct union_instance *u = union_of(inst);
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    /* Setting explicit times is the owner's; setting "now" needs write
     * permission, which the top branch checks after the copy. */
    int explicit = ts && !(ts[0].tv_nsec == UTIME_NOW &&
                           ts[1].tv_nsec == UTIME_NOW);
    struct union_node n;
    int rc = find_for_change(u, cred, path, at, -1, explicit, &n);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    return top->ops->utimens(top, cred, n.path, ts, at);
}

int union_truncate(struct ls_instance *inst, const struct ls_cred *cred,
                   const char *path, off_t len)
{
    struct union_instance *u = union_of(inst);
    if (len < 0)
        return -EINVAL;
    struct union_node n;
    int rc = union_lookup(u, cred, path, UNION_FOLLOW | UNION_FAST, &n);
    if (rc < 0)
        return rc;
    if (S_ISDIR(n.st.mode))
        return -EISDIR;
    if (S_ISREG(n.st.mode)) {
        struct ls_file *file;
        rc = union_open(inst, cred, n.path, O_WRONLY, 0, &file);
        if (rc == 0) {
            rc = union_ftruncate(file, cred, len);
            union_close(file);
        }
        return rc;
    }
    if (n.branch != 0) {
        struct ls_instance *in = union_branch_inst(u, n.branch);
        if ((rc = union_need_writable(u)) < 0 ||
            (rc = in->ops->access(in, cred, n.path, W_OK, AT_EACCESS)) < 0 ||
            (rc = union_copyup(u, cred, &n, len)) < 0)
            return rc;
    }
    struct ls_instance *top = union_branch_inst(u, 0);
    return top->ops->truncate(top, cred, n.path, len);
}

int union_setxattr(struct ls_instance *inst, const struct ls_cred *cred,
                   const char *path, const char *name, const void *value,
                   size_t size, int xflags, int at)
{
    struct union_instance *u = union_of(inst);
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    if (union_is_private_xattr(name))
        return -EPERM;
    struct union_node n;
    int rc = find_for_change(u, cred, path, at, -1, 0, &n);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    return changed_entry(&n, top->ops->setxattr(top, cred, n.path, name,
                                                value, size, xflags, at));
}

int union_removexattr(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, const char *name, int at)
{
    struct union_instance *u = union_of(inst);
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    if (union_is_private_xattr(name))
        return -EPERM;
    struct union_node n;
    int rc = find_for_change(u, cred, path, at, -1, 0, &n);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    return changed_entry(&n,
                         top->ops->removexattr(top, cred, n.path, name, at));
}
