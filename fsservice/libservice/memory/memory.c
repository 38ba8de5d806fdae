/*
 * memory.c - a libservice in memory: files and directories that live as
 * long as the instance, for tests of the registry and of code above the
 * ops table, and the example of how little a backend needs (see
 * docs/architecture.md, "Adding a backend"). Registered by the tests that
 * use it, as "memory"; danausd does not have it.
 *
 * One lock per instance; every caller acts as root (no permission
 * checks); owners, times, renames, links, special files and xattrs
 * are not kept: their calls answer EOPNOTSUPP.
 */
#include "memory.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct mem_node {
    struct mem_node *next;
    char *path;      /* instance-relative; "" is the root */
    mode_t mode;
    uint64_t ino;
    char *data;
    size_t size;
    int opens;       /* open files; freed when unlinked and 0 */
    int unlinked;
};

struct mem_instance {
    struct ls_instance base;
    pthread_mutex_t lock;
    struct mem_node *nodes;
    uint64_t next_ino;
};

struct mem_file {
    struct ls_file base;
    struct mem_node *node;
    int flags;
};

static struct mem_instance *mi(struct ls_instance *inst)
{
    return (struct mem_instance *)inst;
}

static struct mem_node *find(struct mem_instance *m, const char *path)
{
    for (struct mem_node *n = m->nodes; n; n = n->next)
        if (strcmp(n->path, path) == 0)
            return n;
    return NULL;
}

/* Whether path's parent is a directory of m. */
static int parent_ok(struct mem_instance *m, const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[DANAUS_PATH_MAX] = "";
    if (slash) {
        if ((size_t)(slash - path) >= sizeof dir)
            return -ENAMETOOLONG;
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    }
    struct mem_node *p = find(m, dir);
    return !p ? -ENOENT : S_ISDIR(p->mode) ? 0 : -ENOTDIR;
}

static struct mem_node *node_new(struct mem_instance *m, const char *path,
                                 mode_t mode)
{
    struct mem_node *n = calloc(1, sizeof *n);
    if (!n || !(n->path = strdup(path))) {
        free(n);
        return NULL;
    }
    n->mode = mode;
    n->ino = ++m->next_ino;
    n->next = m->nodes;
    m->nodes = n;
    return n;
}

static void node_free(struct mem_node *n)
{
    free(n->path);
    free(n->data);
    free(n);
}

/* Takes n out of the name space; its memory goes with its last close. */
static void node_unlink(struct mem_instance *m, struct mem_node *n)
{
    struct mem_node **p = &m->nodes;
    while (*p != n)
        p = &(*p)->next;
    *p = n->next;
    n->unlinked = 1;
    if (!n->opens)
        node_free(n);
}

static void fill_stat(const struct mem_node *n, struct danaus_stat *out)
{
    memset(out, 0, sizeof *out);
    out->ino = n->ino;
    out->mode = n->mode;
    out->nlink = n->unlinked ? 0 : 1;
    out->size = (int64_t)n->size;
    out->blksize = 4096;
}

static int set_size(struct mem_node *n, size_t size)
{
    if (size > n->size) {
        char *data = realloc(n->data, size);
        if (!data)
            return -ENOSPC;
        memset(data + n->size, 0, size - n->size);
        n->data = data;
    }
    n->size = size;
    return 0;
}

static int mem_open(struct ls_instance *inst, const struct ls_cred *cred,
                    const char *path, int flags, mode_t mode,
                    struct ls_file **out)
{
    struct mem_instance *m = mi(inst);
    flags &= ~LS_OPEN_SEEN_REGULAR; /* nothing to look for first */
    struct mem_file *f = calloc(1, sizeof *f);
    if (!f)
        return -ENOMEM;
    pthread_mutex_lock(&m->lock);
    struct mem_node *n = find(m, path);
    int rc = 0;
    if (n && (flags & O_CREAT) && (flags & O_EXCL))
        rc = -EEXIST;
    else if (!n && !(flags & O_CREAT))
        rc = -ENOENT;
    else if (!n && (rc = parent_ok(m, path)) == 0 &&
             !(n = node_new(m, path, S_IFREG | (mode & 07777))))
        rc = -ENOMEM;
    if (rc == 0 && (flags & O_DIRECTORY) && !S_ISDIR(n->mode))
        rc = -ENOTDIR;
    if (rc == 0 && S_ISDIR(n->mode) && (flags & O_ACCMODE) != O_RDONLY)
        rc = -EISDIR;
    if (rc == 0 && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)
        n->size = 0;
    if (rc == 0) {
        n->opens++;
        f->node = n;
        f->flags = flags;
        f->base.inst = inst;
        f->base.is_dir = S_ISDIR(n->mode);
        f->base.ino = n->ino;
        *out = &f->base;
    }
    pthread_mutex_unlock(&m->lock);
    if (rc < 0)
        free(f);
    return rc;
}

static void mem_close(struct ls_file *file)
{
    struct mem_file *f = (struct mem_file *)file;
    struct mem_instance *m = mi(file->inst);
    pthread_mutex_lock(&m->lock);
    if (--f->node->opens == 0 && f->node->unlinked)
        node_free(f->node);
    pthread_mutex_unlock(&m->lock);
    free(f);
}

static ssize_t mem_pread(struct ls_file *file, const struct ls_cred *cred,
                         void *buf, size_t n, off_t off)
{
    struct mem_file *f = (struct mem_file *)file;
    struct mem_instance *m = mi(file->inst);
    if (file->is_dir)
        return -EISDIR;
    pthread_mutex_lock(&m->lock);
    size_t size = f->node->size, at = (size_t)off;
    size_t len = at < size ? (size - at < n ? size - at : n) : 0;
    if (len)
        memcpy(buf, f->node->data + at, len);
    pthread_mutex_unlock(&m->lock);
    return (ssize_t)len;
}

static ssize_t mem_pwrite(struct ls_file *file, const struct ls_cred *cred,
                          const void *buf, size_t n, off_t off, off_t *end)
{
    struct mem_file *f = (struct mem_file *)file;
    struct mem_instance *m = mi(file->inst);
    if ((f->flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    pthread_mutex_lock(&m->lock);
    size_t at = off < 0 ? f->node->size : (size_t)off;
    int rc = at + n > f->node->size ? set_size(f->node, at + n) : 0;
    if (rc == 0 && n)
        memcpy(f->node->data + at, buf, n);
    if (rc == 0)
        *end = (off_t)(at + n);
    pthread_mutex_unlock(&m->lock);
    return rc < 0 ? rc : (ssize_t)n;
}

static int mem_fsync(struct ls_file *file, const struct ls_cred *cred,
                     int datasync)
{
    return 0; /* nothing outlives the instance anyway */
}

static int mem_ftruncate(struct ls_file *file, const struct ls_cred *cred,
                         off_t len)
{
    struct mem_file *f = (struct mem_file *)file;
    struct mem_instance *m = mi(file->inst);
    if ((f->flags & O_ACCMODE) == O_RDONLY || file->is_dir)
        return -EINVAL;
    pthread_mutex_lock(&m->lock);
    int rc = set_size(f->node, (size_t)len);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

static int mem_fstat(struct ls_file *file, const struct ls_cred *cred,
                     struct danaus_stat *out)
{
    struct mem_instance *m = mi(file->inst);
    pthread_mutex_lock(&m->lock);
    fill_stat(((struct mem_file *)file)->node, out);
    pthread_mutex_unlock(&m->lock);
    return 0;
}

/* Whether n lies directly in directory dir. */
static int child_of(const struct mem_node *n, const char *dir)
{
    size_t len = strlen(dir);
    if (!n->path[0] || strncmp(n->path, dir, len) != 0)
        return 0;
    const char *rest = n->path + len;
    if (len) {
        if (*rest != '/')
            return 0;
        rest++;
    }
    return !strchr(rest, '/');
}

/* Entries in list order; the cookie is the count of entries before. */
static ssize_t mem_getdents(struct ls_file *file, const struct ls_cred *cred,
                            void *buf, size_t size, off_t *pos)
{
    struct mem_file *f = (struct mem_file *)file;
    struct mem_instance *m = mi(file->inst);
    if (!file->is_dir)
        return -ENOTDIR;
    pthread_mutex_lock(&m->lock);
    size_t used = 0;
    off_t i = 0;
    for (struct mem_node *n = m->nodes; n; n = n->next) {
        if (!child_of(n, f->node->path) || i++ < *pos)
            continue;
        const char *name = strrchr(n->path, '/');
        name = name ? name + 1 : n->path;
        size_t reclen = (sizeof(struct danaus_dirent) + strlen(name) + 1 +
                         7) & ~(size_t)7;
        if (used + reclen > size)
            break;
        struct danaus_dirent *d = (struct danaus_dirent *)((char *)buf + used);
        d->d_ino = n->ino;
        d->d_off = i;
        d->d_reclen = (uint16_t)reclen;
        d->d_type = S_ISDIR(n->mode) ? DT_DIR : DT_REG;
        strcpy(d->d_name, name);
        used += reclen;
        *pos = i;
    }
    pthread_mutex_unlock(&m->lock);
    return used || i <= *pos ? (ssize_t)used : -EINVAL;
}

static int mem_stat(struct ls_instance *inst, const struct ls_cred *cred,
                    const char *path, int at, struct danaus_stat *out)
{
    struct mem_instance *m = mi(inst);
    pthread_mutex_lock(&m->lock);
    struct mem_node *n = find(m, path);
    if (n)
        fill_stat(n, out);
    pthread_mutex_unlock(&m->lock);
    return n ? 0 : -ENOENT;
}

static int mem_access(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, int mode, int at)
{
    struct danaus_stat st;
    return mem_stat(inst, cred, path, at, &st);
}

static int mem_mkdir(struct ls_instance *inst, const struct ls_cred *cred,
                     const char *path, mode_t mode)
{
    struct mem_instance *m = mi(inst);
    pthread_mutex_lock(&m->lock);
    int rc = find(m, path) ? -EEXIST : parent_ok(m, path);
    if (rc == 0 && !node_new(m, path, S_IFDIR | (mode & 07777)))
        rc = -ENOMEM;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

static int remove_node(struct ls_instance *inst, const char *path, int dir)
{
    struct mem_instance *m = mi(inst);
    pthread_mutex_lock(&m->lock);
    struct mem_node *n = path[0] ? find(m, path) : NULL;
    int rc = !n ? (path[0] ? -ENOENT : -EBUSY)
             : dir && !S_ISDIR(n->mode) ? -ENOTDIR
             : !dir && S_ISDIR(n->mode) ? -EISDIR
                                        : 0;
    for (struct mem_node *c = m->nodes; rc == 0 && dir && c; c = c->next)
        if (child_of(c, path))
            rc = -ENOTEMPTY;
    if (rc == 0)
        node_unlink(m, n);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

static int mem_rmdir(struct ls_instance *inst, const struct ls_cred *cred,
                     const char *path)
{
    return remove_node(inst, path, 1);
}

static int mem_unlink(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path)
{
    return remove_node(inst, path, 0);
}

static int mem_truncate(struct ls_instance *inst, const struct ls_cred *cred,
                        const char *path, off_t len)
{
    struct mem_instance *m = mi(inst);
    pthread_mutex_lock(&m->lock);
    struct mem_node *n = find(m, path);
    int rc = !n ? -ENOENT : S_ISDIR(n->mode) ? -EISDIR
                                             : set_size(n, (size_t)len);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

static int mem_statfs(struct ls_instance *inst, const struct ls_cred *cred,
                      const char *path, struct danaus_statfs *out)
{
    memset(out, 0, sizeof *out);
    out->bsize = out->frsize = 4096;
    out->namelen = 255;
    return 0;
}

static int mem_fstatfs(struct ls_file *file, const struct ls_cred *cred,
                       struct danaus_statfs *out)
{
    return mem_statfs(file->inst, cred, "", out);
}

/* What the memory backend does not keep (the head comment). */
static int no_fallocate(struct ls_file *f, const struct ls_cred *c, int mode,
                        off_t off, off_t len)
{
    return -EOPNOTSUPP;
}

static int no_fchmod(struct ls_file *f, const struct ls_cred *c, mode_t mode)
{
    return -EOPNOTSUPP;
}

static int no_fchown(struct ls_file *f, const struct ls_cred *c, uid_t uid,
                     gid_t gid)
{
    return -EOPNOTSUPP;
}

static int no_futimens(struct ls_file *f, const struct ls_cred *c,
                       const struct timespec ts[2])
{
    return -EOPNOTSUPP;
}

static ssize_t no_fgetxattr(struct ls_file *f, const struct ls_cred *c,
                            const char *name, void *value, size_t size)
{
    return -EOPNOTSUPP;
}

static int no_fsetxattr(struct ls_file *f, const struct ls_cred *c,
                        const char *name, const void *value, size_t size,
                        int xflags)
{
    return -EOPNOTSUPP;
}

static ssize_t no_flistxattr(struct ls_file *f, const struct ls_cred *c,
                             char *list, size_t size)
{
    return -EOPNOTSUPP;
}

static int no_fremovexattr(struct ls_file *f, const struct ls_cred *c,
                           const char *name)
{
    return -EOPNOTSUPP;
}

static int no_mknod(struct ls_instance *i, const struct ls_cred *c,
                    const char *path, mode_t mode, dev_t dev)
{
    return -EOPNOTSUPP;
}

static int no_rename(struct ls_instance *i, const struct ls_cred *c,
                     const char *from, const char *to, unsigned flags)
{
    return -EOPNOTSUPP;
}

static int no_link(struct ls_instance *i, const struct ls_cred *c,
                   const char *from, const char *to)
{
    return -EOPNOTSUPP;
}

static ssize_t no_readlink(struct ls_instance *i, const struct ls_cred *c,
                           const char *path, char *buf, size_t size)
{
    return -EOPNOTSUPP;
}

static int no_chmod(struct ls_instance *i, const struct ls_cred *c,
                    const char *path, mode_t mode, int at)
{
    return -EOPNOTSUPP;
}

static int no_chown(struct ls_instance *i, const struct ls_cred *c,
                    const char *path, uid_t uid, gid_t gid, int at)
{
    return -EOPNOTSUPP;
}

static int no_utimens(struct ls_instance *i, const struct ls_cred *c,
                      const char *path, const struct timespec ts[2], int at)
{
    return -EOPNOTSUPP;
}

static ssize_t no_getxattr(struct ls_instance *i, const struct ls_cred *c,
                           const char *path, const char *name, void *value,
                           size_t size, int at)
{
    return -EOPNOTSUPP;
}

static int no_setxattr(struct ls_instance *i, const struct ls_cred *c,
                       const char *path, const char *name, const void *value,
                       size_t size, int xflags, int at)
{
    return -EOPNOTSUPP;
}

static ssize_t no_listxattr(struct ls_instance *i, const struct ls_cred *c,
                            const char *path, char *list, size_t size, int at)
{
    return -EOPNOTSUPP;
}

static int no_removexattr(struct ls_instance *i, const struct ls_cred *c,
                          const char *path, const char *name, int at)
{
    return -EOPNOTSUPP;
}

static void mem_destroy(struct ls_instance *inst)
{
    struct mem_instance *m = mi(inst);
    while (m->nodes) {
        struct mem_node *n = m->nodes;
        m->nodes = n->next;
        node_free(n);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static const struct ls_ops mem_ops = {
    .name = "memory",
    .open = mem_open,
    .close = mem_close,
    .pread = mem_pread,
    .pwrite = mem_pwrite,
    .fsync = mem_fsync,
    .ftruncate = mem_ftruncate,
    .fallocate = no_fallocate,
    .fstat = mem_fstat,
    .fchmod = no_fchmod,
    .fchown = no_fchown,
    .futimens = no_futimens,
    .fstatfs = mem_fstatfs,
    .getdents = mem_getdents,
    .fgetxattr = no_fgetxattr,
    .fsetxattr = no_fsetxattr,
    .flistxattr = no_flistxattr,
    .fremovexattr = no_fremovexattr,
    .stat = mem_stat,
    .access = mem_access,
    .mkdir = mem_mkdir,
    .mknod = no_mknod,
    .rmdir = mem_rmdir,
    .unlink = mem_unlink,
    .rename = no_rename,
    .link = no_link,
    .symlink = no_link,
    .readlink = no_readlink,
    .chmod = no_chmod,
    .chown = no_chown,
    .utimens = no_utimens,
    .truncate = mem_truncate,
    .statfs = mem_statfs,
    .getxattr = no_getxattr,
    .setxattr = no_setxattr,
    .listxattr = no_listxattr,
    .removexattr = no_removexattr,
    .destroy = mem_destroy,
};

/* source names nothing: every instance starts as an empty root. */
static struct ls_instance *instance_new(struct ls_backend *b,
                                        const char *source, char *err,
                                        size_t errlen)
{
    struct mem_instance *m = calloc(1, sizeof *m);
    if (!m || !node_new(m, "", S_IFDIR | 0755)) {
        free(m);
        snprintf(err, errlen, "memory backend: out of memory");
        return NULL;
    }
    pthread_mutex_init(&m->lock, NULL);
    m->base.ops = &mem_ops;
    return &m->base;
}

struct ls_backend memory_backend = {
    .name = "memory",
    .instance_new = instance_new,
};
