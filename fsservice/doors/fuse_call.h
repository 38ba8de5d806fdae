/*
 * fuse_call.h - one FUSE request as the door's operations see it
 * (fuse_ops.c, fuse_replay.c): its export, instance and the requester's
 * credentials, the paths of its nodes, and its pacing as a backend call
 * of the pool (fsservice/core/pacing.h), as the preload's calls are paced.
 */
#ifndef DANAUS_FUSE_CALL_H
#define DANAUS_FUSE_CALL_H

#include "fuse_export.h"
#include "fsservice/core/pacing.h"

#include <stdbool.h>
#include <stddef.h>

struct fuse_call {
    fuse_req_t req;
    struct fuse_export *ex;
    struct ls_instance *inst;
    const struct ls_cred *cred;
    struct pace pace;
};

/* Fills c for req: 0, or replies the error itself (ENOMEM, or EACCES for
 * a user the door does not serve, fuse_cred.h) and returns -1. */
int fuse_call_begin(fuse_req_t req, struct fuse_call *c);

/* Before a backend call that loads the backend's servers: charges the
 * pool an op (a name-space or attribute change, a sync) or a write's
 * bytes, and waits its turn on this loop thread while the others serve
 * on (all of them, only when FUSE_LOOP_THREADS calls wait at once). */
void fuse_call_pace(struct fuse_call *c, bool op, size_t bytes);
/* After it: its time in the backend counts toward the pool's target, and
 * a change it made is announced to the preload's caches. */
void fuse_call_paced(struct fuse_call *c);

/* The path of node ino, or of name in node parent, into path
 * (DANAUS_LONG_PATH_MAX bytes: the kernel walks a deep directory's names
 * one lookup at a time, so a node's path may be longer than PATH_MAX):
 * 0 or -errno. */
int fuse_call_path(struct fuse_call *c, fuse_ino_t ino, char *path);
int fuse_call_child_path(struct fuse_call *c, fuse_ino_t parent,
                         const char *name, char *path);

#endif
