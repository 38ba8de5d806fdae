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

/* An open descriptor of pid's mount namespace (/proc/PID/ns/mnt), or
 * -errno. */
int views_open_ns(pid_t pid);

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

/* Writes the hello entries (wire.h) of pid's view into out; returns the
 * byte count and the number of entries in *n, or -1 when pid's mount
 * namespace has no view (or cannot be read: the host table then). */
long views_hello(struct views *v, pid_t pid, char *out, size_t cap,
                 uint32_t *n);

/* Ends the views whose root is instance `index` (its mount was removed). */
void views_drop_index(struct views *v, uint32_t index);

void views_destroy(struct views *v);

#endif
