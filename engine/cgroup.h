/*
 * cgroup.h - a pool's cgroup: its cpus (cpuset), its weight on them (cpu)
 * and its memory limit.
 *
 * cgroup v2 is used when the unified hierarchy at /sys/fs/cgroup offers
 * both the cpuset and memory controllers; otherwise the v1 hierarchies
 * /sys/fs/cgroup/cpuset and /sys/fs/cgroup/memory (as on these machines).
 * Pools live under a "danaus" group in each: danaus/POOL. Where the cpu
 * controller is, the pool has a cpu group too, at the default weight: its
 * danausd runs at nice -10 to be served before its own containers, and
 * inside the group that priority counts against them only, not against
 * what else runs on the pool's cpus (the host's daemons, a Ceph OSD
 * beside it), which the whole pool weighs as one process against. On v1 each
 * container also has groups of its own under its pool's in the pids and
 * devices hierarchies: its task limit, and the devices it may open. On v2
 * the pool's group holds danausd, and a group with processes can have no
 * children with controllers: the pool's task limit is the only one, and
 * devices are left to the capabilities and nodev mounts (confine.h).
 */
#ifndef ENGINE_CGROUP_H
#define ENGINE_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

/* Makes danaus/POOL with cpuset cpus, the memory limit (swap counted in
 * the limit where the kernel accounts it) and at most pids tasks. 0, or
 * -1 (fail.h) with nothing left behind. */
int cgroup_create(const char *pool, const char *cpus, uint64_t memory,
                  long pids);
/* Moves the calling process into the pool's cgroup; 0 or -1 (fail.h). */
int cgroup_enter(const char *pool);
/* Kills whatever still runs in the pool's cgroup and removes it; 0 or -1. */
int cgroup_remove(const char *pool);
/* Whether the pool's cgroup exists. */
int cgroup_exists(const char *pool);
/* The pids in the pool's cgroup (malloc'ed); count in *n, -1 on error. */
pid_t *cgroup_pids(const char *pool, int *n);
/* The memory the pool's cgroup is charged now, in bytes (0 if unknown). */
uint64_t cgroup_memory_used(const char *pool);
/* How many processes the pool's memory limit has killed, or -1 if the
 * kernel does not say. */
long long cgroup_oom_kills(const char *pool);
/* A container's groups: made by the engine before it starts, entered by
 * its first process (and by exec's, with the pool's), removed after it
 * ends. 0 or -1 (fail.h); remove fails quietly. */
int cgroup_container_create(const char *pool, const char *name, long pids);
int cgroup_container_enter(const char *pool, const char *name);
void cgroup_container_remove(const char *pool, const char *name);
/* The task limit a container runs under (0: none), -1 if unknown. */
long cgroup_container_pids_max(const char *pool, const char *name);
/* The directory that holds the memory controller's files of the pool
 * (for tests and `pool ls`). */
void cgroup_memory_dir(const char *pool, char *out, size_t size);
/* "danaus-" and a hash of the state directory: names what this engine
 * makes outside it (its cgroups, its pools' Ceph clients) apart from
 * another engine's. */
const char *cgroup_scope(void);

#endif
