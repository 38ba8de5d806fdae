/*
 * names.c - changes to the union's name space: mkdir, mknod, rmdir,
 * unlink, rename, link, symlink.
 *
 * New names are made in the top branch, after their directory is copied
 * up and a whiteout for the name removed; a directory made where a lower
 * one was deleted is marked opaque, so the old contents stay deleted.
 * Removing a name that a lower branch shows leaves a whiteout. The checks
 * Linux makes first (EEXIST, ENOTDIR, EISDIR, ENOTEMPTY, EINVAL for a
 * directory moved under itself) are made on the union's view; the client's
 * right to change a directory is checked on the directory the union shows.
 *
 * Directories present in lower branches are renamed by copying their whole
 * tree up first (as unionfs-fuse does), not refused with EXDEV (as Linux
 * overlayfs does without redirect_dir): programs such as dpkg and git rename
 * directories and do not all fall back on EXDEV. The cost is one copy of the
 * tree, once.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The last component of a path as written: "." and ".." get Linux's
 * errors before any lookup decides otherwise. */
static const char *last_component(const char *path, char buf[DANAUS_LONG_PATH_MAX])
{
    size_t len = strlen(path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    size_t n = len - start < DANAUS_LONG_PATH_MAX - 1 ? len - start
                                                 : DANAUS_LONG_PATH_MAX - 1;
    memcpy(buf, path + start, n);
    buf[n] = '\0';
    return buf;
}

static int union_empty(struct union_instance *u, const struct ls_cred *cred,
                       const struct union_node *n)
{
    struct union_listing l;
    int rc = union_list(u, cred, n, &l);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < l.n && rc == 0; i++)
        if (strcmp(l.entries[i].name, ".") != 0 &&
            strcmp(l.entries[i].name, "..") != 0)
            rc = -ENOTEMPTY;
    union_listing_free(&l);
    return rc;
}

/* Makes the place of a new name n->path in the top branch; *removed says
 * whether a whiteout had to go (the caller restores it on failure). */
static int prepare_new(struct union_instance *u, const struct ls_cred *cred,
                       const struct union_node *n, int *removed)
{
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(n->path, dir, &name);
    int rc = union_copyup_dirs(u, cred, dir);
    if (rc < 0)
        return rc;
    rc = union_whiteout_remove(u, dir, name);
    if (rc < 0)
        return rc;
    *removed = rc;
    return 0;
}

static void restore_whiteout(struct union_instance *u, const char *path)
{
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(path, dir, &name);
    union_whiteout_create(u, dir, name);
}

/* Hides n->path from lower branches if any of them shows it. */
static int whiteout_if_lower(struct union_instance *u,
                             const struct ls_cred *cred,
                             const struct union_node *n)
{
    int lower = n->branch != 0 ? 1 : union_lower_has(u, cred, n, 0);
    if (lower <= 0)
        return lower;
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(n->path, dir, &name);
    int rc = union_copyup_parent(u, cred, n, dir);
    return rc < 0 ? rc : union_whiteout_create(u, dir, name);
}

/* A new name: looked up (absent, else EEXIST) and prepared. */
static int new_name(struct union_instance *u, const struct ls_cred *cred,
                    const char *path, struct union_node *n, int *removed)
{
    int rc = union_need_writable(u);
    if (rc == 0)
        rc = union_lookup(u, cred, path, UNION_MAY_BE_ABSENT, n);
    if (rc == 0 && n->branch >= 0)
        rc = -EEXIST;
    if (rc == 0)
        rc = union_check_parent_writable(u, cred, n);
    return rc < 0 ? rc : prepare_new(u, cred, n, removed);
}

int union_mkdir(struct ls_instance *inst, const struct ls_cred *cred,
                const char *path, mode_t mode)
{
    struct union_instance *u = union_of(inst);
    struct union_node n;
    int removed = 0;
    int rc = new_name(u, cred, path, &n, &removed);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    rc = top->ops->mkdir(top, cred, n.path, mode);
    if (rc == 0 && removed)
        rc = union_opaque_mark(u, n.path);
    if (rc < 0 && removed)
        restore_whiteout(u, n.path);
    return rc;
}

int union_rmdir(struct ls_instance *inst, const struct ls_cred *cred,
                const char *path)
{
    struct union_instance *u = union_of(inst);
    char last[DANAUS_LONG_PATH_MAX];
    last_component(path, last);
    if (strcmp(last, ".") == 0)
        return -EINVAL;
    if (strcmp(last, "..") == 0)
        return -ENOTEMPTY;
    int rc = union_need_writable(u);
    struct union_node n;
    if (rc == 0)
        rc = union_in_top_only_dir(u, cred, path, &n);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    if (rc == 1) {
        rc = top->ops->rmdir(top, cred, n.path);
        if (rc == 0)
            union_changed_at(n.path);
        /* One holding only whiteouts is empty to the union: the whole way
         * below clears them. */
        if (rc != -ENOTEMPTY)
            return rc;
    }
    rc = union_lookup(u, cred, path, 0, &n);
    if (rc < 0)
        return rc;
    if (n.path[0] == '\0')
        return -EBUSY;
    if (!S_ISDIR(n.st.mode))
        return -ENOTDIR;
    if ((rc = union_empty(u, cred, &n)) < 0 ||
        (rc = union_check_parent_writable(u, cred, &n)) < 0)
        return rc;
    if (n.dirs & 1u) {
        rc = union_whiteouts_clear(u, n.path);
        if (rc == 0)
            rc = top->ops->rmdir(top, cred, n.path);
    }
    if (rc == 0)
        rc = whiteout_if_lower(u, cred, &n);
    /* Whatever part of it was done: its whiteouts, its top copy. */
    union_changed_at(n.path);
    return rc;
}

int union_unlink(struct ls_instance *inst, const struct ls_cred *cred,
                 const char *path)
{
    struct union_instance *u = union_of(inst);
    int rc = union_need_writable(u);
    struct union_node n;
    if (rc == 0)
        rc = union_in_top_only_dir(u, cred, path, &n);
    struct ls_instance *top = union_branch_inst(u, 0);
    if (rc == 1)
        return top->ops->unlink(top, cred, n.path);
    if (rc == 0)
        rc = union_lookup(u, cred, path, 0, &n);
    if (rc < 0)
        return rc;
    if (S_ISDIR(n.st.mode))
        return -EISDIR;
    if (n.branch == 0) {
        rc = top->ops->unlink(top, cred, n.path);
    } else {
        rc = union_check_parent_writable(u, cred, &n);
    }
    return rc < 0 ? rc : whiteout_if_lower(u, cred, &n);
}

static int is_under(const char *path, const char *dir)
{
    size_t len = strlen(dir);
    return strncmp(path, dir, len) == 0 && (len == 0 || path[len] == '/');
}

/* Linux's checks of a rename on the union's view of both names. */
static int rename_checks(struct union_instance *u, const struct ls_cred *cred,
                         const struct union_node *src,
                         const struct union_node *dst, unsigned flags)
{
    if (src->path[0] == '\0' || dst->path[0] == '\0')
        return -EBUSY;
    int src_dir = S_ISDIR(src->st.mode);
    if (src_dir && is_under(dst->path, src->path) &&
        strcmp(dst->path, src->path) != 0)
        return -EINVAL;
    if (dst->branch < 0)
        return 0;
    if (flags & RENAME_NOREPLACE)
        return -EEXIST;
    int dst_dir = S_ISDIR(dst->st.mode);
    if (src_dir && !dst_dir)
        return -ENOTDIR;
    if (!src_dir && dst_dir)
        return -EISDIR;
    return dst_dir ? union_empty(u, cred, dst) : 0;
}

int union_rename(struct ls_instance *inst, const struct ls_cred *cred,
                 const char *from, const char *to, unsigned flags)
{
    struct union_instance *u = union_of(inst);
    if (flags & ~(unsigned)RENAME_NOREPLACE)
        return -EINVAL; /* RENAME_EXCHANGE and RENAME_WHITEOUT: not here */
    int rc = union_need_writable(u);
    if (rc < 0)
        return rc;
    struct union_node *src = malloc(sizeof *src), *dst = malloc(sizeof *dst);
    if (!src || !dst) {
        rc = -ENOMEM;
        goto out;
    }
    if ((rc = union_lookup(u, cred, from, 0, src)) < 0 ||
        (rc = union_lookup(u, cred, to, UNION_MAY_BE_ABSENT, dst)) < 0)
        goto out;
    if (dst->branch >= 0 && src->st.dev == dst->st.dev &&
        src->st.ino == dst->st.ino) {
        rc = 0; /* two names of one file: nothing to do, as on Linux */
        goto out;
    }
    if ((rc = rename_checks(u, cred, src, dst, flags)) < 0 ||
        (rc = union_check_parent_writable(u, cred, src)) < 0 ||
        (rc = union_check_parent_writable(u, cred, dst)) < 0)
        goto out;

    int src_dir = S_ISDIR(src->st.mode);
    int src_lower = src->branch != 0 ? 1 : union_lower_has(u, cred, src, 0);
    if (src_lower < 0) {
        rc = src_lower;
        goto out;
    }
    /* A replaced directory that lower branches also hold, or a whited-out
     * name, leaves lower contents the moved directory must not show. */
    int dst_lower = dst->branch >= 0 && (dst->dirs & ~1u) != 0;
    if (src_dir && (src->dirs & ~1u))
        rc = union_copyup_tree(u, cred, src);
    else if (src->branch != 0)
        rc = union_copyup(u, cred, src, -1);
    if (rc < 0)
        goto out;
    int removed = 0;
    if ((rc = prepare_new(u, cred, dst, &removed)) < 0)
        goto out;
    struct ls_instance *top = union_branch_inst(u, 0);
    if (dst->branch >= 0 && S_ISDIR(dst->st.mode) && (dst->dirs & 1u))
        rc = union_whiteouts_clear(u, dst->path);
    if (rc == 0)
        rc = union_origin_follow(u, src->path, dst->path);
    if (rc == 0 && src_dir) {
        union_origin_move_begin(u);
        rc = top->ops->rename(top, cred, src->path, dst->path, flags);
        union_origin_move_end(u);
    } else if (rc == 0) {
        rc = top->ops->rename(top, cred, src->path, dst->path, flags);
    }
    if (rc < 0) {
        if (removed)
            restore_whiteout(u, dst->path);
        goto out;
    }
    if (src_dir && (removed || dst_lower))
        rc = union_opaque_mark(u, dst->path);
    if (rc == 0 && src_lower) {
        char dir[DANAUS_LONG_PATH_MAX];
        const char *name;
        union_split(src->path, dir, &name);
        rc = union_whiteout_create(u, dir, name);
    }
out:
    free(src);
    free(dst);
    return rc;
}

int union_link(struct ls_instance *inst, const struct ls_cred *cred,
               const char *existing, const char *newpath)
{
    struct union_instance *u = union_of(inst);
    struct union_node src, dst;
    int rc = union_need_writable(u);
    if (rc == 0)
        rc = union_lookup(u, cred, existing, 0, &src);
    if (rc < 0)
        return rc;
    if (S_ISDIR(src.st.mode))
        return -EPERM;
    int removed = 0;
    if ((rc = new_name(u, cred, newpath, &dst, &removed)) < 0)
        return rc;
    if (src.branch != 0)
        rc = union_copyup(u, cred, &src, -1);
    struct ls_instance *top = union_branch_inst(u, 0);
    if (rc == 0)
        rc = union_origin_follow(u, src.path, dst.path);
    if (rc == 0)
        rc = top->ops->link(top, cred, src.path, dst.path);
    if (rc < 0 && removed)
        restore_whiteout(u, dst.path);
    return rc;
}

int union_symlink(struct ls_instance *inst, const struct ls_cred *cred,
                  const char *target, const char *linkpath)
{
    struct union_instance *u = union_of(inst);
    struct union_node n;
    int removed = 0;
    int rc = new_name(u, cred, linkpath, &n, &removed);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    rc = top->ops->symlink(top, cred, target, n.path);
    if (rc < 0 && removed)
        restore_whiteout(u, n.path);
    return rc;
}

int union_mknod(struct ls_instance *inst, const struct ls_cred *cred,
                const char *path, mode_t mode, dev_t dev)
{
    struct union_instance *u = union_of(inst);
    struct union_node n;
    int removed = 0;
    int rc = new_name(u, cred, path, &n, &removed);
    if (rc < 0)
        return rc;
    struct ls_instance *top = union_branch_inst(u, 0);
    rc = top->ops->mknod(top, cred, n.path, mode, dev);
    if (rc < 0 && removed)
        restore_whiteout(u, n.path);
    return rc;
}
