/*
 * xattr.c - the danaus_* extended-attribute calls. Each carries the path
 * first (empty when it names a descriptor), then the attribute name, then
 * (setxattr) the value bytes. The l* forms act on a symbolic link itself,
 * the f* forms on an open Danaus descriptor.
 */
#include "libfs/call.h"
#include "libfs/export.h"
#include "libfs/namecache.h"
#include "libfs/usermem.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>

/* Where an xattr call acts: a path (followed or not), or a descriptor. */
struct xattr_target {
    bool by_fd;
    const char *path;
    int fd;
    int at_flags; /* AT_SYMLINK_NOFOLLOW for the l* forms */
};

#define ON_PATH(p) ((struct xattr_target){false, (p), -1, 0})
#define ON_LINK(p) ((struct xattr_target){false, (p), -1, AT_SYMLINK_NOFOLLOW})
#define ON_FD(f) ((struct xattr_target){true, NULL, (f), 0})

/* Begins call id on t, then packs name unless it is listxattr's NULL. */
static int begin(struct call *c, enum danaus_call id, struct xattr_target t,
                 const char *name)
{
    struct resolved_path where;
    if (id != DANAUS_CALL_LISTXATTR && !usermem_string(name, DANAUS_PATH_MAX)) {
        errno = EFAULT;
        return -1;
    }
    int rc = t.by_fd ? call_begin_fd(c, id, t.fd, true)
                     : call_begin_path(c, id, AT_FDCWD, t.path, &where);
    if (rc < 0)
        return -1;
    return name ? pack_str(&c->pack, name) : 0;
}

/* Sends a call whose output is size bytes at most; copies them to out. */
static ssize_t send_sized(struct call *c, void *out, size_t size,
                          int at_flags)
{
    size_t want = size < call_capacity(c) ? size : call_capacity(c);
    c->desc.arg[0] = (int64_t)want;
    c->desc.arg[1] = at_flags;
    int64_t n = call_send(c);
    if (n < 0)
        return -1;
    /* With size 0 the answer is the size the value would need. */
    if (want > 0) {
        if ((uint64_t)n > want) {
            errno = EIO;
            return -1;
        }
        if (!usermem_range(out, (size_t)n)) {
            errno = EFAULT;
            return -1;
        }
        memcpy(out, call_out(c), (size_t)n);
    }
    return (ssize_t)n;
}

/* The names ls -l asks of every file, by class: a backend that answered
 * ENODATA for one of a class on a mount answers it for every name of that
 * class a file does not have (not EOPNOTSUPP: the mount has them). */
enum probe_class { PROBE_NONE, PROBE_SECURITY = 1, PROBE_ACL = 2 };

static enum probe_class probe_class(const char *name)
{
    if (strncmp(name, "security.", 9) == 0)
        return PROBE_SECURITY;
    if (strncmp(name, "system.posix_acl_", 17) == 0)
        return PROBE_ACL;
    return PROBE_NONE;
}

/* Per mount index, the classes whose absence the service has answered
 * ENODATA, on the service of epoch said_epoch. */
static _Atomic uint8_t enodata_said[DANAUS_MAX_INSTANCES];
static _Atomic uint32_t said_epoch;

static bool said(const struct service *svc, uint32_t mount,
                 enum probe_class class)
{
    return mount < DANAUS_MAX_INSTANCES &&
           atomic_load_explicit(&said_epoch, memory_order_relaxed) ==
               svc->epoch &&
           (atomic_load_explicit(&enodata_said[mount],
                                 memory_order_relaxed) & class);
}

static void note_said(const struct service *svc, uint32_t mount,
                      enum probe_class class)
{
    if (mount >= DANAUS_MAX_INSTANCES)
        return;
    if (atomic_exchange_explicit(&said_epoch, svc->epoch,
                                 memory_order_relaxed) != svc->epoch)
        for (uint32_t i = 0; i < DANAUS_MAX_INSTANCES; i++)
            atomic_store_explicit(&enodata_said[i], 0, memory_order_relaxed);
    atomic_fetch_or_explicit(&enodata_said[mount], class,
                             memory_order_relaxed);
}

static ssize_t get_attr(struct xattr_target t, const char *name, void *value,
                        size_t size)
{
    struct call c;
    if (begin(&c, DANAUS_CALL_GETXATTR, t, name) < 0)
        return -1;
    /* A name a listing said has no extended attributes (the path as
     * packed is the name cache's key). */
    enum probe_class class = t.by_fd ? PROBE_NONE : probe_class(name);
    if (class != PROBE_NONE) {
        namecache_xattr_probe();
        if (said(c.svc, c.desc.mount, class) &&
            namecache_no_xattrs(c.svc, c.desc.mount, call_out(&c),
                                t.at_flags)) {
            errno = ENODATA;
            return -1;
        }
    }
    ssize_t n = send_sized(&c, value, size, t.at_flags);
    if (n < 0 && errno == ENODATA && class != PROBE_NONE)
        note_said(c.svc, c.desc.mount, class);
    return n;
}

static int set_attr(struct xattr_target t, const char *name,
                    const void *value, size_t size, int flags)
{
    struct call c;
    if (!usermem_range(value, size)) {
        errno = EFAULT;
        return -1;
    }
    if (begin(&c, DANAUS_CALL_SETXATTR, t, name) < 0 ||
        pack_data(&c.pack, value, size) < 0)
        return -1;
    c.desc.arg[0] = (int64_t)size;
    c.desc.arg[1] = flags;
    c.desc.arg[2] = t.at_flags;
    return call_send(&c) < 0 ? -1 : 0;
}

static ssize_t list_attrs(struct xattr_target t, char *list, size_t size)
{
    struct call c;
    if (begin(&c, DANAUS_CALL_LISTXATTR, t, NULL) < 0)
        return -1;
    return send_sized(&c, list, size, t.at_flags);
}

static int remove_attr(struct xattr_target t, const char *name)
{
    struct call c;
    if (begin(&c, DANAUS_CALL_REMOVEXATTR, t, name) < 0)
        return -1;
    c.desc.arg[1] = t.at_flags;
    return call_send(&c) < 0 ? -1 : 0;
}

DANAUS_EXPORT ssize_t danaus_getxattr(const char *path, const char *name,
                                      void *value, size_t size)
{
    return get_attr(ON_PATH(path), name, value, size);
}

DANAUS_EXPORT ssize_t danaus_lgetxattr(const char *path, const char *name,
                                       void *value, size_t size)
{
    return get_attr(ON_LINK(path), name, value, size);
}

DANAUS_EXPORT ssize_t danaus_fgetxattr(int fd, const char *name, void *value,
                                       size_t size)
{
    return get_attr(ON_FD(fd), name, value, size);
}

DANAUS_EXPORT int danaus_setxattr(const char *path, const char *name,
                                  const void *value, size_t size, int flags)
{
    return set_attr(ON_PATH(path), name, value, size, flags);
}

DANAUS_EXPORT int danaus_lsetxattr(const char *path, const char *name,
                                   const void *value, size_t size, int flags)
{
    return set_attr(ON_LINK(path), name, value, size, flags);
}

DANAUS_EXPORT int danaus_fsetxattr(int fd, const char *name,
                                   const void *value, size_t size, int flags)
{
    return set_attr(ON_FD(fd), name, value, size, flags);
}

DANAUS_EXPORT ssize_t danaus_listxattr(const char *path, char *list,
                                       size_t size)
{
    return list_attrs(ON_PATH(path), list, size);
}

DANAUS_EXPORT ssize_t danaus_llistxattr(const char *path, char *list,
                                        size_t size)
{
    return list_attrs(ON_LINK(path), list, size);
}

DANAUS_EXPORT ssize_t danaus_flistxattr(int fd, char *list, size_t size)
{
    return list_attrs(ON_FD(fd), list, size);
}

DANAUS_EXPORT int danaus_removexattr(const char *path, const char *name)
{
    return remove_attr(ON_PATH(path), name);
}

DANAUS_EXPORT int danaus_lremovexattr(const char *path, const char *name)
{
    return remove_attr(ON_LINK(path), name);
}

DANAUS_EXPORT int danaus_fremovexattr(int fd, const char *name)
{
    return remove_attr(ON_FD(fd), name);
}
