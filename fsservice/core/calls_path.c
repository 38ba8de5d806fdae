/*
 * calls_path.c - handlers of the calls that name files by path, and of their
 * twins on an open file ("path | handle" in wire.h: fstat, fchmod, ...).
 *
 * Each handler reads its strings in the order wire.h gives, checks the
 * numeric arguments, and calls the instance's libservice. Results and
 * outputs are the backend's, unchanged.
 *
 * Read once (request.h): an answer that the service or a backend reads
 * again after writing it (stat and statfs, which the union and this file
 * amend; listxattr, which the union filters in place) is built in the
 * service's own memory and copied out once; an xattr's value is copied in
 * once before any backend looks at it. Answers nobody reads back (readlink,
 * getxattr) go straight into the slot.
 */
#include "nosuid.h"
#include "request.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#define AT_FLAGS_NOFOLLOW AT_SYMLINK_NOFOLLOW

/* Reads the call's strings: the path, then (nstrings == 2) a second one
 * into path2. */
static int strings(struct request *r, int nstrings)
{
    int rc = request_string(r, r->path, sizeof r->path);
    if (rc == 0 && nstrings == 2)
        rc = request_string(r, r->path2, sizeof r->path2);
    return rc;
}

/* The instance the path is on, for calls that did not name a handle. */
static int instance(struct request *r, struct ls_instance **inst)
{
    *inst = request_instance(r);
    return *inst ? 0 : -EINVAL;
}

/* Strings and instance of a plain path call. */
static int path_call(struct request *r, int nstrings,
                     struct ls_instance **inst)
{
    int rc = strings(r, nstrings);
    return rc < 0 ? rc : instance(r, inst);
}

/* The AT_ flags argument, of which only the given bits are allowed. */
static int at_flags(struct request *r, int64_t arg, int allowed, int *out)
{
    if (arg & ~(int64_t)allowed)
        return -EINVAL;
    *out = (int)arg;
    r->at_flags = *out;
    return 0;
}

#define FILE_OPS(r) ((r)->of->file->inst->ops)

int64_t call_stat(struct request *r)
{
    struct ls_instance *inst;
    struct danaus_stat st;
    int at, rc = strings(r, 1);
    if (rc < 0)
        return rc;
    if (r->of)
        rc = FILE_OPS(r)->fstat(r->of->file, &r->c->cred, &st);
    else if ((rc = instance(r, &inst)) < 0 ||
             (rc = at_flags(r, r->d->arg[0], AT_FLAGS_NOFOLLOW, &at)) < 0)
        return rc;
    else
        rc = inst->ops->stat(inst, &r->c->cred, r->path, at, &st);
    if (rc == 0) {
        request_report_dev(r, &st);
        memcpy(r->out, &st, sizeof st);
    }
    return rc;
}

int64_t call_access(struct request *r)
{
    struct ls_instance *inst;
    int at, rc = path_call(r, 1, &inst);
    if (rc < 0)
        return rc;
    if (r->d->arg[0] & ~(int64_t)(R_OK | W_OK | X_OK))
        return -EINVAL;
    if ((rc = at_flags(r, r->d->arg[1], AT_EACCESS | AT_FLAGS_NOFOLLOW,
                       &at)) < 0)
        return rc;
    return inst->ops->access(inst, &r->c->cred, r->path, (int)r->d->arg[0],
                             at);
}

int64_t call_mkdir(struct request *r)
{
    struct ls_instance *inst;
    int rc = path_call(r, 1, &inst);
    if (rc < 0)
        return rc;
    return inst->ops->mkdir(
        inst, &r->c->cred, r->path,
        nosuid_mode(r->svc->cfg.nosuid, (mode_t)(r->d->arg[0] & 07777)));
}

/* The types mknod makes, checked in Linux's order (may_mknod) before the
 * path is looked at: a directory is EPERM, an unknown type EINVAL, and
 * type 0 a regular file. */
int64_t call_mknod(struct request *r)
{
    struct ls_instance *inst;
    int64_t mode = r->d->arg[0], dev = r->d->arg[1];
    if (mode < 0 || mode > (int64_t)(S_IFMT | 07777) || dev < 0)
        return -EINVAL;
    switch (mode & S_IFMT) {
    case 0:
        mode |= S_IFREG;
        break;
    case S_IFREG:
    case S_IFCHR:
    case S_IFBLK:
    case S_IFIFO:
    case S_IFSOCK:
        break;
    case S_IFDIR:
        return -EPERM;
    default:
        return -EINVAL;
    }
    int rc = nosuid_mknod(r->svc->cfg.nosuid, (mode_t)mode);
    if (rc < 0 || (rc = path_call(r, 1, &inst)) < 0)
        return rc;
    return inst->ops->mknod(inst, &r->c->cred, r->path,
                            nosuid_mode(r->svc->cfg.nosuid, (mode_t)mode),
                            (dev_t)dev);
}

int64_t call_rmdir(struct request *r)
{
    struct ls_instance *inst;
    int rc = path_call(r, 1, &inst);
    return rc < 0 ? rc : inst->ops->rmdir(inst, &r->c->cred, r->path);
}

int64_t call_unlink(struct request *r)
{
    struct ls_instance *inst;
    int rc = path_call(r, 1, &inst);
    return rc < 0 ? rc : inst->ops->unlink(inst, &r->c->cred, r->path);
}

int64_t call_rename(struct request *r)
{
    struct ls_instance *inst;
    int rc = path_call(r, 2, &inst);
    if (rc < 0)
        return rc;
    if (r->d->arg[0] & ~(int64_t)(RENAME_NOREPLACE | RENAME_EXCHANGE))
        return -EINVAL;
    return inst->ops->rename(inst, &r->c->cred, r->path, r->path2,
                             (unsigned)r->d->arg[0]);
}

int64_t call_link(struct request *r)
{
    struct ls_instance *inst;
    int rc = path_call(r, 2, &inst);
    return rc < 0 ? rc
                  : inst->ops->link(inst, &r->c->cred, r->path, r->path2);
}

/* SYMLINK's first string is the target, stored as given; the second is the
 * link's path in the instance. */
int64_t call_symlink(struct request *r)
{
    struct ls_instance *inst;
    int rc = path_call(r, 2, &inst);
    if (rc < 0)
        return rc;
    if (r->path[0] == '\0')
        return -ENOENT;
    return inst->ops->symlink(inst, &r->c->cred, r->path, r->path2);
}

int64_t call_readlink(struct request *r)
{
    struct ls_instance *inst;
    int rc = path_call(r, 1, &inst);
    if (rc < 0)
        return rc;
    int64_t size = r->d->arg[0];
    if (size <= 0)
        return -EINVAL;
    if (size > r->out_cap)
        size = r->out_cap;
    return inst->ops->readlink(inst, &r->c->cred, r->path, (char *)r->out,
                               (size_t)size);
}

int64_t call_chmod(struct request *r)
{
    struct ls_instance *inst;
    mode_t mode =
        nosuid_mode(r->svc->cfg.nosuid, (mode_t)(r->d->arg[0] & 07777));
    int at, rc = strings(r, 1);
    if (rc < 0)
        return rc;
    if (r->of)
        return FILE_OPS(r)->fchmod(r->of->file, &r->c->cred, mode);
    if ((rc = instance(r, &inst)) < 0 ||
        (rc = at_flags(r, r->d->arg[1], AT_FLAGS_NOFOLLOW, &at)) < 0)
        return rc;
    return inst->ops->chmod(inst, &r->c->cred, r->path, mode, at);
}

/* uid and gid travel as 64-bit args; -1 (either width) means unchanged. */
static int id_arg(int64_t arg, uint32_t *out)
{
    if (arg == -1 || arg == (int64_t)UINT32_MAX) {
        *out = UINT32_MAX;
        return 0;
    }
    if (arg < 0 || arg > UINT32_MAX)
        return -EINVAL;
    *out = (uint32_t)arg;
    return 0;
}

int64_t call_chown(struct request *r)
{
    struct ls_instance *inst;
    uint32_t uid, gid;
    int at, rc = strings(r, 1);
    if (rc < 0)
        return rc;
    if (id_arg(r->d->arg[0], &uid) < 0 || id_arg(r->d->arg[1], &gid) < 0)
        return -EINVAL;
    if (r->of)
        return FILE_OPS(r)->fchown(r->of->file, &r->c->cred, uid, gid);
    if ((rc = instance(r, &inst)) < 0 ||
        (rc = at_flags(r, r->d->arg[2], AT_FLAGS_NOFOLLOW, &at)) < 0)
        return rc;
    return inst->ops->chown(inst, &r->c->cred, r->path, uid, gid, at);
}

static bool valid_nsec(int64_t ns)
{
    return (ns >= 0 && ns <= 999999999) || ns == UTIME_NOW || ns == UTIME_OMIT;
}

int64_t call_utimens(struct request *r)
{
    struct ls_instance *inst;
    const int64_t *a = r->d->arg;
    int at, rc = strings(r, 1);
    if (rc < 0)
        return rc;
    if (!valid_nsec(a[1]) || !valid_nsec(a[3]))
        return -EINVAL;
    struct timespec ts[2] = {{.tv_sec = a[0], .tv_nsec = a[1]},
                             {.tv_sec = a[2], .tv_nsec = a[3]}};
    if (r->of)
        return FILE_OPS(r)->futimens(r->of->file, &r->c->cred, ts);
    if ((rc = instance(r, &inst)) < 0 ||
        (rc = at_flags(r, a[4], AT_FLAGS_NOFOLLOW, &at)) < 0)
        return rc;
    return inst->ops->utimens(inst, &r->c->cred, r->path, ts, at);
}

int64_t call_truncate(struct request *r)
{
    struct ls_instance *inst;
    off_t len = r->d->arg[0];
    int rc = strings(r, 1);
    if (rc < 0)
        return rc;
    if (len < 0)
        return -EINVAL;
    if (r->of) {
        /* Linux: ftruncate of a descriptor not open for writing is EINVAL. */
        if ((atomic_load(&r->of->flags) & O_ACCMODE) == O_RDONLY ||
            r->of->file->is_dir)
            return -EINVAL;
        return FILE_OPS(r)->ftruncate(r->of->file, &r->c->cred, len);
    }
    if ((rc = instance(r, &inst)) < 0)
        return rc;
    if (request_exec_busy(r, 0))
        return -ETXTBSY;
    return inst->ops->truncate(inst, &r->c->cred, r->path, len);
}

int64_t call_statfs(struct request *r)
{
    struct ls_instance *inst;
    struct danaus_statfs out;
    int rc = strings(r, 1);
    if (rc < 0)
        return rc;
    if (r->of)
        rc = FILE_OPS(r)->fstatfs(r->of->file, &r->c->cred, &out);
    else if ((rc = instance(r, &inst)) == 0)
        rc = inst->ops->statfs(inst, &r->c->cred, r->path, &out);
    if (rc == 0 && request_read_only(r))
        out.flags |= ST_RDONLY;
    if (rc == 0)
        memcpy(r->out, &out, sizeof out);
    return rc;
}

/* The size argument of the xattr calls that return bytes: 0 asks for the
 * size only; more than the slot buffer is capped to it. */
static size_t xattr_size(struct request *r)
{
    int64_t size = r->d->arg[0];
    if (size <= 0)
        return 0;
    return size > r->out_cap ? r->out_cap : (size_t)size;
}

int64_t call_getxattr(struct request *r)
{
    struct ls_instance *inst;
    size_t size = xattr_size(r);
    int at, rc = strings(r, 2);
    if (rc < 0)
        return rc;
    if (r->of)
        return FILE_OPS(r)->fgetxattr(r->of->file, &r->c->cred, r->path2,
                                      r->out, size);
    if ((rc = instance(r, &inst)) < 0 ||
        (rc = at_flags(r, r->d->arg[1], AT_FLAGS_NOFOLLOW, &at)) < 0)
        return rc;
    return inst->ops->getxattr(inst, &r->c->cred, r->path, r->path2, r->out,
                               size, at);
}

int64_t call_setxattr(struct request *r)
{
    struct ls_instance *inst;
    int at, rc = strings(r, 2);
    if (rc < 0)
        return rc;
    int64_t size = r->d->arg[0];
    if (size < 0 || size > r->in_len - r->in_used ||
        (r->d->arg[1] & ~(int64_t)(XATTR_CREATE | XATTR_REPLACE)))
        return -EINVAL;
    int xflags = (int)r->d->arg[1];
    /* A backend may look at a value more than once (libcephfs parses an
     * ACL, then sends it): it gets the service's copy. */
    void *value = malloc(size ? (size_t)size : 1);
    if (!value)
        return -ENOMEM;
    memcpy(value, r->in + r->in_used, (size_t)size);
    if (r->of)
        rc = FILE_OPS(r)->fsetxattr(r->of->file, &r->c->cred, r->path2, value,
                                    (size_t)size, xflags);
    else if ((rc = instance(r, &inst)) == 0 &&
             (rc = at_flags(r, r->d->arg[2], AT_FLAGS_NOFOLLOW, &at)) == 0)
        rc = inst->ops->setxattr(inst, &r->c->cred, r->path, r->path2, value,
                                 (size_t)size, xflags, at);
    free(value);
    return rc;
}

/* The union filters the names in place: they are listed into the
 * service's memory (none at all when only the size is asked for). */
int64_t call_listxattr(struct request *r)
{
    struct ls_instance *inst;
    size_t size = xattr_size(r);
    int at;
    int64_t rc = strings(r, 1);
    if (rc < 0)
        return rc;
    char *own = NULL;
    if (size && !(own = malloc(size)))
        return -ENOMEM;
    if (r->of)
        rc = FILE_OPS(r)->flistxattr(r->of->file, &r->c->cred, own, size);
    else if ((rc = instance(r, &inst)) == 0 &&
             (rc = at_flags(r, r->d->arg[1], AT_FLAGS_NOFOLLOW, &at)) == 0)
        rc = inst->ops->listxattr(inst, &r->c->cred, r->path, own, size, at);
    if (rc > 0 && own)
        memcpy(r->out, own, (size_t)rc < size ? (size_t)rc : size);
    free(own);
    return rc;
}

int64_t call_removexattr(struct request *r)
{
    struct ls_instance *inst;
    int at, rc = strings(r, 2);
    if (rc < 0)
        return rc;
    if (r->of)
        return FILE_OPS(r)->fremovexattr(r->of->file, &r->c->cred, r->path2);
    if ((rc = instance(r, &inst)) < 0 ||
        (rc = at_flags(r, r->d->arg[1], AT_FLAGS_NOFOLLOW, &at)) < 0)
        return rc;
    return inst->ops->removexattr(inst, &r->c->cred, r->path, r->path2, at);
}
