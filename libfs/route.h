/*
 * route.h - does this call go to Danaus or to the kernel?
 *
 * Every interposer asks one question first and, for anything that is not
 * Danaus's, hands the call to libc unchanged:
 *
 *   int open(const char *path, int flags, ...)
 *   {
 *       ...
 *       if (!route_path(AT_FDCWD, path))
 *           return REAL(open)(path, flags, mode);
 *       return danaus_open(path, flags, mode);
 *   }
 *
 * A process whose environment names no service (DANAUS_SERVICE unset) gets
 * "no" from every question at the cost of one load. The answers never
 * allocate memory and never recurse into an interposer, so they are safe
 * in constructors and inside an allocator's own initialisation.
 *
 * Relative paths start at the Danaus cwd while one is set (cwd.h).
 */
#ifndef DANAUS_LIBFS_ROUTE_H
#define DANAUS_LIBFS_ROUTE_H

#include <danaus/wire.h>
#include <stdbool.h>
#include <stddef.h>

/* A service is named in the environment. */
bool route_enabled(void);

/* path, relative to dirfd as the *at calls take it, is on a Danaus mount.
 * Paths that cannot be read (NULL, unmapped) are not: the kernel reports
 * EFAULT (usermem.h). Connects on first use; when the
 * service cannot be reached nothing is Danaus's. */
bool route_path(int dirfd, const char *path);

/* fd is a Danaus descriptor. */
bool route_fd(int fd);

/* route_path for the *at calls that take AT_EMPTY_PATH: with it, an empty
 * path names dirfd itself (or the current directory for AT_FDCWD). */
bool route_at(int dirfd, const char *path, int flags);

/* The path to hand the kernel for a call Danaus does not serve; every
 * interposer passes its kernel-bound paths through it. A relative path
 * from a Danaus directory (the cwd, or a Danaus dirfd: the kernel knows
 * neither as the application's) that leads out of Danaus ("../x" at the
 * mount root, a container's "proc" from "/") is made absolute in buf
 * (normalized as route_path saw it). Any other path is returned as it
 * is. Keeps errno. */
const char *route_kernel_path(int dirfd, const char *path,
                              char buf[DANAUS_PATH_MAX]);

#endif
