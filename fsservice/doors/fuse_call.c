/*
 * fuse_call.c - a FUSE request's context, pacing and paths (fuse_call.h).
 */
#include "fuse_call.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>

int fuse_call_begin(fuse_req_t req, struct fuse_call *c)
{
    const struct fuse_ctx *k = fuse_req_ctx(req);
    c->req = req;
    c->ex = fuse_req_userdata(req);
    c->inst = c->ex->inst;
    c->cred = fuse_cred_of(c->ex->creds, k->pid, k->uid, k->gid);
    int err = !c->cred ? ENOMEM
              : !fuse_cred_admitted(c->ex->creds, c->cred) ? EACCES
                                                            : 0;
    if (err) {
        fuse_reply_err(req, err);
        return -1;
    }
    fuse_loop_caller(c->cred->uid);
    return 0;
}

void fuse_call_pace(struct fuse_call *c, bool op, size_t bytes)
{
    struct admission_cost cost = {
        op, bytes < UINT32_MAX ? (uint32_t)bytes : UINT32_MAX};
    pace_begin(&c->pace, c->ex->admission, cost);
}

void fuse_call_paced(struct fuse_call *c)
{
    /* A change of names or attributes (every call paced as an op) is
     * announced to the preload's caches before the reply (announce.h;
     * op_write announces its own). */
    if (c->pace.cost.op)
        announce_names(c->ex->announce);
    pace_end(&c->pace, c->ex->pressure);
}

int fuse_call_path(struct fuse_call *c, fuse_ino_t ino, char *path)
{
    return fuse_node_path(&c->ex->nodes, ino, path, DANAUS_LONG_PATH_MAX);
}

int fuse_call_child_path(struct fuse_call *c, fuse_ino_t parent,
                         const char *name, char *path)
{
    return fuse_node_child_path(&c->ex->nodes, parent, name, path, DANAUS_LONG_PATH_MAX);
}
