/*
 * fuse_killpriv.c - a write takes a file's setuid and setgid bits
 * (fuse_killpriv.h).
 */
#include "fuse_killpriv.h"

#include "fuse_cred.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

/* Whether mode is old with setuid or setgid taken away, and nothing
 * else changed. */
static bool only_takes_privs(uint32_t old, mode_t mode)
{
    const mode_t privs = S_ISUID | S_ISGID;
    return (old & privs) != 0 && (mode & 07777) == (old & 07777 & ~privs);
}

int fuse_killpriv(struct fuse_call *c, const char *path, mode_t mode, int rc)
{
    const struct ls_ops *ops = c->inst->ops;
    const struct ls_cred *root = fuse_cred_root(c->ex->creds);
    struct ls_file *f = NULL;
    if (rc != -EPERM || !root)
        return rc;
    /* Opened for writing as the requester: that is the check, and the
     * inode checked is the one changed, whatever the name leads to by
     * then. */
    int opened = ops->open(c->inst, c->cred, path,
                           O_WRONLY | O_NOFOLLOW | O_NONBLOCK, 0, &f);
    if (opened != 0) /* refused, or not a regular file */
        return rc;
    struct danaus_stat st;
    if (ops->fstat(f, c->cred, &st) == 0 && only_takes_privs(st.mode, mode))
        rc = ops->fchmod(f, root, mode);
    ops->close(f);
    return rc;
}
