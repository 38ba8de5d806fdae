/*
 * client.c - the CephFS client of a service: one libcephfs mount shared
 * by every instance (so every container of the pool shares one cache), and
 * the per-client credentials (UserPerm) that the low-level calls act with.
 */
#include "ceph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CEPH_MOUNT_TIMEOUT "30" /* seconds */
#define SPACE_STOP_S 2 /* how long the end waits for a statfs */

/* Ceph options must be set before ceph_mount to take effect. */
static int set_option(struct ceph_mount_info *cm, const char *name,
                      const char *value, char *err, size_t errlen)
{
    if (value == NULL)
        return 0;
    int r = ceph_conf_set(cm, name, value);
    if (r < 0)
        snprintf(err, errlen, "ceph: cannot set %s=%s: %s", name, value,
                 strerror(-r));
    return r;
}

/* A killed service leaves its session at the MDS with the caps of the files
 * it had open; until the session times out (session_timeout, 60 s by
 * default) nobody else, the restarted service included, can
 * read those files. Resetting the session of the same uuid evicts it now,
 * and taking the uuid lets the next process do the same to this one. Only
 * one process per uuid runs at a time (the caller's guarantee). */
static void reset_predecessor(struct ceph_mount_info *cm, const char *uuid)
{
    int r = ceph_start_reclaim(cm, uuid, CEPH_RECLAIM_RESET);
    /* ENOENT: no session of that uuid, the common case. Anything else only
     * costs the wait this avoids, so the mount goes on. */
    if (r < 0 && r != -ENOENT)
        fprintf(stderr, "danausd: ceph: cannot reset the previous session "
                "of %s (%s); files it held wait for its timeout\n", uuid,
                strerror(-r));
    ceph_finish_reclaim(cm);
    ceph_set_uuid(cm, uuid);
}

/* The client-side subsystems whose logging a call can reach. Ceph keeps a
 * recent-events log in memory at the levels after the '/' (5 for most by
 * default) and wakes its log thread to file it: at Ceph's defaults every
 * call pays for that log and a context switch or more; at 0/0 neither
 * (bench/run-core.sh shows the difference). */
static const char *const client_subsystems[] = {
    "client",  "objectcacher", "objecter", "ms",   "monc", "auth",
    "journaler", "finisher",   "context",  "rados", "crush", "asok",
    "perfcounter",
};

static int quiet_logging(struct ceph_mount_info *cm, char *err, size_t errlen)
{
    char name[32];
    for (size_t i = 0;
         i < sizeof client_subsystems / sizeof client_subsystems[0]; i++) {
        snprintf(name, sizeof name, "debug_%s", client_subsystems[i]);
        if (set_option(cm, name, "0/0", err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* Writes that return once the cluster has them, with reads still cached:
 * an object cache allowed no dirty bytes writes each write through and
 * waits for it (Ceph's ObjectCacher::_wait_for_write, "write-thru"). With
 * the cache off instead (client_oc false) every read would go to the OSD
 * too, an order of magnitude slower than a cached one. */
static int write_through(struct ceph_mount_info *cm, char *err, size_t errlen)
{
    if (set_option(cm, "client_oc_target_dirty", "0", err, errlen) < 0)
        return -1;
    return set_option(cm, "client_oc_max_dirty", "0", err, errlen);
}

int cephfs_client_resize_cache(struct cephfs_client *cl, uint64_t bytes)
{
    char value[24], err[200];
    snprintf(value, sizeof value, "%llu", (unsigned long long)bytes);
    int r = set_option(cl->cmount, "client_oc_size", value, err, sizeof err);
    if (r < 0)
        fprintf(stderr, "danausd: %s\n", err);
    return r;
}

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Asks the cluster for the room it has left, every SPACE_ASK_MS, on a
 * thread of its own: a write never waits for the monitors (which a
 * stalled cluster would make it do for as long as the stall). */
static void *space_main(void *arg)
{
    struct cephfs_client *cl = arg;
    pthread_mutex_lock(&cl->space_lock);
    while (!cl->space_stop) {
        pthread_mutex_unlock(&cl->space_lock);
        struct statvfs sv;
        space_set_left(&cl->space,
                       ceph_statfs(cl->cmount, "/", &sv) == 0
                           ? (uint64_t)sv.f_bavail * sv.f_frsize
                           : SPACE_UNKNOWN);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += SPACE_ASK_MS / 1000;
        pthread_mutex_lock(&cl->space_lock);
        if (!cl->space_stop)
            pthread_cond_timedwait(&cl->space_cond, &cl->space_lock, &until);
    }
    pthread_mutex_unlock(&cl->space_lock);
    return NULL;
}

static int space_start(struct cephfs_client *cl)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&cl->space_lock, NULL);
    pthread_cond_init(&cl->space_cond, &attr);
    pthread_condattr_destroy(&attr);
    int r = pthread_create(&cl->space_thread, NULL, space_main, cl);
    cl->space_started = r == 0;
    return -r;
}

/* Whether the thread ended within SPACE_STOP_S; it does not while the
 * monitors keep its statfs waiting. */
static bool space_stop(struct cephfs_client *cl)
{
    if (!cl->space_started)
        return true;
    pthread_mutex_lock(&cl->space_lock);
    cl->space_stop = true;
    pthread_cond_signal(&cl->space_cond);
    pthread_mutex_unlock(&cl->space_lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += SPACE_STOP_S;
    if (pthread_timedjoin_np(cl->space_thread, NULL, &until) != 0)
        return false;
    cl->space_started = false;
    return true;
}

struct cephfs_client *cephfs_client_new(const struct cephfs_client_options *o,
                                        char *err, size_t errlen)
{
    struct cephfs_client *cl = calloc(1, sizeof(*cl));
    if (cl == NULL) {
        snprintf(err, errlen, "ceph: out of memory");
        return NULL;
    }
    cl->write_through = o->write_through;
    space_init(&cl->space);
    int r = ceph_create(&cl->cmount, o->client_id);
    if (r < 0) {
        snprintf(err, errlen, "ceph: ceph_create: %s", strerror(-r));
        free(cl);
        return NULL;
    }
    r = ceph_conf_read_file(cl->cmount, o->conf_path);
    if (r < 0) {
        snprintf(err, errlen, "ceph: cannot read %s: %s",
                 o->conf_path ? o->conf_path : "default conf", strerror(-r));
        goto fail;
    }
    /* Ceph waits 300 s by default for an unreachable cluster; a service
     * that cannot mount should say so while its operator is watching. */
    /* A CephFS directory's size is by default the bytes below it, which
     * the MDS updates lazily: two stats of a directory one reads disagree
     * and tar reports "file changed as we read it". Off, the size is the
     * number of entries, stable while nothing is added or removed. */
    if (set_option(cl->cmount, "client_mount_timeout", CEPH_MOUNT_TIMEOUT,
                   err, errlen) < 0 ||
        set_option(cl->cmount, "client_dirsize_rbytes", "false", err,
                   errlen) < 0 ||
        set_option(cl->cmount, "client_cache_size", o->cache_size, err,
                   errlen) < 0 ||
        set_option(cl->cmount, "client_oc_size", o->oc_size, err, errlen) < 0 ||
        set_option(cl->cmount, "keyring", o->keyring, err, errlen) < 0 ||
        (o->write_through && write_through(cl->cmount, err, errlen) < 0) ||
        (!o->keep_debug_levels && quiet_logging(cl->cmount, err, errlen) < 0))
        goto fail;
    r = ceph_init(cl->cmount);
    if (r < 0) {
        snprintf(err, errlen, "ceph: ceph_init: %s", strerror(-r));
        goto fail;
    }
    if (o->fs_name != NULL) {
        r = ceph_select_filesystem(cl->cmount, o->fs_name);
        if (r < 0) {
            snprintf(err, errlen, "ceph: cannot select file system %s: %s",
                     o->fs_name, strerror(-r));
            goto fail;
        }
    }
    if (o->uuid != NULL)
        reset_predecessor(cl->cmount, o->uuid);
    const char *root = o->root ? o->root : "/";
    size_t len = strlen(root);
    while (len > 0 && root[len - 1] == '/')
        len--;
    if (len >= sizeof cl->root) {
        snprintf(err, errlen, "ceph: root %s is too long", root);
        goto fail;
    }
    memcpy(cl->root, root, len);
    r = ceph_mount(cl->cmount, root);
    if (r < 0) {
        snprintf(err, errlen, "ceph: mount of %s as client.%s failed: %s",
                 root, o->client_id ? o->client_id : "admin", strerror(-r));
        goto fail;
    }
    int64_t cid = ceph_get_fs_cid(cl->cmount);
    /* "CE" in the high bits keeps it apart from the small numbers of local
     * block devices; the fs id tells file systems of one cluster apart. */
    cl->dev = 0xCE000000u | (uint64_t)(cid < 0 ? 0 : cid & 0xffffff);
    r = space_start(cl);
    if (r < 0) {
        snprintf(err, errlen, "ceph: cannot start a thread: %s",
                 strerror(-r));
        ceph_unmount(cl->cmount);
        goto fail;
    }
    return cl;

fail:
    ceph_release(cl->cmount);
    free(cl);
    return NULL;
}

void cephfs_client_free(struct cephfs_client *cl)
{
    if (cl == NULL)
        return;
    ceph_deleg_stop(cl);
    /* The cluster does not answer: its unmount would wait too, and the
     * thread still uses the mount. The process is ending; leave both. */
    if (!space_stop(cl)) {
        fprintf(stderr, "danausd: ceph: the cluster does not answer; "
                "leaving without unmounting\n");
        return;
    }
    ceph_unmount(cl->cmount);
    ceph_release(cl->cmount);
    free(cl);
}

bool cephfs_client_full(struct cephfs_client *cl)
{
    return space_full(&cl->space);
}

uint64_t cephfs_client_room(struct cephfs_client *cl)
{
    return space_room(&cl->space, monotonic_ns());
}

void cephfs_client_wrote(struct cephfs_client *cl, uint64_t n)
{
    space_wrote(&cl->space, n, monotonic_ns());
}

/* ceph_userperm_new keeps a pointer to the group list rather than a copy
 * (Ceph's UserPerm constructor stores gidlist as given), so the UserPerm
 * refers to cred->groups: the cred must stay in place until it is released. */
int cephfs_cred_init(struct cephfs_client *cl, struct ls_cred *cred)
{
    (void)cl;
    if (cred->ngroups < 0 || cred->ngroups > DANAUS_MAX_GROUPS)
        return -EINVAL;
    struct UserPerm *perm = ceph_userperm_new(cred->uid, cred->gid,
                                              cred->ngroups, cred->groups);
    cred->state[cephfs_backend.cred_slot] = perm;
    return perm ? 0 : -ENOMEM;
}

void cephfs_cred_release(struct ls_cred *cred)
{
    if (ceph_perm(cred) != NULL)
        ceph_userperm_destroy(ceph_perm(cred));
    cred->state[cephfs_backend.cred_slot] = NULL;
}
