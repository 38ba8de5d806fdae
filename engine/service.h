/*
 * service.h - a pool's danausd: its configuration, its start inside the
 * pool's cgroup and IPC namespace, its liveness, its stop.
 */
#ifndef ENGINE_SERVICE_H
#define ENGINE_SERVICE_H

#include "record.h"

#include <sys/types.h>

/* The danausd and libdanaus.so the engine uses, and the engine's own
 * command (for danaus-runtime, which does not link the pool code and its
 * Ceph library). */
const char *service_danausd(void);
const char *service_library(void);
const char *service_engine(void);

/* Where the pool's backend root is mounted in its danausd (the path
 * clients name; no host directory backs it). */
void service_store_mount(const char *pool, char *out, size_t size);
/* The directory that holds only the pool's door socket (containers get
 * it at /run/danaus). */
void service_door_dir(const char *pool, char *out, size_t size);
/* Where a pool on Ceph keeps its client's key (ceph_id.h). */
void service_ceph_keyring(const char *pool, char *out, size_t size);

/*
 * Writes the pool's danausd.conf from its record and starts danausd in the
 * pool's cgroup; first: in a new IPC namespace pinned at pools/NAME/ipc,
 * else in the pinned one. Waits up to timeout_s until it is ready (then
 * kills it) and sets pid and start in the record. 0, or -1 (fail.h) with
 * danausd's own complaint. A restart waits less than a pool's creation:
 * every engine command waits for it.
 */
#define SERVICE_START_TIMEOUT_S 60
#define SERVICE_RESTART_TIMEOUT_S 15
int service_start(const char *pool, struct record *rec, int first,
                  int timeout_s);
/* Whether the danausd the record names still runs. */
int service_alive(const struct record *rec);
/* The danausd the pool's keeper started after the one rec names died
 * (fsservice/doors/fuse_keeper.h; it writes run/NAME.pid once ready): 1
 * with rec's pid and start set to it (the caller saves rec), else 0. */
int service_successor(const char *pool, struct record *rec);
/* The pool's danausd keeper process, or 0. */
pid_t service_keeper(const char *pool);
/* SIGTERM, then SIGKILL after a grace period; a keeper left by a dead
 * service is killed. */
void service_stop(const char *pool, struct record *rec);
/* The start time of pid (clock ticks after boot), 0 if it is gone or a
 * zombie: a pid alone may be reused. */
unsigned long long process_start_time(pid_t pid);
/* The fields of /proc/PID/stat from the state (field 3) on, read into buf
 * (size bytes); NULL when the process is gone. */
const char *proc_stat_fields(pid_t pid, char *buf, size_t size);

#endif
