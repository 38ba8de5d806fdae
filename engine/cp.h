/*
 * cp.h - danaus cp: files, directory trees and symbolic links between a
 * container (running or not) and the host, as docker cp copies them.
 */
#ifndef ENGINE_CP_H
#define ENGINE_CP_H

#define CP_ARCHIVE 1 /* -a: owners as the source's, else the receiver's */
#define CP_FOLLOW 2  /* -L: a link named as the source is followed (in
                        its own world: a container's in its root) */

/* cp CONTAINER:PATH HOSTPATH or cp HOSTPATH CONTAINER:PATH: into a
 * directory that exists by the source's name, else as the destination's
 * name; flags above. 0, or -1 (fail.h). */
int container_cp(const char *src, const char *dst, unsigned flags);

/* 0 when no cp holds the container (whose root a cp of a stopped
 * container mounts for itself), else -1 (fail.h): start and rm wait for
 * none. */
int cp_check_idle(const char *name);

#endif
