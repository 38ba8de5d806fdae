/*
 * fuse_door.c - the FUSE door's life: preparing mount points (creating
 * them, detaching a stale mount a crashed service left), mounting each
 * instance with its own libfuse3 loop thread, or taking over a mount a
 * dead service left with its keeper (fuse_keeper.h), passing the preload
 * door's changes on (fuse_inval.h), and unmounting at exit.
 */
#include "fuse_door.h"
#include "fuse_export.h"
#include "fuse_inval.h"
#include "fuse_keeper.h"
#include "fuse_mountpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <urcu.h>

#define FUSE_SUPER_MAGIC 0x65735546 /* linux/magic.h */
/* Linux 6.9's, which Debian 12's headers predate. */
#define NOTIFY_RESEND 7
/* The unique id of a replayed INIT: no request of the kernel's has it (its
 * ids count up by two from zero), so the answer goes nowhere. */
#define REPLAYED_INIT_UNIQUE (1ull << 62)

struct fuse_door {
    struct fuse_cred_cache creds;
    struct fuse_export exports[DANAUS_MAX_INSTANCES];
    int nexports;                  /* one per mount index, some not mounted */
    struct keeper_link keeper;
    /* Held while exports start or stop and while all are handed to a new
     * keeper (keep_all, on the keeper's watching thread). */
    pthread_mutex_t exports_lock;
    struct kept_mount *kept;       /* claimed from a dead service's keeper */
    int nkept;
    struct kept_list kept_writes;  /* and its clients' kept writes */
    char *added[DANAUS_MAX_INSTANCES]; /* mount points of fuse_door_add */
};

/* mkdir -p: every missing directory of path, mode 0755. */
static int make_dirs(const char *path)
{
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof buf)
        return -ENAMETOOLONG;
    strcpy(buf, path);
    for (char *s = buf + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return -errno;
        if (c == '\0')
            return 0;
        *s = c;
    }
}

/* Whether mp is the root of a FUSE mount that answers: another service's,
 * which mounting on top would hide and whose unmount would take ours. */
static int live_fuse_mount(const char *mp)
{
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s/..", mp);
    struct stat st, pst;
    struct statfs sfs;
    return stat(mp, &st) == 0 && stat(parent, &pst) == 0 &&
           st.st_dev != pst.st_dev && statfs(mp, &sfs) == 0 &&
           sfs.f_type == FUSE_SUPER_MAGIC;
}

/* Makes mp a directory nothing is mounted on, or says why not. */
static int prepare_mountpoint(const char *mp)
{
    if (fuse_mountpoint_stale(mp)) {
        if (fuse_mountpoint_detach(mp) < 0) {
            fprintf(stderr, "danausd: %s: stale FUSE mount (Transport "
                    "endpoint is not connected) cannot be detached: %s\n",
                    mp, strerror(errno));
            return -1;
        }
        fprintf(stderr, "danausd: %s: detached a stale FUSE mount left by a "
                "previous service\n", mp);
    }
    int rc = make_dirs(mp);
    if (rc < 0) {
        fprintf(stderr, "danausd: %s: cannot create the mount point: %s\n",
                mp, strerror(-rc));
        return -1;
    }
    if (live_fuse_mount(mp)) {
        fprintf(stderr, "danausd: %s: another FUSE file system is mounted "
                "here; no FUSE door for this mount\n", mp);
        return -1;
    }
    return 0;
}

/* A libfuse session for ex with the door's mount options. */
static struct fuse_session *new_session(struct fuse_export *ex,
                                        const struct service *svc)
{
    /* A root service lets everyone in (allow_other) and lets the kernel
     * open the device nodes its instances hold (dev; mknod of one needs
     * CAP_MKNOD, checked by the kernel or the backend): devices and FIFOs
     * are opened through this door (libservice.h, ls_ops.open). The
     * kernel opens them without asking the door, so it must check their
     * permissions itself (default_permissions, on the attributes the door
     * gives, which a chmod or chown through either door invalidates); the
     * backends check everything else again. */
    char opts[256];
    snprintf(opts, sizeof opts, "fsname=danaus:%s,subtype=danaus%s",
             svc->cfg.service,
             ex->default_permissions ? ",allow_other,dev,default_permissions"
             : svc->cfg.fuse_allow_other ? ",allow_other"
                                         : "");
    /* fuse_args holds char *; libfuse changes none of these. */
    char *argv[] = {(char *)"danausd", (char *)"-o", opts, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(3, argv);
    struct fuse_session *se = fuse_session_new(&args, &fuse_export_ops,
                                               sizeof fuse_export_ops, ex);
    fuse_opt_free_args(&args);
    if (!se)
        fprintf(stderr, "danausd: %s: libfuse refused the mount options; no "
                "FUSE door for this mount\n", ex->mountpoint);
    return se;
}

/* The connection's reads and writes, through which libfuse's answers
 * pass: an answer to a request that came over io_uring goes back that way
 * (fuse_uring_answer), and the INIT answer offers io_uring. */
static ssize_t door_read(int fd, void *buf, size_t size, void *userdata)
{
    (void)userdata;
    return read(fd, buf, size);
}

static ssize_t door_writev(int fd, struct iovec *iov, int count,
                           void *userdata)
{
    struct fuse_export *ex = userdata;
    struct fuse_out_header out;
    if (count < 1 || iov[0].iov_len != sizeof out)
        return writev(fd, iov, count);
    memcpy(&out, iov[0].iov_base, sizeof out);
    ssize_t n = out.unique ? fuse_uring_answer(out.unique, iov, count) : -1;
    if (n >= 0)
        return n;
    unsigned char init[sizeof out + sizeof(struct fuse_init_out)];
    if (ex->answering_init && ex->uring_offered && count == 2 &&
        out.error == 0 && iov[1].iov_len == sizeof(struct fuse_init_out)) {
        memcpy(init, iov[0].iov_base, sizeof out);
        memcpy(init + sizeof out, iov[1].iov_base, iov[1].iov_len);
        fuse_uring_offer(init, sizeof init, &ex->uring_payload);
        struct iovec whole = {init, sizeof init};
        return writev(fd, &whole, 1);
    }
    return writev(fd, iov, count);
}

static const struct fuse_custom_io door_io = {
    .read = door_read,
    .writev = door_writev,
};

/* Has libfuse answer the INIT request in buf (n bytes) through
 * door_writev, which may offer io_uring in the answer. */
static void process_init(struct fuse_export *ex, const struct fuse_buf *buf)
{
    ex->answering_init = true;
    fuse_session_process_buf(ex->se, buf);
    ex->answering_init = false;
}

/* Reads the kernel's INIT request, keeps a copy for a successor, and
 * answers it. */
static int answer_init(struct fuse_export *ex)
{
    struct fuse_buf buf;
    memset(&buf, 0, sizeof buf);
    int n = fuse_session_receive_buf(ex->se, &buf);
    if (n <= 0)
        return -1;
    if ((size_t)n <= sizeof ex->init) {
        memcpy(ex->init, buf.mem, (size_t)n);
        ex->init_len = (size_t)n;
    }
    process_init(ex, &buf);
    free(buf.mem);
    return 0;
}

/* Mounts ex afresh: 0, or -1 with nothing left behind. */
static int export_mount(struct fuse_export *ex, const struct service *svc)
{
    if (prepare_mountpoint(ex->mountpoint) < 0)
        return -1;
    if (fuse_nodes_init(&ex->nodes) < 0)
        return -1;
    if (fuse_handles_init(&ex->handles) < 0) {
        fuse_nodes_free(&ex->nodes);
        return -1;
    }
    if (fuse_done_init(&ex->done) < 0) {
        fuse_handles_free(&ex->handles, NULL);
        fuse_nodes_free(&ex->nodes);
        return -1;
    }
    ex->se = new_session(ex, svc);
    if (ex->se && (fuse_session_mount(ex->se, ex->mountpoint) < 0 ||
                   fuse_session_custom_io(ex->se, &door_io,
                                          fuse_session_fd(ex->se)) < 0)) {
        fprintf(stderr, "danausd: %s: FUSE mount failed (see above); no FUSE "
                "door for this mount\n", ex->mountpoint);
        fuse_session_destroy(ex->se);
        ex->se = NULL;
    } else if (ex->se && answer_init(ex) < 0) {
        fprintf(stderr, "danausd: %s: the kernel's FUSE INIT did not come; "
                "no FUSE door for this mount\n", ex->mountpoint);
        fuse_session_unmount(ex->se);
        fuse_session_destroy(ex->se);
        ex->se = NULL;
    }
    if (!ex->se) {
        fuse_done_free(&ex->done);
        fuse_handles_free(&ex->handles, NULL);
        fuse_nodes_free(&ex->nodes);
        return -1;
    }
    return 0;
}

/* Takes over the mount a dead service left with its keeper: its tables,
 * its connection (libfuse told the descriptor as /dev/fd/N, which it uses
 * as it is) and the INIT the kernel sent it, replayed so that this
 * session agrees with what the kernel agreed to. Consumes m's descriptors.
 * 0, or -1 (said on stderr) with m's connection closed. */
static int export_resume(struct fuse_export *ex, const struct service *svc,
                         struct kept_mount *m)
{
    int rc = fuse_nodes_adopt(&ex->nodes, m->fds[KEPT_NODES]);
    m->fds[KEPT_NODES] = -1;
    if (rc == 0) {
        rc = fuse_handles_adopt(&ex->handles, m->fds[KEPT_HANDLES],
                                ls_backends_cache_writes());
        m->fds[KEPT_HANDLES] = -1;
        if (rc < 0)
            fuse_nodes_free(&ex->nodes);
    }
    if (rc == 0) {
        rc = fuse_done_adopt(&ex->done, m->fds[KEPT_DONE]);
        m->fds[KEPT_DONE] = -1;
        if (rc < 0) {
            fuse_handles_free(&ex->handles, NULL);
            fuse_nodes_free(&ex->nodes);
        }
    }
    struct fuse_in_header in;
    if (rc == 0 && (m->msg.init_len < sizeof in ||
                    m->msg.init_len > sizeof ex->init))
        rc = -EINVAL;
    if (rc == 0) {
        memcpy(ex->init, m->msg.init, m->msg.init_len);
        ex->init_len = m->msg.init_len;
        /* Only mounts served through /dev/fuse are kept (keeper_keep). */
        ex->uring_offered = false;
        ex->se = new_session(ex, svc);
        char dev[32];
        snprintf(dev, sizeof dev, "/dev/fd/%d", m->fds[KEPT_FUSE]);
        if (ex->se && fuse_session_mount(ex->se, dev) == 0 &&
            fuse_session_custom_io(ex->se, &door_io,
                                   fuse_session_fd(ex->se)) == 0) {
            m->fds[KEPT_FUSE] = -1; /* the session's now */
            unsigned char replay[sizeof ex->init];
            memcpy(replay, ex->init, ex->init_len);
            memcpy(&in, replay, sizeof in);
            in.unique = REPLAYED_INIT_UNIQUE;
            memcpy(replay, &in, sizeof in);
            struct fuse_buf buf = {.mem = replay, .size = ex->init_len};
            process_init(ex, &buf);
        } else if (ex->se) {
            fuse_session_destroy(ex->se);
            ex->se = NULL;
        }
        if (!ex->se) {
            rc = -EIO;
            fuse_done_free(&ex->done);
            fuse_handles_free(&ex->handles, NULL);
            fuse_nodes_free(&ex->nodes);
        }
    }
    if (rc < 0) {
        fprintf(stderr, "danausd: %s: cannot take over the FUSE mount of "
                "the previous service: %s\n", ex->mountpoint, strerror(-rc));
        kept_mount_release(m);
        return -1;
    }
    ex->resumed = true;
    /* Its nodes are a predecessor's, told of who knows what. */
    atomic_store(&ex->several_names, true);
    return 0;
}

/* Asks the kernel to send again the requests the dead service had read
 * and not answered: they wait on the connection for good otherwise. */
static void resend_taken_requests(struct fuse_export *ex)
{
    struct fuse_out_header out = {.len = sizeof out, .error = NOTIFY_RESEND};
    if (write(fuse_session_fd(ex->se), &out, sizeof out) != sizeof out)
        fprintf(stderr, "danausd: %s: the kernel cannot resend the requests "
                "the previous service had taken (%s; Linux 6.9 can): their "
                "callers wait until the mount goes\n", ex->mountpoint,
                strerror(errno));
}

/* The mount a dead service left at mountpoint, or NULL. */
static struct kept_mount *kept_at(struct fuse_door *d, const char *mountpoint)
{
    for (int i = 0; d && i < d->nkept; i++)
        if (d->kept[i].fds[KEPT_FUSE] >= 0 &&
            strcmp(d->kept[i].msg.mountpoint, mountpoint) == 0)
            return &d->kept[i];
    return NULL;
}

/* Serves ex (mount `index`): taken over from a dead service when d holds
 * its mount, else mounted afresh; then handed to the keeper. */
static int export_start(struct fuse_door *d, struct fuse_export *ex,
                        const struct service *svc, uint32_t index)
{
    struct kept_mount *kept = kept_at(d, ex->mountpoint);
    int rc = kept ? export_resume(ex, svc, kept) : -1;
    /* A take-over that failed closed the old connection: the stale mount
     * it leaves is detached and a new one made. */
    if (rc < 0)
        rc = export_mount(ex, svc);
    if (rc < 0)
        return -1;
    /* Before any thread reads: a request one of them had taken would be
     * sent again too, and run twice (an fsync's report of lost writes
     * spent on the copy whose answer the kernel drops). */
    if (ex->resumed)
        resend_taken_requests(ex);
    /* No thread serves the table yet: its top is read alone. */
    if (fuse_dirs_init(&ex->dirs, ex->resumed ? ex->nodes.top : 0) < 0 ||
        fuse_loop_start(&ex->threads, ex->se, ex->stats, index,
                        svc->long_call_groups,
                        ex->inst->kernel_name_space) < 0) {
        fuse_dirs_free(&ex->dirs);
        if (!ex->resumed)
            fuse_session_unmount(ex->se);
        fuse_session_destroy(ex->se);
        ex->se = NULL;
        fuse_done_free(&ex->done);
        fuse_handles_free(&ex->handles, NULL);
        fuse_nodes_free(&ex->nodes);
        return -1;
    }
    if (ex->uring_offered &&
        fuse_uring_start(&ex->threads, fuse_session_fd(ex->se),
                         ex->uring_payload, &ex->uring) < 0)
        fprintf(stderr, "danausd: %s: FUSE over io_uring not started: out "
                "of memory\n", ex->mountpoint);
    if (ex->uring)
        fprintf(stderr, "danausd: %s: FUSE requests over io_uring\n",
                ex->mountpoint);
    ex->dev = fuse_mountpoint_dev(ex->mountpoint);
    ex->looping = 1;
    keeper_keep(&d->keeper, ex, index);
    return 0;
}

/* SIGUSR1 only interrupts a serving thread's read (fuse_loop_stop). */
static void wake_loop(int sig)
{
    (void)sig;
}

static void export_stop(struct fuse_export *ex)
{
    if (!ex->looping)
        return;
    /* fuse_loop_stop interrupts the threads' reads and waits for them
     * first: libfuse's unmount closes /dev/fuse, whose number a thread
     * still about to read it could find another file's. The unmount then
     * detaches the mount, but its connection lives on while a process
     * still uses it (a current directory inside, an open file); closing
     * /dev/fuse aborts it (the keeper has let go of it), so those
     * processes get ENOTCONN rather than a hang. A mount taken over from
     * a dead service was not mounted by libfuse, which leaves it alone:
     * fuse_session_destroy closes its /dev/fuse. */
    fuse_session_exit(ex->se);
    fuse_uring_stop(ex->uring);
    ex->uring = NULL;
    fuse_loop_stop(&ex->threads, ex->se);
    if (ex->resumed)
        fuse_mountpoint_detach(ex->mountpoint);
    else
        fuse_session_unmount(ex->se);
    fuse_session_destroy(ex->se);
    ex->se = NULL;
    /* Files the kernel never released (the service is going away). */
    fuse_handles_free(&ex->handles, ex->inst->ops->close);
    fuse_dirs_free(&ex->dirs);
    fuse_nodes_free(&ex->nodes);
    fuse_done_free(&ex->done);
    free(ex->spec);
    ex->spec = NULL;
    if (ex->view_len) {
        free(ex->view);
        close(ex->view_ns);
        ex->view_len = 0;
    }
    ex->looping = 0;
}

static int fuse_usable(void)
{
    int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "danausd: FUSE door off: /dev/fuse: %s; programs "
                "reach the mounts through the preload library only\n",
                strerror(errno));
        return 0;
    }
    close(fd);
    return 1;
}

/* The mount answers as a FUSE mount: the stat and statfs of its root are
 * served by its loop (after the kernel's INIT, which the loop answers
 * first). Called
 * before danausd says "ready", so that ready means the door works. */
static bool export_answers(const struct fuse_export *ex)
{
    if (live_fuse_mount(ex->mountpoint))
        return true;
    fprintf(stderr, "danausd: %s: the FUSE mount does not answer; no FUSE "
            "door for this mount\n", ex->mountpoint);
    return false;
}

static void export_init(struct fuse_door *d, struct fuse_export *ex,
                        struct service *svc, uint32_t index,
                        const char *mountpoint)
{
    rcu_read_lock();
    ex->inst = fstable_get(&svc->fs, index);
    rcu_read_unlock();
    ex->mountpoint = mountpoint;
    ex->creds = &d->creds;
    ex->direct_io = svc->cfg.fuse_direct_io;
    ex->revalidate = svc->cfg.fuse_revalidate;
    ex->nosuid = svc->cfg.nosuid;
    ex->default_permissions = geteuid() == 0;
    ex->uring_offered = svc->cfg.fuse_io_uring && fuse_uring_allowed();
    if (svc->cfg.fuse_io_uring && !ex->uring_offered)
        fprintf(stderr, "danausd: %s: fuse_io_uring on, but this kernel "
                "does not allow it (the fuse module's enable_uring, or "
                "kernel.io_uring_disabled): requests go through /dev/fuse\n",
                ex->mountpoint);
    ex->timeout = svc->cfg.fuse_cache_timeout_ms / 1000.0;
    ex->admission = &svc->admission;
    ex->pressure = &svc->pressure;
    ex->announce = &svc->announce;
    ex->stats = &svc->stats;
    ex->hrc = &svc->hrc;
    ex->index = index;
}

/* readcache.kept: the keeper holds what a kill must not lose. */
static void keep_write(void *arg, const struct kept_write *w, int fd)
{
    struct fuse_door *d = arg;
    keeper_write(&d->keeper, w, fd);
}

/* Hands every mount served to a new keeper (its first one died). */
static void keep_all(void *arg)
{
    struct fuse_door *d = arg;
    pthread_mutex_lock(&d->exports_lock);
    for (int i = 0; i < d->nexports; i++)
        if (d->exports[i].looping)
            keeper_keep(&d->keeper, &d->exports[i], (uint32_t)i);
    pthread_mutex_unlock(&d->exports_lock);
}

int fuse_door_start(struct service *svc, struct fuse_door **out)
{
    *out = NULL;
    if (!svc->cfg.fuse || !fuse_usable())
        return 0;
    struct fuse_door *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    fuse_cred_cache_init(&d->creds);
    d->creds.everyone = svc->cfg.fuse_allow_other;
    d->creds.self = geteuid();
    d->creds.idmap = &svc->cfg.idmap;
    d->creds.owner = svc->cfg.owner_uid == (uid_t)-1 ? d->creds.self
                                                     : svc->cfg.owner_uid;
    d->keeper.fd = -1;
    pthread_mutex_init(&d->exports_lock, NULL);
    d->nexports = svc->cfg.nmounts;
    for (int i = 0; i < d->nexports; i++)
        export_init(d, &d->exports[i], svc, (uint32_t)i,
                    svc->cfg.mounts[i].mountpoint);
    /* No SA_RESTART: the signal must end the loop thread's wait. */
    struct sigaction sa = {.sa_handler = wake_loop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    /* What a dead predecessor left, before this service's keeper takes
     * the socket's name. */
    if (keeper_claim(&svc->cfg, &d->kept, &d->nkept, &d->kept_writes) < 0 ||
        keeper_start(&d->keeper, &svc->cfg, svc->argv, keep_all, d) < 0) {
        fprintf(stderr, "danausd: FUSE door off: no keeper\n");
        fuse_door_release_kept(d);
        fuse_door_stop(d);
        return 0;
    }
    /* Visible from now on to the start-up guard (main.c), whose stop must
     * reach the keeper. */
    __atomic_store_n(out, d, __ATOMIC_RELEASE);
    if (d->nkept)
        fprintf(stderr, "danausd: %s: took over %d FUSE mounts from the "
                "previous service\n", svc->cfg.service, d->nkept);
    pthread_mutex_lock(&d->exports_lock);
    for (int i = 0; i < d->nexports; i++)
        if (export_start(d, &d->exports[i], svc, (uint32_t)i) == 0 &&
            !export_answers(&d->exports[i])) {
            keeper_drop(&d->keeper, (uint32_t)i);
            export_stop(&d->exports[i]);
        }
    pthread_mutex_unlock(&d->exports_lock);
    svc->readcache.kept = (struct kept_sink){keep_write, d};
    svc->changed = fuse_door_changed;
    svc->exec_busy = fuse_door_exec_busy;
    svc->reported_dev = fuse_door_reported_dev;
    return 0;
}

const char *fuse_door_kept_spec(const struct fuse_door *d, int i,
                                size_t *len)
{
    if (!d || i >= d->nkept || d->kept[i].fds[KEPT_FUSE] < 0 ||
        d->kept[i].msg.spec_len == 0)
        return NULL;
    *len = d->kept[i].msg.spec_len;
    return d->kept[i].msg.spec;
}

int fuse_door_kept_count(const struct fuse_door *d)
{
    return d ? d->nkept : 0;
}

int fuse_door_kept_view(struct fuse_door *d, int i, const char **view,
                        size_t *view_len)
{
    if (!d || i >= d->nkept || d->kept[i].fds[KEPT_NS] < 0)
        return -1;
    int ns_fd = d->kept[i].fds[KEPT_NS];
    d->kept[i].fds[KEPT_NS] = -1;
    *view = d->kept[i].msg.view;
    *view_len = d->kept[i].msg.view_len;
    return ns_fd;
}

const struct kept_list *fuse_door_kept_writes(const struct fuse_door *d)
{
    static const struct kept_list none;
    return d ? &d->kept_writes : &none;
}

void fuse_door_release_kept(struct fuse_door *d)
{
    if (!d)
        return;
    kept_list_clear(&d->kept_writes);
    for (int i = 0; i < d->nkept; i++) {
        struct kept_mount *m = &d->kept[i];
        bool unserved = m->fds[KEPT_FUSE] >= 0;
        kept_mount_release(m);
        if (!unserved)
            continue;
        if (fuse_mountpoint_stale(m->msg.mountpoint))
            fuse_mountpoint_detach(m->msg.mountpoint);
        fprintf(stderr, "danausd: %s: FUSE mount of the previous service "
                "not served any more: detached\n", m->msg.mountpoint);
    }
    free(d->kept);
    d->kept = NULL;
    d->nkept = 0;
}

int fuse_door_add(struct fuse_door *d, struct service *svc, uint32_t index,
                  const char *mountpoint, const char *spec, size_t spec_len)
{
    if (!d)
        return -ENODEV;
    if (index >= DANAUS_MAX_INSTANCES || (int)index < d->nexports)
        return -EINVAL;
    pthread_mutex_lock(&d->exports_lock);
    struct fuse_export *ex = &d->exports[index];
    memset(ex, 0, sizeof *ex);
    d->added[index] = strdup(mountpoint);
    ex->spec = malloc(spec_len ? spec_len : 1);
    if (!d->added[index] || !ex->spec) {
        free(ex->spec);
        ex->spec = NULL;
        pthread_mutex_unlock(&d->exports_lock);
        return -ENOMEM;
    }
    memcpy(ex->spec, spec, spec_len);
    ex->spec_len = spec_len;
    export_init(d, ex, svc, index, d->added[index]);
    int rc = 0;
    if (export_start(d, ex, svc, index) < 0) {
        free(ex->spec);
        ex->spec = NULL;
        rc = -EIO;
    }
    /* Exports between the old count and index (mounts added without a
     * FUSE door) stay zeroed: not looping, nothing open. The export is
     * complete before the count that makes it visible is stored. */
    __atomic_store_n(&d->nexports, (int)index + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&d->exports_lock);
    return rc;
}

void fuse_door_keep_view(struct fuse_door *d, uint32_t index,
                         const void *view, size_t view_len, int ns_fd)
{
    if (!d || (int)index >= d->nexports)
        return;
    pthread_mutex_lock(&d->exports_lock);
    struct fuse_export *ex = &d->exports[index];
    char *copy = malloc(view_len);
    int fd = fcntl(ns_fd, F_DUPFD_CLOEXEC, 0);
    if (!ex->looping || !copy || fd < 0) {
        free(copy);
        if (fd >= 0)
            close(fd);
        pthread_mutex_unlock(&d->exports_lock);
        return;
    }
    memcpy(copy, view, view_len);
    if (ex->view_len) {
        free(ex->view);
        close(ex->view_ns);
    }
    ex->view = copy;
    ex->view_len = view_len;
    ex->view_ns = fd;
    keeper_keep(&d->keeper, ex, index);
    pthread_mutex_unlock(&d->exports_lock);
}

int fuse_door_remove(struct fuse_door *d, uint32_t index)
{
    if (!d)
        return -ENODEV;
    if ((int)index >= d->nexports)
        return -EINVAL;
    pthread_mutex_lock(&d->exports_lock);
    keeper_drop(&d->keeper, index);
    export_stop(&d->exports[index]);
    pthread_mutex_unlock(&d->exports_lock);
    return 0;
}

void fuse_door_farewell(struct fuse_door *d)
{
    if (d)
        keeper_bye(&d->keeper);
}

void fuse_door_stop(struct fuse_door *d)
{
    if (!d)
        return;
    /* First, so that the keeper's copies of the connections are closed
     * when the exports close theirs. */
    keeper_bye(&d->keeper);
    for (int i = 0; i < d->nexports; i++) {
        export_stop(&d->exports[i]);
        free(d->added[i]);
    }
    fuse_cred_cache_free(&d->creds);
    free(d);
}

void fuse_door_changed(struct fuse_door *d, uint32_t mount,
                       enum service_change what, const char *path,
                       const char *path2, struct ls_file *file,
                       const struct ls_cred *cred)
{
    if (mount >= (uint32_t)__atomic_load_n(&d->nexports, __ATOMIC_ACQUIRE))
        return;
    struct fuse_export *ex = &d->exports[mount];
    if (ex->looping)
        fuse_inval_changed(ex, what, path, path2, file, cred);
}

bool fuse_door_exec_busy(struct fuse_door *d, uint32_t mount,
                         const char *path, uint64_t ino,
                         const struct ls_cred *cred)
{
    if (mount >= (uint32_t)d->nexports)
        return false;
    struct fuse_export *ex = &d->exports[mount];
    if (!ex->looping || atomic_load(&ex->handles.nexec) == 0)
        return false;
    struct danaus_stat st;
    if (!ino && ex->inst->ops->stat(ex->inst, cred, path, 0, &st) == 0)
        ino = st.ino;
    return ino && fuse_handles_find(&ex->handles, ino, true, NULL);
}

unsigned long fuse_door_reported_dev(struct fuse_door *d, uint32_t mount)
{
    if (mount >= (uint32_t)__atomic_load_n(&d->nexports, __ATOMIC_ACQUIRE))
        return 0;
    const struct fuse_export *ex = &d->exports[mount];
    return ex->looping ? ex->dev : 0;
}
