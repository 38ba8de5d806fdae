/*
 * ns.h - namespaces: a pool's private IPC namespace, kept alive by a bind
 * mount of its nsfs file in the state directory (so a restarted danausd and
 * every container of the pool join the same one, and the pool's SysV
 * shared-memory segment is invisible outside it), the mount namespace
 * setup that turns a container's root file system into its "/", and the
 * loopback and ports of a container's own network namespace.
 */
#ifndef ENGINE_NS_H
#define ENGINE_NS_H

/* In a child about to become the pool's first process: a new IPC
 * namespace, pinned at handle. 0 or -1 (fail.h). */
int ns_ipc_create(const char *handle);
/* Joins the IPC namespace pinned at handle. 0 or -1 (fail.h). */
int ns_ipc_enter(const char *handle);
/* Whether handle pins a namespace (not a leftover file from before a
 * reboot, say). */
int ns_ipc_pinned(const char *handle);
/* Unpins it (the namespace ends with its last process). */
void ns_ipc_release(const char *handle);

/* A bind mount the container gets: host path -> path inside its root. */
struct ns_bind {
    const char *host;
    const char *inside;
    int readonly;
    /* A volume of the pool (-v NAME:DIR): host is then the FUSE mount of
     * its instance, which the view also gives the preload (container.c). */
    const char *volume;
    /* A file the engine gives (dns.h): left out where the container has
     * no mount point for it and cannot make one (a read-only root). */
    int optional;
    /* -v HOSTDIR:DIR:idmap: bound idmapped to the pool's user namespace,
     * so host id n of its files is the container's n. */
    int idmap;
};

/*
 * In a child that has a new mount namespace: makes every mount private,
 * takes detached copies of the binds' host trees (resolved by hostpath.h's
 * rule; nosuid, nodev, read-only and idmapped where asked), pivots into
 * root and detaches the old root;
 * then, with every path the container's own, mounts /dev (dev.h), /proc
 * and /sys (their kernel-wide parts read-only or hidden) and places the
 * binds. The root ends nodev, and read-only with read_only (the binds keep
 * their own mode; ns_scratch_dirs get a tmpfs each). What it mounts is
 * root_id's, the host uid and gid of the container's root (userns.h);
 * idmapped binds take idmap_userns, a user namespace mapped as the
 * container's will be (userns_open_mapped). 0 or -1 (fail.h).
 */
int ns_enter_root(const char *root, const struct ns_bind *binds, int nbinds,
                  int read_only, unsigned root_id, int idmap_userns);
/* ns_enter_root for danaus cp of a container that does not run: the
 * root and the binds only. No /dev, /proc or /sys: the host's (the
 * copy has no PID namespace of the container's) would put the host's
 * processes within reach of the container's links; the root keeps the
 * mode its service gives it. 0 or -1 (fail.h). */
int ns_enter_root_for_copy(const char *root, const struct ns_bind *binds,
                           int nbinds, int idmap_userns);

/* The directories a read-only root keeps writable. */
#define NS_SCRATCH_DIRS 3
extern const char *const ns_scratch_dirs[NS_SCRATCH_DIRS];

/* In a new network namespace: brings up its loopback and lets every user
 * bind every port. 0 or -1 (fail.h). */
int ns_network_up(void);

#endif
