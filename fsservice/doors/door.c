/*
 * door.c - the service's Unix socket: attach, thread slots, detach.
 *
 * One thread runs the door with epoll. A client connects, says hello, and
 * the door reads its credentials from the kernel (SO_PEERCRED for uid/gid/
 * pid, SO_PEERGROUPS for supplementary groups) once: nothing the client
 * says about itself is believed. The hello reply carries, with SCM_RIGHTS,
 * the service's doorbell queues, its announcement page (read-only for
 * clients, ipc.h) and a fresh area of the client's own
 * (ipc.h), whose descriptor the door closes once sent: only the client and
 * the service's mapping hold it. Its threads then ask for slots of that
 * area here. When the connection closes, however the process ended, the
 * door detaches the client: it leaves the client table, and its area, open
 * files and locks go with its last reference.
 *
 * Views fail closed: a client's view is that of the mount namespace of the
 * process that connected (views.h), found through a pidfd of that process
 * (the socket's SO_PEERPIDFD, taken by the kernel at connect; before Linux
 * 6.5, pidfd_open of its SO_PEERCRED pid at accept). A hello whose
 * namespace cannot be identified (that process has exited, or may not be
 * looked at) is refused with ESRCH or EACCES, never served with every
 * mount.
 *
 * Fair shares, so that neither one client nor one uid can deny the others
 * (core/shares.h: per uid, with a reserve kept for root and the owner):
 * connections without a hello (PENDING_*: one over the bound is closed at
 * accept, and one that has not said hello NO_HELLO_MS after its accept is
 * dropped), attachments (CLIENT_*, and PID_CLIENTS per process: a hello
 * past them is refused with EUSERS, EMFILE or EAGAIN), slots (client.h)
 * and unclaimed tickets (TICKET_*, and TICKETS_PER_PID per process:
 * EAGAIN).
 *
 * Limits, so that one client cannot deny the others: a client's view is
 * fixed at hello (client.h), and when the service runs out of descriptors the
 * door stops accepting for ACCEPT_PAUSE_MS instead of spinning on a
 * listening socket it cannot accept from (the pending connection waits in
 * the backlog; clients already attached notice nothing). A hello accepted
 * but short of a descriptor for the client's area is held, and tried again
 * every ACCEPT_PAUSE_MS for HELLO_HOLD_MS, before it is refused: the
 * descriptors of clients that just went come back a little later (their
 * open files close once no request uses them).
 */
#include "door.h"
#include "fuse_door.h"
#include "fsservice/libservice/union/union.h"
#include "fsservice/core/branches.h"
#include "ipc/ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <urcu.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* asm-generic/socket.h, Linux 6.5 */
#endif

#define MAX_CLIENTS 4096
#define CLIENT_RESERVE 32 /* for root, and as many for the owner */
#define PID_CLIENTS 16
#define HELLO_MAX (sizeof(struct danaus_hello_reply) + DANAUS_MOUNTS_BYTES)

#define MAX_TICKETS 8192
#define UID_TICKETS 1024
#define TICKET_RESERVE 64
#define TICKETS_PER_PID 32

#define MAX_PENDING 1024
#define UID_PENDING 64
#define PENDING_RESERVE 16
#define NO_HELLO_MS 3000
#define ACCEPT_PAUSE_MS 100
#define HELLO_HOLD_MS 5000

struct conn {
    int fd;
    int pidfd;             /* the peer, pinned at accept: only where the
                              kernel has no SO_PEERPIDFD, else -1 */
    struct client *client; /* after hello */
    struct ticket *claim;  /* the ticket it holds for its peer (CLAIM) */
    uid_t uid;             /* the peer's, SO_PEERCRED at accept */
    bool pending;          /* holds a SHARE_PENDING: no hello yet */
    uint64_t hello_by;     /* dropped unless attached by then (ms) */
    uint64_t held_until;   /* a held hello: answered by then (ms), or 0 */
    struct conn *next;
};

/* Handles set aside for a forked child or an exec'd image (wire.h). */
struct ticket {
    uint64_t token;
    pid_t pid; /* the process that asked */
    uid_t uid;
    time_t expires;
    /* The connection that claimed it for its peer (then it does not
     * expire, and goes with that connection), and that peer's pid. */
    struct conn *claimed_by;
    pid_t claimer;
    struct handle_table table;
    struct ticket *next;
};

/* The suffix of the socket's name while it is set up. */
#define SOCKET_NEW ".new"

static int fail(char *err, size_t errlen, const char *what, const char *path)
{
    snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
    return -1;
}

/* Whether a live service answers on path (one that died left a socket
 * file that refuses). */
static int claim_socket_path(const char *path, char *err, size_t errlen)
{
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(err, errlen, "socket for", path);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, path);
    int live = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    if (live) {
        snprintf(err, errlen, "%s: another service is running there", path);
        return -1;
    }
    return 0;
}

int door_open(struct door *d, struct service *svc, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->svc = svc;
    d->listen_fd = d->epoll_fd = d->stop_fd = -1;
    const struct config *cfg = &svc->cfg;
    int n = snprintf(d->path, sizeof d->path, "%s/%s.sock", cfg->door_dir,
                     cfg->service);
    /* The socket is made under a name of its own, then renamed over the
     * path (SOCKET_NEW): clients that start while a dead service's socket
     * is replaced find one or the other there, never none, which they
     * would take for no service at all (libfs/service.c). */
    char fresh[sizeof d->path];
    if (n < 0 || (size_t)n >= sizeof d->path ||
        snprintf(fresh, sizeof fresh, "%s%s", d->path, SOCKET_NEW) >=
            (int)sizeof fresh) {
        snprintf(err, errlen, "socket path %s/%s.sock is too long",
                 cfg->door_dir, cfg->service);
        return -1;
    }
    if (mkdir(cfg->door_dir, 0755) < 0 && errno != EEXIST)
        return fail(err, errlen, "cannot create", cfg->door_dir);
    if (claim_socket_path(d->path, err, errlen) < 0)
        return -1;
    if (unlink(fresh) < 0 && errno != ENOENT)
        return fail(err, errlen, "cannot remove stale", fresh);

    d->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, fresh);
    /* Only the tenant may connect: the socket gets the segment's owner and
     * mode before anyone can reach it (bind under a private umask). A
     * pool's users are many uids (idmap): every one may connect, and the
     * hello refuses the rest (peer_cred); who reaches the socket at all is
     * the door directory's business (the engine's is root's, 0700 above,
     * and bound only into the pool's containers). */
    mode_t old = umask(cfg->idmap.count ? 0111 : 0177);
    int rc = d->listen_fd < 0 ? -1
                              : bind(d->listen_fd, (struct sockaddr *)&sa,
                                     sizeof sa);
    umask(old);
    if (rc < 0)
        return fail(err, errlen, "cannot bind", fresh);
    if ((cfg->owner_uid != (uid_t)-1 &&
         chown(fresh, cfg->owner_uid, cfg->owner_gid) < 0) ||
        listen(d->listen_fd, 128) < 0 || rename(fresh, d->path) < 0) {
        int e = errno;
        unlink(fresh);
        errno = e;
        return fail(err, errlen, "cannot set up", d->path);
    }
    d->bound = 1;

    /* Whether the kernel gives a socket's peer as a pidfd (peer_ns). */
    int pair[2], probe;
    socklen_t plen = sizeof probe;
    d->peer_pidfd = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0) {
        if (getsockopt(pair[0], SOL_SOCKET, SO_PEERPIDFD, &probe, &plen) == 0) {
            d->peer_pidfd = 1;
            close(probe);
        }
        close(pair[0]);
        close(pair[1]);
    }

    d->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    d->stop_fd = eventfd(0, EFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    struct epoll_event stop = {.events = EPOLLIN, .data.ptr = &d->stop_fd};
    if (d->epoll_fd < 0 || d->stop_fd < 0 ||
        epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, d->listen_fd, &ev) < 0 ||
        epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, d->stop_fd, &stop) < 0)
        return fail(err, errlen, "cannot poll", d->path);
    return 0;
}

static void reply(int fd, int error, uint32_t value)
{
    struct danaus_door_reply r = {.error = error, .value = value};
    send(fd, &r, sizeof r, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* The identity requests of this peer run with. A service that is not root
 * cannot act as anyone else: it serves its own uid, and a root peer gets
 * the service's identity rather than root's. */
static int peer_cred(struct door *d, int fd, struct ls_cred *cred, pid_t *pid)
{
    struct ucred uc;
    socklen_t len = sizeof uc;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
        return -errno;
    memset(cred, 0, sizeof *cred);
    *pid = uc.pid;
    if (d->svc->euid != 0) {
        if (uc.uid != d->svc->euid && uc.uid != 0)
            return -EACCES;
        cred->uid = d->svc->euid;
        cred->gid = d->svc->egid;
        return 0;
    }
    /* With a pool's map the socket is everyone's (door_open): the door
     * attaches only the pool's users. */
    if (!idmap_admits(&d->svc->cfg.idmap, uc.uid))
        return -EACCES;
    cred->uid = uc.uid;
    cred->gid = uc.gid;
    static gid_t groups[NGROUPS_MAX]; /* door thread only */
    len = sizeof groups;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
        return -errno;
    /* Keeping fewer groups than the peer has only ever takes rights away. */
    int n = (int)(len / sizeof(gid_t));
    cred->ngroups = n < DANAUS_MAX_GROUPS ? n : DANAUS_MAX_GROUPS;
    memcpy(cred->groups, groups, (size_t)cred->ngroups * sizeof(gid_t));
    idmap_cred_in(&d->svc->cfg.idmap, cred);
    return 0;
}

static uint64_t time_ms(void);

/* An open descriptor of the mount namespace of the process that connected
 * c (views_pidfd_ns), or -errno: -ESRCH once that process is gone. */
static int peer_ns(struct door *d, struct conn *c)
{
    int pidfd;
    socklen_t len = sizeof pidfd;
    if (getsockopt(c->fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0) {
        fcntl(pidfd, F_SETFD, FD_CLOEXEC);
        int ns = views_pidfd_ns(pidfd);
        close(pidfd);
        return ns;
    }
    /* A peer that has exited has no pidfd (EINVAL before Linux 6.9). */
    if (errno != ENOPROTOOPT)
        return errno == EINVAL ? -ESRCH : -errno;
    return c->pidfd >= 0 ? views_pidfd_ns(c->pidfd) : -ESRCH;
}

/* A hello refused because the caller's namespace is not known: said in the
 * log at most once a second (a client may ask for it in a loop). */
static void say_refused(struct door *d, pid_t pid, int err)
{
    uint64_t now = time_ms();
    if (now - d->refused_said < 1000)
        return;
    d->refused_said = now;
    fprintf(stderr, "danausd: %s: hello of pid %d refused: its mount "
            "namespace cannot be identified (%s)\n", d->svc->cfg.service,
            (int)pid, strerror(err));
}

/* The client may name exactly the mounts its hello lists (count entries,
 * written by views_hello, never by the client). */
static void view_from_entries(struct client *cl, const char *p, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t index;
        memcpy(&index, p, sizeof index);
        p += sizeof index;
        if (index != DANAUS_MOUNT_KERNEL)
            client_view_add(cl, index);
        p += strlen(p) + 1;
    }
}

static uint64_t time_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The service has no room for c's hello now: whether to hold it
 * (door_main tries it again) rather than refuse it now. */
static bool hold_hello(struct door *d, struct conn *c)
{
    uint64_t now = time_ms();
    if (!c->held_until) {
        c->held_until = now + HELLO_HOLD_MS;
        d->nheld++;
    }
    return now < c->held_until;
}

static void release_hello(struct door *d, struct conn *c)
{
    if (c->held_until) {
        c->held_until = 0;
        d->nheld--;
    }
}

/* Clients attached by process pid. */
static int clients_of(struct door *d, pid_t pid)
{
    int n = 0;
    for (struct conn *c = d->conns; c; c = c->next)
        n += c->client && c->client->pid == pid;
    return n;
}

static void hello(struct door *d, struct conn *c)
{
    static char buf[HELLO_MAX];
    struct danaus_hello_reply *r = (struct danaus_hello_reply *)buf;
    memset(r, 0, sizeof *r);
    struct ls_cred cred;
    pid_t pid = 0;
    int rc = c->client ? -EPROTO : peer_cred(d, c->fd, &cred, &pid);
    /* The view first (views fail closed): the caller's namespace must be
     * known, and then has a view (its entries) or none (the host's). */
    long view = 0;
    if (rc == 0) {
        int ns = peer_ns(d, c);
        view = ns < 0 ? ns
                      : views_hello(&d->views, ns, r->mounts,
                                    HELLO_MAX - sizeof *r, &r->nmounts);
        if (ns >= 0)
            close(ns);
        if (view < 0 && view != -ENOENT) {
            rc = (int)view;
            if (rc != -EMFILE && rc != -ENFILE)
                say_refused(d, pid, -rc);
        }
    }
    /* Held, to be answered when the service has room again: out of
     * descriptors, or (EAGAIN from client_new) no client made ahead yet. */
    bool hold = rc == -EMFILE || rc == -ENFILE;
    struct shares *shares = &d->svc->clients.shares;
    if (rc == 0 && clients_of(d, pid) >= PID_CLIENTS)
        rc = -EMFILE;
    if (rc == 0)
        rc = share_take(shares, SHARE_CLIENTS, cred.uid);
    if (rc == 0) {
        c->client = client_new(&d->svc->clients, pid, &cred);
        rc = c->client ? 0 : errno ? -errno : -ENOMEM;
        hold = rc == -EMFILE || rc == -ENFILE || rc == -EAGAIN;
        if (rc < 0)
            share_give(shares, SHARE_CLIENTS, cred.uid);
    }
    if (hold && hold_hello(d, c))
        return;
    release_hello(d, c);
    /* Made on the client's own copy: a backend's state may point into
     * it (a Ceph UserPerm keeps the groups array it was given). */
    if (rc == 0 && (rc = ls_cred_init(&c->client->cred)) < 0) {
        client_detach(&d->svc->clients, c->client);
        c->client = NULL;
        share_give(shares, SHARE_CLIENTS, cred.uid);
    }
    /* The pass socket (wire.h struct danaus_pass): the service only
     * sends on its end. */
    int pass[2] = {-1, -1};
    if (rc == 0 &&
        (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pass) < 0 ||
         shutdown(pass[0], SHUT_RD) < 0)) {
        rc = -errno;
        if (pass[0] >= 0) {
            close(pass[0]);
            close(pass[1]);
        }
        client_detach(&d->svc->clients, c->client);
        c->client = NULL;
        share_give(shares, SHARE_CLIENTS, cred.uid);
    }
    size_t len = sizeof *r;
    if (rc < 0) {
        memset(r, 0, sizeof *r);
        r->error = -rc;
        send(c->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        return;
    }
    const struct ipc_geometry *g = &d->svc->clients.geo;
    d->nclients++;
    if (c->pending) {
        share_give(shares, SHARE_PENDING, c->uid);
        c->pending = false;
    }
    r->client_id = c->client->id;
    r->client_index = c->client->index;
    r->nqueues = g->nqueues;
    r->ncells = g->ncells;
    r->nslots = g->nslots;
    r->slot_buf = g->slot_buf;
    r->cache_blocks = g->cache_blocks;
    r->dirty_pages = g->dirty_pages;
    r->flags = ls_backends_cache_writes() ? DANAUS_HELLO_CACHES_WRITES : 0;
    memcpy(r->cpu_queue, g->cpu_queue, sizeof r->cpu_queue);
    if (view >= 0) {
        view_from_entries(c->client, r->mounts, r->nmounts);
        len += (size_t)view;
    } else {
        /* A namespace known to have no view: the host's table. */
        c->client->sees_all = true;
        len += fstable_list(&d->svc->fs, r->mounts, HELLO_MAX - sizeof *r,
                            &r->nmounts);
    }
    c->client->pass_fd = pass[0];
    int fds[DANAUS_HELLO_FDS] = {d->svc->seg.fd, c->client->area.fd,
                                 d->svc->announce.fd, pass[1]};
    ipc_send_fds(c->fd, buf, len, fds, DANAUS_HELLO_FDS, MSG_DONTWAIT);
    close(pass[1]);
    /* The service keeps the area's descriptor too: the area grows as the
     * client's threads take slots (ipc_area_grow). */
}

static void reply_token(int fd, int error, uint64_t token)
{
    struct danaus_door_reply r = {.error = error, .token = token};
    send(fd, &r, sizeof r, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void free_ticket(struct ticket *t)
{
    handle_table_destroy(&t->table);
    free(t);
}

/* A ticket given out leaves: its uid's share gets it back. */
static void drop_ticket(struct door *d, struct ticket *t)
{
    share_give(&d->svc->clients.shares, SHARE_TICKETS, t->uid);
    free_ticket(t);
}

/* Takes t out of the door's list (it must be there), and of its claim's
 * connection if claimed, and drops it. */
static void remove_ticket(struct door *d, struct ticket *t)
{
    if (t->claimed_by)
        t->claimed_by->claim = NULL;
    for (struct ticket **p = &d->tickets; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            d->ntickets--;
            break;
        }
    drop_ticket(d, t);
}

/* Whether exactly m->arg handles, at most DANAUS_TICKET_MAX, follow m
 * (len bytes). */
static bool handles_follow(const struct danaus_door_msg *m, size_t len)
{
    return m->arg <= DANAUS_TICKET_MAX &&
           len == sizeof *m + (size_t)m->arg * sizeof m->handles[0];
}

/* Drops tickets nobody claimed in time. */
static void expire_tickets(struct door *d)
{
    time_t now = time(NULL);
    for (struct ticket **p = &d->tickets; *p;) {
        struct ticket *t = *p;
        if (t->claimed_by || t->expires > now) {
            p = &t->next;
            continue;
        }
        *p = t->next;
        d->ntickets--;
        drop_ticket(d, t);
    }
}

/* A ticket for process pid of uid with the handles `only` of from (n of
 * them; all when only is NULL), answered on fd. A process holds
 * TICKETS_PER_PID unclaimed ones at most, a uid its share of all. */
static void new_ticket(struct door *d, int fd, pid_t pid, uid_t uid,
                       struct handle_table *from, const uint64_t *only,
                       uint32_t n)
{
    int mine = 0;
    for (struct ticket *t = d->tickets; t; t = t->next)
        mine += t->pid == pid && !t->claimed_by;
    if (mine >= TICKETS_PER_PID ||
        share_take(&d->svc->clients.shares, SHARE_TICKETS, uid) < 0) {
        reply_token(fd, EAGAIN, 0);
        return;
    }
    struct ticket *t = calloc(1, sizeof *t);
    if (!t || handle_table_init(&t->table) < 0) {
        free(t);
        share_give(&d->svc->clients.shares, SHARE_TICKETS, uid);
        reply_token(fd, ENOMEM, 0);
        return;
    }
    t->uid = uid;
    int rc = handle_table_copy(&t->table, from, only, n);
    /* A token that cannot be guessed: only the process it was given to
     * (and its children) know it. */
    if (rc == 0 && (getrandom(&t->token, sizeof t->token, 0) !=
                        sizeof t->token || t->token == 0))
        rc = -EAGAIN;
    if (rc < 0) {
        drop_ticket(d, t);
        reply_token(fd, -rc, 0);
        return;
    }
    t->pid = pid;
    t->expires = time(NULL) + DANAUS_TICKET_TTL_S;
    t->next = d->tickets;
    d->tickets = t;
    d->ntickets++;
    reply_token(fd, 0, t->token);
}

/* count handles follow the message, or all of them (DANAUS_TICKET_ALL). */
static void make_ticket(struct door *d, struct conn *c,
                        const struct danaus_door_msg *m, size_t len)
{
    uint32_t n = m->arg;
    bool all = n == DANAUS_TICKET_ALL;
    if (all ? len != sizeof *m : !handles_follow(m, len)) {
        reply_token(c->fd, EINVAL, 0);
        return;
    }
    new_ticket(d, c->fd, c->client->pid, c->client->cred.uid,
               &c->client->handles, all ? NULL : m->handles, all ? 0 : n);
}

/* The parent of pid, from /proc (field 4 of stat, after the command name,
 * which may itself hold spaces and parentheses). */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *end = strrchr(buf, ')');
    int ppid;
    if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
        return -1;
    return ppid;
}

/* The ticket of token, or NULL. */
static struct ticket *find_ticket(struct door *d, uint64_t token)
{
    for (struct ticket *t = d->tickets; t; t = t->next)
        if (t->token == token)
            return t;
    return NULL;
}

static void adopt_ticket(struct door *d, struct conn *c,
                         const struct danaus_door_msg *m)
{
    struct client *cl = c->client;
    struct ticket *t = find_ticket(d, m->token);
    /* A claimed ticket is its claimer's alone: that process (maybe in a
     * new image) attaching now. */
    if (!t || t->uid != cl->cred.uid ||
        (t->claimed_by ? t->claimer != cl->pid
                       : t->pid != cl->pid && t->pid != parent_of(cl->pid))) {
        reply(c->fd, EPERM, 0);
        return;
    }
    int rc = handle_table_copy(&cl->handles, &t->table, NULL, 0);
    if (rc == 0) {
        /* The claim's connection has done its part: it would otherwise
         * stay open, counted nowhere. Shut, not dropped here: an event of
         * it may wait in the batch being served; its hang-up drops it. */
        struct conn *claim = t->claimed_by;
        remove_ticket(d, t);
        if (claim)
            shutdown(claim->fd, SHUT_RDWR);
    }
    reply(c->fd, -rc, 0);
}

/* Whether the process that connected c is still alive (then its pid is
 * still its own). */
static bool peer_alive(struct door *d, struct conn *c)
{
    int pidfd = -1;
    socklen_t len = sizeof pidfd;
    if (d->peer_pidfd >= 0 &&
        getsockopt(c->fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
        return false; /* it has exited */
    int fd = pidfd >= 0 ? pidfd : c->pidfd;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    /* A pidfd reads as ready once its process has exited. */
    bool alive = fd >= 0 && poll(&p, 1, 0) == 0;
    if (pidfd >= 0)
        close(pidfd);
    return alive;
}

/* CLAIM (wire.h): the peer, not attached, keeps its parent's ticket (or
 * its own) through this connection. Checked as an adoption is, with the
 * peer's identity as a hello would take it; the peer must be alive after
 * its parent was read, so that what was read is its own. The connection
 * stops counting as pending: it closes when the peer execs or exits, and
 * the ticket goes with it. */
static void claim_ticket(struct door *d, struct conn *c,
                         const struct danaus_door_msg *m)
{
    struct ticket *t = find_ticket(d, m->token);
    struct ls_cred cred;
    pid_t pid = 0;
    int rc = c->client || c->claim || !t || t->claimed_by
                 ? -EPERM
                 : peer_cred(d, c->fd, &cred, &pid);
    pid_t parent = rc == 0 ? parent_of(pid) : -1;
    if (rc == 0 && !peer_alive(d, c)) {
        /* The child it was made for died before its claim was read (a
         * fork whose child exits at once): no one else knows the token
         * but that child's parent, which never claims, so the ticket
         * goes now rather than count against its parent until it
         * expires. */
        if (t->uid == cred.uid)
            remove_ticket(d, t);
        rc = -ESRCH;
    }
    if (rc == 0 && (t->uid != cred.uid || (t->pid != pid && t->pid != parent)))
        rc = -EPERM;
    if (rc < 0) {
        reply(c->fd, -rc, 0);
        return;
    }
    t->claimed_by = c;
    t->claimer = pid;
    c->claim = t;
    if (c->pending) {
        share_give(&d->svc->clients.shares, SHARE_PENDING, c->uid);
        c->pending = false;
    }
    reply(c->fd, 0, 0);
}

/* PASS (wire.h): a ticket for the new image of the connection's claimer,
 * or for a program it spawns, with `arg` handles of its claimed ticket. */
static void pass_ticket(struct door *d, struct conn *c,
                        const struct danaus_door_msg *m, size_t len)
{
    struct ticket *t = c->claim;
    if (!t || t->token != m->token || !handles_follow(m, len)) {
        reply_token(c->fd, t && t->token == m->token ? EINVAL : EPERM, 0);
        return;
    }
    new_ticket(d, c->fd, t->claimer, t->uid, &t->table, m->handles, m->arg);
}

/* Only the service's own uid, or root, may change its mounts. */
static int may_change_mounts(struct door *d, int fd)
{
    struct ucred uc;
    socklen_t len = sizeof uc;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
        return -errno;
    return uc.uid == 0 || uc.uid == d->svc->euid ? 0 : -EPERM;
}

/* The n NUL-ended strings after the header, or -EINVAL. */
static int door_strings(const struct danaus_door_msg *m, size_t len,
                        const char **out, uint32_t n)
{
    const char *p = (const char *)(m + 1), *end = (const char *)m + len;
    if (m->arg != n || n == 0)
        return -EINVAL;
    for (uint32_t i = 0; i < n; i++) {
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        if (!nul)
            return -EINVAL;
        out[i] = p;
        p = nul + 1;
    }
    return 0;
}

/* door_strings, the first a mount point. */
static int mount_strings(const struct danaus_door_msg *m, size_t len,
                         const char **out, uint32_t n)
{
    int rc = door_strings(m, len, out, n);
    if (rc < 0)
        return rc;
    /* Absolute and normalized, as the hello list must carry it. */
    const char *mp = out[0];
    if (mp[0] != '/' || strstr(mp, "//") || strstr(mp, "/./") ||
        strstr(mp, "/../") || (strlen(mp) > 1 && mp[strlen(mp) - 1] == '/'))
        return -EINVAL;
    return 0;
}

/* Adds the mount that message m (MOUNT_ADD) asks for: a union instance
 * over branches of the service's backends, or a plain one, added to the
 * table and mounted through the FUSE door, which keeps m to add it again
 * after a restart. Its index, or -errno. */
static int add_mount(struct door *d, const struct danaus_door_msg *m,
                     size_t len)
{
    const char *s[6] = {0};
    int rc = mount_strings(m, len, s, m->arg >= 5 && m->arg <= 6 ? m->arg : 4);
    bool read_only = rc == 0 && s[4] && strcmp(s[4], "ro") == 0;
    bool volatile_writes = rc == 0 && s[4] && strcmp(s[4], "volatile") == 0;
    if (rc == 0 && s[4] && !read_only && !volatile_writes &&
        strcmp(s[4], "rw") != 0)
        rc = -EINVAL;
    if (volatile_writes && !s[3][0]) /* a volume's syncs always count */
        rc = -EINVAL;
    /* The read-only branches' backend, when not the writable one's. */
    const char *lower = s[5] && rc == 0 ? s[5] : s[1];
    for (int i = 0; rc == 0 && i < 2; i++) {
        struct ls_backend *backend = ls_backend_find(i ? lower : s[1]);
        if (!backend)
            rc = -EINVAL;
        /* A backend the configuration did not start (no Ceph mount). */
        else if (!ls_backend_ready(backend))
            rc = -ENODEV;
    }
    if (rc < 0)
        return rc;
    struct config_mount cm = {
        .mountpoint = (char *)s[0],
        .backend = (char *)s[1],
        .source = (char *)s[2],
        .union_lower = (char *)s[3],
        .lower_backend = (char *)s[5],
        .volatile_writes = volatile_writes,
    };
    char err[512];
    /* No lower branches: a plain instance of the directory (a volume). */
    struct ls_instance *inst =
        s[3][0] ? union_branches_mount(&d->svc->union_branches, &cm, err,
                                       sizeof err)
                : ls_instance_new(s[1], s[2], err, sizeof err);
    if (!inst) {
        fprintf(stderr, "danausd: mount %s: %s\n", s[0], err);
        return -EINVAL;
    }
    inst->read_only = read_only;
    int index = fstable_add(&d->svc->fs, s[0], inst);
    if (index < 0) {
        union_branches_unmounted(d->svc->union_branches, inst);
        inst->ops->destroy(inst);
        return index;
    }
    rc = fuse_door_add(d->svc->fuse, d->svc, (uint32_t)index, s[0],
                       (const char *)m, len);
    if (rc < 0) {
        fstable_remove(&d->svc->fs, s[0]);
        union_branches_unmounted(d->svc->union_branches, inst);
        return rc;
    }
    announce_names(&d->svc->announce); /* its index names other files */
    fprintf(stderr, "danausd: %s mounted (mount %d)\n", s[0], index);
    return index;
}

static void mount_add(struct door *d, struct conn *c,
                      const struct danaus_door_msg *m, size_t len)
{
    int rc = may_change_mounts(d, c->fd);
    if (rc == 0)
        rc = add_mount(d, m, len);
    reply(c->fd, rc < 0 ? -rc : 0, rc < 0 ? 0 : (uint32_t)rc);
}

static void mount_remove(struct door *d, struct conn *c,
                         const struct danaus_door_msg *m, size_t len)
{
    const char *s[1];
    int rc = may_change_mounts(d, c->fd);
    if (rc == 0)
        rc = mount_strings(m, len, s, 1);
    struct ls_instance *inst = NULL;
    if (rc == 0 && (rc = fstable_find(&d->svc->fs, s[0])) >= 0) {
        rcu_read_lock();
        inst = fstable_get(&d->svc->fs, (uint32_t)rc);
        rcu_read_unlock();
        rc = fstable_remove(&d->svc->fs, s[0]);
    }
    if (rc >= 0) {
        union_branches_unmounted(d->svc->union_branches, inst);
        /* The view first: it pins the container's mount namespace, and
         * with it that namespace's copy of the FUSE mount. */
        views_drop_index(&d->views, (uint32_t)rc);
        fuse_door_remove(d->svc->fuse, (uint32_t)rc);
        hrc_forget(&d->svc->hrc, (uint32_t)rc);
        poolcache_forget_mount(&d->svc->poolcache, (uint32_t)rc);
        announce_names(&d->svc->announce);
        fprintf(stderr, "danausd: %s unmounted\n", s[0]);
        rc = 0;
    }
    reply(c->fd, -rc, 0);
}

/* The engine removed (or will remove) a read-only branch's directory: the
 * service forgets its instance, unless a mounted union uses it (EBUSY). */
static void branch_forget(struct door *d, struct conn *c,
                          const struct danaus_door_msg *m, size_t len)
{
    const char *s[2];
    int rc = may_change_mounts(d, c->fd);
    if (rc == 0)
        rc = door_strings(m, len, s, 2);
    if (rc == 0) {
        rc = union_branches_forget(d->svc->union_branches, s[0], s[1]);
        if (rc == 0)
            fprintf(stderr, "danausd: %s %s forgotten\n", s[0], s[1]);
    }
    reply(c->fd, -rc, 0);
}

/* Splits the view entry e ("PATH" or "PATH=MOUNTPOINT") into path (a
 * copy) and the index of the live mount at MOUNTPOINT (or
 * DANAUS_MOUNT_KERNEL). 0 or -errno. */
static int view_entry(struct door *d, const char *e, char **path,
                      uint32_t *index)
{
    const char *eq = strchr(e, '=');
    *index = DANAUS_MOUNT_KERNEL;
    if (eq) {
        int i = fstable_find(&d->svc->fs, eq + 1);
        if (i < 0)
            return i;
        *index = (uint32_t)i;
    }
    *path = eq ? strndup(e, (size_t)(eq - e)) : strdup(e);
    return *path ? 0 : -ENOMEM;
}

/* Gives the mount namespace open as ns_fd the view message m asks for
 * (views.h) and has the FUSE door keep it for a successor. On success the
 * view owns ns_fd. 0 or -errno. */
static int apply_view(struct door *d, const struct danaus_door_msg *m,
                      size_t len, int ns_fd)
{
    static const char *s[DANAUS_MAX_MOUNTS]; /* door thread only */
    static char *paths[DANAUS_MAX_MOUNTS];
    static uint32_t indices[DANAUS_MAX_MOUNTS];
    uint32_t n = 0;
    int rc = m->arg == 0 || m->arg > DANAUS_MAX_MOUNTS ? -EINVAL : 0;
    if (rc == 0)
        rc = mount_strings(m, len, s, m->arg);
    while (rc == 0 && n + 1 < m->arg &&
           (rc = view_entry(d, s[n + 1], &paths[n], &indices[n])) == 0)
        n++;
    int root = rc == 0 ? fstable_find(&d->svc->fs, s[0]) : rc;
    if (root >= 0)
        rc = views_set(&d->views, ns_fd, (uint32_t)root,
                       (const char *const *)paths, indices, n);
    else
        rc = root;
    for (uint32_t i = 0; i < n; i++)
        free(paths[i]);
    if (rc == 0)
        fuse_door_keep_view(d->svc->fuse, (uint32_t)root, m, len, ns_fd);
    return rc;
}

/* The caller's mount namespace gets a view: the instance at the mount
 * point the strings name first at "/", then paths left to the kernel or
 * given an instance (wire.h). */
static void set_view(struct door *d, struct conn *c,
                     const struct danaus_door_msg *m, size_t len)
{
    int rc = may_change_mounts(d, c->fd);
    int ns_fd = rc == 0 ? peer_ns(d, c) : rc;
    rc = ns_fd < 0 ? ns_fd : apply_view(d, m, len, ns_fd);
    if (rc < 0 && ns_fd >= 0)
        close(ns_fd);
    reply(c->fd, -rc, 0);
}

void door_restore_mounts(struct door *d)
{
    struct fuse_door *fuse = d->svc->fuse;
    for (int i = 0; i < fuse_door_kept_count(fuse); i++) {
        size_t len;
        const char *spec = fuse_door_kept_spec(fuse, i, &len);
        if (!spec || len < sizeof(struct danaus_door_msg))
            continue;
        /* A copy, aligned as a message. */
        struct danaus_door_msg *m = malloc(len);
        if (!m)
            break;
        memcpy(m, spec, len);
        int rc = add_mount(d, m, len);
        if (rc < 0)
            fprintf(stderr, "danausd: a mount of the previous service "
                    "cannot be added again: %s\n", strerror(-rc));
        free(m);
    }
    /* Views name their volumes' mount points: after every mount. */
    for (int i = 0; i < fuse_door_kept_count(fuse); i++) {
        const char *view;
        size_t len;
        int ns_fd = fuse_door_kept_view(fuse, i, &view, &len);
        if (ns_fd < 0)
            continue;
        struct danaus_door_msg *m = len >= sizeof *m ? malloc(len) : NULL;
        int rc = m ? 0 : -EINVAL;
        if (m) {
            memcpy(m, view, len);
            rc = apply_view(d, m, len, ns_fd);
            free(m);
        }
        if (rc < 0) {
            fprintf(stderr, "danausd: a container's view cannot be set "
                    "again: %s\n", strerror(-rc));
            close(ns_fd);
        }
    }
    fuse_door_release_kept(fuse);
}

/* What the preload door served of one mount, or of all ("" names all). */
static void send_stats(struct door *d, struct conn *c,
                       const struct danaus_door_msg *m, size_t len)
{
    const char *s[1];
    struct danaus_stats_reply r = {0};
    int rc = may_change_mounts(d, c->fd);
    if (rc == 0 && m->arg == 1 && len > sizeof *m &&
        ((const char *)(m + 1))[0] == '\0')
        for (uint32_t i = 0; i < DANAUS_MAX_INSTANCES; i++)
            stats_read(&d->svc->stats, i, &r);
    else if (rc == 0 && (rc = mount_strings(m, len, s, 1)) == 0 &&
             (rc = fstable_find(&d->svc->fs, s[0])) >= 0)
        stats_read(&d->svc->stats, (uint32_t)rc, &r);
    r.error = rc < 0 ? -rc : 0;
    send(c->fd, &r, sizeof r, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* The curve of the m->arg-th mount the service tracks (hrc.h). */
static void send_hrc(struct door *d, struct conn *c,
                     const struct danaus_door_msg *m)
{
    static struct danaus_hrc_reply r; /* door thread only */
    static struct reuse_curve curve;
    uint32_t mount = 0;
    memset(&r, 0, sizeof r);
    int rc = may_change_mounts(d, c->fd);
    if (rc == 0)
        rc = hrc_get(&d->svc->hrc, m->arg, &mount, &curve);
    /* A mount removed since: its tracker is being handed back. */
    if (rc == 0 && fstable_mountpoint(&d->svc->fs, mount, r.mountpoint,
                                      sizeof r.mountpoint) < 0)
        rc = -ESTALE;
    if (rc == 0) {
        r.samples = curve.samples;
        r.reads = curve.reads;
        r.rate_ppb = (uint64_t)(curve.rate * 1e9 + 0.5);
        hrc_curve_ppm(&curve, r.hit_ppm);
        struct poolcache_mount_stats pool =
            poolcache_stats(&d->svc->poolcache, mount);
        r.cache_pages = pool.pages;
        r.cache_reserve = pool.reserve;
        r.cache_hits = pool.hits;
        r.cache_misses = pool.misses;
    }
    r.error = rc < 0 ? -rc : 0;
    send(c->fd, &r, sizeof r, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void handle_message(struct door *d, struct conn *c,
                           const struct danaus_door_msg *m, size_t len)
{
    if (m->version != DANAUS_WIRE_VERSION) {
        reply(c->fd, EPROTO, 0);
        return;
    }
    if (m->op == DANAUS_DOOR_HELLO) {
        hello(d, c);
        return;
    }
    if (m->op == DANAUS_DOOR_MOUNT_ADD) {
        mount_add(d, c, m, len);
        return;
    }
    if (m->op == DANAUS_DOOR_MOUNT_REMOVE) {
        mount_remove(d, c, m, len);
        return;
    }
    if (m->op == DANAUS_DOOR_BRANCH_FORGET) {
        branch_forget(d, c, m, len);
        return;
    }
    if (m->op == DANAUS_DOOR_VIEW) {
        set_view(d, c, m, len);
        return;
    }
    if (m->op == DANAUS_DOOR_STATS) {
        send_stats(d, c, m, len);
        return;
    }
    if (m->op == DANAUS_DOOR_HRC) {
        send_hrc(d, c, m);
        return;
    }
    if (m->op == DANAUS_DOOR_CLAIM) {
        claim_ticket(d, c, m);
        return;
    }
    if (m->op == DANAUS_DOOR_PASS) {
        pass_ticket(d, c, m, len);
        return;
    }
    if (!c->client) {
        reply(c->fd, EPROTO, 0);
        return;
    }
    int rc;
    switch (m->op) {
    case DANAUS_DOOR_SLOT_GET:
        rc = slot_assign(&d->svc->clients, c->client);
        reply(c->fd, rc < 0 ? -rc : 0, rc < 0 ? 0 : (uint32_t)rc);
        return;
    case DANAUS_DOOR_SLOT_PUT:
        rc = slot_release(&d->svc->clients, c->client, m->arg);
        reply(c->fd, -rc, 0);
        return;
    case DANAUS_DOOR_TICKET:
        make_ticket(d, c, m, len);
        return;
    case DANAUS_DOOR_ADOPT:
        adopt_ticket(d, c, m);
        return;
    default:
        reply(c->fd, EINVAL, 0);
    }
}

static void drop(struct door *d, struct conn *c)
{
    epoll_ctl(d->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    if (c->pidfd >= 0)
        close(c->pidfd);
    release_hello(d, c);
    if (c->claim)
        remove_ticket(d, c->claim);
    struct shares *shares = &d->svc->clients.shares;
    if (c->pending)
        share_give(shares, SHARE_PENDING, c->uid);
    if (c->client) {
        uid_t uid = c->client->cred.uid;
        client_detach(&d->svc->clients, c->client);
        share_give(shares, SHARE_CLIENTS, uid);
        d->nclients--;
    }
    for (struct conn **p = &d->conns; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    free(c);
}

/* Stops or resumes polling the listening socket. */
static void listen_poll(struct door *d, bool on)
{
    struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.ptr = NULL};
    epoll_ctl(d->epoll_fd, EPOLL_CTL_MOD, d->listen_fd, &ev);
    d->accept_paused = !on;
    d->accept_resume = time_ms() + ACCEPT_PAUSE_MS;
}

static void accept_one(struct door *d)
{
    int fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
        /* Out of descriptors: the connection stays pending and the socket
         * readable, so polling it again at once would spin. */
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
            errno == ENOMEM)
            listen_poll(d, false);
        return;
    }
    /* A uid's connections without a hello past its share are closed at
     * once: the client sees the door hang up. */
    struct ucred uc;
    socklen_t len = sizeof uc;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0 ||
        share_take(&d->svc->clients.shares, SHARE_PENDING, uc.uid) < 0) {
        close(fd);
        return;
    }
    struct conn *c = calloc(1, sizeof *c);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (!c || epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        free(c);
        close(fd);
        share_give(&d->svc->clients.shares, SHARE_PENDING, uc.uid);
        return;
    }
    c->fd = fd;
    c->pidfd = -1;
    c->uid = uc.uid;
    c->pending = true;
    c->hello_by = time_ms() + NO_HELLO_MS;
    /* A kernel without SO_PEERPIDFD: the peer is pinned now, by the pid
     * it connected with (the narrowest window there is without it). */
    if (d->peer_pidfd < 0)
        c->pidfd = pidfd_open(uc.pid, 0);
    c->next = d->conns;
    d->conns = c;
}

/* Drops the connections that did not say hello in time (a held hello has
 * its own bound, HELLO_HOLD_MS). */
static void drop_silent(struct door *d)
{
    if (!d->svc->clients.shares.used[SHARE_PENDING])
        return;
    uint64_t now = time_ms();
    for (struct conn *c = d->conns, *next; c; c = next) {
        next = c->next;
        if (c->pending && !c->held_until && now >= c->hello_by)
            drop(d, c);
    }
}

static void serve(struct door *d, struct conn *c)
{
    /* Door thread only; the largest message is a TICKET with its list. */
    static union {
        struct danaus_door_msg m;
        char bytes[sizeof(struct danaus_door_msg) +
                   DANAUS_TICKET_MAX * sizeof(uint64_t)];
    } buf;
    ssize_t n = recv(c->fd, &buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        drop(d, c);
        return;
    }
    if (n < 0)
        return;
    if (n < (ssize_t)sizeof buf.m || n > (ssize_t)sizeof buf) {
        reply(c->fd, EINVAL, 0);
        return;
    }
    handle_message(d, c, &buf.m, (size_t)n);
}

/* The epoll mark of the spares thread's descriptor (client.h). */
static char spare_made;

/* The held hellos, asked again: a client was made, or time passed. */
static void hellos_again(struct door *d)
{
    uint64_t count;
    int made = client_spares_fd(&d->svc->clients);
    if (made >= 0) {
        ssize_t n = read(made, &count, sizeof count); /* EAGAIN: none */
        (void)n;
    }
    for (struct conn *c = d->conns; c && d->nheld; c = c->next)
        if (c->held_until)
            hello(d, c);
}

static void *door_main(void *arg)
{
    struct door *d = arg;
    /* Named for tools and tests that look at the door's thread alone. */
    prctl(PR_SET_NAME, "danaus-door");
    for (;;) {
        struct epoll_event ev[32];
        /* Wake now and then while tickets wait, to expire them, and while
         * accepting is paused or hellos are held. */
        int timeout =
            d->accept_paused || d->nheld ? ACCEPT_PAUSE_MS
            : d->svc->clients.shares.used[SHARE_PENDING] ? NO_HELLO_MS / 4
            : d->tickets                                 ? 1000
                                                         : -1;
        int n = epoll_wait(d->epoll_fd, ev, 32, timeout);
        for (int i = 0; i < n; i++) {
            void *p = ev[i].data.ptr;
            if (p == &d->stop_fd)
                return NULL;
            if (p == &spare_made)
                hellos_again(d);
            else if (p == NULL)
                accept_one(d);
            else
                serve(d, p);
        }
        /* The sweeps walk every ticket and connection: not at every
         * event, or a client connecting over and over would have the door
         * thread (at the service's priority) walk thousands of them per
         * connection, taking a cpu from everyone's round trips. */
        uint64_t now = time_ms();
        if (now >= d->next_sweep) {
            d->next_sweep = now + ACCEPT_PAUSE_MS;
            expire_tickets(d);
            drop_silent(d);
            hellos_again(d);
        }
        if (d->accept_paused && now >= d->accept_resume)
            listen_poll(d, true);
    }
}

int door_start(struct door *d)
{
    struct shares *s = &d->svc->clients.shares;
    uint32_t uid_clients = d->svc->cfg.uid_clients ? d->svc->cfg.uid_clients
                                                   : MAX_CLIENTS;
    shares_bound(s, SHARE_CLIENTS, MAX_CLIENTS, uid_clients, CLIENT_RESERVE);
    shares_bound(s, SHARE_TICKETS, MAX_TICKETS, UID_TICKETS, TICKET_RESERVE);
    shares_bound(s, SHARE_PENDING, MAX_PENDING, UID_PENDING, PENDING_RESERVE);
    int made = client_spares_fd(&d->svc->clients);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &spare_made};
    if (made >= 0 && epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, made, &ev) < 0)
        return -errno;
    return -pthread_create(&d->thread, NULL, door_main, d);
}

void door_stop(struct door *d)
{
    uint64_t one = 1;
    if (write(d->stop_fd, &one, sizeof one) == sizeof one)
        pthread_join(d->thread, NULL);
    while (d->conns)
        drop(d, d->conns);
    while (d->tickets) {
        struct ticket *t = d->tickets;
        d->tickets = t->next;
        drop_ticket(d, t);
    }
    d->ntickets = 0;
    views_destroy(&d->views);
}

void door_close(struct door *d)
{
    if (d->bound)
        unlink(d->path);
    if (d->listen_fd >= 0)
        close(d->listen_fd);
    if (d->epoll_fd >= 0)
        close(d->epoll_fd);
    if (d->stop_fd >= 0)
        close(d->stop_fd);
}
