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
 *  - paths are instance-relative ("" is the instance root, no leading '/'),
 *    shorter than DANAUS_LONG_PATH_MAX, which is longer than the kernel's
 *    PATH_MAX: a relative path the kernel accepts, joined to the directory
 *    it starts from (wire.h). A backend resolves them inside its root:
 *    neither ".." nor a symlink (absolute or relative) ever leads outside
 *    it.
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

/* Backends that may keep state of their own in a credential. */
#define LS_CRED_STATES 4

/* One client's identity, made once when it attaches. state[] belongs to
 * the backends (ls_cred_init): what each made of the identity, such as a
 * Ceph UserPerm, in the slot the registry gave it; NULL otherwise. Made
 * on the credential's final copy: a backend may point into groups. */
struct ls_cred {
    uid_t uid;
    gid_t gid;
    int ngroups;
    gid_t groups[DANAUS_MAX_GROUPS];
    void *state[LS_CRED_STATES];
};

struct ls_ops;

/* open's answer for a file the kernel opens (see ls_ops.open). */
#define LS_OPEN_SPECIAL 1

/* In open's flags, never an open(2) flag: the caller saw a regular file
 * at the path a moment ago (the kernel sent a FUSE OPEN, which it sends
 * for regular files only; a union's lookup; a client's cache, which may
 * lie). A backend may then skip its look for a FIFO or device before the
 * open, and checks what it opened instead: a special file swapped in
 * since is opened non-blocking and closed at once, as one swapped in
 * between a look and an open would be, and the open goes on as without
 * the hint. A backend that passes flags on to the system strips it. */
#define LS_OPEN_SEEN_REGULAR 010000000000

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
    /* The file's attributes as the open found them, when it learnt them
     * on the way (has_attrs): the client's first fstat needs no call. */
    bool has_attrs;
    struct danaus_stat attrs;
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
    /* The attributes of name, one name (no '/') in the open directory,
     * not followed if a symlink: what fstatat(2) on the directory's
     * descriptor answers, so a listing's names are looked up where they
     * were listed, whatever became of the directory's path. NULL: the
     * caller stats the directory's path and name. */
    int (*stat_in)(struct ls_file *dir, const struct ls_cred *,
                   const char *name, struct danaus_stat *out);
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
     * blocks for long. NULL: never.
     * LS_HOLD_WRITES instead of 1: the hold also lets the client keep its
     * writes back (ipc.h, write-back pages): the file is held for this open
     * file alone, open for writing, and after announcing a change the
     * backend calls the sink's flush from a thread that holds none of its
     * locks, keeping every other access waiting until flush returns (the
     * core writes the pages kept back during it). Not Ceph's: its recall
     * comes as the MDS revokes the caps a write needs, so no write can be
     * made before the delegation goes back (docs/cache.md, "Not on
     * Ceph"). */
    int (*cache_hold)(struct ls_file *, uint64_t *key);
    /* A file held with LS_HOLD_WRITES: a kernel descriptor of it, open
     * for writing, through which another process's pwrite(2) writes what
     * this backend's pwrite would. The backend's own, valid until close:
     * the service hands a copy to its keeper, so that the next service
     * can write what a client kept back should this one be killed
     * (core/kept.h). -1, or NULL: none. */
    int (*write_fd)(struct ls_file *);
    /* A regular file opened read-only whose data cannot change while it
     * is open (a sealed instance's): a kernel descriptor of it that the
     * client may read through itself, open read-only on a read-only mount,
     * so that nothing done through it or its /proc link (a write, a
     * chmod, an open for writing) changes the file. The backend's own,
     * valid until close: the service sends a copy, which shares its
     * offset, so the backend reads it only at positions (pread). -1, or
     * NULL: none. */
    int (*reader_fd)(struct ls_file *);

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

    /* From now on the instance is only read (a union's read-only branch,
     * before its first use): its files may be handed to clients
     * (reader_fd). 0, or -errno when it cannot be (nothing changed).
     * NULL: never. */
    int (*seal)(struct ls_instance *);

    void (*destroy)(struct ls_instance *);
};

#define LS_HOLD_WRITES 2 /* ls_ops.cache_hold: writes may be kept back */
/* ls_ops.cache_hold, or'ed in: nothing under the backend caches the
 * file's data for the service (no kernel page cache), so the pool's page
 * cache may (core/poolcache.h); key then names the data uniquely among
 * the files of every backend of the service that answers so. */
#define LS_HOLD_POOL 4

/* Where backends announce changes of data they let be cached (cache_hold):
 * changed(arg, key) runs in a backend's thread, maybe with its locks held,
 * so it must be quick and must not call into any backend. flush(arg, key)
 * then writes what clients kept back of key (LS_HOLD_WRITES),
 * through this backend: called after changed, where no backend lock is
 * held, before the change the announcement was for may go on. */
struct ls_change_sink {
    void (*changed)(void *arg, uint64_t key);
    void (*flush)(void *arg, uint64_t key);
    void *arg;
};

/*
 * The registry, as SQLite's sqlite3_vfs_register and sqlite3_vfs_find:
 * every backend, and every shim over one, is a struct ls_backend found by
 * its name ("local", "ceph"); core and the doors make instances and
 * credentials only through it and never name a backend. The service's own
 * backends are registered on the first call (registry.c, one line each);
 * a test build may register more, or a shim under a backend's name, which
 * then hides the backend for every instance made after (configured
 * mounts, mounts added through the door, union branches). Registering is
 * done before the service starts its threads: the list is read without a
 * lock after that.
 */

/* What a backend starts with: the configuration's lines whose keys begin
 * with its name and '_' (values checked and normalized by config.c), and
 * a name for the service's session, the same for the next service of the
 * same socket on this host and no other. */
struct ls_setting {
    const char *key, *value;
};
struct ls_settings {
    const struct ls_setting *list;
    int n;
    const char *session;
};
/* The value of key in s, or NULL. */
static inline const char *ls_setting(const struct ls_settings *s,
                                     const char *key)
{
    for (int i = 0; s && i < s->n; i++)
        if (strcmp(s->list[i].key, key) == 0)
            return s->list[i].value;
    return NULL;
}

/* A configuration line a backend reads (ls_settings), and the kind of
 * value it takes, which the service checks before the backend sees it. */
enum ls_setting_kind {
    LS_SETTING_TEXT,     /* any text */
    LS_SETTING_ABSOLUTE, /* an absolute path */
    LS_SETTING_SIZE,     /* a size (K, M, G), kept in bytes */
    LS_SETTING_FLAG,     /* on or off */
    LS_SETTING_LOG,      /* quiet or keep */
};

struct ls_setting_key {
    const char *name;
    enum ls_setting_kind kind;
};

struct ls_backend {
    const char *name;
    /* The configuration lines it reads, ending with a NULL name; NULL for
     * none. */
    const struct ls_setting_key *settings;
    /* Readies the backend (a Ceph mount) from the service's settings: 0,
     * or -1 with a line for the operator in err. NULL: always ready. */
    int (*start)(struct ls_backend *, const struct ls_settings *, char *err,
                 size_t errlen);
    /* An instance rooted at source (a host directory, a CephFS path), or
     * NULL with a line in err. */
    struct ls_instance *(*instance_new)(struct ls_backend *,
                                        const char *source, char *err,
                                        size_t errlen);
    /* What the backend keeps of an identity in cred->state[cred_slot]:
     * 0 or -errno. NULL: nothing. */
    int (*cred_init)(struct ls_backend *, struct ls_cred *);
    void (*cred_release)(struct ls_backend *, struct ls_cred *);
    /* Lets its files be cached (ls_ops.cache_hold), announcing their
     * changes to sink; before serving. 0 or -errno. NULL: never cached. */
    int (*enable_cache)(struct ls_backend *, const struct ls_change_sink *);
    /* Whether written data waits in danausd's memory before it reaches
     * the storage, so that a killed service loses what was not fsync'd.
     * NULL: never. */
    bool (*caches_writes)(struct ls_backend *);
    /* Sets how many bytes of file data its own cache holds (the core's
     * cache_auto, sized from the mounts' hit-ratio curves): 0 or -errno.
     * NULL: it keeps none of its own (a local directory's is the
     * kernel's page cache). */
    int (*resize_cache)(struct ls_backend *, uint64_t bytes);
    /* Ends what start began; the instances are gone. */
    void (*stop)(struct ls_backend *);
    void *arg;       /* the backend's own, e.g. what a shim wraps */
    /* The registry's. */
    struct ls_backend *next;
    int cred_slot;   /* its slot in ls_cred.state, when it has cred_init */
    bool started;
};

/* Adds b, in front of any backend of the same name. 0, or -ENOSPC when
 * every credential slot is taken. */
int ls_backend_register(struct ls_backend *b);
/* The backend registered last under name, or NULL. */
struct ls_backend *ls_backend_find(const char *name);
/* The setting named key of any registered backend, or NULL. */
const struct ls_setting_key *ls_backend_setting(const char *key);
/* The registered names, " or " between them, into buf. */
void ls_backend_names(char *buf, size_t size);
/* Starts b once (later calls return 0). */
int ls_backend_start(struct ls_backend *b, const struct ls_settings *s,
                     char *err, size_t errlen);
/* Whether b may make instances: started, or needing no start. */
bool ls_backend_ready(const struct ls_backend *b);
/* An instance of backend name at source; NULL with a line in err when the
 * backend is unknown, not ready or refuses. */
struct ls_instance *ls_instance_new(const char *backend, const char *source,
                                    char *err, size_t errlen);
/* Gives cred every ready backend's state: 0 or -errno (nothing kept). */
int ls_cred_init(struct ls_cred *cred);
/* Releases what ls_cred_init made; safe on a credential it never saw. */
void ls_cred_release(struct ls_cred *cred);
/* enable_cache of every ready backend; on a refusal, tells report and
 * goes on. */
void ls_backends_enable_cache(const struct ls_change_sink *sink,
                              void (*report)(const char *backend, int err));
/* Whether any ready backend caches writes (ls_backend.caches_writes). */
bool ls_backends_cache_writes(void);
/* resize_cache of every ready backend that has one: how many took the
 * size, or -errno from the first that refused it. */
int ls_backends_resize_cache(uint64_t bytes);
/* Stops every started backend. */
void ls_backends_stop(void);

#endif
