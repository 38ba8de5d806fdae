/*
 * fuse_door.c - the FUSE door's life: preparing mount points (creating
 * them, detaching a stale mount a crashed service left), mounting each
 * instance with its own libfuse3 loop thread, invalidating cached pages
 * after preload writes, and unmounting at exit.
 *
 * A crash must not leave mounts behind either: a watchdog process, forked
 * before anything is mounted, waits for the service to die (its end of a
 * pipe reads EOF, where a clean stop writes a byte) and then detaches
 * every mount point whose connection the kernel aborted (stat fails with
 * ENOTCONN, "Transport endpoint is not connected"). The same check at
 * start-up covers a watchdog killed too.
 */
#include "fuse_door.h"
#include "fuse_export.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <urcu.h>

#define FUSE_SUPER_MAGIC 0x65735546 /* linux/magic.h */

struct fuse_door {
    struct fuse_cred_cache creds;
    struct fuse_export exports[DANAUS_MAX_INSTANCES];
    int nexports;                  /* one per mount index, some not mounted */
    int watchdog_pipe;             /* write end; its closing wakes the watchdog */
    pid_t watchdog;
    char *added[DANAUS_MAX_INSTANCES]; /* mount points of fuse_door_add */
};

/* Detaches the mount at mp lazily: processes inside it keep what they
 * hold, new lookups see the directory below. */
static int detach(const char *mp)
{
    if (geteuid() == 0)
        return umount2(mp, MNT_DETACH);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("fusermount3", "fusermount3", "-u", "-z", "-q", mp,
               (char *)NULL);
        _exit(127);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int is_stale(const char *mp)
{
    struct stat st;
    return stat(mp, &st) < 0 && errno == ENOTCONN;
}

/* The watchdog: blocks until the service is gone, then detaches the mounts
 * it left aborted. Only async-signal-safe calls: it is forked from a
 * multithreaded process. */
static void watchdog(struct fuse_door *d, int pipe_in)
{
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    /* Holding no other descriptor: not the service's socket, nor
     * /dev/fuse, nor anyone's pipe. */
    if (pipe_in != 3 && dup2(pipe_in, 3) < 0)
        _exit(1);
    close_range(4, ~0u, 0);
    pid_t service = getppid();
    char byte;
    ssize_t n;
    do
        n = read(3, &byte, 1);
    while (n < 0 && errno == EINTR);
    if (n == 1)
        _exit(0); /* the service unmounted and is waiting for us */
    /* The pipe may close before /dev/fuse does (a dying process closes
     * its descriptors in order); once this process is reparented, the
     * service has released everything and the kernel aborted its FUSE
     * connections. */
    struct timespec tick = {0, 10 * 1000 * 1000};
    while (getppid() == service)
        nanosleep(&tick, NULL);
    for (int i = 0; i < d->nexports; i++)
        if (d->exports[i].mountpoint && is_stale(d->exports[i].mountpoint))
            detach(d->exports[i].mountpoint);
    _exit(0);
}

static int start_watchdog(struct fuse_door *d)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[1]);
        watchdog(d, p[0]);
    }
    close(p[0]);
    d->watchdog = pid;
    d->watchdog_pipe = p[1];
    return 0;
}

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
    if (is_stale(mp)) {
        if (detach(mp) < 0) {
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

static void *loop_thread(void *arg)
{
    struct fuse_export *ex = arg;
    struct fuse_loop_config *cfg = fuse_loop_cfg_create();
    if (!cfg)
        return NULL;
    fuse_loop_cfg_set_clone_fd(cfg, 0);
    fuse_loop_cfg_set_idle_threads(cfg, 4);
    fuse_session_loop_mt(ex->se, cfg);
    fuse_loop_cfg_destroy(cfg);
    return NULL;
}

static int export_start(struct fuse_export *ex, const struct service *svc)
{
    if (prepare_mountpoint(ex->mountpoint) < 0)
        return -1;
    /* A root service lets everyone in (allow_other) and lets the kernel
     * open the device nodes its instances hold (dev; mknod of one needs
     * CAP_MKNOD, checked by the kernel or the backend): devices and FIFOs
     * are opened through this door (libservice.h, ls_ops.open). The
     * kernel opens them without asking the door, so it must check their
     * permissions itself (default_permissions, on the attributes the door
     * gives, which it never caches); the backends check everything else
     * again. */
    char opts[256];
    snprintf(opts, sizeof opts, "fsname=danaus:%s,subtype=danaus%s",
             svc->cfg.service,
             geteuid() == 0 ? ",allow_other,dev,default_permissions"
             : svc->cfg.fuse_allow_other ? ",allow_other"
                                         : "");
    char *argv[] = {"danausd", "-o", opts, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(3, argv);
    if (fuse_nodes_init(&ex->nodes) < 0)
        return -1;
    ex->se = fuse_session_new(&args, &fuse_export_ops, sizeof fuse_export_ops,
                              ex);
    fuse_opt_free_args(&args);
    if (!ex->se) {
        fprintf(stderr, "danausd: %s: libfuse refused the mount options; no "
                "FUSE door for this mount\n", ex->mountpoint);
        fuse_nodes_free(&ex->nodes);
        return -1;
    }
    if (fuse_session_mount(ex->se, ex->mountpoint) < 0) {
        fprintf(stderr, "danausd: %s: FUSE mount failed (see above); no FUSE "
                "door for this mount\n", ex->mountpoint);
        fuse_session_destroy(ex->se);
        ex->se = NULL;
        fuse_nodes_free(&ex->nodes);
        return -1;
    }
    if (pthread_create(&ex->loop, NULL, loop_thread, ex) != 0) {
        fuse_session_unmount(ex->se);
        fuse_session_destroy(ex->se);
        ex->se = NULL;
        fuse_nodes_free(&ex->nodes);
        return -1;
    }
    ex->looping = 1;
    return 0;
}

/* SIGUSR1 only interrupts the loop thread's wait (see export_stop). */
static void wake_loop(int sig)
{
    (void)sig;
}

static void export_stop(struct fuse_export *ex)
{
    if (ex->looping) {
        /* The unmount detaches the mount, but its connection lives on
         * while a process still uses it (a current directory inside, an
         * open file), and the loop with it. libfuse's loop thread waits in
         * sem_wait for the session to end: a signal interrupts the wait, it
         * sees the exit flag, cancels its workers where they wait for
         * requests (never inside one) and returns; fuse_session_destroy
         * closes /dev/fuse, which aborts the connection, so those
         * processes get ENOTCONN rather than a hang. The signal is
         * repeated in case it came just before the wait began. */
        fuse_session_exit(ex->se);
        fuse_session_unmount(ex->se);
        struct timespec deadline;
        do {
            pthread_kill(ex->loop, SIGUSR1);
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_nsec += 100 * 1000 * 1000;
            if (deadline.tv_nsec >= 1000000000) {
                deadline.tv_sec++;
                deadline.tv_nsec -= 1000000000;
            }
        } while (pthread_timedjoin_np(ex->loop, NULL, &deadline) == ETIMEDOUT);
        fuse_session_destroy(ex->se);
        fuse_nodes_free(&ex->nodes);
    }
    /* Files the kernel never released (the service is going away). */
    while (ex->open) {
        struct fuse_open_file *o = ex->open;
        ex->open = o->next;
        ex->inst->ops->close(o->file);
        free(o);
    }
    pthread_mutex_destroy(&ex->open_lock);
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

int fuse_door_start(struct service *svc, struct fuse_door **out)
{
    *out = NULL;
    if (!svc->cfg.fuse || !fuse_usable())
        return 0;
    struct fuse_door *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    fuse_cred_cache_init(&d->creds, svc->ceph);
    d->creds.everyone = svc->cfg.fuse_allow_other;
    d->creds.self = geteuid();
    d->creds.owner = svc->cfg.owner_uid == (uid_t)-1 ? d->creds.self
                                                     : svc->cfg.owner_uid;
    d->nexports = svc->cfg.nmounts;
    rcu_read_lock();
    for (int i = 0; i < d->nexports; i++) {
        struct fuse_export *ex = &d->exports[i];
        ex->inst = fstable_get(&svc->fs, (uint32_t)i);
        ex->mountpoint = svc->cfg.mounts[i].mountpoint;
        ex->creds = &d->creds;
        ex->direct_io = svc->cfg.fuse_direct_io;
        ex->revalidate = svc->cfg.fuse_revalidate;
        pthread_mutex_init(&ex->open_lock, NULL);
    }
    rcu_read_unlock();
    /* No SA_RESTART: the signal must end the loop thread's wait. */
    struct sigaction sa = {.sa_handler = wake_loop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    if (start_watchdog(d) < 0) {
        fprintf(stderr, "danausd: FUSE door off: cannot start its watchdog: "
                "%s\n", strerror(errno));
        fuse_door_stop(d);
        return 0;
    }
    int mounted = 0;
    for (int i = 0; i < d->nexports; i++) {
        if (export_start(&d->exports[i], svc) < 0)
            continue;
        if (export_answers(&d->exports[i]))
            mounted++;
        else
            export_stop(&d->exports[i]);
    }
    if (mounted == 0) {
        fuse_door_stop(d);
        return 0;
    }
    *out = d;
    svc->data_changed = fuse_door_data_changed;
    svc->exec_busy = fuse_door_exec_busy;
    return 0;
}

int fuse_door_add(struct fuse_door *d, struct service *svc, uint32_t index,
                  const char *mountpoint)
{
    if (!d)
        return -ENODEV;
    if (index >= DANAUS_MAX_INSTANCES || (int)index < d->nexports)
        return -EINVAL;
    struct fuse_export *ex = &d->exports[index];
    memset(ex, 0, sizeof *ex);
    d->added[index] = strdup(mountpoint);
    if (!d->added[index])
        return -ENOMEM;
    rcu_read_lock();
    ex->inst = fstable_get(&svc->fs, index);
    rcu_read_unlock();
    ex->mountpoint = d->added[index];
    ex->creds = &d->creds;
    ex->direct_io = svc->cfg.fuse_direct_io;
    ex->revalidate = svc->cfg.fuse_revalidate;
    pthread_mutex_init(&ex->open_lock, NULL);
    int rc = export_start(ex, svc) < 0 ? -EIO : 0;
    /* Exports between the old count and index (mounts added without a
     * FUSE door) stay zeroed: not looping, nothing open. The export is
     * complete before the count that makes it visible is stored. */
    for (int i = d->nexports; i < (int)index; i++)
        pthread_mutex_init(&d->exports[i].open_lock, NULL);
    __atomic_store_n(&d->nexports, (int)index + 1, __ATOMIC_RELEASE);
    return rc;
}

int fuse_door_remove(struct fuse_door *d, uint32_t index)
{
    if (!d)
        return -ENODEV;
    if ((int)index >= d->nexports)
        return -EINVAL;
    struct fuse_export *ex = &d->exports[index];
    export_stop(ex);
    /* Stopped and empty: fuse_door_stop may stop it again harmlessly. */
    ex->looping = 0;
    pthread_mutex_init(&ex->open_lock, NULL);
    return 0;
}

void fuse_door_stop(struct fuse_door *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->nexports; i++) {
        export_stop(&d->exports[i]);
        free(d->added[i]);
    }
    if (d->watchdog > 0) {
        /* A byte, not EOF: a clean stop, nothing to detach. */
        if (write(d->watchdog_pipe, "", 1) != 1)
            kill(d->watchdog, SIGKILL);
        close(d->watchdog_pipe);
        waitpid(d->watchdog, NULL, 0);
    }
    fuse_cred_cache_free(&d->creds);
    free(d);
}

/* Whether a file of inode ino is open through ex (by execve, when
 * exec_only); its node id goes to *node unless NULL. */
static bool find_open(struct fuse_export *ex, uint64_t ino, bool exec_only,
                      uint64_t *node)
{
    bool found = false;
    pthread_mutex_lock(&ex->open_lock);
    for (struct fuse_open_file *o = ex->open; o && !found; o = o->next) {
        found = o->ino == ino && (o->exec || !exec_only);
        if (found && node)
            *node = fuse_node_id(&ex->nodes, o->node);
    }
    pthread_mutex_unlock(&ex->open_lock);
    return found;
}

void fuse_door_data_changed(struct fuse_door *d, uint32_t mount,
                            struct ls_file *file, const char *path,
                            const struct ls_cred *cred)
{
    if (mount >= (uint32_t)d->nexports)
        return;
    struct fuse_export *ex = &d->exports[mount];
    if (!ex->looping || atomic_load(&ex->nopen) == 0)
        return;
    struct danaus_stat st;
    int rc = file ? ex->inst->ops->fstat(file, cred, &st)
                  : ex->inst->ops->stat(ex->inst, cred, path, 0, &st);
    if (rc < 0)
        return;
    uint64_t node;
    /* Outside the lock: the kernel may call back into FUSE (a dirty page
     * of a shared mapping is written before it is dropped). The node stays
     * while its file is open, which the kernel's page cache needs. */
    if (find_open(ex, st.ino, false, &node))
        fuse_lowlevel_notify_inval_inode(ex->se, node, 0, 0);
}

bool fuse_door_exec_busy(struct fuse_door *d, uint32_t mount,
                         const char *path, const struct ls_cred *cred)
{
    if (mount >= (uint32_t)d->nexports)
        return false;
    struct fuse_export *ex = &d->exports[mount];
    if (atomic_load(&ex->nexec) == 0)
        return false;
    struct danaus_stat st;
    return ex->inst->ops->stat(ex->inst, cred, path, 0, &st) == 0 &&
           find_open(ex, st.ino, true, NULL);
}
