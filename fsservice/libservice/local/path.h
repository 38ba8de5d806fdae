/*
 * path.h - resolve instance-relative paths inside the root directory of
 * a local-directory instance (local.c), with chroot semantics.
 *
 * Every lookup goes through openat2(2) with RESOLVE_IN_ROOT relative to the
 * instance's root fd: ".." at the root stays at the root and symlinks,
 * absolute or relative, resolve with the root as "/". So no path a client
 * sends can reach a file outside the root.
 *
 * An instance that clients see at a mount point other than "/" (a plain
 * mount, not a container's root) is given that mount point as link_prefix:
 * a symlink whose absolute target lies under it then leads to the rest of
 * the target from the instance root, as it does through the kernel for a
 * program on the mount (pjdfstest's links are such). The kernel's walk
 * cannot be told that, so a path with a symlink in it is walked here, one
 * component at a time; a path without one still costs one openat2.
 */
#ifndef DANAUS_LOCAL_PATH_H
#define DANAUS_LOCAL_PATH_H

#include <limits.h>
#include <sys/types.h>

/* openat2(root_fd, path, flags, mode) with RESOLVE_IN_ROOT; "" is the root.
 * link_prefix is the mount point or NULL. Returns the new fd or -errno. */
int local_open_in_root(int root_fd, const char *link_prefix, const char *path,
                       int flags, mode_t mode);

/* What the last component of a path is. */
enum local_last {
    LOCAL_LAST_NAME,   /* an ordinary name */
    LOCAL_LAST_DOT,    /* "." */
    LOCAL_LAST_DOTDOT, /* ".." */
    LOCAL_LAST_ROOT,   /* no component at all: the path is the root */
};

/* A path split for an operation on a name (mkdir, unlink, rename, ...):
 * the parent directory, resolved, and the last component. */
struct local_name {
    int dir_fd;         /* O_PATH fd of the parent; -1 for LOCAL_LAST_ROOT */
    enum local_last kind;
    const char *name;   /* last component in the caller's path, trailing
                           slashes kept so the kernel gives them their
                           meaning ("must be a directory") */
};

/* Resolve the parent of path. 0 or -errno; on success the caller releases
 * out with local_name_release. */
int local_name_resolve(int root_fd, const char *link_prefix, const char *path,
                       struct local_name *out);
void local_name_release(struct local_name *name);

#endif
