/*
 * libservice.h - the interface every file-system layer of danausd offers.
 *
 * A libservice is a table of operations (struct ls_ops) over an instance
 * (struct ls_instance), in the manner of SQLite's sqlite3_vfs: backends
 * (local directory, CephFS) implement it over their storage, and shims such as
 * the union stack on top by holding a pointer to the instance below and
 * calling it directly: no copy, no thread hop between layers.
 *
 * Conventions:
 *  - paths are instance-relative ("" is the instance root, no leading '/').
 *    A backend resolves them inside its root: neither ".." nor a symlink
 *    (absolute or relative) ever leads outside it.
 *  - every call acts with the client's credentials (struct ls_cred).
 *  - results are >= 0 on success and -errno on failure.
 *  - flags arguments named "at" take AT_SYMLINK_NOFOLLOW (and AT_EACCESS for
 *    access); other AT_ bits are rejected with -EINVAL.
 */
#ifndef DANAUS_LIBSERVICE_H
#define DANAUS_LIBSERVICE_H

#include <danaus/wire.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

struct UserPerm;

/* One client's identity, made once when it attaches. */
struct ls_cred {
    uid_t uid;
    gid_t gid;
    int ngroups;
    gid_t groups[DANAUS_MAX_GROUPS];
    struct UserPerm *ceph_perm; /* made by cephfs_cred_init; NULL otherwise */
};

struct ls_ops;

/* open's answer for a file the kernel opens (see ls_ops.open). */
#define LS_OPEN_SPECIAL 1

struct ls_instance {
    const struct ls_ops *ops;
    /* The mount point clients see the instance at, when not "/" (NULL
     * otherwise): an absolute symlink target under it leads back into the
     * instance, from its root, as through the kernel. Set by its owner
     * after creating it; backends follow it in their walks. */
    const char *link_prefix;
    /* Served read-only to the preload (a container run with --read-only):
     * every call that would change it gets EROFS from dispatch. The kernel's
     * path is the engine's to close (a read-only remount in the container;
     * the FUSE door serves the engine's own setup). Set by its owner before
     * it is served. */
    bool read_only;
    /* Its name space and attributes are the host kernel's (a local
     * directory, or a union of them): a call on them keeps a thread about
     * as long as a system call, not a server's round trip (blocking.h).
     * Set by the backend, or the union, when the instance is made. */
    bool kernel_name_space;
};

/* Where an absolute symlink target leads in the instance: past the mount
 * point when it lies under it (link_prefix), else the target itself (the
 * instance root is the walk's "/" either way). */
static inline const char *ls_link_target(const char *link_prefix,
                                         const char *target)
{
    size_t n = link_prefix ? strlen(link_prefix) : 0;
    if (n && strncmp(target, link_prefix, n) == 0 &&
        (target[n] == '\0' || target[n] == '/'))
        return target + n;
    return target;
}

/* A backend's open file or directory; backends embed it first. */
struct ls_file {
    struct ls_instance *inst;
    int is_dir;
    /* The file's inode number as stat reports it, when the open learnt it
     * on the way (0: not known). A client that opens the path again after
     * a restart of the service checks it is the same file. */
    uint64_t ino;
};

struct ls_ops {
    const char *name;

    /* Open files and directories (O_DIRECTORY or a directory opened
     * O_RDONLY gives a directory whose entries getdents returns). A FIFO,
     * device or socket is not opened: after checking the caller's access
     * for the open's mode, open answers LS_OPEN_SPECIAL without setting
     * *out, since the data path of such a file is the kernel's (the
     * client opens it through the FUSE door). O_PATH opens them all. */
    int (*open)(struct ls_instance *, const struct ls_cred *, const char *path,
                int flags, mode_t mode, struct ls_file **out);
    void (*close)(struct ls_file *);
    ssize_t (*pread)(struct ls_file *, const struct ls_cred *, void *buf,
                     size_t n, off_t off);
    /* off < 0 appends atomically; *end gets the offset after the write. */
    ssize_t (*pwrite)(struct ls_file *, const struct ls_cred *,
                      const void *buf, size_t n, off_t off, off_t *end);
    int (*fsync)(struct ls_file *, const struct ls_cred *, int datasync);
    int (*ftruncate)(struct ls_file *, const struct ls_cred *, off_t len);
    /* fallocate(2) on a file open for writing, whose mode, offset and len
     * the caller has checked as the kernel's VFS does; a mode the storage
     * lacks gets its own answer (EOPNOTSUPP). */
    int (*fallocate)(struct ls_file *, const struct ls_cred *, int mode,
                     off_t off, off_t len);
    int (*fstat)(struct ls_file *, const struct ls_cred *,
                 struct danaus_stat *out);
    int (*fchmod)(struct ls_file *, const struct ls_cred *, mode_t mode);
    int (*fchown)(struct ls_file *, const struct ls_cred *, uid_t uid,
                  gid_t gid);
    int (*futimens)(struct ls_file *, const struct ls_cred *,
                    const struct timespec ts[2]);
    int (*fstatfs)(struct ls_file *, const struct ls_cred *,
                   struct danaus_statfs *out);
    /* Directory entries from cookie *pos on, as danaus_dirent records; *pos
     * advances past what was returned. 0 at the end. Cookie 0 is the start. */
    ssize_t (*getdents)(struct ls_file *, const struct ls_cred *, void *buf,
                        size_t n, off_t *pos);
    ssize_t (*fgetxattr)(struct ls_file *, const struct ls_cred *,
                         const char *name, void *value, size_t size);
    int (*fsetxattr)(struct ls_file *, const struct ls_cred *,
                     const char *name, const void *value, size_t size,
                     int xflags);
    ssize_t (*flistxattr)(struct ls_file *, const struct ls_cred *,
                          char *list, size_t size);
    int (*fremovexattr)(struct ls_file *, const struct ls_cred *,
                        const char *name);
    /* Whether the data of a file open for reading may be copied out of the
     * backend and read from the copy until the backend announces a change:
     * 1, with *key naming the data in announcements (struct
     * ls_change_sink), or 0 (not now: someone may change it unannounced;
     * ask again later). A backend that says 1 announces key before any
     * change of the data takes effect, whether it comes through this
     * service or from another client of the storage, until the file is
     * closed; but for changes made through this very file (a file open
     * for reading and writing), which its caller accounts for. Never
     * blocks for long. NULL: never. */
    int (*cache_hold)(struct ls_file *, uint64_t *key);

    /* Paths. */
    int (*stat)(struct ls_instance *, const struct ls_cred *, const char *path,
                int at, struct danaus_stat *out);
    int (*access)(struct ls_instance *, const struct ls_cred *,
                  const char *path, int mode, int at);
    int (*mkdir)(struct ls_instance *, const struct ls_cred *,
                 const char *path, mode_t mode);
    /* A regular file, FIFO, socket or (for root) device: mode carries the
     * S_IFMT type, which the caller has checked, and permission bits. */
    int (*mknod)(struct ls_instance *, const struct ls_cred *,
                 const char *path, mode_t mode, dev_t dev);
    int (*rmdir)(struct ls_instance *, const struct ls_cred *,
                 const char *path);
    int (*unlink)(struct ls_instance *, const struct ls_cred *,
                  const char *path);
    int (*rename)(struct ls_instance *, const struct ls_cred *,
                  const char *from, const char *to, unsigned flags);
    int (*link)(struct ls_instance *, const struct ls_cred *,
                const char *existing, const char *newpath);
    int (*symlink)(struct ls_instance *, const struct ls_cred *,
                   const char *target, const char *linkpath);
    ssize_t (*readlink)(struct ls_instance *, const struct ls_cred *,
                        const char *path, char *buf, size_t size);
    int (*chmod)(struct ls_instance *, const struct ls_cred *,
                 const char *path, mode_t mode, int at);
    int (*chown)(struct ls_instance *, const struct ls_cred *,
                 const char *path, uid_t uid, gid_t gid, int at);
    int (*utimens)(struct ls_instance *, const struct ls_cred *,
                   const char *path, const struct timespec ts[2], int at);
    int (*truncate)(struct ls_instance *, const struct ls_cred *,
                    const char *path, off_t len);
    int (*statfs)(struct ls_instance *, const struct ls_cred *,
                  const char *path, struct danaus_statfs *out);
    ssize_t (*getxattr)(struct ls_instance *, const struct ls_cred *,
                        const char *path, const char *name, void *value,
                        size_t size, int at);
    int (*setxattr)(struct ls_instance *, const struct ls_cred *,
                    const char *path, const char *name, const void *value,
                    size_t size, int xflags, int at);
    ssize_t (*listxattr)(struct ls_instance *, const struct ls_cred *,
                         const char *path, char *list, size_t size, int at);
    int (*removexattr)(struct ls_instance *, const struct ls_cred *,
                       const char *path, const char *name, int at);

    void (*destroy)(struct ls_instance *);
};

/* Where backends announce changes of data they let be cached (cache_hold):
 * changed(arg, key) runs in a backend's thread, maybe with its locks held,
 * so it must be quick and must not call into any backend. */
struct ls_change_sink {
    void (*changed)(void *arg, uint64_t key);
    void *arg;
};

/* Backends. Errors go to err (a line for the operator) and return NULL. */
struct ls_instance *local_instance_new(const char *root_dir, char *err,
                                       size_t errlen);
/* Lets local files be cached (cache_hold), announcing their changes to
 * sink: read leases (local/lease.c). Before serving; 0 or -errno. */
int local_backend_enable_cache(const struct ls_change_sink *sink);

struct cephfs_client; /* one Ceph mount per service, shared by instances */
struct cephfs_client_options {
    const char *conf_path;   /* ceph.conf */
    const char *client_id;   /* cephx id, NULL for "admin" */
    const char *fs_name;     /* NULL: the default file system */
    const char *keyring;     /* the id's key, NULL: the conf's keyring */
    /* The directory the client mounts, NULL for "/": a client whose caps
     * allow one path only may mount nothing above it. Every instance's
     * root lies at or below it. */
    const char *root;
    const char *cache_size;  /* client_cache_size (inodes), NULL: default */
    const char *oc_size;     /* client_oc_size (bytes), NULL: default */
    /* Names this client's Ceph session across restarts: a session the
     * previous process of the same uuid left is reset at mount, so the
     * files it held are free at once. NULL: no uuid, no reset. */
    const char *uuid;
    /* Keep the conf's client-side debug levels; otherwise they are 0/0
     * (see client.c). */
    int keep_debug_levels;
    /* No object cache (client_oc off): a write returns once the cluster
     * has it, so a service that dies loses no written data. */
    int write_through;
};
struct cephfs_client *cephfs_client_new(const struct cephfs_client_options *,
                                        char *err, size_t errlen);
void cephfs_client_free(struct cephfs_client *);
/* Lets the client's files be cached (cache_hold), announcing their changes
 * to sink: read delegations (deleg.c). Before serving; 0 or -errno. */
int cephfs_client_enable_cache(struct cephfs_client *,
                               const struct ls_change_sink *sink);
/* root is a directory in CephFS, created if absent, named from the top of
 * the file system (not from the client's mount root). */
struct ls_instance *cephfs_instance_new(struct cephfs_client *,
                                        const char *root, char *err,
                                        size_t errlen);
int cephfs_cred_init(struct cephfs_client *, struct ls_cred *);
void cephfs_cred_release(struct ls_cred *);

#endif
