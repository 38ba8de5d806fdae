/*
 * door_client.h - the engine's control calls into a pool's running
 * danausd, over its door socket (wire.h DANAUS_DOOR_MOUNT_ADD,
 * DANAUS_DOOR_MOUNT_REMOVE, DANAUS_DOOR_VIEW, DANAUS_DOOR_BRANCH_FORGET):
 * adding a container's root as a union instance, mounted through the FUSE
 * door, giving the container's mount namespace its view of it, removing
 * it, and letting go of a layer's copy no container uses.
 */
#ifndef ENGINE_DOOR_CLIENT_H
#define ENGINE_DOOR_CLIENT_H

#include <stdint.h>

/* How a mount takes changes. */
enum door_mount_mode {
    DOOR_MOUNT_RW,
    DOOR_MOUNT_RO,       /* served read-only (run --read-only) */
    DOOR_MOUNT_VOLATILE, /* a union whose writable branch goes with its
                            container (run --rm): syncs of it are answered
                            at once, as podman's overlay mounts for --rm */
};

/* backend "local" or "ceph"; lower: read-only branches, top first, joined
 * by ':' ("": none, a volume). 0, or -1 (fail.h). */
int door_mount_add(const char *pool, const char *mountpoint,
                   const char *backend, const char *writable,
                   const char *lower, enum door_mount_mode mode);
/* door_mount_add with read-only branches of another backend than the
 * writable one's: lower_backend (NULL: backend). */
int door_union_add(const char *pool, const char *mountpoint,
                   const char *backend, const char *writable,
                   const char *lower_backend, const char *lower,
                   enum door_mount_mode mode);
int door_mount_remove(const char *pool, const char *mountpoint);
/* The pool's danausd forgets its read-only branch instance of dir, a
 * directory of backend, so that the directory can be removed and made
 * again: 0 (forgotten, or it had none), EBUSY (a mounted union uses it),
 * or -1 (fail.h). */
int door_branch_forget(const char *pool, const char *backend,
                       const char *dir);
/* What the pool's danausd served of the mount at mountpoint ("": of every
 * mount) through the preload door. 0, or -1 (fail.h). */
struct danaus_stats_reply;
int door_stats(const char *pool, const char *mountpoint,
               struct danaus_stats_reply *out);
/* The hit-ratio curve of the i-th mount the pool's danausd tracks
 * (wire.h DANAUS_DOOR_HRC): 0; ENOENT past the last one, ESTALE for a
 * mount removed meanwhile; or -1 (fail.h). */
struct danaus_hrc_reply;
int door_hrc(const char *pool, uint32_t i, struct danaus_hrc_reply *out);
/* Called from inside the container's new mount namespace: the service
 * then tells programs there that root is their "/", and that the nkernel
 * paths (inside the container) are the kernel's. 0, or -1 (fail.h). */
int door_view(const char *pool, const char *root, const char *const *kernel,
              int nkernel);
/* The same for a container made by another runtime (runc): the caller
 * connects, then enters the container's mount namespace ns_fd (and stays
 * there: call it in a child process of its own). */
int door_view_in(const char *pool, int ns_fd, const char *root,
                 const char *const *kernel, int nkernel);

#endif
