/*
 * fuse_ops.c - the FUSE door's operations: each FUSE request becomes one
 * libservice call on the exported instance, with the requester's
 * credentials (fuse_cred.c), and one reply.
 *
 * libfuse's low-level API names files by node id; fuse_nodes.c turns those
 * into instance-relative paths ("a/b", "" for the root) and back. A file
 * unlinked while open keeps its node without a path: calls on it go
 * through one of its open files (fstat of an open, unlinked file, which
 * the kernel sends without a file handle). Attributes and readdir's d_ino
 * come from the exported instance unchanged, so inode numbers, sizes,
 * times and modes read through FUSE are those the preload path reads: a
 * union's own answer (the st_ino a copy-up keeps,
 * libservice/union/origin.c), not its branches'. The kernel keeps names
 * (and names found missing) and attributes for the export's timeout, and
 * data pages across opens: what the kernel does not learn from its own
 * requests, fuse_inval.c tells it. readdirplus answers a listing with
 * each name's node and attributes, as many lookups would; the kernel
 * opens directories without asking and keeps their listings
 * (fuse_dirs.h).
 *
 * Each operation is translation only: around its backend call it paces
 * the call as the preload's are (fuse_call.h) and, for what a crash of
 * the service must not do twice, notes and replays (fuse_replay.h).
 */
#include "fuse_inval.h"
#include "fuse_killpriv.h"
#include "fuse_replay.h"
#include "fsservice/core/nosuid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define BEGIN(req, c)                                                     \
    struct fuse_call c;                                                   \
    if (fuse_call_begin(req, &c) < 0)                                     \
    return

static void reply_status(fuse_req_t req, int rc)
{
    fuse_reply_err(req, rc < 0 ? -rc : 0);
}

/* d as the kernel takes it: owners as host ids (idmap.h). */
static void to_stat(const struct fuse_call *c, const struct danaus_stat *d,
                    struct stat *st)
{
    const struct idmap *m = c->ex->creds->idmap;
    memset(st, 0, sizeof *st);
    st->st_dev = d->dev;
    st->st_ino = d->ino;
    st->st_nlink = d->nlink;
    st->st_mode = d->mode;
    st->st_uid = idmap_out(m, d->uid);
    st->st_gid = idmap_out(m, d->gid);
    st->st_rdev = d->rdev;
    st->st_size = d->size;
    st->st_blksize = d->blksize;
    st->st_blocks = d->blocks;
    st->st_atim = (struct timespec){d->atime_sec, d->atime_nsec};
    st->st_mtim = (struct timespec){d->mtime_sec, d->mtime_nsec};
    st->st_ctim = (struct timespec){d->ctime_sec, d->ctime_nsec};
}

struct fstat_call {
    struct fuse_call *c;
    struct danaus_stat *d;
};

static int fstat_held(struct ls_file *file, void *arg)
{
    struct fstat_call *call = arg;
    return call->c->inst->ops->fstat(file, call->c->cred, call->d);
}

/* The attributes of node ino: through file when the kernel gives a
 * handle, else by path, else (unlinked) through a file open on the node. */
static int attrs_of(struct fuse_call *c, fuse_ino_t ino, struct ls_file *file,
                    struct stat *st)
{
    struct danaus_stat d;
    char path[DANAUS_LONG_PATH_MAX];
    int rc;
    if (file) {
        rc = c->inst->ops->fstat(file, c->cred, &d);
    } else if ((rc = fuse_call_path(c, ino, path)) == 0) {
        rc = c->inst->ops->stat(c->inst, c->cred, path, AT_SYMLINK_NOFOLLOW,
                                &d);
    } else if (rc == -ESTALE) {
        struct fstat_call call = {c, &d};
        rc = fuse_handles_on_node(&c->ex->handles, ino, fstat_held, &call);
        uint64_t dir_ino = fuse_nodes_ino(&c->ex->nodes, ino);
        if (rc == -ESTALE && dir_ino)
            rc = fuse_dirs_on_node(&c->ex->dirs, ino, dir_ino, fstat_held,
                                   &call);
    }
    if (rc == 0)
        to_stat(c, &d, st);
    return rc;
}

/* How long the kernel may keep attributes of mode. Not at all for a
 * setuid or setgid file: a write or truncate by a process without
 * CAP_FSETID clears those bits in the backend (the kernel leaves that to
 * the service, FUSE_CAP_HANDLE_KILLPRIV), which the kernel would not see
 * until the timeout. */
static double attr_timeout(const struct fuse_call *c, mode_t mode)
{
    return mode & (S_ISUID | S_ISGID) ? 0 : c->ex->timeout;
}

/* Replies node ino's attributes (through file when not NULL), or rc when
 * the call already failed. */
static void reply_attrs(struct fuse_call *c, fuse_ino_t ino,
                        struct ls_file *file, int rc)
{
    struct stat st;
    if (rc == 0)
        rc = attrs_of(c, ino, file, &st);
    if (rc < 0) {
        fuse_reply_err(c->req, -rc);
        return;
    }
    fuse_inval_told(c->ex, st.st_mode, st.st_nlink);
    fuse_reply_attr(c->req, &st, attr_timeout(c, st.st_mode));
}

/* What tells a symlink from an earlier one of the same inode number (a
 * link replaced behind the service's back): the kernel keeps a link's
 * target for as long as it keeps the node (FUSE_CAP_CACHE_SYMLINKS), so a
 * new link must come as a new node. Its times of change and birth, and
 * its length. Other kinds keep their node: the kernel checks a file's
 * pages and a directory's listing against their attributes, and a new
 * node for each change would split them. */
static uint64_t link_stamp(const struct danaus_stat *d)
{
    if (!S_ISLNK(d->mode))
        return 0;
    uint64_t h = 0xcbf29ce484222325u;
    const uint64_t parts[] = {
        (uint64_t)d->ctime_sec, d->ctime_nsec, (uint64_t)d->btime_sec,
        d->btime_nsec, (uint64_t)d->size};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        h = (h ^ parts[i]) * 0x100000001b3u;
    return h | 1;
}

/* The entry of path, of attributes d, for the kernel: its node, with one
 * lookup more (forget it when the kernel does not get it), or e->ino 0
 * when out of memory. */
static void entry_of(struct fuse_call *c, const char *path,
                     const struct danaus_stat *d, struct fuse_entry_param *e)
{
    memset(e, 0, sizeof *e);
    e->ino = fuse_nodes_lookup(&c->ex->nodes, path, d->ino, link_stamp(d),
                               &e->generation);
    /* The kernel refreshes a directory's entry: its cached listing goes
     * (fuse_dirs.h). */
    if (S_ISDIR(d->mode) && e->ino && fuse_dirs_unlist(&c->ex->dirs, e->ino))
        fuse_inval_listing(c->ex, e->ino);
    e->entry_timeout = c->ex->timeout;
    e->attr_timeout = attr_timeout(c, d->mode);
    to_stat(c, d, &e->attr);
    fuse_inval_told(c->ex, d->mode, d->nlink);
}

/* Replies the entry at path (made or found just now); with a parent
 * node (a LOOKUP of name there), a missing one as a name the kernel may
 * remember as missing. */
static void reply_entry(struct fuse_call *c, const char *path,
                        uint64_t parent, const char *name)
{
    struct fuse_entry_param e;
    struct danaus_stat d;
    int rc = c->inst->ops->stat(c->inst, c->cred, path, AT_SYMLINK_NOFOLLOW,
                                &d);
    if (rc == -ENOENT && parent && c->ex->timeout > 0) {
        fuse_inval_told_missing(c->ex, parent, name);
        memset(&e, 0, sizeof e);
        e.entry_timeout = c->ex->timeout;
        fuse_reply_entry(c->req, &e);
        return;
    }
    if (rc < 0) {
        fuse_reply_err(c->req, -rc);
        return;
    }
    entry_of(c, path, &d, &e);
    if (!e.ino)
        fuse_reply_err(c->req, ENOMEM);
    else if (fuse_reply_entry(c->req, &e) != 0)
        fuse_nodes_forget(&c->ex->nodes, e.ino, 1);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    int rc = fuse_call_child_path(&c, parent, name, path);
    if (rc < 0)
        fuse_reply_err(req, -rc);
    else
        reply_entry(&c, path, parent, name);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    struct fuse_export *ex = fuse_req_userdata(req);
    fuse_nodes_forget(&ex->nodes, ino, nlookup);
    fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count,
                            struct fuse_forget_data *forgets)
{
    struct fuse_export *ex = fuse_req_userdata(req);
    for (size_t i = 0; i < count; i++)
        fuse_nodes_forget(&ex->nodes, forgets[i].ino, forgets[i].nlookup);
    fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
                       struct fuse_file_info *fi)
{
    BEGIN(req, c);
    struct ls_file *file = NULL;
    int rc = fi ? fuse_replay_file(&c, fi, &file) : 0;
    reply_attrs(&c, ino, file, rc);
}

/* One setattr change, through f when given, else by path. */
static int change_one(struct fuse_call *c, const char *path, struct ls_file *f,
                      int what, const struct stat *attr, int to_set)
{
    const struct ls_ops *ops = c->inst->ops;
    switch (what) {
    case FUSE_SET_ATTR_MODE: {
        mode_t mode = nosuid_mode(c->ex->nosuid, attr->st_mode);
        return f ? ops->fchmod(f, c->cred, mode)
                 : fuse_killpriv(c, path, mode,
                                 ops->chmod(c->inst, c->cred, path, mode, 0));
    }
    case FUSE_SET_ATTR_UID: {
        /* The kernel names the new owner by host ids. */
        const struct idmap *m = c->ex->creds->idmap;
        uid_t uid = to_set & FUSE_SET_ATTR_UID ? idmap_in(m, attr->st_uid)
                                               : (uid_t)-1;
        gid_t gid = to_set & FUSE_SET_ATTR_GID ? idmap_in(m, attr->st_gid)
                                               : (gid_t)-1;
        /* FUSE names the very inode to change: a symbolic link itself
         * when lchown reached us. */
        return f ? ops->fchown(f, c->cred, uid, gid)
                 : ops->chown(c->inst, c->cred, path, uid, gid,
                              AT_SYMLINK_NOFOLLOW);
    }
    case FUSE_SET_ATTR_SIZE:
        return f ? ops->ftruncate(f, c->cred, attr->st_size)
                 : ops->truncate(c->inst, c->cred, path, attr->st_size);
    default: { /* times */
        struct timespec ts[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
        if (to_set & FUSE_SET_ATTR_ATIME_NOW)
            ts[0].tv_nsec = UTIME_NOW;
        else if (to_set & FUSE_SET_ATTR_ATIME)
            ts[0] = attr->st_atim;
        if (to_set & FUSE_SET_ATTR_MTIME_NOW)
            ts[1].tv_nsec = UTIME_NOW;
        else if (to_set & FUSE_SET_ATTR_MTIME)
            ts[1] = attr->st_mtim;
        return f ? ops->futimens(f, c->cred, ts)
                 : ops->utimens(c->inst, c->cred, path, ts,
                                AT_SYMLINK_NOFOLLOW);
    }
    }
}

/* One setattr change, paced. */
static int set_one(struct fuse_call *c, const char *path, struct ls_file *f,
                   int what, const struct stat *attr, int to_set)
{
    fuse_call_pace(c, true, 0);
    int rc = change_one(c, path, f, what, attr, to_set);
    fuse_call_paced(c);
    return rc;
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
                       int to_set, struct fuse_file_info *fi)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    struct ls_file *file = NULL;
    int rc = fi ? fuse_replay_file(&c, fi, &file)
                : fuse_call_path(&c, ino, path);
    if (rc == 0 && (to_set & FUSE_SET_ATTR_MODE))
        rc = set_one(&c, path, file, FUSE_SET_ATTR_MODE, attr, to_set);
    if (rc == 0 && (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)))
        rc = set_one(&c, path, file, FUSE_SET_ATTR_UID, attr, to_set);
    if (rc == 0 && (to_set & FUSE_SET_ATTR_SIZE))
        rc = set_one(&c, path, file, FUSE_SET_ATTR_SIZE, attr, to_set);
    if (rc == 0 && (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME |
                              FUSE_SET_ATTR_ATIME_NOW |
                              FUSE_SET_ATTR_MTIME_NOW)))
        rc = set_one(&c, path, file, FUSE_SET_ATTR_ATIME, attr, to_set);
    /* The file's other names, before the reply (fuse_inval.h). */
    if (rc == 0)
        fuse_inval_inode(c.ex, fuse_nodes_ino(&c.ex->nodes, ino), ino,
                         (to_set & FUSE_SET_ATTR_SIZE) != 0);
    reply_attrs(&c, ino, file, rc);
}

static void op_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    int rc = fuse_call_path(&c, ino, path);
    if (rc == 0)
        rc = c.inst->ops->access(c.inst, c.cred, path, mask, 0);
    reply_status(req, rc);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX], target[PATH_MAX];
    int rc = fuse_call_path(&c, ino, path);
    ssize_t n = rc < 0 ? rc
                       : c.inst->ops->readlink(c.inst, c.cred, path, target,
                                               sizeof target - 1);
    if (n < 0) {
        fuse_reply_err(req, (int)-n);
        return;
    }
    target[n] = '\0';
    fuse_reply_readlink(req, target);
}

/* mkdir, mknod and symlink: make the name, then answer its entry. */
enum make { MAKE_DIR, MAKE_NODE, MAKE_SYMLINK };

static void make(fuse_req_t req, fuse_ino_t parent, const char *name,
                 enum make what, mode_t mode, dev_t dev, const char *target)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    enum fuse_done_op op = what == MAKE_DIR    ? DONE_MKDIR
                           : what == MAKE_NODE ? DONE_MKNOD
                                               : DONE_SYMLINK;
    int rc = what == MAKE_NODE ? nosuid_mknod(c.ex->nosuid, mode) : 0;
    if (rc == 0)
        rc = fuse_call_child_path(&c, parent, name, path);
    mode = nosuid_mode(c.ex->nosuid, mode);
    enum earlier e = rc < 0 ? EARLIER_NONE : fuse_replay_find(&c, op, &rc);
    if (rc == 0 && e != EARLIER_DONE) {
        fuse_replay_note(&c, op, FUSE_DONE_BEGUN);
        fuse_call_pace(&c, true, 0);
        rc = what == MAKE_DIR
                 ? c.inst->ops->mkdir(c.inst, c.cred, path, mode)
             : what == MAKE_NODE
                 ? c.inst->ops->mknod(c.inst, c.cred, path, mode, dev)
                 : c.inst->ops->symlink(c.inst, c.cred, target, path);
        fuse_call_paced(&c);
        rc = fuse_replay_again(e, rc, EEXIST);
        fuse_replay_note(&c, op, rc);
    }
    if (rc < 0)
        fuse_reply_err(req, -rc);
    else
        reply_entry(&c, path, 0, NULL);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
                     mode_t mode)
{
    make(req, parent, name, MAKE_DIR, mode, 0, NULL);
}

/* The kernel has checked the type (and CAP_MKNOD for devices) and applied
 * the umask; the backend checks them again for the preload path. */
static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
                     mode_t mode, dev_t rdev)
{
    make(req, parent, name, MAKE_NODE, mode, rdev, NULL);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
                       const char *name)
{
    make(req, parent, name, MAKE_SYMLINK, 0, 0, link);
}

static void remove_name(fuse_req_t req, fuse_ino_t parent, const char *name,
                        bool dir)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    enum fuse_done_op op = dir ? DONE_RMDIR : DONE_UNLINK;
    int rc = fuse_call_child_path(&c, parent, name, path);
    enum earlier e = rc < 0 ? EARLIER_NONE : fuse_replay_find(&c, op, &rc);
    /* A directory the kernel may hold open, which it opened without
     * asking: kept open across its removal (fuse_dirs.h). */
    struct ls_file *held = NULL;
    if (rc == 0 && e != EARLIER_DONE && dir &&
        c.inst->ops->open(c.inst, c.cred, path, O_RDONLY | O_DIRECTORY, 0,
                          &held) < 0)
        held = NULL;
    if (rc == 0 && e != EARLIER_DONE) {
        fuse_replay_note(&c, op, FUSE_DONE_BEGUN);
        fuse_call_pace(&c, true, 0);
        rc = dir ? c.inst->ops->rmdir(c.inst, c.cred, path)
                 : c.inst->ops->unlink(c.inst, c.cred, path);
        fuse_call_paced(&c);
        rc = fuse_replay_again(e, rc, ENOENT);
        fuse_replay_note(&c, op, rc);
    }
    uint64_t ino = 0;
    uint64_t node = rc == 0 ? fuse_nodes_find(&c.ex->nodes, path, &ino) : 0;
    if (held && node && ino)
        fuse_dirs_keep(&c.ex->dirs, node, ino, 0, held);
    else if (held)
        c.inst->ops->close(held);
    if (rc == 0)
        fuse_nodes_unlinked(&c.ex->nodes, path);
    /* The file's other names lost a link. */
    fuse_inval_inode(c.ex, ino, node, false);
    reply_status(req, rc);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    remove_name(req, parent, name, false);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    remove_name(req, parent, name, true);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
                      fuse_ino_t newparent, const char *newname,
                      unsigned int flags)
{
    BEGIN(req, c);
    char from[DANAUS_LONG_PATH_MAX], to[DANAUS_LONG_PATH_MAX];
    int rc = fuse_call_child_path(&c, parent, name, from);
    if (rc == 0)
        rc = fuse_call_child_path(&c, newparent, newname, to);
    enum earlier e =
        rc < 0 ? EARLIER_NONE : fuse_replay_find(&c, DONE_RENAME, &rc);
    if (e == EARLIER_DONE) {
        reply_status(req, rc);
        return;
    }
    if (rc == 0) {
        fuse_replay_note(&c, DONE_RENAME, FUSE_DONE_BEGUN);
        fuse_call_pace(&c, true, 0);
        rc = c.inst->ops->rename(c.inst, c.cred, from, to, flags);
        rc = fuse_replay_again(e, rc, ENOENT);
        fuse_call_paced(&c);
    }
    uint64_t moved_ino = 0, replaced_ino = 0;
    uint64_t moved = 0, replaced = 0;
    if (rc == 0) {
        moved = fuse_nodes_find(&c.ex->nodes, from, &moved_ino);
        replaced = fuse_nodes_find(&c.ex->nodes, to, &replaced_ino);
    }
    if (rc == 0 && (flags & RENAME_EXCHANGE)) {
        fuse_nodes_exchange(&c.ex->nodes, from, to);
    } else if (rc == 0) {
        fuse_nodes_rename(&c.ex->nodes, from, to);
    }
    fuse_replay_note(&c, DONE_RENAME, rc);
    /* The other names of the file moved (a new ctime) and of the one
     * replaced (a link less) or swapped (a new ctime). */
    fuse_inval_inode(c.ex, moved_ino, moved, false);
    fuse_inval_inode(c.ex, replaced_ino, replaced, false);
    reply_status(req, rc);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
                    const char *newname)
{
    BEGIN(req, c);
    char existing[DANAUS_LONG_PATH_MAX], path[DANAUS_LONG_PATH_MAX];
    int rc = fuse_call_path(&c, ino, existing);
    if (rc == 0)
        rc = fuse_call_child_path(&c, newparent, newname, path);
    enum earlier e =
        rc < 0 ? EARLIER_NONE : fuse_replay_find(&c, DONE_LINK, &rc);
    if (rc == 0 && e != EARLIER_DONE) {
        fuse_replay_note(&c, DONE_LINK, FUSE_DONE_BEGUN);
        fuse_call_pace(&c, true, 0);
        rc = c.inst->ops->link(c.inst, c.cred, existing, path);
        rc = fuse_replay_again(e, rc, EEXIST);
        fuse_call_paced(&c);
        fuse_replay_note(&c, DONE_LINK, rc);
    }
    if (rc < 0) {
        fuse_reply_err(req, -rc);
        return;
    }
    /* The file's names gained a link, the one the kernel asked through
     * too: the reply's entry is a node of its own (fuse_nodes.h). */
    fuse_inval_inode(c.ex, fuse_nodes_ino(&c.ex->nodes, ino), 0, false);
    reply_entry(&c, path, 0, NULL);
}

/* The kernel's mark on the open of a program it is about to run
 * (asm-generic/fcntl.h: "FMODE_EXEC is 0x20"), which FUSE passes on. */
#define KERNEL_FMODE_EXEC 0x20

/* The open flags a backend is given. The kernel also sends its own bits
 * (O_LARGEFILE, __FMODE_EXEC for execve), which the local backend's
 * openat2 rejects with EINVAL; and O_DIRECT would make the backend demand
 * aligned I/O that the page cache above does not promise. O_TRUNC comes
 * with a create only: an open truncates by a setattr once the kernel has
 * taken write access (op_init). */
#define BACKEND_OPEN_FLAGS                                                 \
    (O_ACCMODE | O_APPEND | O_NONBLOCK | O_SYNC | O_DSYNC | O_NOATIME)

/* Gives the kernel a handle for file, open on node, through fi. 0 or
 * -errno (file is then closed). */
static int hand_over(struct fuse_call *c, uint64_t node, struct ls_file *file,
                     int flags, struct fuse_file_info *fi)
{
    /* The number the open learnt, else the backend's stat. */
    struct danaus_stat d = {.ino = file->ino};
    int rc = d.ino ? 0 : c->inst->ops->fstat(file, c->cred, &d);
    struct fuse_handle h = {.node = node,
                            .ino = d.ino,
                            .flags = flags & ~(O_CREAT | O_EXCL | O_TRUNC),
                            .exec = fi->flags & KERNEL_FMODE_EXEC};
    if (rc == 0 && !(fi->fh = fuse_handles_add(&c->ex->handles, &h, file)))
        rc = -ENFILE;
    if (rc < 0) {
        c->inst->ops->close(file);
        return rc;
    }
    /* Appends land where the backend says the end is, which the kernel's
     * cached size may not know: such files bypass the page cache. Cached
     * pages are kept across opens while names and attributes are cached:
     * what changes them, fuse_inval.c drops. */
    fi->direct_io = c->ex->direct_io || (flags & O_APPEND);
    fi->keep_cache = c->ex->timeout > 0;
    return 0;
}

/* After a failed open or create reply: the kernel never got the handle. */
static void take_back(struct fuse_call *c, struct fuse_file_info *fi)
{
    struct ls_file *file = fuse_handles_remove(&c->ex->handles, fi->fh);
    if (file)
        c->inst->ops->close(file);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    int flags = fi->flags & BACKEND_OPEN_FLAGS;
    struct ls_file *file;
    if (fuse_replay_opened(&c, DONE_OPEN, fi)) {
        fi->direct_io = c.ex->direct_io || (flags & O_APPEND);
        fi->keep_cache = 0;
        if (fuse_reply_open(req, fi) != 0)
            take_back(&c, fi);
        return;
    }
    int rc = fuse_call_path(&c, ino, path);
    if (rc == 0) {
        fuse_call_pace(&c, false, 0);
        /* The kernel sends OPEN for regular files only. */
        rc = c.inst->ops->open(c.inst, c.cred, path,
                               flags | LS_OPEN_SEEN_REGULAR, 0, &file);
        fuse_call_paced(&c);
    }
    if (rc == 0)
        rc = hand_over(&c, ino, file, flags, fi);
    if (rc == 0)
        fuse_replay_note(&c, DONE_OPEN, (int64_t)fi->fh);
    if (rc < 0)
        fuse_reply_err(req, -rc);
    else if (fuse_reply_open(req, fi) != 0)
        take_back(&c, fi);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
                      mode_t mode, struct fuse_file_info *fi)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    int flags =
        (fi->flags & (BACKEND_OPEN_FLAGS | O_TRUNC | O_EXCL)) | O_CREAT;
    mode = nosuid_mode(c.ex->nosuid, mode);
    struct ls_file *file = NULL;
    struct danaus_stat d;
    struct fuse_entry_param e = {.ino = 0};
    int rc = fuse_call_child_path(&c, parent, name, path);
    enum earlier before =
        rc < 0 ? EARLIER_NONE : fuse_replay_find(&c, DONE_CREATE, &rc);
    if (rc == 0 && before != EARLIER_NONE) {
        /* Made by the dead service (or perhaps, when it died in the
         * middle): opened, not made again. */
        rc = c.inst->ops->open(c.inst, c.cred, path,
                               flags & ~(O_CREAT | O_EXCL | O_TRUNC), 0,
                               &file);
        if (rc == -ENOENT && before == EARLIER_BEGUN)
            rc = c.inst->ops->open(c.inst, c.cred, path, flags, mode, &file);
        fuse_replay_note(&c, DONE_CREATE, rc);
    } else if (rc == 0) {
        fuse_replay_note(&c, DONE_CREATE, FUSE_DONE_BEGUN);
        fuse_call_pace(&c, true, 0);
        rc = c.inst->ops->open(c.inst, c.cred, path, flags, mode, &file);
        fuse_call_paced(&c);
        fuse_replay_note(&c, DONE_CREATE, rc);
    }
    if (rc == 0)
        rc = c.inst->ops->fstat(file, c.cred, &d);
    if (rc == 0) {
        entry_of(&c, path, &d, &e);
        rc = e.ino ? 0 : -ENOMEM;
    }
    if (rc < 0 && file)
        c.inst->ops->close(file);
    if (rc == 0)
        rc = hand_over(&c, e.ino, file, flags, fi);
    if (rc < 0) {
        if (e.ino)
            fuse_nodes_forget(&c.ex->nodes, e.ino, 1);
        fuse_reply_err(req, -rc);
        return;
    }
    if (fuse_reply_create(req, &e, fi) != 0) {
        take_back(&c, fi);
        fuse_nodes_forget(&c.ex->nodes, e.ino, 1);
    }
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    BEGIN(req, c);
    struct ls_file *file;
    char *buf = malloc(size ? size : 1);
    ssize_t n = !buf ? -ENOMEM : fuse_replay_file(&c, fi, &file);
    if (n == 0)
        n = c.inst->ops->pread(file, c.cred, buf, size, off);
    if (n < 0) {
        fuse_reply_err(req, (int)-n);
    } else {
        fuse_loop_moved((uint64_t)n, 0);
        hrc_read(c.ex->hrc, c.ex->index, file, (uint64_t)off, (uint64_t)n);
        fuse_reply_buf(req, buf, (size_t)n);
    }
    free(buf);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
                     size_t size, off_t off, struct fuse_file_info *fi)
{
    BEGIN(req, c);
    off_t end;
    struct ls_file *file;
    ssize_t n = fuse_replay_file(&c, fi, &file);
    if (n == 0) {
        fuse_handles_writing(&c.ex->handles, fi->fh);
        fuse_call_pace(&c, false, size);
        n = (fi->flags & O_APPEND)
                ? fuse_replay_append(&c, fi->fh, file, buf, size)
                : c.inst->ops->pwrite(file, c.cred, buf, size, off, &end);
        fuse_call_paced(&c);
        uint64_t file_ino = fuse_nodes_ino(&c.ex->nodes, ino);
        announce_data(c.ex->announce, file_ino);
        /* The file's other names: their size and times, and so their
         * pages (FUSE_CAP_AUTO_INVAL_DATA, op_init). Not the pages at
         * once: the kernel may hold a page of this write locked until
         * the reply (one the write fills in part), so two writes
         * through two names, each dropping the other's pages, could
         * wait for each other for ever. */
        if (n > 0)
            fuse_inval_inode(c.ex, file_ino, ino, false);
    }
    if (n < 0) {
        fuse_reply_err(req, (int)-n);
    } else {
        fuse_loop_moved(0, (uint64_t)n);
        fuse_reply_write(req, (size_t)n);
    }
}

/* The kernel has checked the descriptor and the mode (it sends only
 * KEEP_SIZE, PUNCH_HOLE and ZERO_RANGE) and drops its cached pages of a
 * punched or zeroed range itself. */
static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
                         off_t len, struct fuse_file_info *fi)
{
    BEGIN(req, c);
    struct ls_file *file;
    int rc = fuse_replay_file(&c, fi, &file);
    if (rc == 0) {
        fuse_handles_writing(&c.ex->handles, fi->fh);
        fuse_call_pace(&c, true, 0);
        rc = c.inst->ops->fallocate(file, c.cred, mode, off, len);
        fuse_call_paced(&c);
    }
    /* The file's other names, as after a write. */
    if (rc == 0)
        fuse_inval_inode(c.ex, fuse_nodes_ino(&c.ex->nodes, ino), ino, false);
    reply_status(req, rc);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    struct danaus_statfs s;
    int rc = fuse_call_path(&c, ino, path);
    if (rc == 0)
        rc = c.inst->ops->statfs(c.inst, c.cred, path, &s);
    if (rc < 0) {
        fuse_reply_err(req, -rc);
        return;
    }
    struct statvfs out;
    memset(&out, 0, sizeof out);
    out.f_bsize = s.bsize;
    out.f_frsize = s.frsize;
    out.f_blocks = s.blocks;
    out.f_bfree = s.bfree;
    out.f_bavail = s.bavail;
    out.f_files = s.files;
    out.f_ffree = s.ffree;
    out.f_favail = s.favail;
    out.f_fsid = s.fsid;
    out.f_namemax = s.namelen;
    out.f_flag = s.flags;
    fuse_reply_statfs(req, &out);
}

/* Files and directories alike. */
static void op_release(fuse_req_t req, fuse_ino_t ino,
                       struct fuse_file_info *fi)
{
    struct fuse_export *ex = fuse_req_userdata(req);
    struct ls_file *file = fuse_handles_remove(&ex->handles, fi->fh);
    if (file)
        ex->inst->ops->close(file);
    fuse_reply_err(req, 0);
}

/* Files and directories alike. EIO when writes to the file may have died
 * with a previous service (fuse_handles_adopt), as the kernel reports a
 * writeback error. */
static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
                     struct fuse_file_info *fi)
{
    BEGIN(req, c);
    struct ls_file *file;
    uint32_t mark = 0;
    int rc = fuse_replay_file(&c, fi, &file);
    if (rc == 0)
        rc = fuse_handles_sync_begin(&c.ex->handles, fi->fh, &mark);
    if (rc == 0) {
        fuse_call_pace(&c, true, 0);
        rc = c.inst->ops->fsync(file, c.cred, datasync);
        fuse_call_paced(&c);
    }
    if (rc == 0)
        fuse_handles_synced(&c.ex->handles, fi->fh, mark);
    reply_status(req, rc);
}

/* A directory the kernel opened without asking (fuse_dirs.h), opened by
 * its node's path as the reader, who is the opener unless the descriptor
 * was passed on or its process changed identity since: when refused,
 * then, as the pool's root, as the kernel checked the opener's rights
 * (default_permissions). */
static int open_dir(struct fuse_call *c, fuse_ino_t ino, struct ls_file **dir)
{
    const struct ls_ops *ops = c->inst->ops;
    char path[DANAUS_LONG_PATH_MAX];
    int rc = fuse_call_path(c, ino, path);
    if (rc == 0)
        rc = ops->open(c->inst, c->cred, path, O_RDONLY | O_DIRECTORY, 0, dir);
    const struct ls_cred *root = rc == -EACCES || rc == -EPERM
                                     ? fuse_cred_root(c->ex->creds)
                                     : NULL;
    if (root)
        rc = ops->open(c->inst, root, path, O_RDONLY | O_DIRECTORY, 0, dir);
    if (rc < 0)
        *dir = NULL;
    return rc;
}

/* A directory's fsync: through its handle, or by its path when the
 * kernel opened it without asking (fuse_dirs.h). */
static void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
                        struct fuse_file_info *fi)
{
    if (fi->fh) {
        op_fsync(req, ino, datasync, fi);
        return;
    }
    BEGIN(req, c);
    struct ls_file *dir;
    int rc = open_dir(&c, ino, &dir);
    if (rc == 0) {
        fuse_call_pace(&c, true, 0);
        rc = c.inst->ops->fsync(dir, c.cred, datasync);
        fuse_call_paced(&c);
        c.inst->ops->close(dir);
    }
    reply_status(req, rc);
}

/* The kernel names ids in ACLs and v3 capabilities by host ids: the
 * backend gets pool ids (idmap.h), in a copy of value. */
static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
                        const char *value, size_t size, int flags)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    const struct idmap *m = c.ex->creds->idmap;
    unsigned char *mapped =
        idmap_xattr_names_ids(m, name) && size ? malloc(size) : NULL;
    int rc = mapped || !idmap_xattr_names_ids(m, name) || !size
                 ? fuse_call_path(&c, ino, path)
                 : -ENOMEM;
    if (rc == 0 && mapped) {
        memcpy(mapped, value, size);
        idmap_xattr_in(m, name, mapped, size);
        value = (const char *)mapped;
    }
    if (rc == 0) {
        fuse_call_pace(&c, true, 0);
        rc = c.inst->ops->setxattr(c.inst, c.cred, path, name, value, size,
                                   flags, AT_SYMLINK_NOFOLLOW);
        fuse_call_paced(&c);
    }
    free(mapped);
    reply_status(req, rc);
}

/* getxattr of name, or listxattr when name is NULL; size 0 asks for the
 * size only. */
static void query_xattr(fuse_req_t req, fuse_ino_t ino, const char *name,
                        size_t size)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    char *buf = size ? malloc(size) : NULL;
    ssize_t n = size && !buf ? -ENOMEM : fuse_call_path(&c, ino, path);
    if (n == 0)
        n = name ? c.inst->ops->getxattr(c.inst, c.cred, path, name, buf,
                                         size, AT_SYMLINK_NOFOLLOW)
                 : c.inst->ops->listxattr(c.inst, c.cred, path, buf, size,
                                          AT_SYMLINK_NOFOLLOW);
    if (n > 0 && size && name) /* host ids for the kernel (idmap.h) */
        idmap_xattr_out(c.ex->creds->idmap, name, (unsigned char *)buf,
                        (size_t)n);
    if (n < 0)
        fuse_reply_err(req, (int)-n);
    else if (size == 0)
        fuse_reply_xattr(req, (size_t)n);
    else
        fuse_reply_buf(req, buf, (size_t)n);
    free(buf);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
                        size_t size)
{
    query_xattr(req, ino, name, size);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
    query_xattr(req, ino, NULL, size);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    int rc = fuse_call_path(&c, ino, path);
    if (rc == 0) {
        fuse_call_pace(&c, true, 0);
        rc = c.inst->ops->removexattr(c.inst, c.cred, path, name,
                                      AT_SYMLINK_NOFOLLOW);
        fuse_call_paced(&c);
    }
    reply_status(req, rc);
}

/* ENOSYS, when the kernel may open directories without asking: it then
 * stops sending OPENDIR and RELEASEDIR (fuse_dirs.h). */
static void op_opendir(fuse_req_t req, fuse_ino_t ino,
                       struct fuse_file_info *fi)
{
    struct fuse_export *ex = fuse_req_userdata(req);
    if (ex->no_opendir) {
        fuse_reply_err(req, ENOSYS);
        return;
    }
    BEGIN(req, c);
    char path[DANAUS_LONG_PATH_MAX];
    struct ls_file *dir;
    if (fuse_replay_opened(&c, DONE_OPENDIR, fi)) {
        if (fuse_reply_open(req, fi) != 0)
            take_back(&c, fi);
        return;
    }
    int rc = fuse_call_path(&c, ino, path);
    if (rc == 0)
        rc = c.inst->ops->open(c.inst, c.cred, path, O_RDONLY | O_DIRECTORY,
                               0, &dir);
    struct fuse_handle h = {.node = ino, .dir = true};
    if (rc == 0 && !(fi->fh = fuse_handles_add(&c.ex->handles, &h, dir))) {
        c.inst->ops->close(dir);
        rc = -ENFILE;
    }
    if (rc == 0)
        fuse_replay_note(&c, DONE_OPENDIR, (int64_t)fi->fh);
    if (rc < 0)
        fuse_reply_err(req, -rc);
    else if (fuse_reply_open(req, fi) != 0)
        take_back(&c, fi);
}

/* A reply of directory entries being filled: with plus, each entry but
 * "." and ".." carries its node (one lookup more) and attributes, and
 * nodes lists those nodes, to be forgotten if the kernel never gets them. */
struct listing {
    struct fuse_call *c;
    fuse_ino_t dir;
    bool plus;
    char *out;
    size_t size, used;
    off_t next; /* the cookie after the last entry added */
    uint64_t *nodes;
    size_t n_nodes;
};

static bool dot_or_dotdot(const char *name)
{
    return name[0] == '.' &&
           (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* The entry of name in a readdirplus reply: its node and attributes, or
 * only its number and type (node 0: the kernel then looks it up itself)
 * for "." and "..", and for a name gone since the listing. */
static void plus_entry(struct listing *l, const struct danaus_dirent *de,
                       struct fuse_entry_param *e)
{
    char path[DANAUS_LONG_PATH_MAX];
    struct danaus_stat d;
    memset(e, 0, sizeof *e);
    if (dot_or_dotdot(de->d_name) ||
        fuse_call_child_path(l->c, l->dir, de->d_name, path) < 0 ||
        l->c->inst->ops->stat(l->c->inst, l->c->cred, path,
                              AT_SYMLINK_NOFOLLOW, &d) < 0) {
        e->attr.st_ino = de->d_ino;
        e->attr.st_mode = DTTOIF(de->d_type);
        return;
    }
    entry_of(l->c, path, &d, e);
}

/* Adds de to the reply: false when it does not fit (nothing added). */
static bool add_entry(struct listing *l, const struct danaus_dirent *de)
{
    size_t room = l->size - l->used;
    size_t len;
    if (!l->plus) {
        struct stat st;
        memset(&st, 0, sizeof st);
        st.st_ino = de->d_ino;
        st.st_mode = DTTOIF(de->d_type);
        len = fuse_add_direntry(l->c->req, l->out + l->used, room,
                                de->d_name, &st, de->d_off);
        if (len > room)
            return false;
        l->used += len;
        l->next = de->d_off;
        return true;
    }
    struct fuse_entry_param e;
    plus_entry(l, de, &e);
    len = fuse_add_direntry_plus(l->c->req, l->out + l->used, room,
                                 de->d_name, &e, de->d_off);
    if (len > room) {
        if (e.ino)
            fuse_nodes_forget(&l->c->ex->nodes, e.ino, 1);
        return false;
    }
    if (e.ino)
        l->nodes[l->n_nodes++] = e.ino;
    l->used += len;
    l->next = de->d_off;
    return true;
}

/* Fills l from cookie *pos of dir on: 0, or -errno when nothing could be
 * read. */
static int fill_listing(struct listing *l, struct ls_file *dir, off_t pos)
{
    char records[16384] __attribute__((aligned(8)));
    ssize_t n;
    while ((n = l->c->inst->ops->getdents(dir, l->c->cred, records,
                                          sizeof records, &pos)) > 0) {
        for (ssize_t at = 0; at < n;) {
            const struct danaus_dirent *de =
                (const struct danaus_dirent *)(records + at);
            if (!add_entry(l, de))
                return 0;
            at += de->d_reclen;
        }
    }
    return n < 0 && l->used == 0 ? (int)n : 0;
}

/* The smallest record of a readdirplus reply (fuse_kernel.h's struct
 * fuse_direntplus with a name of up to 8 bytes), which bounds how many
 * nodes one reply can carry. */
#define MIN_PLUS_RECORD 160

/* Entries from cookie off on, each with its own cookie, so that the kernel
 * resumes exactly after the last one that fit. */
static void list_dir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                     struct fuse_file_info *fi, bool plus)
{
    BEGIN(req, c);
    struct ls_file *dir = NULL;
    struct listing l = {.c = &c, .dir = ino, .plus = plus, .size = size};
    l.out = malloc(size ? size : 1);
    l.nodes = plus ? malloc((size / MIN_PLUS_RECORD + 1) * sizeof *l.nodes)
                   : NULL;
    /* No handle: a directory the kernel opened without asking. */
    bool kept = fi->fh == 0;
    uint64_t dir_ino = kept ? fuse_nodes_ino(&c.ex->nodes, ino) : 0;
    int rc = !l.out || (plus && !l.nodes) ? -ENOMEM
             : !kept                      ? fuse_replay_file(&c, fi, &dir)
             : dir_ino && (dir = fuse_dirs_take(&c.ex->dirs, ino, dir_ino, off))
                 ? 0
                 : open_dir(&c, ino, &dir);
    if (rc == 0)
        rc = fill_listing(&l, dir, off);
    else if (rc == -ESTALE && kept)
        rc = 0; /* removed since the kernel opened it: no more names */
    /* Kept for the listing's next read (fuse_dirs.h). */
    if (kept && dir && dir_ino) {
        fuse_dirs_keep(&c.ex->dirs, ino, dir_ino, l.used ? l.next : off, dir);
        if (off == 0)
            fuse_dirs_listed(&c.ex->dirs, ino);
    } else if (kept && dir) {
        c.inst->ops->close(dir);
    }
    if (rc < 0)
        fuse_reply_err(req, -rc);
    else if (fuse_reply_buf(req, l.out, l.used) != 0)
        for (size_t i = 0; i < l.n_nodes; i++)
            fuse_nodes_forget(&c.ex->nodes, l.nodes[i], 1);
    free(l.out);
    free(l.nodes);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    list_dir(req, ino, size, off, fi, false);
}

/* Names with their attributes, which spares the kernel a lookup of each
 * (find, ls -l): the nodes made are kept true as a lookup's are. */
static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
                           off_t off, struct fuse_file_info *fi)
{
    list_dir(req, ino, size, off, fi, true);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
    struct fuse_export *ex = userdata;
    /* With attributes cached, auto_inval_data drops a file's pages when
     * the attributes the kernel fetches again after their timeout show a
     * change made outside this service (the host, an other Ceph client),
     * which bounds how long those pages stay stale. With attributes never
     * cached it makes the kernel ask the service before every cached
     * read, so only on request (fuse_revalidate): the doors stay coherent
     * without it (FUSE writes update the pages, preload changes drop
     * them, fuse_inval.c, and every open drops them). */
    if (ex->revalidate || ex->timeout > 0)
        conn->want |= conn->capable & FUSE_CAP_AUTO_INVAL_DATA;
    else
        conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
    /* With atomic O_TRUNC the kernel passes O_TRUNC in the open and
     * checks only afterwards that the file may be written: the open of a
     * running program's file with O_RDONLY | O_TRUNC failed with ETXTBSY
     * after the backend had truncated it. Without it the kernel takes
     * write access first and truncates by a setattr. */
    conn->want &= ~FUSE_CAP_ATOMIC_O_TRUNC;
    /* Symlinks' targets kept by the kernel, since a link replaced comes
     * back from the next lookup as a new node (link_stamp). */
    conn->want |= conn->capable & FUSE_CAP_CACHE_SYMLINKS;
    /* Directories opened without asking (fuse_dirs.h), only where the
     * kernel checks the opener's rights, as OPENDIR would have. */
    ex->no_opendir = ex->default_permissions &&
                     (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT);
}

const struct fuse_lowlevel_ops fuse_export_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .forget = op_forget,
    .forget_multi = op_forget_multi,
    .getattr = op_getattr,
    .setattr = op_setattr,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .release = op_release,
    .fsync = op_fsync,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .readdirplus = op_readdirplus,
    .releasedir = op_release,
    .fsyncdir = op_fsyncdir,
    .statfs = op_statfs,
    .setxattr = op_setxattr,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
    .removexattr = op_removexattr,
    .access = op_access,
    .create = op_create,
    .fallocate = op_fallocate,
};
