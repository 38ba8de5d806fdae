/*
 * service.h - one danausd: what its door, service threads and dispatch share.
 */
#ifndef DANAUS_SERVICE_H
#define DANAUS_SERVICE_H

#include "admission.h"
#include "announce.h"
#include "cachesize.h"
#include "pressure.h"
#include "client.h"
#include "config.h"
#include "fstable.h"
#include "hrc.h"
#include "poolcache.h"
#include "readcache.h"
#include "stats.h"

#include "ipc/ipc.h"

#include <stdbool.h>

struct cpu_groups;
struct fuse_door;

/* What a call of the preload door changed, for service.changed: a file's
 * data (and so its size and times) or attributes (mode, owner, times,
 * extended attributes), named by path (following a symbolic link, or
 * not: ATTRS_NOFOLLOW) or, for calls on an open file, by file; or names:
 * path made (or opened with O_CREAT), path removed, path renamed to path2
 * or swapped with it, path2 made a link to path. */
enum service_change {
    CHANGED_DATA,
    CHANGED_ATTRS,
    CHANGED_ATTRS_NOFOLLOW,
    CHANGED_MADE,
    CHANGED_REMOVED,
    CHANGED_RENAMED,
    CHANGED_EXCHANGED,
    CHANGED_LINKED,
};

struct service {
    struct config cfg;
    struct ipc_segment seg;     /* the doorbell queues */
    struct client_registry clients;
    struct fstable fs;
    struct lock_table locks;    /* record locks of all clients */
    struct stats_table stats;   /* what the preload door served, by mount */
    struct hrc_table hrc;       /* the hit-ratio curve of each mount's reads */
    struct poolcache poolcache; /* the pool's page cache (cache_auto) */
    struct cache_size cache_size; /* it and the backends' sized by them */
    struct readcache readcache; /* the clients' read caches */
    struct announce announce;   /* and their name and attribute caches */
    struct admission admission; /* the pool's load on its backend */
    struct pressure pressure;   /* and how the other pools' change it */
    struct union_branches *union_branches; /* NULL when no union */
    struct fuse_door *fuse;     /* NULL when no mount has a FUSE door */
    /* Where long calls run (cpugroups.h): the service threads' groups,
     * which the FUSE door's long calls join too. Set by workers_start. */
    struct cpu_groups *long_call_groups;
    /* Told after every change the preload door made (what, below), so
     * that a door whose kernel caches names, attributes or pages drops
     * what the change made stale; set by the FUSE door, which core never
     * calls by name. NULL when nobody listens. */
    void (*changed)(struct fuse_door *door, uint32_t mount,
                    enum service_change what, const char *path,
                    const char *path2, struct ls_file *file,
                    const struct ls_cred *cred);
    /* Whether a file (of mount `mount`: its inode number, or when 0 its
     * path) is a program running from the FUSE door: the kernel refuses
     * to write it (ETXTBSY) through its own paths, and the preload door
     * asks when it opens for writing or truncates. Set by the FUSE door;
     * NULL when there is none. */
    bool (*exec_busy)(struct fuse_door *door, uint32_t mount,
                      const char *path, uint64_t ino,
                      const struct ls_cred *cred);
    /* The device number the kernel gives mount `mount`'s FUSE mount (0:
     * none), which the preload's stat answers carry in place of the
     * backend's, so that a file shows the same st_dev through both
     * doors. Set by the FUSE door; NULL when there is none. */
    unsigned long (*reported_dev)(struct fuse_door *door, uint32_t mount);
    char **argv;                /* danausd's command line, to restart it */
    uid_t euid;                 /* the service's own identity */
    gid_t egid;
};

/* Runs one request of client c, posted in slot `slot` of its area as
 * request seq, and returns its result (>= 0 or -errno). d is the
 * service's private copy of the descriptor. */
int64_t dispatch(struct service *svc, struct client *c, uint32_t slot,
                 uint32_t seq, const struct danaus_desc *d);
/* Whether the last request this thread ran was an OPEN that passed the
 * client its file (wire.h danaus_pass), which the client now reads
 * without us; clears it. */
bool call_open_passed(void);

#endif
