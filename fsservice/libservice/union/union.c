/*
 * union.c - the union libservice's instance and ops table, and the calls
 * that only read (stat, access, readlink, statfs, xattr reads).
 *
 * Design (see union.h): a branch is an instance of the lower libservice
 * rooted at the branch's directory, so the backend's containment keeps
 * every branch path inside its branch, and a read-only branch instance is
 * shared by every union over the same image. The other calls live in
 * file.c (open files), names.c (name space changes) and
 * attr.c (attribute changes, with copy-up); lookup in
 * lookup.c, whiteouts in whiteout.c, copy-up in
 * copyup.c, merged listings in dir.c.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int union_need_writable(struct union_instance *u)
{
    return u->branch[0].writable ? 0 : -EROFS;
}

int union_check_parent_writable(struct union_instance *u,
                                const struct ls_cred *cred,
                                const struct union_node *n)
{
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(n->path, dir, &name);
    /* The walk that found n knows which branches merge into its parent:
     * the topmost one's directory is the union's (its mode, owner and
     * ACL). */
    int b = union_next_branch(n->parent_dirs, 0);
    if (b < 0)
        return -EINVAL; /* a node of the fast path (UNION_FAST) */
    struct ls_instance *in = union_branch_inst(u, b);
    return in->ops->access(in, cred, dir, W_OK | X_OK, AT_EACCESS);
}

static int follow_flags(int at)
{
    return ((at & AT_SYMLINK_NOFOLLOW) ? 0 : UNION_FOLLOW) | UNION_FAST;
}

static int union_stat(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, int at, struct danaus_stat *out)
{
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    struct union_instance *u = union_of(inst);
    struct union_node n;
    int rc = union_lookup(u, cred, path, follow_flags(at), &n);
    if (rc < 0)
        return rc;
    *out = n.st;
    if (n.branch != 0)
        return 0;
    union_origin_stat(u, n.path, out);
    /* Only a sparse file of the top branch may be a partial copy. */
    if (S_ISREG(n.st.mode) && (off_t)n.st.blocks * 512 < n.st.size)
        union_partial_stat(u, n.path, out);
    return 0;
}

static int union_access(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *path, int mode, int at)
{
    struct union_instance *u = union_of(inst);
    if (at & ~(AT_SYMLINK_NOFOLLOW | AT_EACCESS))
        return -EINVAL;
    struct union_node n;
    int rc = union_lookup(u, cred, path, follow_flags(at), &n);
    if (rc < 0)
        return rc;
    if ((mode & W_OK) && !S_ISLNK(n.st.mode) &&
        (rc = union_need_writable(u)) < 0)
        return rc;
    struct ls_instance *in = union_branch_inst(u, n.branch);
    return in->ops->access(in, cred, n.path, mode, at);
}

static ssize_t union_readlink(struct ls_instance *inst,
                              const struct ls_cred *cred, const char *path,
                              char *buf, size_t size)
{
    struct union_instance *u = union_of(inst);
    struct union_node n;
    int rc = union_lookup(u, cred, path, UNION_FAST, &n);
    if (rc < 0)
        return rc;
    if (!S_ISLNK(n.st.mode))
        return -EINVAL;
    struct ls_instance *in = union_branch_inst(u, n.branch);
    return in->ops->readlink(in, cred, n.path, buf, size);
}

/* The union's space is the top branch's: that is where writes go. */
static int union_statfs(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *path, struct danaus_statfs *out)
{
    struct union_instance *u = union_of(inst);
    struct union_node n;
    int rc = union_lookup(u, cred, path, UNION_FOLLOW | UNION_FAST, &n);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    return top->ops->statfs(top, &u->copyup_cred, "", out);
}

static ssize_t union_getxattr(struct ls_instance *inst,
                              const struct ls_cred *cred, const char *path,
                              const char *name, void *value, size_t size,
                              int at)
{
    struct union_instance *u = union_of(inst);
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    if (union_is_private_xattr(name))
        return -ENODATA;
    struct union_node n;
    int rc = union_lookup(u, cred, path, follow_flags(at), &n);
    if (rc < 0)
        return rc;
    struct ls_instance *in = union_branch_inst(u, n.branch);
    return in->ops->getxattr(in, cred, n.path, name, value, size, at);
}

static ssize_t union_listxattr(struct ls_instance *inst,
                               const struct ls_cred *cred, const char *path,
                               char *list, size_t size, int at)
{
    struct union_instance *u = union_of(inst);
    if (at & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    struct union_node n;
    int rc = union_lookup(u, cred, path, follow_flags(at), &n);
    if (rc < 0)
        return rc;
    struct ls_instance *in = union_branch_inst(u, n.branch);
    return union_hide_private_xattrs(
        list, in->ops->listxattr(in, cred, n.path, list, size, at));
}

/* The branch instances belong to whoever made them
 * (fsservice/core/branches.c). */
static void union_destroy(struct ls_instance *inst)
{
    struct union_instance *u = union_of(inst);
    for (int b = 0; b < u->nbranches; b++)
        if (u->own_layers & (1u << b))
            union_layer_free(u->branch[b].layer);
    union_origin_cache_free(u);
    pthread_mutex_destroy(&u->copy_lock);
    pthread_mutex_destroy(&u->partial_lock);
    pthread_cond_destroy(&u->copy_done);
    free(u);
}

/* ---- calls that may change what a walk found (lookup.c's memo) ----
 *
 * A walk's memo holds the directories on a path: which branches each
 * merges, and that the caller may search them. What changes those marks
 * the unions changed after it: a directory removed (union_rmdir names
 * it), copied up (copyup.c names it, whatever call copied up) or given a
 * mode, an owner or an xattr (opaque marks, ACLs) by path (attr.c names
 * it), any rename (for simplicity), and those changes through an open
 * directory (below). A directory made changes no walk (no walk went
 * through a name that was not there, or was whited out), nor do files
 * made, removed, written, retimed or given a mode, owner or xattr: a
 * later lookup of their names looks in the branches afresh. */

static int changing_fchmod(struct ls_file *f, const struct ls_cred *cred,
                           mode_t mode)
{
    int rc = union_fchmod(f, cred, mode);
    if (f->is_dir)
        union_changed();
    return rc;
}

static int changing_fchown(struct ls_file *f, const struct ls_cred *cred,
                           uid_t uid, gid_t gid)
{
    int rc = union_fchown(f, cred, uid, gid);
    if (f->is_dir)
        union_changed();
    return rc;
}

static int changing_fsetxattr(struct ls_file *f, const struct ls_cred *cred,
                              const char *name, const void *value,
                              size_t size, int xflags)
{
    int rc = union_fsetxattr(f, cred, name, value, size, xflags);
    if (f->is_dir)
        union_changed();
    return rc;
}

static int changing_fremovexattr(struct ls_file *f,
                                 const struct ls_cred *cred, const char *name)
{
    int rc = union_fremovexattr(f, cred, name);
    if (f->is_dir)
        union_changed();
    return rc;
}

static int changing_rename(struct ls_instance *inst,
                           const struct ls_cred *cred, const char *from,
                           const char *to, unsigned flags)
{
    int rc = union_rename(inst, cred, from, to, flags);
    union_changed();
    return rc;
}

static const struct ls_ops union_ops = {
    .name = "union",
    .open = union_open,
    .close = union_close,
    .pread = union_pread,
    .pwrite = union_pwrite,
    .fsync = union_fsync,
    .ftruncate = union_ftruncate,
    .fallocate = union_fallocate,
    .fstat = union_fstat,
    .fchmod = changing_fchmod,
    .fchown = changing_fchown,
    .futimens = union_futimens,
    .fstatfs = union_fstatfs,
    .getdents = union_getdents,
    .fgetxattr = union_fgetxattr,
    .fsetxattr = changing_fsetxattr,
    .flistxattr = union_flistxattr,
    .fremovexattr = changing_fremovexattr,
    .cache_hold = union_cache_hold,
    .write_fd = union_write_fd,
    .reader_fd = union_reader_fd,
    .stat = union_stat,
    .access = union_access,
    .mkdir = union_mkdir,
    .mknod = union_mknod,
    .rmdir = union_rmdir,
    .unlink = union_unlink,
    .rename = changing_rename,
    .link = union_link,
    .symlink = union_symlink,
    .readlink = union_readlink,
    .chmod = union_chmod,
    .chown = union_chown,
    .utimens = union_utimens,
    .truncate = union_truncate,
    .statfs = union_statfs,
    .getxattr = union_getxattr,
    .setxattr = union_setxattr,
    .listxattr = union_listxattr,
    .removexattr = union_removexattr,
    .destroy = union_destroy,
};

struct ls_instance *union_instance_new(const struct union_branch *branches,
                                       int nbranches,
                                       const struct ls_cred *copyup_cred,
                                       char *err, size_t errlen)
{
    if (nbranches < 1 || nbranches > UNION_MAX_BRANCHES) {
        snprintf(err, errlen, "union: %d branches (1 to %d)", nbranches,
                 UNION_MAX_BRANCHES);
        return NULL;
    }
    for (int b = 1; b < nbranches; b++)
        if (branches[b].writable) {
            snprintf(err, errlen, "union: only the top branch may be "
                                  "writable");
            return NULL;
        }
    struct union_instance *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "union: out of memory");
        return NULL;
    }
    u->base.ops = &union_ops;
    u->id = union_new_id();
    u->base.kernel_name_space = true;
    for (int b = 0; b < nbranches; b++)
        u->base.kernel_name_space &= branches[b].inst->kernel_name_space;
    u->volatile_writes = branches[0].volatile_writes && branches[0].writable &&
                         branches[0].inst->kernel_name_space;
    u->nbranches = nbranches;
    memcpy(u->branch, branches, (size_t)nbranches * sizeof *branches);
    u->copyup_cred = *copyup_cred;
    pthread_mutex_init(&u->copy_lock, NULL);
    pthread_mutex_init(&u->partial_lock, NULL);
    pthread_cond_init(&u->copy_done, NULL);
    union_origin_cache_init(u);
    for (int b = 0; b < nbranches; b++) {
        if (u->branch[b].writable) {
            u->branch[b].layer = NULL;
        } else if (!u->branch[b].layer) {
            u->branch[b].layer = union_layer_new();
            u->own_layers |= 1u << b;
            if (!u->branch[b].layer) {
                union_destroy(&u->base);
                snprintf(err, errlen, "union: out of memory");
                return NULL;
            }
        }
    }
    /* The root merges every branch down to the first opaque one. */
    for (int b = 0; b < nbranches; b++) {
        u->root_dirs |= 1u << b;
        if (union_is_opaque(u, copyup_cred, b, "") == 1)
            break;
    }
    /* Listings of read-only branches begin with the first lookup, not
     * while the union is made: a service makes its configured unions
     * before anything could fill their branches through it. */
    u->listings_on = 1;
    return &u->base;
}

int union_branch_instances(struct ls_instance *inst,
                           struct ls_instance **out)
{
    if (!inst || inst->ops != &union_ops)
        return 0;
    struct union_instance *u = union_of(inst);
    for (int i = 0; i < u->nbranches; i++)
        out[i] = union_branch_inst(u, i);
    return u->nbranches;
}
