/*
 * dispatch.c - from a request descriptor to a libservice call.
 *
 * The descriptor is the service's private copy (its slot and seq fields are
 * not used: the doorbell that led to it named those, checked against the
 * client's area); what it references in the slot buffer is validated here
 * (range, strings), and the handle it names is looked up in the sending
 * client's own table. Calls that need a handle and
 * do not name a live one fail with EBADF before any handler runs.
 *
 * The handle names its instance: a request whose mount field disagrees
 * with the handle's fails with EBADF, so nothing downstream (a backend, the
 * FUSE door's changed hook) ever meets a file of one instance under
 * another's index. A mount named by index alone (path calls) must be in the
 * client's view (client_sees), else it does not exist for this client:
 * EINVAL, as for a removed mount.
 */
#include "request.h"
#include "writeback.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <urcu.h>

enum needs { NEEDS_NOTHING, NEEDS_HANDLE, PATH_OR_HANDLE };

/* Calls that an O_PATH open file answers, as Linux's O_PATH descriptors:
 * everything else on one fails with EBADF. */
#define ON_PATH_FILE true
/* Calls that change the instance: EROFS on a read-only one. */
#define WRITES .writes = true

static const struct {
    call_handler fn;
    enum needs needs;
    bool on_path_file;
    bool writes;
} calls[DANAUS_CALL_COUNT] = {
    [DANAUS_CALL_OPEN] = {call_open, NEEDS_NOTHING},
    [DANAUS_CALL_CLOSE] = {call_close, NEEDS_NOTHING},
    [DANAUS_CALL_READ] = {call_read, NEEDS_HANDLE},
    [DANAUS_CALL_WRITE] = {call_write, NEEDS_HANDLE, WRITES},
    [DANAUS_CALL_PREAD] = {call_pread, NEEDS_HANDLE},
    [DANAUS_CALL_PWRITE] = {call_pwrite, NEEDS_HANDLE, WRITES},
    [DANAUS_CALL_LSEEK] = {call_lseek, NEEDS_HANDLE},
    [DANAUS_CALL_FSYNC] = {call_fsync, NEEDS_HANDLE},
    [DANAUS_CALL_GETDENTS] = {call_getdents, NEEDS_HANDLE},
    [DANAUS_CALL_GETFL] = {call_getfl, NEEDS_HANDLE, ON_PATH_FILE},
    [DANAUS_CALL_SETFL] = {call_setfl, NEEDS_HANDLE},
    [DANAUS_CALL_STAT] = {call_stat, PATH_OR_HANDLE, ON_PATH_FILE},
    [DANAUS_CALL_ACCESS] = {call_access, NEEDS_NOTHING},
    [DANAUS_CALL_MKDIR] = {call_mkdir, NEEDS_NOTHING, WRITES},
    [DANAUS_CALL_RMDIR] = {call_rmdir, NEEDS_NOTHING, WRITES},
    [DANAUS_CALL_UNLINK] = {call_unlink, NEEDS_NOTHING, WRITES},
    [DANAUS_CALL_RENAME] = {call_rename, NEEDS_NOTHING, WRITES},
    [DANAUS_CALL_LINK] = {call_link, NEEDS_NOTHING, WRITES},
    [DANAUS_CALL_SYMLINK] = {call_symlink, NEEDS_NOTHING, WRITES},
    [DANAUS_CALL_READLINK] = {call_readlink, NEEDS_NOTHING},
    [DANAUS_CALL_CHMOD] = {call_chmod, PATH_OR_HANDLE, WRITES},
    [DANAUS_CALL_CHOWN] = {call_chown, PATH_OR_HANDLE, WRITES},
    [DANAUS_CALL_UTIMENS] = {call_utimens, PATH_OR_HANDLE, WRITES},
    [DANAUS_CALL_TRUNCATE] = {call_truncate, PATH_OR_HANDLE, WRITES},
    [DANAUS_CALL_STATFS] = {call_statfs, PATH_OR_HANDLE, ON_PATH_FILE},
    [DANAUS_CALL_GETXATTR] = {call_getxattr, PATH_OR_HANDLE},
    [DANAUS_CALL_SETXATTR] = {call_setxattr, PATH_OR_HANDLE, WRITES},
    [DANAUS_CALL_LISTXATTR] = {call_listxattr, PATH_OR_HANDLE},
    [DANAUS_CALL_REMOVEXATTR] = {call_removexattr, PATH_OR_HANDLE, WRITES},
    [DANAUS_CALL_LOCK] = {call_lock, NEEDS_HANDLE},
    [DANAUS_CALL_MKNOD] = {call_mknod, NEEDS_NOTHING, WRITES},
    [DANAUS_CALL_FALLOCATE] = {call_fallocate, NEEDS_HANDLE, WRITES},
    [DANAUS_CALL_FLUSH] = {call_flush, NEEDS_NOTHING},
};

int request_string(struct request *r, char *out, size_t cap)
{
    uint32_t left = r->in_len - r->in_used;
    size_t n = left < cap ? left : cap;
    memcpy(out, r->in + r->in_used, n);
    char *nul = memchr(out, '\0', n);
    if (!nul)
        return n == cap ? -ENAMETOOLONG : -EINVAL;
    r->in_used += (uint32_t)(nul - out) + 1;
    return 0;
}

struct ls_instance *request_instance(struct request *r)
{
    if (!client_sees(r->c, r->d->mount))
        return NULL;
    rcu_read_lock();
    struct ls_instance *inst = fstable_get(&r->svc->fs, r->d->mount);
    rcu_read_unlock();
    return inst;
}

bool request_read_only(struct request *r)
{
    rcu_read_lock();
    struct ls_instance *inst = fstable_get(&r->svc->fs, r->d->mount);
    bool ro = inst && inst->read_only;
    rcu_read_unlock();
    return ro;
}

void request_report_dev(const struct request *r, struct danaus_stat *st)
{
    uint32_t mount = r->of ? r->of->mount : r->d->mount;
    unsigned long dev = r->svc->reported_dev
                            ? r->svc->reported_dev(r->svc->fuse, mount)
                            : 0;
    if (dev)
        st->dev = dev;
}

bool request_exec_busy(struct request *r, uint64_t ino)
{
    return r->svc->exec_busy && r->svc->exec_busy(r->svc->fuse, r->d->mount,
                                                  r->path, ino, &r->c->cred);
}

/* Announces a change the call r made to the clients' caches
 * (announce.h), and tells the service's listener (service.h). */
static void changed(struct request *r, uint32_t mount,
                    enum service_change what, const char *path,
                    const char *path2, struct ls_file *file)
{
    struct service *svc = r->svc;
    bool of_file = what == CHANGED_DATA || what == CHANGED_ATTRS ||
                   what == CHANGED_ATTRS_NOFOLLOW;
    if (r->of && what == CHANGED_DATA)
        readcache_wrote(&svc->readcache, r->c, r->d->handle);
    if (file && of_file)
        announce_file(&svc->announce, file);
    else
        announce_names(&svc->announce);
    if (svc->changed)
        svc->changed(svc->fuse, mount, what, path, path2, file, &r->c->cred);
}

/* What the call r ran changed, for changed(). */
static void tell_changed(struct request *r)
{
    uint32_t mount = r->of ? r->of->mount : r->d->mount;
    struct ls_file *file = r->of ? r->of->file : NULL;
    const char *path = r->of ? NULL : r->path, *path2 = NULL;
    int flags = (int)r->d->arg[0];
    enum service_change what;
    switch (r->d->call) {
    case DANAUS_CALL_OPEN:
        if (flags & O_CREAT)
            changed(r, mount, CHANGED_MADE, path, NULL, NULL);
        /* A union copies a file up when it is opened for writing. */
        if (!(flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)
            announce_names(&r->svc->announce);
        if (!(flags & O_TRUNC))
            return;
        what = CHANGED_DATA;
        break;
    case DANAUS_CALL_WRITE:
    case DANAUS_CALL_PWRITE:
    case DANAUS_CALL_TRUNCATE:
    case DANAUS_CALL_FALLOCATE:
        what = CHANGED_DATA;
        break;
    case DANAUS_CALL_CHMOD:
    case DANAUS_CALL_CHOWN:
    case DANAUS_CALL_UTIMENS:
    case DANAUS_CALL_SETXATTR:
    case DANAUS_CALL_REMOVEXATTR:
        what = path && (r->at_flags & AT_SYMLINK_NOFOLLOW)
                   ? CHANGED_ATTRS_NOFOLLOW
                   : CHANGED_ATTRS;
        break;
    case DANAUS_CALL_MKDIR:
    case DANAUS_CALL_MKNOD:
        what = CHANGED_MADE;
        break;
    case DANAUS_CALL_SYMLINK: /* its second string is the link */
        what = CHANGED_MADE;
        path = r->path2;
        break;
    case DANAUS_CALL_UNLINK:
    case DANAUS_CALL_RMDIR:
        what = CHANGED_REMOVED;
        break;
    case DANAUS_CALL_RENAME:
        what = flags & RENAME_EXCHANGE ? CHANGED_EXCHANGED : CHANGED_RENAMED;
        path2 = r->path2;
        break;
    case DANAUS_CALL_LINK:
        what = CHANGED_LINKED;
        path2 = r->path2;
        break;
    default:
        return;
    }
    changed(r, mount, what, path, path2, file);
}

/* Calls on an open file that change its data, or must find it whole. */
static bool changes_data(uint32_t call)
{
    switch (call) {
    case DANAUS_CALL_WRITE:
    case DANAUS_CALL_PWRITE:
    case DANAUS_CALL_TRUNCATE:
    case DANAUS_CALL_FALLOCATE:
    case DANAUS_CALL_FSYNC:
        return true;
    default:
        return false;
    }
}

int64_t dispatch(struct service *svc, struct client *c, uint32_t slot,
                 uint32_t seq, const struct danaus_desc *d)
{
    if (d->call == DANAUS_CALL_NONE || d->call >= DANAUS_CALL_COUNT)
        return -ENOSYS;
    uint32_t cap = c->area.slot_buf;
    if (d->buf_off > cap || d->buf_len > cap - d->buf_off ||
        (d->flags & ~DANAUS_DESC_FLAGS))
        return -EINVAL;

    /* Field by field: an initializer would also zero the two path buffers,
     * 16 KiB per request, which request_string fills when a call has
     * strings. */
    struct request r;
    r.svc = svc;
    r.c = c;
    r.d = d;
    r.slot = ipc_slot(&c->area, slot);
    r.out = r.slot->buf;
    r.pos_out = &r.slot->pos;
    r.cache_gen_out = &r.slot->cache_gen;
    r.out_cap = cap;
    r.in = r.out + d->buf_off;
    r.in_len = d->buf_len;
    r.in_used = 0;
    r.of = NULL;
    r.at_flags = 0;

    /* The client's kept writes land before whatever the call reads or
     * changes, as if it had sent a FLUSH first. */
    if (d->flags & DANAUS_DESC_FLUSH) {
        writeback_flush(svc, c, 0);
        r.slot->flushed = seq;
    }

    enum needs needs = calls[d->call].needs;
    if (needs == NEEDS_HANDLE || (needs == PATH_OR_HANDLE && d->handle)) {
        r.of = handle_get(&c->handles, d->handle);
        if (!r.of)
            return -EBADF;
        if (r.of->mount != d->mount ||
            ((atomic_load(&r.of->flags) & O_PATH) &&
             !calls[d->call].on_path_file)) {
            open_file_put(r.of);
            return -EBADF;
        }
    }
    bool of_data = r.of && changes_data(d->call);
    /* Pages another client sharing the open file kept back land first. */
    if (of_data)
        readcache_wrote(&svc->readcache, c, d->handle);
    int64_t rc = calls[d->call].writes && request_read_only(&r)
                     ? -EROFS
                     : calls[d->call].fn(&r);
    if (rc >= 0)
        tell_changed(&r);
    if (rc >= 0 && d->call == DANAUS_CALL_PWRITE)
        pwrite_may_write_back(&r);
    if (r.of)
        open_file_put(r.of);
    return rc;
}
