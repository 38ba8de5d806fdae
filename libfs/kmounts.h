/*
 * kmounts.h - whether the kernel has something mounted on a path, asked
 * without walking the path.
 *
 * Linux refuses to remove a directory that something is mounted on, and
 * so must a preloaded rmdir of a Danaus directory (the service cannot see
 * the caller's mounts). Asking the kernel by path (statx's MOUNT_ROOT)
 * walks it, and where a FUSE door serves the mount each directory the
 * kernel has not seen is a round trip to the door, whose answer then has
 * the kernel hold the directory, so that every later change the preload
 * makes in it is a notification to the kernel: rm -rf paid both for every
 * directory it removed. The mount table is read instead, once per change
 * of it (kmounts.c).
 */
#ifndef LIBFS_KMOUNTS_H
#define LIBFS_KMOUNTS_H

#include <stdbool.h>

/* Whether something is mounted on the absolute, normalized path abs in
 * this process's mount namespace. */
bool kmounts_mount_point(const char *abs);

#endif
