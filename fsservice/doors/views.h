/*
 * views.h - per-container mount views (wire.h DANAUS_DOOR_VIEW).
 *
 * A container's root instance was added under a host mount point, but its
 * programs see it at "/". A view, keyed by a mount namespace, is what the
 * hello of a client in that namespace lists instead of the host's mount
 * table: the root instance at "/" and the paths other file systems cover
 * (they stay with the kernel). Used by the door thread only: no locking.
 */
#ifndef DANAUS_VIEWS_H
#define DANAUS_VIEWS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct view;

struct views {
    struct view *list;
};

/* An open descriptor of the mount namespace of the process pidfd refers
 * to, or -errno: -ESRCH once that process has exited (never the namespace
 * of another process that got its pid since), -EACCES when the service
 * may not look at it. A view is keyed by the namespace of the process
 * that connected, never of a pid read from it (views fail closed: a
 * namespace that cannot be identified gets no view and no hello). */
int views_pidfd_ns(int pidfd);

/* Gives the mount namespace open as ns_fd the view: instance `index` at
 * "/", and n more absolute paths, each with the instance seen there (a
 * data volume) or DANAUS_MOUNT_KERNEL (left to the kernel). The view keeps
 * ns_fd, which pins the namespace so that its inode number is not given to
 * another namespace while the view exists; on failure it stays the
 * caller's. 0 or -errno: -EINVAL for a relative path, -EBUSY for the
 * service's own namespace, -EEXIST when the namespace has a view
 * already. */
int views_set(struct views *v, int ns_fd, uint32_t index,
              const char *const *paths, const uint32_t *indices, uint32_t n);

/* Writes the hello entries (wire.h) of the view of the mount namespace
 * open as ns_fd into out; returns the byte count and the number of entries
 * in *n, -ENOENT when that namespace has no view (the host table then),
 * or another -errno when ns_fd cannot be looked at. */
long views_hello(struct views *v, int ns_fd, char *out, size_t cap,
                 uint32_t *n);

/* Ends the views whose root is instance `index` (its mount was removed). */
void views_drop_index(struct views *v, uint32_t index);

void views_destroy(struct views *v);

#endif
