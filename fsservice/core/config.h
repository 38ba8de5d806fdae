/*
 * config.h - danausd's configuration: which mount points it serves, from
 * which backend, and the geometry of its shared-memory transport.
 *
 * The file is line-oriented; '#' starts a comment. See
 * deploy/danausd.conf.example for every key. A malformed file is refused
 * with "FILE:LINE: problem".
 */
#ifndef DANAUS_CONFIG_H
#define DANAUS_CONFIG_H

#include "fsservice/libservice/libservice.h"
#include "idmap.h"

#include <danaus/wire.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Lines for the backends: ceph_conf, ceph_root, ... */
#define CONFIG_MAX_BACKEND_SETTINGS 32

struct config_mount {
    char *mountpoint;           /* absolute, normalized, no trailing '/' */
    char *backend;              /* its name in the registry (libservice.h) */
    char *source;               /* host directory, or directory in CephFS;
                                   a union's writable branch */
    char *union_lower;          /* a union's read-only branches, top first,
                                   ':'-separated; NULL for a plain mount */
    char *lower_backend;        /* the read-only branches' backend when it
                                   is not backend's (a mount the engine
                                   adds); NULL: backend */
    bool volatile_writes;       /* a union's syncs of its writable branch
                                   are answered at once (union.h) */
};

struct config {
    char *service;              /* name: socket is <door_dir>/<service>.sock */
    char *rundir;               /* the pid file and the keeper's socket */
    char *door_dir;             /* the door's socket; default: rundir */
    uid_t owner_uid;            /* who may attach; -1: the service's uid */
    gid_t owner_gid;
    struct idmap idmap;         /* the pool's user namespace (idmap.h);
                                   count 0: ids are the host's */
    uint32_t queue_cells, slots, slot_buffer;
    uint32_t client_slots;      /* slots one client may hold at once */
    uint32_t uid_slots;         /* ... one uid, all its clients together;
                                   0: half of slots, at least client_slots
                                   (shares.h) */
    uint32_t uid_clients;       /* clients one uid may attach at once */
    uint32_t read_cache_blocks; /* 4 KiB blocks of each client's read cache
                                   (ipc.h), a power of two; 0: none */
    uint32_t write_back_pages;  /* 4 KiB pages of small writes each client
                                   may keep back (ipc.h); 0: none */
    uint32_t writeback_flushers; /* threads writing one client's flush */
    uint32_t client_locks;      /* record locks one client may hold */
    uint32_t uid_locks;         /* ... one uid, all its clients together;
                                   0: 4 x client_locks (shares.h) */
    uint32_t uid_handles;       /* open handles of one uid; 0: half the
                                   service's descriptor limit */
    int nice;                   /* the service threads' nice value */
    uint32_t threads_per_queue; /* upper bound; one thread starts per queue */
    /* more a queue may add while all its threads are blocked in calls */
    uint32_t stalled_threads_per_queue;
    /* the cpu weight of all long calls together (cpugroups.h); 0: none */
    uint32_t long_calls_cpu_shares;
    /* a request still in its backend after this is answered ETIMEDOUT;
     * 0: never. fsync only with request_deadline_fsync. */
    uint32_t request_deadline_ms;
    int request_deadline_fsync;
    /* the pool's load on its backend's servers (admission.h); 0: none */
    uint32_t backend_ops_per_second, backend_write_bytes_per_second;
    /* the pools of a host hold back while one misses its target on the
     * backend (pressure.h): where they meet, and this pool's target in ms
     * (0: none) */
    char *backend_pressure_dir;
    uint32_t backend_latency_target_ms;
    /* there, the pools share the backend by weight (fairshare.h): on or
     * off (default on), the weight (0: the service's cpus) and the ops per
     * second the pool keeps while it waits on the backend */
    int backend_fair_share;
    uint32_t backend_weight, backend_reservation_ops;
    /* the backends' caches of file data follow the mounts' hit-ratio
     * knees up to this many bytes (cachesize.h); 0: their own sizes */
    uint64_t cache_auto;
    int core_group_level;       /* 0 auto, 2 or 3 a cache level, -1 per cpu */
    cpu_set_t cpus;             /* 'cpus LIST': the service's cpus... */
    int cpus_line;              /* ...set on this line; 0: not set */
    /* The backends' lines (ceph_*), checked and normalized: sizes in
     * bytes, flags on or off; what the backends start with. */
    struct ls_setting backend_settings[CONFIG_MAX_BACKEND_SETTINGS];
    int nbackend_settings;
    int fuse;                   /* FUSE door: on (default) or off */
    int fuse_direct_io;         /* FUSE door bypasses the page cache */
    int fuse_revalidate;        /* FUSE reads re-check size and mtime */
    int fuse_io_uring;          /* FUSE requests over io_uring, a queue
                                   per cpu (fuse_uring.h); mounts not kept
                                   over a crash */
    /* how long the kernel may keep FUSE names and attributes (the door
     * invalidates what Danaus changes; this bounds what others change);
     * 0: nothing cached but data pages */
    uint32_t fuse_cache_timeout_ms;
    int fuse_allow_other;       /* FUSE mounts open to every user, not just
                                   the owner */
    int nosuid;                 /* no setuid, setgid or device files
                                   (nosuid.h) */
    uint32_t fuse_keep_s;       /* a dead service's FUSE mounts wait this
                                   long for the next one (fuse_keeper.h) */
    int restart;                /* the keeper restarts a dead service */
    struct config_mount mounts[DANAUS_MAX_MOUNTS];
    int nmounts;
};

/* Fills cfg from the text of a configuration (name is used in messages).
 * Returns 0, or -1 with "name:line: problem" in err. */
int config_parse(const char *name, const char *text, struct config *cfg,
                 char *err, size_t errlen);
int config_load(const char *path, struct config *cfg, char *err,
                size_t errlen);
void config_free(struct config *cfg);
/* The value of a backend's line (ceph_root ...), or NULL. */
const char *config_backend_setting(const struct config *cfg, const char *key);

#endif
