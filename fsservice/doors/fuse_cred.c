/*
 * fuse_cred.c - credentials of FUSE requests: uid and gid from the kernel
 * (the request's context), supplementary groups from /proc/TID/status.
 *
 * Reading /proc costs a few microseconds, so each FUSE thread remembers the
 * last requester it served (thread id, uid, gid) for up to one second: a
 * process that changes its supplementary groups sees the change on the
 * FUSE door within that second. The identity itself (uid, gid, groups) is
 * looked up in a shared list, so what the backends make of it (Ceph's
 * UserPerm) is made once per identity.
 */
#include "fuse_cred.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CRED_REUSE_SECONDS 1

struct fuse_identity {
    struct fuse_identity *next;
    struct ls_cred cred;
};

/* The last requester this thread served. */
struct last_requester {
    const struct fuse_cred_cache *cache;
    pid_t tid;
    uid_t uid;
    gid_t gid;
    time_t when;
    const struct ls_cred *cred;
};

static __thread struct last_requester last;

void fuse_cred_cache_init(struct fuse_cred_cache *c)
{
    pthread_mutex_init(&c->lock, NULL);
    c->list = NULL;
}

void fuse_cred_cache_free(struct fuse_cred_cache *c)
{
    while (c->list) {
        struct fuse_identity *id = c->list;
        c->list = id->next;
        ls_cred_release(&id->cred);
        free(id);
    }
    pthread_mutex_destroy(&c->lock);
}

/* Supplementary groups of thread tid from its "Groups:" status line. Keeps
 * at most DANAUS_MAX_GROUPS: fewer groups only ever take rights away. A
 * thread that is gone or invisible has none. */
static void read_groups(pid_t tid, struct ls_cred *cred)
{
    cred->ngroups = 0;
    if (tid <= 0)
        return;
    char path[32];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char text[8192];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return;
    text[n] = '\0';
    char *line = strstr(text, "\nGroups:");
    if (!line)
        return;
    char *s = line + strlen("\nGroups:");
    while (cred->ngroups < DANAUS_MAX_GROUPS) {
        char *end;
        unsigned long g = strtoul(s, &end, 10);
        if (end == s)
            break;
        cred->groups[cred->ngroups++] = (gid_t)g;
        s = end;
    }
}

static int same_identity(const struct ls_cred *a, const struct ls_cred *b)
{
    return a->uid == b->uid && a->gid == b->gid && a->ngroups == b->ngroups &&
           memcmp(a->groups, b->groups,
                  (size_t)a->ngroups * sizeof(gid_t)) == 0;
}

/* The shared identity equal to want, made on first use. */
static const struct ls_cred *identity(struct fuse_cred_cache *c,
                                      const struct ls_cred *want)
{
    pthread_mutex_lock(&c->lock);
    struct fuse_identity *id = c->list;
    while (id && !same_identity(&id->cred, want))
        id = id->next;
    if (!id && (id = calloc(1, sizeof *id))) {
        id->cred = *want;
        if (ls_cred_init(&id->cred) < 0) {
            free(id);
            id = NULL;
        } else {
            id->next = c->list;
            c->list = id;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return id ? &id->cred : NULL;
}

const struct ls_cred *fuse_cred_of(struct fuse_cred_cache *c, pid_t tid,
                                   uid_t uid, gid_t gid)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    if (last.cache == c && last.tid == tid && last.uid == uid &&
        last.gid == gid && now.tv_sec - last.when < CRED_REUSE_SECONDS)
        return last.cred;

    struct ls_cred want;
    memset(&want, 0, sizeof want);
    want.uid = uid;
    want.gid = gid;
    read_groups(tid, &want);
    idmap_cred_in(c->idmap, &want);
    const struct ls_cred *cred = identity(c, &want);
    if (cred)
        last = (struct last_requester){c, tid, uid, gid, now.tv_sec, cred};
    return cred;
}

const struct ls_cred *fuse_cred_root(struct fuse_cred_cache *c)
{
    struct ls_cred want;
    memset(&want, 0, sizeof want);
    return identity(c, &want);
}

bool fuse_cred_admitted(const struct fuse_cred_cache *c,
                        const struct ls_cred *cred)
{
    return c->everyone || cred->uid == 0 || cred->uid == c->owner ||
           cred->uid == c->self;
}
