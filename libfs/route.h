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

#endif
