/*
 * fuse_inval.c - what a change makes stale in the kernel's caches of a
 * FUSE export, and the notifications that drop it (fuse_inval.h).
 */
#include "fuse_inval.h"

#include "ipc/ipc.h"

#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>

/* Names of one inode the kernel holds, dropped at once; more than this
 * (a file linked under many names) keep their attributes until they time
 * out. */
#define MAX_NAMES 16

static void inval_node(struct fuse_export *ex, uint64_t node, bool data)
{
    fuse_lowlevel_notify_inval_inode(ex->se, node, data ? 0 : -1, 0);
}

void fuse_inval_inode(struct fuse_export *ex, uint64_t ino, uint64_t except,
                      bool data)
{
    uint64_t ids[MAX_NAMES];
    size_t n = fuse_nodes_of_ino(&ex->nodes, ino, except, ids, MAX_NAMES);
    for (size_t i = 0; i < n; i++)
        inval_node(ex, ids[i], data);
}

/* The node the kernel holds for path's directory (0: none), and in *name
 * path's last name. */
static uint64_t parent_node(struct fuse_export *ex, const char *path,
                            const char **name)
{
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) : 0;
    char dir[DANAUS_LONG_PATH_MAX];
    uint64_t ino;
    *name = slash ? slash + 1 : path;
    if (len >= sizeof dir)
        return 0;
    memcpy(dir, path, len);
    dir[len] = '\0';
    return fuse_nodes_find(&ex->nodes, dir, &ino);
}

/* The kernel's entry for node id's name, expired but kept: its next walk
 * through the name asks again, and the answer refreshes the attributes the
 * kernel decides from without asking (the owner, in a sticky directory's
 * unlink and rename). Expired, not dropped: dropping a name detaches
 * whatever is mounted on it. */
static void expire_node_name(struct fuse_export *ex, uint64_t id)
{
    char path[DANAUS_LONG_PATH_MAX];
    const char *name;
    if (fuse_node_path(&ex->nodes, id, path, sizeof path) < 0 ||
        path[0] == '\0') /* the root has no entry */
        return;
    uint64_t parent = parent_node(ex, path, &name);
    if (parent)
        fuse_lowlevel_notify_expire_entry(ex->se, parent, name, strlen(name),
                                          FUSE_LL_EXPIRE_ONLY);
}

/* An inode's attributes changed (its owner or mode among them): they go,
 * and the entries of its names expire (expire_node_name). */
static void inval_attrs(struct fuse_export *ex, uint64_t ino)
{
    uint64_t ids[MAX_NAMES];
    size_t n = fuse_nodes_of_ino(&ex->nodes, ino, 0, ids, MAX_NAMES);
    for (size_t i = 0; i < n; i++) {
        inval_node(ex, ids[i], false);
        expire_node_name(ex, ids[i]);
    }
}

/* A file's data changed (its pages go), or its attributes. */
static void inval_inode_of(struct fuse_export *ex, uint64_t ino, bool data)
{
    if (data)
        fuse_inval_inode(ex, ino, 0, true);
    else
        inval_attrs(ex, ino);
}

void fuse_inval_told(struct fuse_export *ex, uint32_t mode, uint64_t nlink)
{
    if (nlink > 1 && !S_ISDIR(mode) &&
        !atomic_load_explicit(&ex->several_names, memory_order_relaxed))
        atomic_store(&ex->several_names, true);
}

/* The file changed: named by file, else by path, following a symbolic
 * link or not (lchown). Only a call that followed the link is followed
 * again: reading a link sets its access time. */
static void inval_file(struct fuse_export *ex, const char *path,
                       struct ls_file *file, const struct ls_cred *cred,
                       bool data, bool follow)
{
    struct danaus_stat st;
    if (file) {
        if (file->ino)
            st.ino = file->ino;
        else if (ex->inst->ops->fstat(file, cred, &st) < 0)
            return;
        inval_inode_of(ex, st.ino, data);
        return;
    }
    uint64_t ino_here;
    uint64_t here = fuse_nodes_find(&ex->nodes, path, &ino_here);
    /* While no file the kernel was told of has other names, it knows this
     * one by this path alone, if at all: no stat needed to find it. */
    if (!atomic_load(&ex->several_names)) {
        if (here && ino_here)
            inval_inode_of(ex, ino_here, data);
        else if (here)
            inval_node(ex, here, data);
        return;
    }
    if (ex->inst->ops->stat(ex->inst, cred, path,
                            follow ? 0 : AT_SYMLINK_NOFOLLOW, &st) < 0)
        st.ino = 0;
    if (here && ino_here != st.ino)
        inval_node(ex, here, data);
    if (st.ino)
        inval_inode_of(ex, st.ino, data);
}

void fuse_inval_listing(struct fuse_export *ex, uint64_t node)
{
    inval_node(ex, node, true);
}

/* Names the kernel may hold as missing, hashed with their parent to a
 * slot that keeps the latest expiry of its names: a hit may be another
 * name's (a needless notification), a miss is sure. The kernel times an
 * entry from when it takes the answer, after ours: MISSING_MARGIN_NS
 * covers that. */
#define MISSING_MARGIN_NS 1000000000ull

static _Atomic uint64_t *missing_slot(struct fuse_export *ex, uint64_t parent,
                                      const char *name)
{
    uint64_t h = 1469598103934665603ull ^ parent; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 1099511628211ull;
    return &ex->missing[h % FUSE_EXPORT_MISSING_SLOTS];
}

void fuse_inval_told_missing(struct fuse_export *ex, uint64_t parent,
                             const char *name)
{
    uint64_t until = ipc_now_ns() + (uint64_t)(ex->timeout * 1e9) +
                     MISSING_MARGIN_NS;
    _Atomic uint64_t *slot = missing_slot(ex, parent, name);
    uint64_t was = atomic_load(slot);
    while (was < until && !atomic_compare_exchange_weak(slot, &was, until))
        ;
}

/* Whether the kernel may hold an entry of name in parent that no node
 * stands for: a missing name, or any name while the nodes do not tell
 * every name the kernel holds (several_names). */
static bool may_hold_unnoded(struct fuse_export *ex, uint64_t parent,
                             const char *name)
{
    return atomic_load(&ex->several_names) ||
           atomic_load(missing_slot(ex, parent, name)) > ipc_now_ns();
}

/* The kernel's entry for path, positive or negative, and its directory's
 * attributes (times, link count) and cached listing. noded: whether a
 * node stood for path (the kernel held it then); without one, the entry
 * is dropped only where the kernel may hold it as missing. */
static void inval_name(struct fuse_export *ex, const char *path, bool noded)
{
    const char *name;
    uint64_t parent = parent_node(ex, path, &name);
    if (!parent)
        return;
    if (noded || may_hold_unnoded(ex, parent, name))
        fuse_lowlevel_notify_inval_entry(ex->se, parent, name, strlen(name));
    fuse_inval_listing(ex, parent);
}

/* path and path2 changed names: the nodes follow, the kernel's entries of
 * both go, and the inodes' attributes (a time, a link count) too. */
static void renamed(struct fuse_export *ex, const char *path,
                    const char *path2, bool exchanged)
{
    uint64_t ino, ino2;
    fuse_nodes_find(&ex->nodes, path, &ino);
    fuse_nodes_find(&ex->nodes, path2, &ino2);
    if (exchanged)
        fuse_nodes_exchange(&ex->nodes, path, path2);
    else
        fuse_nodes_rename(&ex->nodes, path, path2);
    inval_name(ex, path, true);
    inval_name(ex, path2, true);
    fuse_inval_inode(ex, ino, 0, false);
    fuse_inval_inode(ex, ino2, 0, false);
}

void fuse_inval_changed(struct fuse_export *ex, enum service_change what,
                        const char *path, const char *path2,
                        struct ls_file *file, const struct ls_cred *cred)
{
    uint64_t ino;
    switch (what) {
    case CHANGED_DATA:
    case CHANGED_ATTRS:
    case CHANGED_ATTRS_NOFOLLOW:
        inval_file(ex, path, file, cred, what == CHANGED_DATA,
                   what != CHANGED_ATTRS_NOFOLLOW);
        break;
    case CHANGED_MADE:
        inval_name(ex, path, fuse_nodes_find(&ex->nodes, path, &ino) != 0);
        break;
    case CHANGED_REMOVED: {
        bool noded = fuse_nodes_find(&ex->nodes, path, &ino) != 0;
        fuse_nodes_unlinked(&ex->nodes, path);
        inval_name(ex, path, noded);
        fuse_inval_inode(ex, ino, 0, false);
        break;
    }
    case CHANGED_RENAMED:
    case CHANGED_EXCHANGED:
        renamed(ex, path, path2, what == CHANGED_EXCHANGED);
        break;
    case CHANGED_LINKED:
        atomic_store(&ex->several_names, true);
        fuse_nodes_find(&ex->nodes, path, &ino);
        inval_name(ex, path2, true);
        fuse_inval_inode(ex, ino, 0, false);
        break;
    }
}
