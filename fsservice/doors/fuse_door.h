/*
 * fuse_door.h - the FUSE door: danausd mounts each of its instances at its
 * mount point through libfuse3, so what the preload path cannot see
 * (execve, the loader mapping libraries, mmap, static binaries, programs
 * started without the preload) reaches the same instances.
 *
 * Consistency with the preload path (the choice, and the options):
 *  - the kernel keeps names, names found missing and attributes for
 *    fuse_cache_timeout_ms (default 1000), and data pages across opens;
 *    every change made through the preload door drops what it makes
 *    stale before the preload call returns (fuse_inval.h), so either
 *    door sees the other's changes at once. Changes made to the backend
 *    outside this service (the host writing into a local backend's
 *    directory, another Ceph client) are seen once the timeout has run
 *    out, as with ceph-fuse or NFS: the kernel then fetches attributes
 *    again and drops the pages of a file whose size or mtime changed
 *    (auto_inval_data). fuse_cache_timeout_ms 0 caches no names nor
 *    attributes and drops the pages at each open;
 *  - FUSE writes reach the instance before write() returns (no writeback
 *    cache), and mmap (MAP_SHARED and the loader's MAP_PRIVATE) maps the
 *    cached pages. With the timeout 0, cached reads are served from the
 *    page cache without asking the service; config "fuse_revalidate on"
 *    then makes every read re-check size and mtime first, for files that
 *    writers outside this service overwrite while they are open through
 *    FUSE.
 *  - config "fuse_direct_io on" bypasses the page cache instead: nothing
 *    to invalidate, every read reaches the service, but MAP_SHARED maps of
 *    FUSE files fail (ENODEV) with libfuse 3.14.
 * Config "fuse off" leaves the preload path alone.
 */
#ifndef DANAUS_FUSE_DOOR_H
#define DANAUS_FUSE_DOOR_H

#include "fsservice/core/service.h"

#include <stddef.h>
#include <stdint.h>

struct fuse_door;

/* Mounts every instance of svc through FUSE and starts their threads,
 * taking over the mounts a dead service of the same name left with its
 * keeper, and starts this service's keeper (fuse_keeper.h). When FUSE is
 * off or unusable, or one mount point cannot be mounted, says so on stderr
 * and leaves those mounts to the preload path. Sets *out to the door, or
 * NULL when it is off. Returns -1 only when out of memory. Call after the
 * instances exist, from a thread that blocks SIGTERM and SIGINT. */
int fuse_door_start(struct service *svc, struct fuse_door **out);

/* The mounts taken over that the engine had added at run time: the i-th
 * of fuse_door_kept_count's request (a door message, spec_len bytes) to
 * add it, or NULL when it is not one of those. */
int fuse_door_kept_count(const struct fuse_door *d);
const char *fuse_door_kept_spec(const struct fuse_door *d, int i,
                                size_t *spec_len);
/* The i-th kept mount's view (a VIEW door message) and its mount
 * namespace, which the caller now owns: the descriptor, or -1 when it had
 * none. */
int fuse_door_kept_view(struct fuse_door *d, int i, const char **view,
                        size_t *view_len);
/* The kept writes taken over (core/kept.h), which
 * fuse_door_release_kept closes; an empty list when d is NULL. */
const struct kept_list *fuse_door_kept_writes(const struct fuse_door *d);
/* Closes and detaches the mounts taken over that nobody serves. */
void fuse_door_release_kept(struct fuse_door *d);

/* Mounts mount `index` (added to svc's table at run time by the engine,
 * door.c, with request spec) at mountpoint, or takes it over. 0 or
 * -errno; -ENODEV when the door is off. */
int fuse_door_add(struct fuse_door *d, struct service *svc, uint32_t index,
                  const char *mountpoint, const char *spec, size_t spec_len);
/* Mount `index` is a container's root, whose view (VIEW message view, of
 * the mount namespace open as ns_fd) is kept for a successor too. */
void fuse_door_keep_view(struct fuse_door *d, uint32_t index,
                         const void *view, size_t view_len, int ns_fd);

/* Unmounts mount `index` (the engine removing it); 0 or -errno. */
int fuse_door_remove(struct fuse_door *d, uint32_t index);

/* Tells the keeper the service stops on purpose (it lets go of the
 * mounts, which end with this process, and restarts nothing): for exits
 * that skip fuse_door_stop. d may be NULL. */
void fuse_door_farewell(struct fuse_door *d);

/* Unmounts every FUSE mount and joins its threads. */
void fuse_door_stop(struct fuse_door *d);

/* The preload door changed mount `mount` (service.h's changed hook):
 * drops what the kernel caches that the change made stale. */
void fuse_door_changed(struct fuse_door *d, uint32_t mount,
                       enum service_change what, const char *path,
                       const char *path2, struct ls_file *file,
                       const struct ls_cred *cred);

/* The kernel's device number of mount `mount`'s FUSE mount, or 0: a file
 * then shows one st_dev through both doors (a union's branches have
 * their own, which the FUSE door never shows). */
unsigned long fuse_door_reported_dev(struct fuse_door *d, uint32_t mount);

/* Whether the file of inode ino, or when ino is 0 the one at path (of
 * mount `mount`), is open through FUSE for execve (a running program). */
bool fuse_door_exec_busy(struct fuse_door *d, uint32_t mount,
                         const char *path, uint64_t ino,
                         const struct ls_cred *cred);

#endif
