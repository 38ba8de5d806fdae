/*
 * deleg.c - what lets a client's read cache hold CephFS data: read
 * delegations, and write delegations for files open for reading and
 * writing (ceph_ll_delegation).
 *
 * A read delegation on an open Fh keeps the caps that let a Ceph client
 * cache the file's data (Fr, Fc, Fs) until it is recalled, and libcephfs
 * recalls it, calling us, before it lets a conflicting access go on:
 * another Ceph client opening the file for writing or truncating it waits
 * at the MDS for our caps, and an open for writing through this very
 * client waits in libcephfs for the delegation to come back (both measured
 * here, with a second mount and with ceph_ll_open(O_WRONLY) on the same
 * one). So an announcement made from the recall happens before the change.
 * It is refused (-EAGAIN) while the file is open for writing in this client
 * or the caps are elsewhere: then nothing is cached.
 *
 * A write delegation, on an Fh open for reading and writing, is granted
 * only while that Fh is the inode's one open in this client and the client
 * holds the caps to buffer writes; any other open, here or in another
 * client, recalls it (libcephfs's Inode::set_deleg and break_deleg). The
 * Fh's own writes break nothing: dispatch announces them before it
 * answers (readcache_wrote), as for the local backend's write leases.
 *
 * The recall comes with libcephfs's client lock held, where calling back
 * into libcephfs would deadlock: it announces the change, marks the file
 * and queues it; a returner thread gives the delegation back, which lets
 * the waiting access proceed. The client must return it within the
 * delegation timeout, or libcephfs unmounts it.
 *
 * Nothing under libcephfs caches its data for the service, so the hold
 * lets the pool's page cache keep it too (LS_HOLD_POOL); a Ceph client's
 * inode numbers name files uniquely in its file system.
 *
 * ino_cb, libcephfs's notice that cached data of an inode must be dropped
 * (how ceph-fuse keeps the kernel's page cache in step), is announced too.
 */
#include "ceph.h"

#include <errno.h>
#include <fcntl.h>

/* Seconds the returner has; libcephfs wants it below the cap return
 * timeout (300 s in this cluster's defaults). */
#define DELEG_TIMEOUT_S 30

static void announce(struct cephfs_client *cl, uint64_t key)
{
    cl->sink.changed(cl->sink.arg, key);
}

static void on_recall(Fh *fh, void *priv)
{
    (void)fh;
    struct ceph_file *cf = priv;
    struct cephfs_client *cl = ceph_inst(cf->base.inst)->client;
    atomic_store(&cf->deleg, DELEG_RECALLED);
    atomic_fetch_add(&cf->deleg_recalls, 1);
    announce(cl, cf->base.ino);
    pthread_mutex_lock(&cl->deleg_lock);
    if (!cf->deleg_queued) {
        cf->deleg_queued = true;
        cf->deleg_next = cl->deleg_queue;
        cl->deleg_queue = cf;
        pthread_cond_broadcast(&cl->deleg_cond);
    }
    pthread_mutex_unlock(&cl->deleg_lock);
}

static void on_ino_invalidate(void *handle, vinodeno_t ino, int64_t off,
                              int64_t len)
{
    (void)off;
    (void)len;
    announce(handle, ino.ino.val);
}

static void *returner_main(void *arg)
{
    struct cephfs_client *cl = arg;
    pthread_mutex_lock(&cl->deleg_lock);
    while (!cl->deleg_stop) {
        struct ceph_file *cf = cl->deleg_queue;
        if (!cf) {
            pthread_cond_wait(&cl->deleg_cond, &cl->deleg_lock);
            continue;
        }
        cl->deleg_queue = cf->deleg_next;
        cf->deleg_queued = false;
        cl->deleg_busy = cf;
        pthread_mutex_unlock(&cl->deleg_lock);

        pthread_mutex_lock(&cf->deleg_lock);
        ceph_ll_delegation(cl->cmount, cf->fh, CEPH_DELEGATION_NONE, NULL,
                           NULL);
        atomic_store(&cf->deleg, DELEG_NONE);
        pthread_mutex_unlock(&cf->deleg_lock);

        pthread_mutex_lock(&cl->deleg_lock);
        cl->deleg_busy = NULL;
        pthread_cond_broadcast(&cl->deleg_cond);
    }
    pthread_mutex_unlock(&cl->deleg_lock);
    return NULL;
}

int cephfs_client_enable_cache(struct cephfs_client *cl,
                               const struct ls_change_sink *sink)
{
    int r = ceph_set_deleg_timeout(cl->cmount, DELEG_TIMEOUT_S);
    if (r < 0)
        return r;
    cl->sink = *sink;
    pthread_mutex_init(&cl->deleg_lock, NULL);
    pthread_cond_init(&cl->deleg_cond, NULL);
    r = pthread_create(&cl->deleg_thread, NULL, returner_main, cl);
    if (r != 0) {
        pthread_cond_destroy(&cl->deleg_cond);
        pthread_mutex_destroy(&cl->deleg_lock);
        return -r;
    }
    struct ceph_client_callback_args args = {
        .handle = cl,
        .ino_cb = on_ino_invalidate,
    };
    ceph_ll_register_callbacks(cl->cmount, &args);
    cl->cache = true;
    return 0;
}

int ceph_file_cache_hold(struct ls_file *f, uint64_t *key)
{
    struct ceph_file *cf = (struct ceph_file *)f;
    struct cephfs_client *cl = ceph_inst(f->inst)->client;
    int mode = cf->flags & O_ACCMODE;
    if (!cl->cache || !cf->fh || mode == O_WRONLY || f->ino == 0)
        return 0;
    *key = f->ino;
    if (atomic_load(&cf->deleg) == DELEG_HELD)
        return 1 | LS_HOLD_POOL;
    pthread_mutex_lock(&cf->deleg_lock);
    int held = atomic_load(&cf->deleg);
    if (held == DELEG_NONE) {
        cf->deleg_asked = true;
        uint32_t recalls = atomic_load(&cf->deleg_recalls);
        int expect = DELEG_NONE;
        /* A recall between the grant and the mark leaves it recalled. */
        unsigned type = mode == O_RDONLY ? CEPH_DELEGATION_RD
                                         : CEPH_DELEGATION_WR;
        if (ceph_ll_delegation(cl->cmount, cf->fh, type, on_recall, cf) ==
                0 &&
            atomic_load(&cf->deleg_recalls) == recalls &&
            atomic_compare_exchange_strong(&cf->deleg, &expect, DELEG_HELD))
            held = DELEG_HELD;
    }
    pthread_mutex_unlock(&cf->deleg_lock);
    return held == DELEG_HELD ? 1 | LS_HOLD_POOL : 0;
}

void ceph_deleg_drop(struct ceph_file *cf)
{
    struct cephfs_client *cl = ceph_inst(cf->base.inst)->client;
    if (!cf->deleg_asked)
        return;
    /* Once returned, no recall names cf; one queued before is taken out,
     * and one being returned is waited for. */
    ceph_ll_delegation(cl->cmount, cf->fh, CEPH_DELEGATION_NONE, NULL, NULL);
    pthread_mutex_lock(&cl->deleg_lock);
    for (struct ceph_file **p = &cl->deleg_queue; *p; p = &(*p)->deleg_next)
        if (*p == cf) {
            *p = cf->deleg_next;
            cf->deleg_queued = false;
            break;
        }
    while (cl->deleg_busy == cf)
        pthread_cond_wait(&cl->deleg_cond, &cl->deleg_lock);
    pthread_mutex_unlock(&cl->deleg_lock);
}

void ceph_deleg_stop(struct cephfs_client *cl)
{
    if (!cl->cache)
        return;
    pthread_mutex_lock(&cl->deleg_lock);
    cl->deleg_stop = true;
    pthread_cond_broadcast(&cl->deleg_cond);
    pthread_mutex_unlock(&cl->deleg_lock);
    pthread_join(cl->deleg_thread, NULL);
    pthread_cond_destroy(&cl->deleg_cond);
    pthread_mutex_destroy(&cl->deleg_lock);
}
