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
 *
 * A path of PATH_MAX bytes or more (instance-relative paths may be up to
 * DANAUS_LONG_PATH_MAX, wire.h), which openat2 refuses whole, is resolved
 * in pieces, each cut at a '/' below PATH_MAX: the first in the root as
 * above, each next one beneath the directory the one before led to
 * (RESOLVE_BENEATH), so that no piece leads above where it starts. A
 * later piece whose ".." or absolute symlink would need a directory above
 * its start is refused with ENAMETOOLONG, as the whole path was before
 * such paths were resolved: only a walk that keeps every directory of the
 * path could take it, and the kernel's cannot be told the root. Each
 * piece follows up to the kernel's 40 links (ELOOP) on its own.
 */
#ifndef DANAUS_LOCAL_PATH_H
#define DANAUS_LOCAL_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* openat2(root_fd, path, flags, mode) with RESOLVE_IN_ROOT; "" is the root.
 * link_prefix is the mount point or NULL. Returns the new fd or -errno. */
int local_open_in_root(int root_fd, const char *link_prefix, const char *path,
                       int flags, mode_t mode);

/* The same for an O_PATH directory; *via_links: whether the walk went
 * through a symbolic link. */
int local_open_dir_in_root(int root_fd, const char *link_prefix,
                           const char *path, bool *via_links);

#endif
