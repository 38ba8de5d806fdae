/*
 * fuse_keeper.c - the service's side of its keeper (fuse_keeper.h):
 * starting it, handing it mounts, and claiming a dead service's mounts
 * from the keeper it left. The keeper process is keeper_main.c.
 */
#include "fuse_keeper.h"
#include "keeper_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

int keeper_claim(const struct config *cfg, struct kept_mount **kept,
                 int *nkept, struct kept_list *writes)
{
    *kept = NULL;
    *nkept = 0;
    *writes = (struct kept_list){.owned = true};
    struct sockaddr_un sa;
    if (keeper_address(cfg->rundir, cfg->service, &sa) < 0)
        return 0;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    keeper_bound_waits(fd);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        !keeper_peer_trusted(fd)) {
        close(fd);
        return 0;
    }
    struct keeper_msg *msg = calloc(1, sizeof *msg);
    if (!msg) {
        close(fd);
        return -1;
    }
    msg->op = KEEPER_CLAIM;
    int fds[KEPT_FDS];
    int rc = 0;
    if (keeper_send(fd, msg, NULL, 0) < 0) {
        fprintf(stderr, "danausd: %s: the keeper of a previous service "
                "does not answer: %s\n", sa.sun_path, strerror(errno));
        goto out;
    }
    for (;;) {
        int n = keeper_recv(fd, msg, fds);
        if (n == 1 && msg->op == KEEPER_WRITE) {
            if (kept_list_apply(writes, &msg->write, fds[0]) < 0) {
                rc = -1;
                break;
            }
            continue;
        }
        if (n < 0 || msg->op != KEEPER_KEEP) {
            if (n < 0 || msg->op != KEEPER_END)
                fprintf(stderr, "danausd: %s: the keeper handed nothing "
                        "over (its service may still run)\n", sa.sun_path);
            break;
        }
        if (n < KEPT_NS || (n == KEPT_NS) != (msg->view_len == 0)) {
            for (int i = 0; i < n; i++)
                close(fds[i]);
            continue;
        }
        if (n == KEPT_NS)
            fds[KEPT_NS] = -1;
        struct kept_mount *more = realloc(*kept, (*nkept + 1) * sizeof *more);
        if (!more) {
            for (int i = 0; i < n; i++)
                close(fds[i]);
            rc = -1;
            break;
        }
        *kept = more;
        struct kept_mount *m = &more[(*nkept)++];
        m->msg = *msg;
        memcpy(m->fds, fds, sizeof fds);
    }
out:
    free(msg);
    close(fd);
    return rc;
}

/* Forks and execs the keeper process, its channel in k. */
static int spawn(struct keeper_link *k, const struct config *cfg,
                 char *const argv[])
{
    k->fd = -1;
    char exe[PATH_MAX], keep[16];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int n = 0;
    while (argv[n])
        n++;
    /* danausd --keeper RUNDIR SERVICE KEEP_S RESTART EXE ARGV..., made
     * before the fork: the child of a threaded process only execs. */
    const char **args = calloc((size_t)n + 8, sizeof *args);
    int sv[2] = {-1, -1};
    if (len < 0 || !args ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        fprintf(stderr, "danausd: cannot start the FUSE keeper: %s\n",
                strerror(errno ? errno : ENOMEM));
        free(args);
        return -1;
    }
    exe[len] = '\0';
    /* A binary replaced since it started shows as "... (deleted)": the
     * restarted service is the one installed now. */
    char *deleted = strstr(exe, " (deleted)");
    if (deleted && deleted[10] == '\0')
        *deleted = '\0';
    snprintf(keep, sizeof keep, "%u", cfg->fuse_keep_s);
    int a = 0;
    args[a++] = "danausd";
    args[a++] = "--keeper";
    args[a++] = cfg->rundir;
    args[a++] = cfg->service;
    args[a++] = keep;
    args[a++] = cfg->restart ? "1" : "0";
    args[a++] = exe;
    for (int i = 0; i < n; i++)
        args[a++] = argv[i];
    pid_t pid = fork();
    if (pid == 0) {
        /* Its channel as descriptor 3, nothing else but stdio (dup2 onto
         * itself would keep close-on-exec). */
        if (sv[1] == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(sv[1], 3) < 0)
            _exit(127);
        close_range(4, ~0u, 0);
        /* execv takes char *const[] but changes no string (POSIX). */
        execv("/proc/self/exe", (char *const *)args);
        _exit(127);
    }
    int err = errno;
    free(args);
    close(sv[1]);
    if (pid < 0) {
        fprintf(stderr, "danausd: cannot start the FUSE keeper: %s\n",
                strerror(err));
        close(sv[0]);
        return -1;
    }
    k->fd = sv[0];
    k->pid = pid;
    return 0;
}

/* Sends one kept write; under k->lock, and the read cache's (kept.h),
 * so without waiting: a keeper that does not take it at once (stopped,
 * or far behind) is killed, and the watcher hands its successor the
 * mirror, which is right, rather than stall the service. */
static void send_write(struct keeper_link *k, const struct kept_write *w,
                       int fd)
{
    struct keeper_msg msg;
    memset(&msg, 0, KEEPER_WRITE_LEN);
    msg.op = KEEPER_WRITE;
    msg.write = *w;
    if (keeper_send_now(k->fd, &msg, &fd, fd >= 0) == 0)
        return;
    fprintf(stderr, "danausd: the keeper (pid %d) did not take a client's "
            "kept writes (%s): replacing it\n", (int)k->pid, strerror(errno));
    kill(k->pid, SIGKILL);
}

/* Waits on the channel, on which the keeper never writes: its end of
 * file is the keeper's death. */
static void *watch(void *arg)
{
    struct keeper_link *k = arg;
    for (;;) {
        char byte;
        ssize_t n = recv(k->fd, &byte, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        pthread_mutex_lock(&k->lock);
        if (k->stopping) {
            pthread_mutex_unlock(&k->lock);
            return NULL;
        }
        fprintf(stderr, "danausd: the FUSE keeper (pid %d) died; starting "
                "another\n", (int)k->pid);
        close(k->fd);
        /* Gone, or made to go: its channel is closed either way. */
        kill(k->pid, SIGKILL);
        waitpid(k->pid, NULL, 0);
        int rc = spawn(k, k->cfg, k->argv);
        for (size_t i = 0; rc == 0 && i < k->writes.n; i++)
            send_write(k, &k->writes.v[i].w, k->writes.v[i].fd);
        pthread_mutex_unlock(&k->lock);
        if (rc < 0)
            return NULL;
        k->rekeep(k->arg);
    }
}

int keeper_start(struct keeper_link *k, const struct config *cfg,
                 char *const argv[], void (*rekeep)(void *arg), void *arg)
{
    pthread_mutex_init(&k->lock, NULL);
    k->cfg = cfg;
    k->argv = argv;
    k->rekeep = rekeep;
    k->arg = arg;
    k->stopping = false;
    if (spawn(k, cfg, argv) < 0)
        return -1;
    k->watching = pthread_create(&k->watcher, NULL, watch, k) == 0;
    return 0;
}

void keeper_keep(struct keeper_link *k, const struct fuse_export *ex,
                 uint32_t index)
{
    if (k->fd < 0)
        return;
    struct keeper_msg *msg = calloc(1, sizeof *msg);
    if (!msg || strlen(ex->mountpoint) >= sizeof msg->mountpoint ||
        ex->spec_len > sizeof msg->spec || ex->view_len > sizeof msg->view) {
        free(msg);
        fprintf(stderr, "danausd: %s: not kept over a restart\n",
                ex->mountpoint);
        return;
    }
    msg->op = KEEPER_KEEP;
    msg->index = index;
    /* A successor cannot take a ring's requests over: the kernel ends
     * those its entries held when their threads die, and queues new ones
     * behind entries nobody serves (fuse_uring.h). */
    if (ex->uring)
        msg->flags = KEPT_UNTIL_DEATH;
    strcpy(msg->mountpoint, ex->mountpoint);
    msg->init_len = (uint32_t)ex->init_len;
    memcpy(msg->init, ex->init, ex->init_len);
    msg->spec_len = (uint32_t)ex->spec_len;
    if (ex->spec_len)
        memcpy(msg->spec, ex->spec, ex->spec_len);
    msg->view_len = (uint32_t)ex->view_len;
    if (ex->view_len)
        memcpy(msg->view, ex->view, ex->view_len);
    int fds[KEPT_FDS] = {
        [KEPT_FUSE] = fuse_session_fd(ex->se),
        [KEPT_NODES] = fuse_nodes_fd(&ex->nodes),
        [KEPT_HANDLES] = fuse_handles_fd(&ex->handles),
        [KEPT_DONE] = fuse_done_fd(&ex->done),
        [KEPT_NS] = ex->view_ns,
    };
    pthread_mutex_lock(&k->lock);
    int rc = keeper_send(k->fd, msg, fds, ex->view_len ? KEPT_FDS : KEPT_NS);
    pthread_mutex_unlock(&k->lock);
    if (rc < 0)
        fprintf(stderr, "danausd: %s: the keeper did not take it: %s\n",
                ex->mountpoint, strerror(errno));
    free(msg);
}

static void send_op(struct keeper_link *k, uint32_t op, uint32_t index)
{
    if (k->fd < 0)
        return;
    struct keeper_msg *msg = calloc(1, sizeof *msg);
    if (!msg)
        return;
    msg->op = op;
    msg->index = index;
    pthread_mutex_lock(&k->lock);
    keeper_send(k->fd, msg, NULL, 0);
    pthread_mutex_unlock(&k->lock);
    free(msg);
}

void keeper_drop(struct keeper_link *k, uint32_t index)
{
    send_op(k, KEEPER_DROP, index);
}

void keeper_write(struct keeper_link *k, const struct kept_write *w, int fd)
{
    pthread_mutex_lock(&k->lock);
    /* A clean stop: the keeper is leaving with everything. */
    if (k->stopping) {
        pthread_mutex_unlock(&k->lock);
        return;
    }
    if (k->fd >= 0)
        send_write(k, w, fd);
    if (kept_list_apply(&k->writes, w, fd) < 0)
        fprintf(stderr, "danausd: out of memory: a client's kept writes "
                "would not reach a new keeper\n");
    pthread_mutex_unlock(&k->lock);
}

void keeper_bye(struct keeper_link *k)
{
    if (k->fd < 0)
        return;
    struct keeper_msg *msg = calloc(1, sizeof *msg);
    pthread_mutex_lock(&k->lock);
    /* Before the goodbye, whose end of file the watcher sees. */
    k->stopping = true;
    if (msg) {
        msg->op = KEEPER_BYE;
        keeper_send(k->fd, msg, NULL, 0);
    }
    /* Wakes the watcher's recv, which a close would not. */
    shutdown(k->fd, SHUT_RDWR);
    pthread_mutex_unlock(&k->lock);
    free(msg);
    if (k->watching)
        pthread_join(k->watcher, NULL);
    pthread_mutex_lock(&k->lock);
    close(k->fd);
    k->fd = -1;
    /* Under the lock: a service thread may still forget a file. */
    kept_list_clear(&k->writes);
    pthread_mutex_unlock(&k->lock);
    /* It leaves at once on the goodbye; one that does not (stopped) is
     * not waited for long. */
    for (int i = 0; i < 200 && waitpid(k->pid, NULL, WNOHANG) == 0; i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    if (waitpid(k->pid, NULL, WNOHANG) == 0) {
        kill(k->pid, SIGKILL);
        waitpid(k->pid, NULL, 0);
    }
}

void kept_mount_release(struct kept_mount *m)
{
    for (int i = 0; i < KEPT_FDS; i++)
        if (m->fds[i] >= 0)
            close(m->fds[i]);
    for (int i = 0; i < KEPT_FDS; i++)
        m->fds[i] = -1;
}
