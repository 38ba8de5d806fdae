/*
 * resolve.h - where a path an application passes leads: the directory a
 * relative path starts from (the Danaus cwd, a Danaus descriptor's path,
 * the kernel's cwd or a kernel descriptor's), joined and matched against
 * the mount table by mounts.h's pure resolution.
 *
 * Routing resolves a path to decide whether it is Danaus's; the call that
 * follows takes that same resolution instead of computing it again
 * (resolve_routed, resolve_for_call): one resolution per path, and the
 * call goes where routing decided even if another thread moves the cwd
 * in between, as a kernel call resolves its path once.
 */
#ifndef LIBFS_RESOLVE_H
#define LIBFS_RESOLVE_H

#include "mounts.h"

#include <stdbool.h>

/* Resolves path relative to dirfd as the *at calls do: absolute paths
 * ignore dirfd; AT_FDCWD means the cwd; a Danaus descriptor means the path
 * it was opened with; another descriptor is asked of /proc/self/fd.
 * 0, or -1 with errno (ENOENT for "", ENAMETOOLONG, EBADF, ENOTDIR, EXDEV). */
int path_resolve(const struct mount_table *t, int dirfd, const char *path,
                 struct resolved_path *out);

/* path_resolve_name_from (mounts.h) relative to dirfd. */
int path_resolve_name(const struct mount_table *t, int dirfd,
                      const char *path, struct resolved_path *out);

/* Routing's resolution: path_resolve, and on success the result is kept
 * for this thread's next resolve_for_call, replacing what was kept. Of a
 * call on two paths (rename, link), the one routed last is kept. */
int resolve_routed(const struct mount_table *t, int dirfd, const char *path,
                   struct resolved_path *out);

/* A call's resolution (path_resolve, or path_resolve_name when name):
 * routing's, when it kept one for this dirfd and path (the same string at
 * the same address) on this table, else computed now. Either way nothing
 * stays kept: a resolution serves the one call it was routed for. */
int resolve_for_call(const struct mount_table *t, int dirfd,
                     const char *path, bool name, struct resolved_path *out);

#endif
