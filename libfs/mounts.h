/*
 * mounts.h - the mount table the service announced at hello, and path
 * resolution: any path an application passes (absolute, relative to the
 * cwd, or relative to a directory descriptor) becomes (mount index,
 * instance-relative path), which is what the wire protocol carries.
 *
 * Pure code: the table, and the directory a relative path starts from,
 * are passed in, so tests need no service (resolve.h finds that
 * directory for a dirfd).
 */
#ifndef LIBFS_MOUNTS_H
#define LIBFS_MOUNTS_H

#include <danaus/wire.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fixed storage: the table is filled while connecting, which may happen
 * inside an allocator's own initialisation, so it never allocates. Each
 * entry is a path and the mount index the service gave it, or
 * DANAUS_MOUNT_KERNEL for a path the kernel keeps (a container's /proc
 * under its Danaus root, say). */
struct mount_table {
    uint32_t count;
    const char *path[DANAUS_MAX_MOUNTS]; /* normalized absolute paths */
    size_t len[DANAUS_MAX_MOUNTS];
    uint32_t index[DANAUS_MAX_MOUNTS];
    size_t used;                         /* bytes of store in use */
    uint32_t version;                    /* bumped by mount_table_clear */
    char store[DANAUS_MOUNTS_BYTES];
};

/* A resolved path: the mount, its absolute normalized form, and the part
 * below the mount point ("" for the mount root), which points into abs.
 * A relative path joined to its directory may be longer than PATH_MAX,
 * as the kernel allows (wire.h). */
struct resolved_path {
    uint32_t mount;
    char abs[DANAUS_LONG_PATH_MAX];
    const char *rel;
};

/* Adds a mount point (normalized on the way in) with its mount index, or
 * a kernel path (index DANAUS_MOUNT_KERNEL). 0 or -1 with errno (EINVAL
 * for a relative path or a full table, ENOSPC when the paths exceed
 * DANAUS_MOUNTS_BYTES). */
int mount_table_add(struct mount_table *t, const char *path, uint32_t index);
void mount_table_clear(struct mount_table *t);

/* Lexical normalization of an absolute path: collapses repeated '/', drops
 * ".", and ".." removes the previous component (at "/" it stays at "/").
 * 0, or -1 with errno EINVAL (not absolute) or ENAMETOOLONG. */
int path_normalize(const char *abs, char *out, size_t size);

/* path after a rename of from to to (all absolute and normalized): 1 with
 * the new path in out when path is from or lies below it, 0 when the rename
 * does not concern it, -1 with errno ENAMETOOLONG. */
int path_moved(const char *path, const char *from, const char *to, char *out,
               size_t size);

/* Finds the longest entry that is a prefix of the normalized path on a
 * component boundary. When it is a mount point, returns its mount index
 * and sets *rel; when there is none, or it is a kernel path, -1 with
 * errno EXDEV. */
int mount_table_match(const struct mount_table *t, const char *norm,
                      const char **rel);

/* Resolves path, relative to the absolute directory base when it is
 * relative (base is not read for an absolute path): 0, or -1 with errno
 * (ENOENT for "", ENAMETOOLONG, EXDEV). */
int path_resolve_from(const struct mount_table *t, const char *base,
                      const char *path, struct resolved_path *out);

/* path_resolve_from for the calls that act on a name (mkdir, mknod, rmdir,
 * unlink, rename, link, symlink), keeping what normalization drops from
 * the end and Linux answers for: a last component "." or ".." (rmdir of
 * "d/." is EINVAL, of "d/.." ENOTEMPTY) and a trailing '/' (unlink of
 * "file/" is ENOTDIR). rel (and abs) then end in it; the routing is still
 * path_resolve_from's. */
int path_resolve_name_from(const struct mount_table *t, const char *base,
                           const char *path, struct resolved_path *out);

/* Whether path_resolve_name_from resolves path as path_resolve_from does:
 * its last component is neither "." nor ".." and no '/' follows it. */
bool path_names_itself(const char *path);

#endif
