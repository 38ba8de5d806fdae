/*
 * origin.c - the identity a copied-up entry keeps: its st_dev and st_ino,
 * and the union's private xattrs.
 *
 * A copy-up (copyup.c) gives the upper entry the xattr ORIGIN_XATTR, the
 * (st_dev, st_ino) of the lower entry it was copied from, and the union
 * reports that pair for it (stat, fstat, and d_ino in merged listings), as
 * overlayfs reports a copied-up inode's origin. So st_ino stays the same
 * before the first write, while the copy is partial (partial.c), after it
 * is merged whole, and after a metadata-only copy-up; the xattr travels
 * with the inode, so renames and hard links keep it.
 *
 * No two entries of one union report the same pair: the lower entry is
 * hidden by its copy (same path; a rename leaves a whiteout behind), and
 * (st_dev, st_ino) names one inode. A lower file with other hard links is
 * the exception - its other names stay below, distinct files from the copy
 * - so its copy keeps its own number (overlayfs without index=on does the
 * same). Where the top branch cannot hold the xattr, the copy also keeps
 * its own number.
 *
 * A directory of the top branch that holds such an entry carries
 * IMPURE_XATTR (set before the entry gets there: by the copy-up, a rename
 * or a link), so a merged listing or a stat reads origins only in those
 * directories and serves the others at the backend's cost (overlayfs's
 * "impure" mark). Which directories are impure is cached: reading the mark
 * cost a stat of a file the union made (never copied) 70% of its time.
 * The cache is exact as long as only this union marks and moves the top
 * branch's directories, as for overlayfs's upper directory: a mark updates
 * it, a read that raced with one is not kept (the generation moved), and
 * while a directory is renamed the cache is empty and reads are not kept.
 * A removed directory's entry may stay "impure", which only costs the next
 * one at that path an xattr read.
 *
 * Private xattrs (these and partial.c's record) are neither shown nor
 * changed by clients, and never copied up from a lower branch.
 */
#include "internal.h"
#include "le.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ORIGIN_XATTR "trusted.danaus.origin"
#define ORIGIN_LEN 16 /* st_dev, st_ino: u64 little-endian each */
#define IMPURE_XATTR "trusted.danaus.impure"

int union_is_private_xattr(const char *name)
{
    return strcmp(name, ORIGIN_XATTR) == 0 ||
           strcmp(name, IMPURE_XATTR) == 0 || union_partial_is_record(name);
}

ssize_t union_hide_private_xattrs(char *list, ssize_t len)
{
    if (len <= 0 || !list)
        return len;
    for (ssize_t at = 0; at < len;) {
        size_t n = strnlen(list + at, (size_t)(len - at)) + 1;
        /* A last name without its NUL (never from a backend) is kept as it
         * is rather than moved by a negative length. */
        if (n > (size_t)(len - at))
            break;
        if (union_is_private_xattr(list + at)) {
            memmove(list + at, list + at + n, (size_t)(len - at) - n);
            len -= (ssize_t)n;
        } else {
            at += (ssize_t)n;
        }
    }
    return len;
}

void union_origin_cache_init(struct union_instance *u)
{
    pthread_rwlock_init(&u->impure.lock, NULL);
}

void union_origin_cache_free(struct union_instance *u)
{
    for (int i = 0; i < UNION_IMPURE_SLOTS; i++)
        free(u->impure.slot[i].dir);
    pthread_rwlock_destroy(&u->impure.lock);
}

static unsigned slot_of(const char *dir)
{
    return (unsigned)union_hash(dir) & (UNION_IMPURE_SLOTS - 1);
}

/* Whether slot i holds dir; the cache's lock is held. */
static bool holds(const struct union_impure_cache *c, unsigned i,
                  const char *dir)
{
    return c->slot[i].dir && strcmp(c->slot[i].dir, dir) == 0;
}

/* Puts into dir's slot what it is; a copy that could not be made (NULL)
 * empties the slot if it held dir. The cache's lock is held. */
static void put(struct union_impure_cache *c, const char *dir, char *copy,
                int impure)
{
    unsigned i = slot_of(dir);
    if (!copy && !holds(c, i, dir))
        return;
    free(c->slot[i].dir);
    c->slot[i].dir = copy;
    c->slot[i].impure = impure;
}

/* What a read of dir's mark found, kept unless a mark or a rename came
 * since the read began at generation: then it may be stale. */
static void remember_read(struct union_instance *u, const char *dir,
                          int impure, uint64_t generation)
{
    char *copy = strdup(dir);
    pthread_rwlock_wrlock(&u->impure.lock);
    if (copy && generation == u->impure.generation) {
        put(&u->impure, dir, copy, impure);
        copy = NULL;
    }
    pthread_rwlock_unlock(&u->impure.lock);
    free(copy);
}

static void remember_mark(struct union_instance *u, const char *dir)
{
    char *copy = strdup(dir);
    pthread_rwlock_wrlock(&u->impure.lock);
    u->impure.generation++;
    put(&u->impure, dir, copy, 1);
    pthread_rwlock_unlock(&u->impure.lock);
}

/* Empties the cache; the lock is held. */
static void forget_all(struct union_impure_cache *c)
{
    c->generation++;
    for (int i = 0; i < UNION_IMPURE_SLOTS; i++) {
        free(c->slot[i].dir);
        c->slot[i].dir = NULL;
    }
}

void union_origin_move_begin(struct union_instance *u)
{
    pthread_rwlock_wrlock(&u->impure.lock);
    forget_all(&u->impure);
    u->impure.moving++;
    pthread_rwlock_unlock(&u->impure.lock);
}

void union_origin_move_end(struct union_instance *u)
{
    pthread_rwlock_wrlock(&u->impure.lock);
    forget_all(&u->impure);
    u->impure.moving--;
    pthread_rwlock_unlock(&u->impure.lock);
}

int union_origin_impure(struct union_instance *u, const char *dir)
{
    struct union_impure_cache *c = &u->impure;
    unsigned i = slot_of(dir);
    pthread_rwlock_rdlock(&c->lock);
    int known = holds(c, i, dir) ? c->slot[i].impure : -1;
    uint64_t generation = c->generation;
    int moving = c->moving;
    pthread_rwlock_unlock(&c->lock);
    if (known >= 0)
        return known;
    struct ls_instance *top = union_branch_inst(u, 0);
    ssize_t rc = top->ops->getxattr(top, &u->copyup_cred, dir, IMPURE_XATTR,
                                    NULL, 0, AT_SYMLINK_NOFOLLOW);
    /* No answer (the directory went, the backend failed) is not kept. */
    if (!moving && (rc >= 0 || rc == -ENODATA || rc == -ENOTSUP))
        remember_read(u, dir, rc >= 0, generation);
    return rc >= 0;
}

/* Marks the top branch's directory of path, if it is not yet. */
static int mark_parent(struct union_instance *u, const char *path)
{
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(path, dir, &name);
    if (union_origin_impure(u, dir))
        return 0;
    struct ls_instance *top = union_branch_inst(u, 0);
    int rc = top->ops->setxattr(top, &u->copyup_cred, dir, IMPURE_XATTR, "",
                                0, 0, AT_SYMLINK_NOFOLLOW);
    if (rc == 0)
        remember_mark(u, dir);
    return rc;
}

int union_origin_record(struct union_instance *u, const char *to,
                        const struct danaus_stat *origin)
{
    if (!S_ISDIR(origin->mode) && origin->nlink != 1)
        return 0; /* other names of it stay below */
    struct ls_instance *top = union_branch_inst(u, 0);
    uint8_t v[ORIGIN_LEN];
    le_put64(v, origin->dev);
    le_put64(v + 8, origin->ino);
    int rc = mark_parent(u, to);
    return rc < 0 ? rc
                  : top->ops->setxattr(top, &u->copyup_cred, to, ORIGIN_XATTR,
                                       v, sizeof v, 0, AT_SYMLINK_NOFOLLOW);
}

int union_origin_follow(struct union_instance *u, const char *from,
                        const char *to)
{
    struct ls_instance *top = union_branch_inst(u, 0);
    ssize_t len = top->ops->getxattr(top, &u->copyup_cred, from,
                                     ORIGIN_XATTR, NULL, 0,
                                     AT_SYMLINK_NOFOLLOW);
    return len == ORIGIN_LEN ? mark_parent(u, to) : 0;
}

/* st, of an entry whose origin xattr read got len bytes into v; what
 * union_origin_stat returns. */
static int apply(const uint8_t *v, ssize_t len, struct danaus_stat *st)
{
    if (len == ORIGIN_LEN) {
        st->dev = le_get64(v);
        st->ino = le_get64(v + 8);
        return 1;
    }
    /* None, or not one the union wrote: its own number. */
    return len >= 0 || len == -ENODATA || len == -ENOTSUP ? 0 : -1;
}

int union_origin_stat(struct union_instance *u, const char *path,
                      struct danaus_stat *st)
{
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(path, dir, &name);
    if (path[0] && !union_origin_impure(u, dir))
        return 0;
    struct ls_instance *top = union_branch_inst(u, 0);
    uint8_t v[ORIGIN_LEN];
    return apply(v,
                 top->ops->getxattr(top, &u->copyup_cred, path, ORIGIN_XATTR,
                                    v, sizeof v, AT_SYMLINK_NOFOLLOW),
                 st);
}

int union_origin_fstat(struct union_instance *u, struct ls_file *file,
                       struct danaus_stat *st)
{
    uint8_t v[ORIGIN_LEN];
    return apply(v,
                 file->inst->ops->fgetxattr(file, &u->copyup_cred,
                                            ORIGIN_XATTR, v, sizeof v),
                 st);
}
