/*
 * at.h - routing helpers shared by the path and metadata
 * interposers (stat.c, path.c, attr.c,
 * xattr.c, cwd.c).
 */
#ifndef DANAUS_LIBFS_INTERPOSE_AT_H
#define DANAUS_LIBFS_INTERPOSE_AT_H

#include <danaus/wire.h>
#include <stdbool.h>

/* route_path for the *at calls that take AT_EMPTY_PATH: with it, an empty
 * path names dirfd itself (or the current directory for AT_FDCWD). */
bool route_at(int dirfd, const char *path, int flags);

/* The path to hand the kernel for a call Danaus does not serve. While a
 * Danaus cwd is set, the kernel's own current directory is not the
 * application's, so a relative path from AT_FDCWD that leads out of the
 * mount ("../x" at the mount root) is made absolute in buf (normalized as
 * route_path saw it). Any other path is returned as it is. Keeps errno. */
const char *kernel_path(int dirfd, const char *path,
                        char buf[DANAUS_PATH_MAX]);

#endif
