/*
 * ceph.h - what the files of the CephFS libservice share: the client
 * (one Ceph mount per service), the instance (a directory of that mount used
 * as a root), the path walk inside an instance, and attribute conversion.
 *
 * Files: client.c (mount, credentials, space.c: the room left for
 * writes), walk.c (paths), deleg.c (read
 * delegations: what lets file data be cached outside libcephfs),
 * file.c (open files and directories), ceph.c (instances, path
 * operations, the ops table). Internal to fsservice; users see libservice.h.
 */
#ifndef DANAUS_CEPH_BACKEND_H
#define DANAUS_CEPH_BACKEND_H

#include "space.h"
#include "cephfs.h"

#include <cephfs/libcephfs.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/statvfs.h>

struct cephfs_client {
    struct ceph_mount_info *cmount;
    /* The directory mounted (ceph_root), without a trailing '/': "" for
     * the top of the file system. */
    char root[PATH_MAX];
    /* st_dev reported for every file of this client: a constant made from
     * the file system id, so all files of one mount share it. */
    uint64_t dev;
    /* The room the cluster has left for this client's writes, and the
     * thread that asks the cluster for it (client.c). */
    struct ceph_space space;
    pthread_mutex_t space_lock;
    pthread_cond_t space_cond;
    bool space_stop, space_started;
    pthread_t space_thread;
    /* ceph_write_through: an object cache that holds no dirty data, and
     * attribute changes flushed to the MDS before they are answered
     * (ceph_setattr). */
    bool write_through;
    /* Read delegations (deleg.c): whether files may be cached, where their
     * changes are announced, and the recalled delegations the returner
     * thread gives back (Ceph calls the recall with its client lock held,
     * where nothing may call into libcephfs). */
    bool cache;
    struct ls_change_sink sink;
    pthread_mutex_t deleg_lock;
    pthread_cond_t deleg_cond;
    struct ceph_file *deleg_queue; /* recalled, not given back yet */
    struct ceph_file *deleg_busy;  /* being given back now */
    bool deleg_stop;
    pthread_t deleg_thread;
};

/* Whether the cluster had no space left at its last figure (statfs of
 * the mount's root, asked every second; space.h). */
bool cephfs_client_full(struct cephfs_client *cl);
/* The bytes a write may take before the cluster is full (SPACE_UNKNOWN:
 * no figure), and what a write took. */
uint64_t cephfs_client_room(struct cephfs_client *cl);
void cephfs_client_wrote(struct cephfs_client *cl, uint64_t n);

/* The registry's entry for this backend (backend.c). */
extern struct ls_backend cephfs_backend;

/* The UserPerm cephfs_cred_init made for cred, in the slot the registry
 * gave this backend; NULL when it made none. */
static inline struct UserPerm *ceph_perm(const struct ls_cred *cred)
{
    return cred->state[cephfs_backend.cred_slot];
}

struct ceph_instance {
    struct ls_instance base;
    struct cephfs_client *client;
    struct Inode *root; /* held for the instance's life */
    uint64_t root_ino;
};

static inline struct ceph_instance *ceph_inst(struct ls_instance *inst)
{
    return (struct ceph_instance *)inst;
}

/* Releases an inode reference from the walk; the instance root is never
 * released here, it belongs to the instance. */
void ceph_inode_put(struct ceph_instance *ci, struct Inode *in);

/*
 * Resolves an instance-relative path to an inode (a reference the caller
 * gives back with ceph_inode_put). follow: whether a final symlink is
 * followed. Symlinks elsewhere are always followed; absolute targets start at
 * the instance root and ".." at the root stays there.
 */
int ceph_walk(struct ceph_instance *ci, const struct ls_cred *cred,
              const char *path, int follow, struct Inode **out);
/* ceph_walk, with the fields want (CEPH_STATX_*; the mode always) of the
 * inode walked to asked of the lookup that found it, which spares the
 * caller a getattr: *stx_valid says whether they came that way (not for
 * the instance root or a path ending in "." or ".."). Asking fewer fields
 * asks fewer caps of the MDS. stx and stx_valid NULL: ceph_walk. */
int ceph_walk_stat(struct ceph_instance *ci, const struct ls_cred *cred,
                   const char *path, int follow, unsigned want,
                   struct Inode **out, struct ceph_statx *stx,
                   bool *stx_valid);

/* The last component of a path, for the calls that create, remove or rename
 * a name. */
struct ceph_last {
    struct Inode *dir;       /* a reference: ceph_inode_put */
    char name[NAME_MAX + 1]; /* "" for the root itself; may be "." or ".." */
    int slash;               /* name was followed by '/' in the path */
};

/*
 * Resolves all but the last component: last->dir gets the directory and
 * last->name the last component; callers turn "", "." and ".." and a
 * trailing slash into the errno Linux gives. follow_last: a last component
 * that is a symlink is followed, as open(O_CREAT) does, so last names the
 * file the link leads to (which may not exist yet).
 */
int ceph_walk_parent(struct ceph_instance *ci, const struct ls_cred *cred,
                     const char *path, int follow_last,
                     struct ceph_last *last);

/* 1 when name is not a plain entry name ("", "." or ".."). */
int ceph_name_is_special(const char *name);

/* The attributes every stat-like call asks for. */
#define CEPH_WANT_STAT (CEPH_STATX_BASIC_STATS | CEPH_STATX_BTIME)

void ceph_stat_fill(const struct cephfs_client *cl,
                    const struct ceph_statx *stx, struct danaus_stat *out);
void ceph_statfs_fill(const struct statvfs *sv, struct danaus_statfs *out);

/* Whether cred may access a file of these attributes with mask (R_OK, W_OK,
 * X_OK bits): 0 or -EACCES, as the kernel's generic permission check. */
int ceph_may_access(const struct ceph_statx *stx, const struct ls_cred *cred,
                    int mask);

/* Attribute changes shared by path and file operations. */
/* After a change of in's attributes or xattrs that returned r: for a
 * write-through client, flushes it to the MDS (Ceph applies a change to a
 * file whose caps the client holds exclusively, such as a file it just
 * made, in the client's memory first, where a dying service would lose
 * it). r, or the flush's error. */
int ceph_durable(struct cephfs_client *cl, struct Inode *in, int r);

/* ceph_ll_setattr made durable (ceph_durable). */
int ceph_setattr(struct cephfs_client *cl, struct Inode *in,
                 struct ceph_statx *stx, int mask, UserPerm *perm);

int ceph_do_chmod(struct cephfs_client *cl, struct Inode *in,
                  const struct ls_cred *cred, mode_t mode);
int ceph_do_chown(struct cephfs_client *cl, struct Inode *in,
                  const struct ls_cred *cred, uid_t uid, gid_t gid);
int ceph_do_utimens(struct cephfs_client *cl, struct Inode *in,
                    const struct ls_cred *cred, const struct timespec ts[2]);
int ceph_do_stat(struct cephfs_client *cl, struct Inode *in,
                 const struct ls_cred *cred, struct danaus_stat *out);
int ceph_do_statfs(struct cephfs_client *cl, struct Inode *in,
                   struct danaus_statfs *out);
ssize_t ceph_do_listxattr(struct cephfs_client *cl, struct Inode *in,
                          const struct ls_cred *cred, char *list, size_t size);

/* Kernel protections libcephfs leaves out (protect.c). Before a write or
 * size change by cred: clear setuid/setgid as the kernel does. Before a
 * hard link of in by cred: 0, or -EPERM where fs.protected_hardlinks
 * refuses it. */
int ceph_kill_privs(struct cephfs_client *cl, struct Inode *in,
                    const struct ls_cred *cred);
int ceph_may_link(struct cephfs_client *cl, struct Inode *in,
                  const struct ls_cred *cred);
/* listxattr for a non-root cred: without the trusted.* names, which Linux
 * lists only to CAP_SYS_ADMIN. */
ssize_t ceph_listxattr_unprivileged(struct cephfs_client *cl, struct Inode *in,
                                    const struct ls_cred *cred, char *list,
                                    size_t size);

/* An open file or directory. */
struct ceph_file {
    struct ls_file base;
    struct Inode *in;
    struct Fh *fh;               /* regular files */
    struct ceph_dir_result *dir; /* directories */
    int flags;
    /* Directories: the cookie our callers see Ceph's stream standing at. It
     * is kept rather than asked of ceph_telldir because, past the last
     * entry, Ceph's position becomes an end marker: a seekdir back from it
     * would drop Ceph's buffer and ask the MDS again at every end. */
    off_t dir_pos;
    /* Regular files: the end of what this open file wrote or truncated to,
     * below which a write takes no room (file.c's pwrite). */
    _Atomic uint64_t known_end;
    /* Serializes what must not interleave on one open file: an append with
     * the read of the position it left, and a directory's seek + reads. */
    pthread_mutex_t lock;
    /* A read delegation (deleg.c): DELEG_NONE, _HELD or _RECALLED; the
     * recalls seen, and the file's place in the client's queue of
     * delegations to give back. deleg_lock orders asking for one with
     * giving it back; Ceph's recall callback never takes it. */
    _Atomic int deleg;
    _Atomic uint32_t deleg_recalls;
    pthread_mutex_t deleg_lock;
    struct ceph_file *deleg_next;
    bool deleg_queued;
    bool deleg_asked; /* ever: closing gives it back */
};

/* Read delegations (deleg.c). cache_hold: ls_ops.cache_hold. drop: before
 * a file with one is closed; stop: before the client unmounts. */
enum { DELEG_NONE, DELEG_HELD, DELEG_RECALLED };
int ceph_file_cache_hold(struct ls_file *f, uint64_t *key);
void ceph_deleg_drop(struct ceph_file *cf);
void ceph_deleg_stop(struct cephfs_client *cl);

/* File operations (file.c). */
int ceph_file_open(struct ls_instance *inst, const struct ls_cred *cred,
                   const char *path, int flags, mode_t mode,
                   struct ls_file **out);
void ceph_file_close(struct ls_file *f);
ssize_t ceph_file_pread(struct ls_file *f, const struct ls_cred *cred,
                        void *buf, size_t n, off_t off);
ssize_t ceph_file_pwrite(struct ls_file *f, const struct ls_cred *cred,
                         const void *buf, size_t n, off_t off, off_t *end);
int ceph_file_fsync(struct ls_file *f, const struct ls_cred *cred,
                    int datasync);
int ceph_file_ftruncate(struct ls_file *f, const struct ls_cred *cred,
                        off_t len);
int ceph_file_fallocate(struct ls_file *f, const struct ls_cred *cred,
                        int mode, off_t off, off_t len);
int ceph_file_fstat(struct ls_file *f, const struct ls_cred *cred,
                    struct danaus_stat *out);
int ceph_file_fchmod(struct ls_file *f, const struct ls_cred *cred,
                     mode_t mode);
int ceph_file_fchown(struct ls_file *f, const struct ls_cred *cred, uid_t uid,
                     gid_t gid);
int ceph_file_futimens(struct ls_file *f, const struct ls_cred *cred,
                       const struct timespec ts[2]);
int ceph_file_fstatfs(struct ls_file *f, const struct ls_cred *cred,
                      struct danaus_statfs *out);
ssize_t ceph_file_getdents(struct ls_file *f, const struct ls_cred *cred,
                           void *buf, size_t n, off_t *pos);
ssize_t ceph_file_fgetxattr(struct ls_file *f, const struct ls_cred *cred,
                            const char *name, void *value, size_t size);
int ceph_file_fsetxattr(struct ls_file *f, const struct ls_cred *cred,
                        const char *name, const void *value, size_t size,
                        int xflags);
ssize_t ceph_file_flistxattr(struct ls_file *f, const struct ls_cred *cred,
                             char *list, size_t size);
int ceph_file_fremovexattr(struct ls_file *f, const struct ls_cred *cred,
                           const char *name);

#endif
