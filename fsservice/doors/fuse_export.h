/*
 * fuse_export.h - one instance exported through the FUSE door: what the
 * door's lifecycle (fuse_door.c) and its operations (fuse_ops.c) share.
 *
 * Its node and handle tables and its log of done requests (fuse_nodes.h,
 * fuse_handles.h, fuse_done.h) are all a successor needs, beside the FUSE
 * connection and the INIT request kept here, to answer for what the
 * kernel holds (fuse_keeper.h).
 */
#ifndef DANAUS_FUSE_EXPORT_H
#define DANAUS_FUSE_EXPORT_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 314
#endif
#include "fuse_cred.h"
#include "fuse_dirs.h"
#include "fuse_done.h"
#include "fuse_handles.h"
#include "fuse_loop.h"
#include "fuse_uring.h"
#include "fuse_nodes.h"
#include "fsservice/core/admission.h"
#include "fsservice/core/announce.h"
#include "fsservice/core/hrc.h"
#include "fsservice/core/pressure.h"
#include "fsservice/libservice/libservice.h"

#include <fuse3/fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's INIT request of a mount (header and arguments) fits. */
#define FUSE_EXPORT_INIT_MAX 512
/* Slots of the names the kernel may hold as missing (fuse_inval.c). */
#define FUSE_EXPORT_MISSING_SLOTS 1024

struct fuse_export {
    struct ls_instance *inst;
    const char *mountpoint;
    struct fuse_cred_cache *creds;
    int direct_io;           /* config fuse_direct_io */
    int revalidate;          /* config fuse_revalidate */
    bool nosuid;             /* config nosuid (core/nosuid.h) */
    /* The kernel checks permissions itself (default_permissions; a
     * service run by root, fuse_door.c). */
    bool default_permissions;
    /* Directories are opened without asking (fuse_dirs.h): set at INIT
     * when the kernel can, and the kernel checks the opener's rights. */
    bool no_opendir;
    /* How long the kernel may keep names, negative names and attributes
     * (config fuse_cache_timeout_ms), in seconds; 0: not at all. */
    double timeout;
    /* The pool's share of its backend, which the door's calls take from
     * as the preload's do (the service's). */
    struct admission *admission;
    struct pressure *pressure;
    struct announce *announce; /* the preload's caches hear our changes */
    struct stats_table *stats; /* and counts its requests (stats.h) */
    struct hrc_table *hrc;     /* and the pages it reads (hrc.h) */
    uint32_t index;            /* of its mount */
    struct fuse_session *se;
    struct fuse_nodes nodes;
    struct fuse_handles handles;
    struct fuse_done done;
    struct fuse_dirs dirs;
    struct fuse_loop threads;
    int looping;
    /* Requests over io_uring (fuse_uring.h): whether the INIT answer
     * offers it, the entries' payload size that answer implies, and the
     * queues' threads (NULL: none, all come through /dev/fuse). */
    bool uring_offered;
    bool answering_init; /* door_writev is given the INIT answer */
    size_t uring_payload;
    struct fuse_uring *uring;
    /* The kernel's device number of the mount (0: not known), which the
     * preload's stat answers carry too (fuse_door_reported_dev). */
    unsigned long dev;
    /* Taken over from a dead service with its FUSE connection
     * (fuse_keeper.h): libfuse did not mount it, so does not unmount it. */
    bool resumed;
    /* The kernel may hold a name of a file that has others: it was told
     * of one with more than one link, or a link was made, or the nodes
     * are a predecessor's (fuse_inval.c). Set once, never cleared. */
    _Atomic bool several_names;
    /* Until when (CLOCK_MONOTONIC, ns) the kernel may hold, as missing, a
     * name hashed to each slot (fuse_inval.c). */
    _Atomic uint64_t missing[FUSE_EXPORT_MISSING_SLOTS];
    /* The kernel's INIT request, which a successor replays to its own
     * libfuse session, so that both agree on what the kernel agreed to. */
    unsigned char init[FUSE_EXPORT_INIT_MAX];
    size_t init_len;
    /* The engine's request that added this mount (door.c), NUL-separated
     * strings, for a successor to add it again; empty for a configured
     * mount. */
    char *spec;
    size_t spec_len;
    /* The engine's VIEW request of this root and the container's mount
     * namespace it names (views.h), for a successor; view_len 0: none. */
    char *view;
    size_t view_len;
    int view_ns;
};

/* The operations, over the struct fuse_export given to fuse_session_new. */
extern const struct fuse_lowlevel_ops fuse_export_ops;

#endif
