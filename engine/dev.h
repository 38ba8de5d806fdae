/*
 * dev.h - a container's /dev, as container runtimes give it: a small tmpfs
 * holding the host's null, zero, full, random, urandom and tty (bound), a
 * private devpts at pts (ptmx linked to it), a tmpfs at shm, and the fd,
 * stdin, stdout, stderr links. Device nodes an image carries under /dev
 * are covered by it, never opened.
 */
#ifndef ENGINE_DEV_H
#define ENGINE_DEV_H

/* Mounts it at root/dev, in the caller's (the container's) mount
 * namespace. 0 or -1 (fail.h). */
int dev_mount(const char *root);

#endif
