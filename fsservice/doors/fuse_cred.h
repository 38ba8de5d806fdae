/*
 * fuse_cred.h - the credentials a FUSE request runs with (fuse_door.c).
 *
 * The kernel tells the FUSE door only the requester's uid, gid and thread
 * id; supplementary groups come from /proc/TID/status. Each distinct
 * identity gets one struct ls_cred (with its backends' state) that lives
 * until the door stops, so a request only borrows it.
 *
 * Who may come in: the tenant's tree is the tenant's, not the host's. By
 * default only the owner (config `owner`, else the service's uid), the
 * service's own uid and root are served; anyone else gets EACCES before
 * any backend call, whatever the files' modes say. `fuse_allow_other on`
 * serves every user, with ordinary permission checks.
 */
#ifndef DANAUS_FUSE_CRED_H
#define DANAUS_FUSE_CRED_H

#include "fsservice/core/idmap.h"
#include "fsservice/libservice/libservice.h"

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

struct fuse_identity;

struct fuse_cred_cache {
    pthread_mutex_t lock;
    struct fuse_identity *list;   /* every identity seen, never shrinks */
    bool everyone;                /* fuse_allow_other */
    uid_t owner, self;            /* else only these and root */
    const struct idmap *idmap;    /* host ids to the pool's (idmap.h) */
};

void fuse_cred_cache_init(struct fuse_cred_cache *c);
/* Frees every identity; no request may be running. */
void fuse_cred_cache_free(struct fuse_cred_cache *c);

/* The credentials of a FUSE request from thread tid as uid and gid (what
 * the kernel says of the requester, host ids), in the pool's ids, or NULL
 * when out of memory. */
const struct ls_cred *fuse_cred_of(struct fuse_cred_cache *c, pid_t tid,
                                   uid_t uid, gid_t gid);

/* The pool's root, no supplementary groups: for what the service does on
 * its own account (fuse_killpriv.h), never for a request as such. */
const struct ls_cred *fuse_cred_root(struct fuse_cred_cache *c);

/* Whether the requester may use the door at all (see the head comment). */
bool fuse_cred_admitted(const struct fuse_cred_cache *c,
                        const struct ls_cred *cred);

#endif
