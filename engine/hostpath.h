/*
 * hostpath.h - a host path the engine binds into a container, resolved
 * once into a descriptor. The engine runs as root: a symbolic link that a
 * host user owns, anywhere on the path, could send a bind to a directory
 * that user cannot read, so only links owned by root are followed; the
 * descriptor, not the path, is what gets bound, so the path cannot be
 * changed between the check and the mount.
 */
#ifndef ENGINE_HOSTPATH_H
#define ENGINE_HOSTPATH_H

#include <danaus/wire.h> /* DANAUS_MAX_SYMLINKS: where walks stop */

/* An O_PATH, close-on-exec descriptor of the absolute path; -1 (fail.h)
 * when a component is missing or is another user's symbolic link. */
int hostpath_open(const char *path);

#endif
