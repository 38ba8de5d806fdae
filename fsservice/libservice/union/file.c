/*
 * file.c - open files and directories of the union.
 *
 * An open file is the branch's own open file, wrapped: reads and writes go
 * straight to it (no copy, no extra lookup). A file opened for writing, or
 * with O_TRUNC, is copied up first and opened in the top branch; a file
 * opened read-only stays open in the branch it was found in (a later
 * copy-up by another open does not redirect it, as with overlayfs before
 * Linux 4.19). Attribute changes through a descriptor of a lower file copy
 * it up by the path it was opened under. A partial copy (partial.c) in the
 * top branch is read, written, truncated and fallocated through
 * partial.c, which merges it with its origin.
 *
 * An open directory wraps the directory of its topmost branch (for fstat
 * and the attribute calls) and lists the merge (dir.c).
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct union_file {
    struct ls_file base;
    /* The branch's open file; for a directory of a read-only branch whose
     * listing the branch's layer keeps, NULL until something needs it
     * (lower_of). */
    _Atomic(struct ls_file *) lower;
    int branch;             /* where lower is open */
    char *path;             /* the union path it was opened under */
    struct union_partial *part; /* a partial copy's shared state, or NULL */
    int readable;           /* opened for reading */
    /* A directory's snapshot; getdents calls on one open directory are
     * serialized so a rewind does not free a listing being read. */
    pthread_mutex_t dir_lock;
    struct union_listing listing;
    int listed;             /* listing holds a snapshot */
    /* A top branch file's origin as read at the open (union_origin_stat:
     * 1, origin_dev and origin_ino; 0 none; -1 not known, read by each
     * fstat). */
    int origin;
    uint64_t origin_dev, origin_ino;
    /* A directory's walk at the open (its merge mask, never 0 for a
     * directory, and stat), good while no change a walk depends on came
     * since (union_generation still walk_gen); dirs 0: none kept. */
    uint64_t walk_gen;
    union_mask dirs, parent_dirs;
    struct danaus_stat dir_st;
};

static struct union_file *ufile(struct ls_file *f)
{
    return (struct union_file *)f;
}

static int open_in_branch(struct union_instance *u, const struct ls_cred *cred,
                          int b, const struct union_node *n, int flags,
                          mode_t mode, struct ls_file **out)
{
    struct ls_instance *in = union_branch_inst(u, b);
    struct ls_file *lower;
    if (b == 0 && u->volatile_writes)
        flags &= ~O_SYNC; /* both of its bits: O_DSYNC's too */
    int rc = in->ops->open(in, cred, n->path, flags, mode, &lower);
    if (rc != 0)
        return rc; /* an error, or LS_OPEN_SPECIAL */
    struct union_file *f = calloc(1, sizeof *f);
    char *path = strdup(n->path);
    if (!f || !path) {
        free(f);
        free(path);
        in->ops->close(lower);
        return -ENOMEM;
    }
    f->base.inst = &u->base;
    f->base.is_dir = lower->is_dir;
    f->lower = lower;
    f->branch = b;
    f->path = path;
    f->readable = (flags & O_ACCMODE) != O_WRONLY;
    /* The number stat reports, a copy's origin's (origin.c), which the
     * file keeps while open: what its changes are announced under. */
    struct danaus_stat st = lower->has_attrs ? lower->attrs
                                             : (struct danaus_stat){0};
    st.ino = lower->ino;
    /* (A file this open made has no origin.) */
    bool made = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
    f->origin = -1;
    if (lower->ino && b == 0)
        f->origin = made ? 0 : union_origin_stat(u, n->path, &st);
    f->origin_dev = st.dev;
    f->origin_ino = st.ino;
    f->base.ino = st.ino;
    pthread_mutex_init(&f->dir_lock, NULL);
    if (b == 0 && S_ISREG(n->st.mode) &&
        (rc = union_partial_get(u, lower, n->path, &f->part)) < 0) {
        union_close(&f->base);
        return rc;
    }
    /* The attributes union_fstat would answer now: the branch's, with a
     * copy's origin; not for a partial copy, whose blocks its merge
     * changes. */
    f->base.has_attrs = lower->has_attrs && lower->ino && !f->part;
    if (f->base.has_attrs)
        f->base.attrs = st;
    *out = &f->base;
    return 0;
}

/* The open flags a directory of a read-only branch may be opened with
 * later (lower_of): reading, and what changes nothing of its open file
 * the union's answers depend on. */
#define LATER_FLAGS (O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | O_LARGEFILE |     \
                     O_NOCTTY | O_NOFOLLOW)

/* A directory of read-only branch n->branch, which cred may read there,
 * whose listing the branch's layer keeps: its open file in the branch
 * waits until something needs it (lower_of); its attributes are the
 * walk's, which are the branch's own. */
static int open_dir_later(struct union_instance *u, const struct union_node *n,
                          struct ls_file **out)
{
    struct union_file *f = calloc(1, sizeof *f);
    char *path = strdup(n->path);
    if (!f || !path) {
        free(f);
        free(path);
        return -ENOMEM;
    }
    f->base.inst = &u->base;
    f->base.is_dir = 1;
    f->branch = n->branch;
    f->path = path;
    f->readable = 1;
    f->base.ino = n->st.ino;
    f->base.has_attrs = true;
    f->base.attrs = n->st;
    pthread_mutex_init(&f->dir_lock, NULL);
    *out = &f->base;
    return 0;
}

/* A name that does not exist yet: made in the top branch, where its
 * directory is copied up and a whiteout for it removed. */
static int open_new(struct union_instance *u, const struct ls_cred *cred,
                    struct union_node *n, int flags, mode_t mode,
                    struct ls_file **out)
{
    int rc = union_need_writable(u);
    if (rc < 0)
        return rc;
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(n->path, dir, &name);
    /* The walk's merge mask of the directory: one the top branch has is
     * not copied up, and one the top branch alone has holds no whiteout
     * that hides anything (a copied-up directory starts with none); the
     * lookup saw whether the top branch hides the name. */
    bool up = n->parent_dirs & 1u;
    rc = union_copyup_parent(u, cred, n, dir);
    if (rc < 0)
        return rc;
    int removed = up && (n->parent_dirs & ~1u) && n->top_whiteout
                      ? union_whiteout_remove(u, dir, name)
                      : 0;
    if (removed < 0)
        return removed;
    n->dirs = 0;
    /* Absent a moment ago, the name is made exclusively: what the open
     * finds is then new (the branch need not look for a FIFO first, nor
     * the union for an origin). One made meanwhile is opened as asked. */
    rc = open_in_branch(u, cred, 0, n, flags | O_EXCL, mode, out);
    if (rc == -EEXIST && !(flags & O_EXCL))
        rc = open_in_branch(u, cred, 0, n, flags, mode, out);
    if (rc < 0 && removed)
        union_whiteout_create(u, dir, name);
    return rc;
}

int union_open(struct ls_instance *inst, const struct ls_cred *cred,
               const char *path, int flags, mode_t mode, struct ls_file **out)
{
    struct union_instance *u = union_of(inst);
    /* The union's own lookup says what the name is (below). */
    flags &= ~LS_OPEN_SEEN_REGULAR;
    if ((flags & O_PATH) == O_PATH)
        return -EINVAL;
    int writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
    int creat_excl = (flags & O_CREAT) && (flags & O_EXCL);
    int lf = (flags & O_NOFOLLOW) || creat_excl ? 0 : UNION_FOLLOW;
    if (flags & O_CREAT)
        lf |= UNION_MAY_BE_ABSENT;
    if (!(flags & O_DIRECTORY))
        lf |= UNION_FAST; /* a directory needs its merge mask */
    struct union_node n;
    int rc;
    /* A new name in a directory only the top branch has: no branch below
     * can hold it, and the top branch's EEXIST is the union's answer, so
     * nothing is looked up first (as unlink, names.c). Anything else,
     * errors included, goes the whole way below. */
    if (creat_excl && !(flags & O_DIRECTORY) &&
        union_in_top_only_dir(u, cred, path, &n) == 1) {
        n.st.mode = 0;
        return open_new(u, cred, &n, flags, mode, out);
    }
    uint64_t gen = union_generation();
    rc = union_lookup(u, cred, path, lf, &n);
    if (rc < 0)
        return rc;
    /* A name to make with a trailing slash: Linux makes no directory. */
    if (n.branch < 0 && path[0] && path[strlen(path) - 1] == '/')
        return -EISDIR;
    if (n.branch < 0)
        return open_new(u, cred, &n, flags, mode, out);
    if (creat_excl)
        return -EEXIST;
    if (S_ISDIR(n.st.mode)) {
        if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT))
            return -EISDIR;
        if (n.dirs == 0) /* found by the fast path: merge it */
            if ((rc = union_lookup(u, cred, path, lf & ~UNION_FAST, &n)) < 0)
                return rc;
        rc = n.branch > 0 && !(flags & ~(O_ACCMODE | LATER_FLAGS))
                 ? union_branch_may_read(u, cred, n.branch, n.path)
                 : 1;
        if (rc < 0)
            return rc;
        rc = rc == 0 ? open_dir_later(u, &n, out)
                     : open_in_branch(u, cred, n.branch, &n, flags, 0, out);
        if (rc == 0) {
            struct union_file *f = ufile(*out);
            f->walk_gen = gen;
            f->dirs = n.dirs;
            f->parent_dirs = n.parent_dirs;
            f->dir_st = n.st;
        }
        return rc;
    }
    /* A regular file, where it was found or copied up to. */
    int found = (flags & ~(O_CREAT | O_EXCL)) |
                (S_ISREG(n.st.mode) ? LS_OPEN_SEEN_REGULAR : 0);
    if (writes && n.branch != 0 && !S_ISLNK(n.st.mode)) {
        if ((rc = union_need_writable(u)) < 0)
            return rc;
        struct ls_instance *in = union_branch_inst(u, n.branch);
        rc = in->ops->access(in, cred, n.path, W_OK, AT_EACCESS);
        if (rc == 0)
            rc = union_copyup(u, cred, &n, (flags & O_TRUNC) ? 0 : -1);
        if (rc < 0)
            return rc;
        return open_in_branch(u, cred, 0, &n, found, 0, out);
    }
    return open_in_branch(u, cred, n.branch, &n, found, 0, out);
}

void union_close(struct ls_file *file)
{
    struct union_file *f = ufile(file);
    struct union_instance *u = union_of(file->inst);
    struct ls_instance *in = union_branch_inst(u, f->branch);
    if (f->part)
        union_partial_put(u, f->part);
    if (f->lower)
        in->ops->close(f->lower);
    union_listing_free(&f->listing);
    pthread_mutex_destroy(&f->dir_lock);
    free(f->path);
    free(f);
}

/* The branch's open file, opened now if the open left it for later. It
 * is opened with the copy-up credential, read-only: whatever is done
 * through it is checked against each call's own credential, and the
 * open's was checked when the union's file was opened. */
static int lower_of(struct union_file *f, struct ls_file **out)
{
    struct ls_file *lower = f->lower;
    if (!lower) {
        struct union_instance *u = union_of(f->base.inst);
        struct ls_instance *in = union_branch_inst(u, f->branch);
        int rc = in->ops->open(in, &u->copyup_cred, f->path,
                               O_RDONLY | O_DIRECTORY, 0, &lower);
        if (rc < 0)
            return rc;
        struct ls_file *first = NULL;
        if (!atomic_compare_exchange_strong(&f->lower, &first, lower)) {
            in->ops->close(lower); /* another call opened it first */
            lower = first;
        }
    }
    *out = lower;
    return 0;
}

ssize_t union_pread(struct ls_file *file, const struct ls_cred *cred,
                    void *buf, size_t n, off_t off)
{
    struct union_file *f = ufile(file);
    struct ls_file *lower;
    int rc = lower_of(f, &lower);
    if (rc < 0)
        return rc;
    if (f->part && f->readable)
        return union_partial_read(union_of(file->inst), f->part, lower,
                                  cred, buf, n, off);
    return lower->inst->ops->pread(lower, cred, buf, n, off);
}

ssize_t union_pwrite(struct ls_file *file, const struct ls_cred *cred,
                     const void *buf, size_t n, off_t off, off_t *end)
{
    struct union_file *f = ufile(file);
    struct ls_file *lower;
    int rc = lower_of(f, &lower);
    if (rc < 0)
        return rc;
    if (f->part)
        return union_partial_write(union_of(file->inst), f->part, lower,
                                   cred, buf, n, off, end);
    return lower->inst->ops->pwrite(lower, cred, buf, n, off, end);
}

int union_fsync(struct ls_file *file, const struct ls_cred *cred, int datasync)
{
    struct union_file *f = ufile(file);
    struct ls_file *lower;
    int rc = lower_of(f, &lower);
    if (rc < 0)
        return rc;
    return f->branch == 0 ? union_sync_top(union_of(file->inst), lower,
                                           cred, datasync)
                          : lower->inst->ops->fsync(lower, cred, datasync);
}

int union_ftruncate(struct ls_file *file, const struct ls_cred *cred,
                    off_t len)
{
    struct union_file *f = ufile(file);
    struct ls_file *lower;
    int rc = lower_of(f, &lower);
    if (rc < 0)
        return rc;
    if (f->part)
        return union_partial_truncate(union_of(file->inst), f->part, lower,
                                      cred, len);
    return lower->inst->ops->ftruncate(lower, cred, len);
}

/* A file open for writing is open in the top branch (union_open). */
int union_fallocate(struct ls_file *file, const struct ls_cred *cred,
                    int mode, off_t off, off_t len)
{
    struct union_file *f = ufile(file);
    struct ls_file *lower;
    int rc = lower_of(f, &lower);
    if (rc < 0)
        return rc;
    if (f->part)
        return union_partial_fallocate(union_of(file->inst), f->part, lower,
                                       cred, mode, off, len);
    return lower->inst->ops->fallocate(lower, cred, mode, off, len);
}

int union_fstat(struct ls_file *file, const struct ls_cred *cred,
                struct danaus_stat *out)
{
    struct union_file *f = ufile(file);
    struct ls_file *lower;
    int rc = lower_of(f, &lower);
    if (rc < 0)
        return rc;
    rc = lower->inst->ops->fstat(lower, cred, out);
    if (rc == 0 && f->branch == 0 && f->origin < 0)
        union_origin_fstat(union_of(file->inst), lower, out);
    if (rc == 0 && f->branch == 0 && f->origin == 1) {
        out->dev = f->origin_dev;
        out->ino = f->origin_ino;
    }
    if (rc == 0 && f->part)
        union_partial_blocks(union_of(file->inst), f->part, out);
    return rc;
}

int union_fstatfs(struct ls_file *file, const struct ls_cred *cred,
                  struct danaus_statfs *out)
{
    struct ls_file *lower;
    int rc = lower_of(ufile(file), &lower);
    if (rc < 0)
        return rc;
    return lower->inst->ops->fstatfs(lower, cred, out);
}

/* Attribute changes: on the open file in the top branch, which an open
 * never leaves for later (only directories of the branches below it),
 * else through the path, which copies the file up. */
int union_fchmod(struct ls_file *file, const struct ls_cred *cred, mode_t mode)
{
    struct union_file *f = ufile(file);
    struct ls_file *top = f->lower;
    if (f->branch == 0)
        return top->inst->ops->fchmod(top, cred, mode);
    return union_chmod(file->inst, cred, f->path, mode, 0);
}

int union_fchown(struct ls_file *file, const struct ls_cred *cred, uid_t uid,
                 gid_t gid)
{
    struct union_file *f = ufile(file);
    struct ls_file *top = f->lower;
    if (f->branch == 0)
        return top->inst->ops->fchown(top, cred, uid, gid);
    return union_chown(file->inst, cred, f->path, uid, gid, 0);
}

int union_futimens(struct ls_file *file, const struct ls_cred *cred,
                   const struct timespec ts[2])
{
    struct union_file *f = ufile(file);
    struct ls_file *top = f->lower;
    if (f->branch == 0)
        return top->inst->ops->futimens(top, cred, ts);
    return union_utimens(file->inst, cred, f->path, ts, 0);
}

ssize_t union_fgetxattr(struct ls_file *file, const struct ls_cred *cred,
                        const char *name, void *value, size_t size)
{
    if (union_is_private_xattr(name))
        return -ENODATA;
    struct ls_file *lower;
    int rc = lower_of(ufile(file), &lower);
    if (rc < 0)
        return rc;
    return lower->inst->ops->fgetxattr(lower, cred, name, value, size);
}

ssize_t union_flistxattr(struct ls_file *file, const struct ls_cred *cred,
                         char *list, size_t size)
{
    struct ls_file *lower;
    int rc = lower_of(ufile(file), &lower);
    if (rc < 0)
        return rc;
    return union_hide_private_xattrs(
        list, lower->inst->ops->flistxattr(lower, cred, list, size));
}

int union_fsetxattr(struct ls_file *file, const struct ls_cred *cred,
                    const char *name, const void *value, size_t size,
                    int xflags)
{
    struct union_file *f = ufile(file);
    if (union_is_private_xattr(name))
        return -EPERM;
    struct ls_file *top = f->lower;
    if (f->branch == 0)
        return top->inst->ops->fsetxattr(top, cred, name, value, size, xflags);
    return union_setxattr(file->inst, cred, f->path, name, value, size,
                          xflags, 0);
}

int union_fremovexattr(struct ls_file *file, const struct ls_cred *cred,
                       const char *name)
{
    struct union_file *f = ufile(file);
    if (union_is_private_xattr(name))
        return -EPERM;
    struct ls_file *top = f->lower;
    if (f->branch == 0)
        return top->inst->ops->fremovexattr(top, cred, name);
    return union_removexattr(file->inst, cred, f->path, name, 0);
}

/* The branch's file decides, unless a partial copy merges two files; a
 * write lets it keep writes back (LS_HOLD_WRITES) as the branch's does,
 * the flush writing through union_pwrite to that same file. */
int union_cache_hold(struct ls_file *file, uint64_t *key)
{
    struct union_file *f = ufile(file);
    if (f->part || !f->readable)
        return 0;
    struct ls_file *lower;
    int rc = lower_of(f, &lower);
    if (rc < 0)
        return rc;
    if (!lower->inst->ops->cache_hold)
        return 0;
    return lower->inst->ops->cache_hold(lower, key);
}

/* The branch's file, through which its hold lets writes be kept back. */
int union_write_fd(struct ls_file *file)
{
    struct union_file *f = ufile(file);
    struct ls_file *lower;
    if (f->part || !f->readable || lower_of(f, &lower) < 0 ||
        !lower->inst->ops->write_fd)
        return -1;
    return lower->inst->ops->write_fd(lower);
}

/* A read-only branch's file, as its backend hands it out: a copy-up
 * makes a new file in the top branch and leaves this one as it is. */
int union_reader_fd(struct ls_file *file)
{
    struct union_file *f = ufile(file);
    struct ls_file *lower = atomic_load(&f->lower);
    if (f->part || f->branch == 0 || file->is_dir || !lower ||
        !lower->inst->ops->reader_fd)
        return -1;
    return lower->inst->ops->reader_fd(lower);
}

/* Takes the snapshot: the directory's merge as it is now. While nothing
 * a walk depends on changed since the open, the open's walk holds and
 * the branch the directory is open in is read through its handle; else
 * branches may have joined it, or it may be gone (then it lists nothing,
 * as on Linux), so it is looked up and listed afresh. */
static int snapshot(struct union_instance *u, const struct ls_cred *cred,
                    struct union_file *f)
{
    union_listing_free(&f->listing);
    struct union_node *n = malloc(sizeof *n);
    if (!n)
        return -ENOMEM;
    int kept = f->dirs != 0 && f->walk_gen == union_generation(), rc = 0;
    if (kept) {
        strcpy(n->path, f->path);
        n->branch = f->branch;
        n->st = f->dir_st;
        n->dirs = f->dirs;
        n->parent_dirs = f->parent_dirs;
    } else {
        rc = union_lookup(u, cred, f->path, 0, n);
    }
    if (rc == 0 && S_ISDIR(n->st.mode))
        rc = kept ? union_list_held(u, cred, n, f->branch, f->lower,
                                    &f->listing)
                  : union_list(u, cred, n, &f->listing);
    else if (rc == -ENOENT || rc == 0)
        rc = 0;
    free(n);
    f->listed = rc == 0;
    return rc;
}

ssize_t union_getdents(struct ls_file *file, const struct ls_cred *cred,
                       void *buf, size_t n, off_t *pos)
{
    struct union_file *f = ufile(file);
    if (!file->is_dir)
        return -ENOTDIR;
    pthread_mutex_lock(&f->dir_lock);
    ssize_t rc = 0;
    if (*pos == 0 || !f->listed)
        rc = snapshot(union_of(file->inst), cred, f);
    if (rc == 0)
        rc = union_listing_getdents(&f->listing, buf, n, pos);
    pthread_mutex_unlock(&f->dir_lock);
    return rc;
}

int union_copyup_whole(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path)
{
    struct ls_file *file;
    int rc = union_open(inst, cred, path, O_WRONLY, 0, &file);
    if (rc < 0)
        return rc;
    struct union_file *f = ufile(file);
    if (f->part)
        rc = union_partial_merge(union_of(inst), f->part);
    union_close(file);
    return rc;
}
