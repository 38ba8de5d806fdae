/*
 * dev.h - a container's /dev, as container runtimes give it: a small
 * nodev tmpfs holding the host's null, zero, full, random, urandom and tty
 * (bound), a private devpts at pts (ptmx linked to it), a tmpfs at shm,
 * and the fd, stdin, stdout, stderr links. Device nodes an image carries
 * under /dev are covered by it, never opened.
 */
#ifndef ENGINE_DEV_H
#define ENGINE_DEV_H

#define DEV_COUNT 6 /* the host's devices bound in */

/* Before the container leaves the host's root: detached copies of the
 * host's device nodes, to be placed by dev_mount. 0 or -1 (fail.h). */
int dev_take(int trees[DEV_COUNT]);
/* After it: mounts /dev in the caller's (the container's) mount
 * namespace, with trees from dev_take, owned by root, the host uid and
 * gid of the container's root (userns.h). 0 or -1 (fail.h). */
int dev_mount(const int trees[DEV_COUNT], unsigned root);

#endif
