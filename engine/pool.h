/*
 * pool.h - tenant pools: a cgroup (cpus, memory), a private IPC namespace
 * and one danausd serving the pool's backend, started inside both.
 */
#ifndef ENGINE_POOL_H
#define ENGINE_POOL_H

#include <stdint.h>

struct pool_options {
    const char *cpus, *memory, *backend, *cache;
    /* The pool's load on its backend's servers, shared with every other
     * pool (backend_ops_per_second, backend_write_bytes_per_second in
     * danausd.conf): name-space changes and syncs per second, bytes
     * written per second. NULL: no limit. */
    const char *backend_ops, *backend_write_rate;
    /* How slow the pool's backend calls may get, in ms, before the other
     * pools hold back (backend_latency_target_ms). NULL: none. */
    const char *backend_latency_target;
    /* The pool's part of its backend next to the host's other pools
     * (fairshare.h): its weight (NULL: its cpus), the ops per second it
     * keeps while it waits (NULL: none), and "off" to take no part. */
    const char *backend_weight, *backend_reservation, *backend_fair_share;
    /* "on": its FUSE door takes requests over io_uring, whose mounts a
     * crash of its danausd ends (fuse_io_uring in danausd.conf). */
    const char *fuse_io_uring;
    /* Ceph backends: writes reach the OSDs before they are answered, so a
     * killed danausd loses none (ceph_write_through in danausd.conf). */
    int write_through;
    /* No setuid, setgid or device files in the pool's backend: not from
     * its images, not from its containers (nosuid in danausd.conf). */
    int nosuid;
    /* The pool's task limit (all its containers and its danausd), or
     * NULL: POOL_PIDS_DEFAULT. */
    const char *pids_limit;
    /* "host": the pool's containers share the host's uids and gids, their
     * root is the host's (docker's --userns=host). NULL or "private": a
     * user namespace of the pool's own (userns.h). */
    const char *userns;
};

/* What a pool's memory keeps beyond the service's cache, for danausd and
 * the containers: also the least memory a pool may have. */
#define POOL_SERVICE_MEMORY (16ull << 20)

/* The Ceph client's cache of file data of a pool with memory bytes made
 * without --cache: a quarter of what the service leaves, as the kernel's
 * page cache grows with the memory it has. libcephfs's own default (200M)
 * is too small for an image's files in a large pool, and too large for a
 * small one. */
uint64_t pool_cache_default(uint64_t memory);

/* The inodes the Ceph client keeps beside a data cache of cache bytes:
 * one per 16 KiB of it (about 1 KiB each, a sixteenth more memory), and
 * never fewer than libcephfs's own 16384. An inode it drops takes its
 * caps with it, and a file opened again then costs an MDS request, so a
 * data cache larger than its files' inodes keeps its data for nothing. */
uint64_t pool_inode_cache(uint64_t cache);

#define POOL_PIDS_DEFAULT 16384
#define POOL_PIDS_MAX 4194304

int pool_create(const char *name, const struct pool_options *o);
int pool_list(void);
int pool_remove(const char *name);
/* Restarts the danausd of every pool whose service died, with a back-off
 * after failed restarts; prints a note for each on stderr. Returns 0, or
 * -1 if one could not be restarted. */
int pool_check_all(void);

#endif
