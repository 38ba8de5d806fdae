/*
 * keeper_main.c - the keeper process (fuse_keeper.h):
 *
 *   danausd --keeper RUNDIR SERVICE KEEP_S RESTART EXE ARGV...
 *
 * started by its service with their channel as descriptor 3. It holds what
 * the service hands it. When the service stops cleanly (goodbye, then end
 * of file) it leaves. When the service dies, it listens on
 * RUNDIR/SERVICE.keeper for the next service of that name, hands it
 * everything and leaves; with RESTART 1 it starts that service itself (EXE
 * ARGV..., the dead one's command line), again after 1, 2, 4 ... 30 s
 * while the started one exits without claiming. After KEEP_S seconds it
 * closes what nobody claimed, detaches those mounts and leaves.
 */
#include "fuse_keeper.h"
#include "fuse_mountpoint.h"
#include "keeper_wire.h"
#include "fsservice/core/log.h"
#include <danaus/danaus.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHANNEL 3
#define RESTART_PAUSE_MAX_S 30
/* How long a connection may take to end after its last close. */
#define STALE_TRIES 100
#define STALE_PAUSE_US 50000

struct held {
    struct keeper_msg *msg; /* NULL: nothing held at this index */
    int fds[KEPT_FDS];
    int nfds;
};

static struct held held[DANAUS_MAX_INSTANCES];
static const char *service;

/* Kept writes (core/kept.h): areas and files, each with its descriptor. */
static struct kept_list writes = {.owned = true};

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "danausd keeper (%s): ", service);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void let_go(struct held *h)
{
    if (!h->msg)
        return;
    for (int i = 0; i < h->nfds; i++)
        close(h->fds[i]);
    free(h->msg);
    h->msg = NULL;
}

static int count_held(void)
{
    int n = 0;
    for (int i = 0; i < DANAUS_MAX_INSTANCES; i++)
        n += held[i].msg != NULL;
    return n;
}

/* A WRITE message from the service: what it says the keeper now holds.
 * An AREA or FILE comes with its one descriptor, a forget with none. */
static void write_from_service(const struct kept_write *w, int *fds, int nfds)
{
    bool holds = w->op == KEPT_AREA || w->op == KEPT_FILE;
    if (nfds != (holds ? 1 : 0)) {
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
        if (holds)
            return;
    }
    if (kept_list_apply(&writes, w, holds ? fds[0] : -1) < 0)
        say("out of memory: a client's kept writes are not kept");
}

/* One message from the service. */
static void from_service(const struct keeper_msg *msg, int *fds, int nfds,
                         int *clean)
{
    if (msg->op == KEEPER_WRITE) {
        write_from_service(&msg->write, fds, nfds);
        return;
    }
    bool keep = msg->op == KEEPER_KEEP &&
                nfds == (msg->view_len ? KEPT_FDS : KEPT_NS) &&
                msg->index < DANAUS_MAX_INSTANCES;
    if (keep) {
        struct held *h = &held[msg->index];
        let_go(h);
        h->msg = malloc(sizeof *msg);
        if (h->msg) {
            *h->msg = *msg;
            memcpy(h->fds, fds, sizeof h->fds);
            h->nfds = nfds;
            return;
        }
    }
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    if (msg->op == KEEPER_DROP && msg->index < DANAUS_MAX_INSTANCES)
        let_go(&held[msg->index]);
    else if (msg->op == KEEPER_BYE)
        *clean = 1;
}

/* One message at a time: the keeper is one thread. */
static struct keeper_msg message;

/* A claim on the listening socket: true once everything went over. */
static bool hand_over(int fd)
{
    struct keeper_msg *msg = &message;
    int fds[KEPT_FDS];
    keeper_bound_waits(fd);
    int n = keeper_peer_trusted(fd) ? keeper_recv(fd, msg, fds) : -1;
    for (int i = 0; i < n; i++)
        close(fds[i]);
    bool ok = n >= 0 && msg->op == KEEPER_CLAIM;
    for (int i = 0; ok && i < DANAUS_MAX_INSTANCES; i++)
        if (held[i].msg)
            ok = keeper_send(fd, held[i].msg, held[i].fds, held[i].nfds) == 0;
    for (size_t i = 0; ok && i < writes.n; i++) {
        memset(msg, 0, KEEPER_WRITE_LEN);
        msg->op = KEEPER_WRITE;
        msg->write = writes.v[i].w;
        ok = keeper_send(fd, msg, &writes.v[i].fd, 1) == 0;
    }
    if (ok) {
        memset(msg, 0, sizeof *msg);
        msg->op = KEEPER_END;
        ok = keeper_send(fd, msg, NULL, 0) == 0;
    }
    return ok;
}

/* Detaches the mount at point once its connection is gone: the last
 * close of its /dev/fuse ends it, but for a connection a dead service's
 * io_uring threads used, only when the kernel has torn their rings down
 * (after the process, asynchronously), so this waits for that. */
static void detach_when_stale(const char *point)
{
    for (int tries = 0; tries < STALE_TRIES; tries++) {
        if (fuse_mountpoint_stale(point)) {
            fuse_mountpoint_detach(point);
            return;
        }
        usleep(STALE_PAUSE_US);
    }
}

/* Closes everything held (the kernel aborts those connections) and
 * detaches the mounts. */
static void detach_all(void)
{
    char *points[DANAUS_MAX_INSTANCES];
    int n = 0;
    for (int i = 0; i < DANAUS_MAX_INSTANCES; i++)
        if (held[i].msg && (points[n] = strdup(held[i].msg->mountpoint)))
            n++;
    for (int i = 0; i < DANAUS_MAX_INSTANCES; i++)
        let_go(&held[i]);
    kept_list_clear(&writes);
    for (int i = 0; i < n; i++) {
        if (fuse_mountpoint_stale(points[i]))
            fuse_mountpoint_detach(points[i]);
        free(points[i]);
    }
}

/* Lets go of the mounts no successor can take and detaches them. */
static void detach_untaken(void)
{
    for (int i = 0; i < DANAUS_MAX_INSTANCES; i++) {
        if (!held[i].msg || !(held[i].msg->flags & KEPT_UNTIL_DEATH))
            continue;
        char *point = strdup(held[i].msg->mountpoint);
        let_go(&held[i]);
        if (point)
            detach_when_stale(point);
        free(point);
    }
}

static int listen_at(const struct sockaddr_un *sa)
{
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    unlink(sa->sun_path);
    mode_t old = umask(077);
    int rc = bind(fd, (const struct sockaddr *)sa, sizeof *sa);
    umask(old);
    if (rc < 0 || listen(fd, 4) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static pid_t start_service(char **argv)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        execv(argv[0], argv + 1);
        fprintf(stderr, "danausd keeper (%s): cannot run %s: %s\n", service,
                argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

int keeper_main(int argc, char **argv)
{
    if (argc < 8)
        return 2;
    const char *rundir = argv[2];
    service = argv[3];
    log_start(service);
    double keep_s = atof(argv[4]);
    int restart = strcmp(argv[5], "1") == 0;
    char **command = argv + 6; /* EXE ARGV... */
    prctl(PR_SET_NAME, "danaus-keeper");
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    struct sockaddr_un sa;
    int listener = keeper_address(rundir, service, &sa) == 0 ? listen_at(&sa)
                                                             : -1;
    if (listener < 0)
        say("cannot listen at %s: %s; a restarted service cannot take "
            "the mounts over", sa.sun_path, strerror(errno));

    int channel = CHANNEL, clean = 0;
    double died_at = 0, next_start = 0;
    pid_t started = 0;
    int failures = 0;
    bool listener_path_ours = true;
    for (;;) {
        struct pollfd p[2] = {{channel, POLLIN, 0}, {listener, POLLIN, 0}};
        int timeout = channel >= 0 ? -1 : 200;
        if (poll(p, 2, timeout) < 0 && errno != EINTR)
            break;
        if (channel >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            int fds[KEPT_FDS];
            int n = keeper_recv(channel, &message, fds);
            if (n >= 0)
                from_service(&message, fds, n, &clean);
            /* Only its end of file says the service is gone. */
            if (n < 0 && errno == 0) {
                close(channel);
                channel = -1;
                if (clean)
                    break;
                died_at = next_start = now_s();
                detach_untaken();
                say("the service died; its %d FUSE mounts and %zu kept "
                    "writes' areas and files wait %.0f s for the next one",
                    count_held(), writes.n, keep_s);
            }
        }
        if (channel >= 0 && (p[1].revents & POLLIN)) {
            /* The service runs: nothing to claim. */
            int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0)
                close(fd);
        }
        if (channel >= 0)
            continue;
        if (p[1].revents & POLLIN) {
            int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
            bool done = fd >= 0 && hand_over(fd);
            if (fd >= 0)
                close(fd);
            if (done) {
                say("handed %d FUSE mounts and %zu kept writes' areas "
                    "and files to the next service", count_held(), writes.n);
                /* The next service's keeper listens at the same path:
                 * it is not this one's to remove any more. */
                listener_path_ours = false;
                break;
            }
        }
        int status;
        if (started > 0 && waitpid(started, &status, WNOHANG) == started) {
            started = 0;
            failures++;
            long pause = 1L << (failures < 5 ? failures - 1 : 5);
            if (pause > RESTART_PAUSE_MAX_S)
                pause = RESTART_PAUSE_MAX_S;
            next_start = now_s() + (double)pause;
            say("the restarted service exited without taking the mounts; "
                "next try in %ld s", pause);
        }
        if (now_s() - died_at >= keep_s) {
            if (count_held())
                say("nobody took the FUSE mounts within %.0f s: detaching "
                    "them", keep_s);
            if (restart && started == 0 && failures == 0)
                start_service(command);
            detach_all();
            break;
        }
        if (restart && started == 0 && now_s() >= next_start) {
            started = start_service(command);
            if (started < 0) {
                started = 0;
                next_start = now_s() + 1;
            }
        }
    }
    for (int i = 0; i < DANAUS_MAX_INSTANCES; i++)
        let_go(&held[i]);
    kept_list_clear(&writes);
    if (listener >= 0 && listener_path_ours)
        unlink(sa.sun_path);
    log_flush();
    return 0;
}
