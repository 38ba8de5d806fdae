/*
 * api_xattr.c - the danaus_* extended-attribute calls. Each carries the path
 * first, then the attribute name, then (setxattr) the value bytes.
 */
#include "call.h"
#include "export.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

/* Begins call id on path and packs name after it. */
static int begin_named(struct call *c, enum danaus_call id, const char *path,
                       const char *name)
{
    struct resolved_path where;
    if (!name) {
        errno = EFAULT;
        return -1;
    }
    if (call_begin_path(c, id, AT_FDCWD, path, &where) < 0)
        return -1;
    return pack_str(&c->pack, name);
}

/* Sends a call whose output is size bytes at most; copies them to out. */
static ssize_t send_sized(struct call *c, void *out, size_t size)
{
    size_t want = size < call_capacity(c) ? size : call_capacity(c);
    c->desc.arg[0] = (int64_t)want;
    int64_t n = call_send(c);
    if (n < 0)
        return -1;
    /* With size 0 the answer is the size the value would need. */
    if (want > 0) {
        if ((uint64_t)n > want) {
            errno = EIO;
            return -1;
        }
        memcpy(out, call_out(c), (size_t)n);
    }
    return (ssize_t)n;
}

DANAUS_EXPORT ssize_t danaus_getxattr(const char *path, const char *name,
                                      void *value, size_t size)
{
    struct call c;
    if (begin_named(&c, DANAUS_CALL_GETXATTR, path, name) < 0)
        return -1;
    return send_sized(&c, value, size);
}

DANAUS_EXPORT int danaus_setxattr(const char *path, const char *name,
                                  const void *value, size_t size, int flags)
{
    struct call c;
    if (begin_named(&c, DANAUS_CALL_SETXATTR, path, name) < 0 ||
        pack_data(&c.pack, value, size) < 0)
        return -1;
    c.desc.arg[0] = (int64_t)size;
    c.desc.arg[1] = flags;
    return call_send(&c) < 0 ? -1 : 0;
}

DANAUS_EXPORT ssize_t danaus_listxattr(const char *path, char *list,
                                       size_t size)
{
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_LISTXATTR, AT_FDCWD, path, &where) < 0)
        return -1;
    return send_sized(&c, list, size);
}

DANAUS_EXPORT int danaus_removexattr(const char *path, const char *name)
{
    struct call c;
    if (begin_named(&c, DANAUS_CALL_REMOVEXATTR, path, name) < 0)
        return -1;
    return call_send(&c) < 0 ? -1 : 0;
}
