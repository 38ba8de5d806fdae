/*
 * internal.h - what the files of the union libservice share: the
 * instance, the result of a union lookup, and the entry points of lookup
 * (lookup.c), whiteouts (whiteout.c), copy-up (copyup.c), partial copies
 * (partial.c), origins of copies (origin.c) and merged directories
 * (dir.c).
 *
 * Paths inside the union are normalized: "" is the root, components are
 * joined by single '/', never "." or "..", never a whiteout name.
 */
#ifndef DANAUS_UNION_INTERNAL_H
#define DANAUS_UNION_INTERNAL_H

#include "extent_map.h"
#include "union.h"

#include <danaus/wire.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* A set of branches, bit i for branch i. */
typedef uint32_t union_mask;

/* What origin.c knows of the top branch's directories: whether each holds
 * copies with an origin (IMPURE_XATTR), as last read or set; slots are
 * chosen by a hash of the path and keep the whole path. */
#define UNION_IMPURE_SLOTS 256
struct union_impure_cache {
    pthread_rwlock_t lock;
    uint64_t generation; /* moves at every change */
    int moving;          /* directory renames under way */
    struct {
        char *dir;
        int impure;
    } slot[UNION_IMPURE_SLOTS];
};

/* A copy-up under way: later writers of the same path wait for it. */
struct union_copying {
    struct union_copying *next;
    char path[DANAUS_LONG_PATH_MAX];
};

struct union_instance {
    struct ls_instance base;
    int nbranches;
    struct union_branch branch[UNION_MAX_BRANCHES];
    union_mask root_dirs;         /* branches merged into the root */
    struct ls_cred copyup_cred;
    pthread_mutex_t copy_lock;    /* guards copying */
    pthread_cond_t copy_done;
    struct union_copying *copying;
    atomic_uint tmp_seq;          /* names of copy-up temporaries */
    pthread_mutex_t partial_lock; /* guards partials */
    struct union_partial *partials; /* open partial copies (partial.c) */
    /* Read-only branches whose layer (branch_listing.c) the union made
     * itself, its caller having given none: freed with it. */
    union_mask own_layers;
    int listings_on; /* from the end of union_instance_new on */
    struct union_impure_cache impure; /* origin.c */
    uint64_t id; /* unique in the process: what a walk memo names */
    /* union_branch.volatile_writes of a top branch in the host kernel. */
    bool volatile_writes;
};

/* fsync of a file of the top branch, which a volatile union skips. */
static inline int union_sync_top(struct union_instance *u,
                                 struct ls_file *top_file,
                                 const struct ls_cred *cred, int datasync)
{
    if (u->volatile_writes)
        return 0;
    return top_file->inst->ops->fsync(top_file, cred, datasync);
}

/* FNV-1a: for the tables of names and paths. */
static inline uint64_t union_hash(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static inline struct ls_instance *union_branch_inst(struct union_instance *u,
                                                    int b)
{
    return u->branch[b].inst;
}

/* The first branch of mask m at or after b (a bit per branch, the top
 * branch's first); -1 if none. */
static inline int union_next_branch(union_mask m, int b)
{
    for (; b < UNION_MAX_BRANCHES; b++)
        if (m & (1u << b))
            return b;
    return -1;
}

/* ---- listings of read-only branches (branch_listing.c) ---- */

struct branch_listing;

/* Whether name is in dir of branch b: 1 or 0 from the directory's listing
 * (made on first need), or -1 when no listing may answer - a writable
 * branch, a directory the client may not search, one that cannot be
 * listed: then ask the branch itself. */
int union_branch_has(struct union_instance *u, const struct ls_cred *cred,
                     int b, const char *dir, const char *name);
/* The lstat of path (dir/name) in branch b, as the branch answers cred:
 * a read-only branch's from what an earlier stat of it answered, once
 * cred was seen to search dir there (a stat answered, or an access). */
int union_branch_stat(struct union_instance *u, const struct ls_cred *cred,
                      int b, const char *dir, const char *name,
                      const char *path, struct danaus_stat *st);
/* A listing of dir in branch b read by a caller that reads the directory
 * whole anyway (a merged listing), so that it is not read again on first
 * need: begin gives NULL when none is wanted (a writable branch, dir
 * listed already, the layer full); add each record the branch gives (-1:
 * too many, drop it); keep it once the branch said the listing ended.
 * A listing read with a client's credential is as complete as the copy-up
 * credential's: whoever may read a directory reads all its names. */
struct branch_listing *union_branch_listing_begin(struct union_instance *u,
                                                  int b, const char *dir);
int union_branch_listing_add(struct branch_listing *l,
                             const struct danaus_dirent *d);
void union_branch_listing_keep(struct union_instance *u, int b,
                               struct branch_listing *l);
void union_branch_listing_drop(struct branch_listing *l);
/* Whether cred may read dir in read-only branch b, whose listing is kept:
 * 0, or -errno as the branch answers; 1 when no listing of dir is kept.
 * Asks the branch once per credential. */
int union_branch_may_read(struct union_instance *u, const struct ls_cred *cred,
                          int b, const char *dir);
/* Calls each(record, arg) for the records of dir in read-only branch b,
 * as the branch listed them once: 1, or 0 when no listing of dir is kept
 * (then read the branch), or each's first negative answer. Whether the
 * caller may read dir is the caller's to check. */
int union_branch_listing_each(struct union_instance *u, int b,
                              const char *dir,
                              int (*each)(const struct danaus_dirent *,
                                          void *),
                              void *arg);

/* ---- lookup (lookup.c) ---- */

enum {
    UNION_FOLLOW = 1,        /* follow a symlink in the last component */
    UNION_MAY_BE_ABSENT = 2, /* a missing last component is not an error */
    UNION_FAST = 4,          /* the merge masks are not needed: a
                                non-directory of the top branch is found
                                with one stat (see lookup.c) */
    UNION_PARENT = 8,        /* the walk to the last component only: out
                                gets its path and parent_dirs, branch -1,
                                and nothing is asked of it (a plain name,
                                no trailing slash; else as without) */
};

struct union_node {
    char path[DANAUS_LONG_PATH_MAX]; /* resolved: symlink-free but maybe the last */
    int branch;                 /* topmost branch holding it; -1 absent */
    struct danaus_stat st;      /* its lstat in that branch */
    union_mask dirs;            /* a directory: the branches merged into it */
    union_mask parent_dirs;     /* the branches merged into its parent */
    /* Absent (branch -1) behind a whiteout of the top branch's: what a
     * name made there removes. None appears later: only an unlink of
     * what a lower branch holds makes one. */
    bool top_whiteout;
};

/* After a call that may have changed what a walk finds in a directory
 * (its merged branches, its mode, owner or xattrs; lookup.c): no thread
 * reuses a walk through dir (a resolved path), or through any directory
 * (union_changed). */
void union_changed_at(const char *dir);
void union_changed(void);
/* Where the changes stand: a walk made after reading it holds while it
 * stays the same. */
uint64_t union_generation(void);
/* An id for a new union, never given before in this process. */
uint64_t union_new_id(void);

/* Resolves path through the union. 0 with out->branch >= 0 when found;
 * with UNION_MAY_BE_ABSENT also 0 and branch -1 when only the last
 * component is missing (out->path then names where it would be). */
int union_lookup(struct union_instance *u, const struct ls_cred *cred,
                 const char *path, int flags, struct union_node *out);
/* Whether path names an entry of a directory that no lower branch merges
 * into (n gets its resolved path, n->branch -1): such a name has nothing
 * below it to hide or to find, and the top branch's unlink, rmdir or
 * exclusive create answers as the union would (EISDIR, ENOTDIR, ENOENT,
 * EEXIST, EACCES), so the name need not be looked up first. 1 or 0, or
 * -errno from the walk to its directory. */
int union_in_top_only_dir(struct union_instance *u,
                          const struct ls_cred *cred, const char *path,
                          struct union_node *n);
/* Whether a branch below `below`, among the parent's merged branches,
 * shows the name of node (so deleting it needs a whiteout). */
int union_lower_has(struct union_instance *u, const struct ls_cred *cred,
                    const struct union_node *node, int below);
/* Splits a normalized path: *name points into path, dir gets the rest. */
void union_split(const char *path, char dir[DANAUS_LONG_PATH_MAX],
                 const char **name);
/* dir + "/" + name into out; -ENAMETOOLONG if it does not fit. */
int union_join(char out[DANAUS_LONG_PATH_MAX], const char *dir, const char *name);

/* ---- whiteouts and opaque directories (whiteout.c) ---- */

int union_is_reserved_name(const char *name);
int union_path_has_reserved(const char *path);
/* 1 if branch b holds a whiteout for dir/name, 0 if not, or -errno. */
int union_whiteout_exists(struct union_instance *u, const struct ls_cred *cred,
                          int b, const char *dir, const char *name);
int union_is_opaque(struct union_instance *u, const struct ls_cred *cred,
                    int b, const char *dir);
int union_whiteout_create(struct union_instance *u, const char *dir,
                          const char *name);
/* 1 if a whiteout for dir/name was removed from the top branch, else 0. */
int union_whiteout_remove(struct union_instance *u, const char *dir,
                          const char *name);
int union_opaque_mark(struct union_instance *u, const char *dir);
/* Removes every whiteout and the opaque marker inside the top branch's
 * dir, so the directory can be removed. */
int union_whiteouts_clear(struct union_instance *u, const char *dir);

/* ---- copy-up (copyup.c) ---- */

/* Makes every directory of dir exist in the top branch. */
int union_copyup_dirs(struct union_instance *u, const struct ls_cred *cred,
                      const char *dir);
/* union_copyup_dirs of n's directory dir, unless the walk that found n
 * saw the top branch merged into it (parent_dirs): it is up already. */
int union_copyup_parent(struct union_instance *u, const struct ls_cred *cred,
                        const struct union_node *n, const char *dir);
/* Copies node (found in a lower branch) up; keep_len < 0 keeps all the
 * data, else at most keep_len bytes (0 for an open with O_TRUNC). A
 * regular file's data stays below (partial.c) when the top branch can
 * hold the record; else it is copied. */
int union_copyup(struct union_instance *u, const struct ls_cred *cred,
                 const struct union_node *node, off_t keep_len);
/* Copies a whole directory tree up, so it can be renamed in the top. */
int union_copyup_tree(struct union_instance *u, const struct ls_cred *cred,
                      const struct union_node *node);

/* ---- partial copies (partial.c) ---- */

struct union_partial;

/* Makes tmp in the top branch the partial copy of node: a sparse file of
 * len bytes whose record names node as its origin. The caller copies the
 * attributes and renames it into place. */
int union_partial_make(struct union_instance *u, const struct union_node *node,
                       const char *tmp, off_t len);
/* The shared state of the upper file open as `upper` (opened as path of
 * the top branch): *out NULL when it is an ordinary file. Released with
 * union_partial_put. */
int union_partial_get(struct union_instance *u, struct ls_file *upper,
                      const char *path, struct union_partial **out);
void union_partial_put(struct union_instance *u, struct union_partial *p);
/* pread, pwrite and ftruncate of the file open as `upper` (the client's
 * own descriptor of the upper file, with the client's rights). */
ssize_t union_partial_read(struct union_instance *u, struct union_partial *p,
                           struct ls_file *upper, const struct ls_cred *cred,
                           void *buf, size_t n, off_t off);
ssize_t union_partial_write(struct union_instance *u, struct union_partial *p,
                            struct ls_file *upper, const struct ls_cred *cred,
                            const void *buf, size_t n, off_t off, off_t *end);
int union_partial_truncate(struct union_instance *u, struct union_partial *p,
                           struct ls_file *upper, const struct ls_cred *cred,
                           off_t len);
/* fallocate of the file open as `upper`, the map kept in step. */
int union_partial_fallocate(struct union_instance *u, struct union_partial *p,
                            struct ls_file *upper, const struct ls_cred *cred,
                            int mode, off_t off, off_t len);
/* Copies the lower bytes in and drops the record. */
int union_partial_merge(struct union_instance *u, struct union_partial *p);
/* st_blocks of a partial file: at least its origin's, so du and stat do
 * not see the file shrink when it is first written. */
void union_partial_blocks(struct union_instance *u, struct union_partial *p,
                          struct danaus_stat *st);
/* Fixes st_blocks in st, the stat of path in the top branch, if it is a
 * partial copy. */
void union_partial_stat(struct union_instance *u, const char *path,
                        struct danaus_stat *st);
/* The record's xattr name. */
int union_partial_is_record(const char *name);

/* ---- the identity of copied-up entries (origin.c) ---- */

/* Records in the top branch's entry `to` the identity of origin, the lstat
 * of the lower entry it is a copy of, when no other name shows it. */
int union_origin_record(struct union_instance *u, const char *to,
                        const struct danaus_stat *origin);
/* Before the top branch's entry from (maybe a copy) gets the name to by
 * a rename or a link: marks to's directory if from has an origin. */
int union_origin_follow(struct union_instance *u, const char *from,
                        const char *to);
/* Whether the top branch's directory dir may hold copies with an origin. */
int union_origin_impure(struct union_instance *u, const char *dir);
/* Around the rename of a directory of the top branch, after which what
 * was known of the directories at its old and new paths and below no
 * longer holds. */
void union_origin_move_begin(struct union_instance *u);
void union_origin_move_end(struct union_instance *u);
void union_origin_cache_init(struct union_instance *u);
void union_origin_cache_free(struct union_instance *u);
/* Puts into st, the lstat of path in the top branch (or of file, open
 * there), the identity of the entry it was copied from, if any: 1 when
 * it has one, 0 when it has none, -1 when that could not be read. An
 * inode's answer never changes: a copy-up marks the copy before it gets
 * its name, and nothing marks an inode later. */
int union_origin_stat(struct union_instance *u, const char *path,
                      struct danaus_stat *st);
int union_origin_fstat(struct union_instance *u, struct ls_file *file,
                       struct danaus_stat *st);
/* The union's own xattrs (the record, the origin), which clients neither
 * see nor change. */
int union_is_private_xattr(const char *name);
/* Removes their names from a listxattr result; the new length. A size
 * query (list NULL) keeps the backend's length, which may count them:
 * room enough for the list it then gets. */
ssize_t union_hide_private_xattrs(char *list, ssize_t len);

/* ---- merged directories (dir.c) ---- */

struct union_dirent {
    uint64_t ino;
    uint8_t type;
    char *name;
    uint64_t cookie; /* its d_off (dir.c) */
};

struct union_listing {
    struct union_dirent *entries; /* by cookie: "." and ".." first */
    size_t n;
    char *names;                  /* storage of the names */
};

/* The merged listing of directory node, without whiteouts and markers. */
int union_list(struct union_instance *u, const struct ls_cred *cred,
               const struct union_node *node, struct union_listing *out);
/* The same, reading branch held's directory through held, the directory
 * open there already (its position is its own: getdents takes one). */
int union_list_held(struct union_instance *u, const struct ls_cred *cred,
                    const struct union_node *node, int held_branch,
                    struct ls_file *held, struct union_listing *out);
void union_listing_free(struct union_listing *l);
/* getdents over a listing: records of cookies above *pos. A name's
 * cookie is a hash of it, so a cookie resumes a listing taken at another
 * open as well, though names were added or removed meanwhile (a FUSE
 * READDIR may come with no handle, doors/fuse_dirs.h). */
ssize_t union_listing_getdents(const struct union_listing *l, void *buf,
                               size_t n, off_t *pos);

/* ---- operations, by file; union.c puts them in the ops table ---- */

static inline struct union_instance *union_of(struct ls_instance *inst)
{
    return (struct union_instance *)inst;
}

/* -EROFS unless the union has a writable top branch. */
int union_need_writable(struct union_instance *u);
/* Whether the client may add and remove names in the directory of n (a
 * node a lookup without UNION_FAST found, or found absent). */
int union_check_parent_writable(struct union_instance *u,
                                const struct ls_cred *cred,
                                const struct union_node *n);

/* file.c: open files and directories. */
int union_open(struct ls_instance *, const struct ls_cred *, const char *path,
               int flags, mode_t mode, struct ls_file **out);
void union_close(struct ls_file *);
ssize_t union_pread(struct ls_file *, const struct ls_cred *, void *buf,
                    size_t n, off_t off);
ssize_t union_pwrite(struct ls_file *, const struct ls_cred *,
                     const void *buf, size_t n, off_t off, off_t *end);
int union_fsync(struct ls_file *, const struct ls_cred *, int datasync);
int union_ftruncate(struct ls_file *, const struct ls_cred *, off_t len);
int union_fallocate(struct ls_file *, const struct ls_cred *, int mode,
                    off_t off, off_t len);
int union_fstat(struct ls_file *, const struct ls_cred *,
                struct danaus_stat *out);
int union_fchmod(struct ls_file *, const struct ls_cred *, mode_t mode);
int union_fchown(struct ls_file *, const struct ls_cred *, uid_t uid,
                 gid_t gid);
int union_futimens(struct ls_file *, const struct ls_cred *,
                   const struct timespec ts[2]);
int union_fstatfs(struct ls_file *, const struct ls_cred *,
                  struct danaus_statfs *out);
ssize_t union_getdents(struct ls_file *, const struct ls_cred *, void *buf,
                       size_t n, off_t *pos);
ssize_t union_fgetxattr(struct ls_file *, const struct ls_cred *,
                        const char *name, void *value, size_t size);
int union_fsetxattr(struct ls_file *, const struct ls_cred *,
                    const char *name, const void *value, size_t size,
                    int xflags);
ssize_t union_flistxattr(struct ls_file *, const struct ls_cred *, char *list,
                         size_t size);
int union_cache_hold(struct ls_file *, uint64_t *key);
int union_write_fd(struct ls_file *);
int union_reader_fd(struct ls_file *);
int union_fremovexattr(struct ls_file *, const struct ls_cred *,
                       const char *name);

/* names.c: changes to the name space. */
int union_mkdir(struct ls_instance *, const struct ls_cred *, const char *path,
                mode_t mode);
int union_mknod(struct ls_instance *, const struct ls_cred *,
                const char *path, mode_t mode, dev_t dev);
int union_rmdir(struct ls_instance *, const struct ls_cred *,
                const char *path);
int union_unlink(struct ls_instance *, const struct ls_cred *,
                 const char *path);
int union_rename(struct ls_instance *, const struct ls_cred *,
                 const char *from, const char *to, unsigned flags);
int union_link(struct ls_instance *, const struct ls_cred *,
               const char *existing, const char *newpath);
int union_symlink(struct ls_instance *, const struct ls_cred *,
                  const char *target, const char *linkpath);

/* attr.c: changes to an existing entry, copied up first. */
int union_chmod(struct ls_instance *, const struct ls_cred *,
                const char *path, mode_t mode, int at);
int union_chown(struct ls_instance *, const struct ls_cred *,
                const char *path, uid_t uid, gid_t gid, int at);
int union_utimens(struct ls_instance *, const struct ls_cred *,
                  const char *path, const struct timespec ts[2], int at);
int union_truncate(struct ls_instance *, const struct ls_cred *,
                   const char *path, off_t len);
int union_setxattr(struct ls_instance *, const struct ls_cred *,
                   const char *path, const char *name, const void *value,
                   size_t size, int xflags, int at);
int union_removexattr(struct ls_instance *, const struct ls_cred *,
                      const char *path, const char *name, int at);

#endif
