/*
 * fuse_export.h - one instance exported through the FUSE door: what the
 * door's lifecycle (fuse_door.c) and its operations (fuse_ops.c) share.
 *
 * Files open through FUSE are listed with their inode numbers so that a
 * change made through the preload path can drop the kernel's cached pages
 * of exactly those files (fuse_door_data_changed), and with their node, so
 * that a file unlinked while open still answers for it (fuse_ops.c).
 */
#ifndef DANAUS_FUSE_EXPORT_H
#define DANAUS_FUSE_EXPORT_H

#define FUSE_USE_VERSION 314
#include "fuse_cred.h"
#include "fuse_nodes.h"
#include "fsservice/libservice/libservice.h"

#include <fuse3/fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>

/* A file open through this export. */
struct fuse_open_file {
    struct fuse_open_file *next;
    struct ls_file *file;
    uint64_t ino;
    struct fuse_node *node;
    bool exec;   /* opened by execve: a running program's text */
};

struct fuse_export {
    struct ls_instance *inst;
    const char *mountpoint;
    struct fuse_cred_cache *creds;
    int direct_io;           /* config fuse_direct_io */
    int revalidate;          /* config fuse_revalidate */
    struct fuse_session *se;
    struct fuse_nodes nodes;
    pthread_t loop;
    int looping;

    pthread_mutex_t open_lock;
    struct fuse_open_file *open;
    /* Files on the list; read without the lock so the preload path pays
     * nothing while no file is open through FUSE. A stale zero only means
     * a file opened concurrently with the change: its open dropped the
     * pages already (keep_cache is off). */
    atomic_int nopen;
    atomic_int nexec; /* of them, opened by execve; read without the lock */
};

/* The operations, over the struct fuse_export given to fuse_session_new. */
extern const struct fuse_lowlevel_ops fuse_export_ops;

#endif
