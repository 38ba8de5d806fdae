/*
 * userns.h - a pool's user namespace: its containers' root is an
 * unprivileged host uid (docs/confinement.md).
 *
 * Each pool gets USERNS_SIZE host uids and gids at a base of its own,
 * recorded in its record (userns_base), away from the host's users and
 * groups (/etc/passwd, /etc/group), /etc/subuid, /etc/subgid and every
 * other pool of the state directory. DANAUS_ETC names another directory
 * for those four files (tests). A container
 * is built as today, by real root in the host's user namespace, so its
 * mount, PID, network, UTS, IPC and cgroup namespaces belong to the
 * host's; only then does its first process enter a new user namespace,
 * whose maps "0 BASE USERNS_SIZE" the engine writes from outside, and
 * become its root (host uid BASE) before the confinement and exec. The
 * pool's danausd maps host ids at its doors (fsservice/core/idmap.h).
 */
#ifndef ENGINE_USERNS_H
#define ENGINE_USERNS_H

#include "record.h"

#include <stdint.h>
#include <sys/types.h>

#define USERNS_SIZE 65536u

/* Chooses a base for a new pool and records it in pool as userns_base:
 * the lowest multiple of USERNS_SIZE from USERNS_SIZE * 16 whose range
 * holds no host user's uid or gid, no group's gid, meets no /etc/subuid
 * or /etc/subgid entry and no other pool's. 0 or -1 (fail.h). */
int userns_allocate(const char *name, struct record *pool);
/* 0 when the range at base (0: none) still meets none of the host's
 * users, groups and subordinate ranges (one may have been added since
 * the pool was made), else -1 (fail.h) naming the first that does. */
int userns_check(const char *name, uint32_t base);
/* The pool's base, or 0: its containers share the host's ids. */
uint32_t userns_base(const struct record *pool);

/* The engine's half, for child pid, which asks on sync (a socket): waits
 * for the child's request, writes its uid and gid maps and answers. A
 * child that ended first is no error here (its report says why). 0 or -1
 * (fail.h). */
int userns_map_child(pid_t pid, int sync, uint32_t base);
/* The child's half: a new user namespace, mapped by the engine through
 * sync; then uid, gid 0 inside and no supplementary groups. 0 or -1
 * (fail.h). */
int userns_enter(int sync);
/* An fd of a new user namespace mapped "0 base USERNS_SIZE", as the
 * containers' are, for idmapped mounts; its one process is gone when
 * this returns. The fd, or -1 (fail.h). */
int userns_open_mapped(uint32_t base);
/* Joins the user namespace open at fd (exec) as its root. 0 or -1. */
int userns_join(int fd);

#endif
