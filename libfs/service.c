/*
 * service.c - the connection to danausd (see service.h).
 *
 * Connecting runs once, on the first call of any thread: find the socket
 * from the environment, say hello, map the queues and our own area whose
 * descriptors come with the reply (SCM_RIGHTS), keep the mount table, and adopt the ticket of a parent or a previous program
 * image if one is pending (proc.c). The door socket then stays open: the
 * service learns of our exit from its hang-up, and we of its exit from ours.
 * A forked child forgets the connection and makes its own: the atfork
 * handlers (proc.c) see to it, and a child forked without them (a raw
 * clone or fork system call) finds out from a word the kernel zeroed for
 * it. It never inherits our area's mapping (ipc.h) either way.
 *
 * When the door hangs up, the first thread to need the service waits for
 * a new one at the same socket (DANAUS_RESTART_WAIT_MS, default 10 s) and
 * attaches to it; resume.c then opens the descriptors again. A connection
 * is one struct service: a new one is published whole (current), and the
 * dead one's memory and mappings stay until CONNS connections later, so a
 * thread still holding it reads valid memory and finds it gone.
 */
#include "service.h"
#include "identity.h"
#include "proc.h"
#include "resume.h"
#include "sys.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Connections in turn: a dead one is reused CONNS - 1 connections after
 * it was replaced. */
#define CONNS 4
#define RESTART_WAIT_DEFAULT_MS 10000
#define RESTART_RETRY_MS 20

static struct service conns[CONNS] = {[0 ... CONNS - 1] = {.door = -1,
                                                            .pass = -1}};
static unsigned next_conn;
static _Atomic(struct service *) current;
static uint64_t generations; /* under connect_lock */
/* Restarts this process has lived through: kept by forked children, whose
 * descriptors are their parent's. */
static uint32_t epoch_now;
/* Not pthread_once: a forked child must be able to connect again. */
static pthread_mutex_t connect_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool tried;
static pthread_mutex_t door_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t pending_ticket;
/* The connection through which a forked child that has not attached keeps
 * its ticket (-1: none), and whether the CLAIM's answer is still to be
 * read on it. */
static int claim_door = -1;
static bool claim_answer_due;
/* In a forked child: its parent's connection (unmapped), whose mounts and
 * epoch name the descriptors it inherited. Its slot of conns is not the
 * one the child's first connection takes (connect_service). */
static const struct service *parent_conn;
static bool reopen_due; /* under connect_lock */
/* 1 while this process holds the connection; the kernel zeroes it in every
 * forked child (MADV_WIPEONFORK). NULL if that cannot be had. */
static atomic_int *attached_here;
/* Set in the thread that resumes descriptors: its own calls must not wait
 * for a resume (it holds connect_lock). */
static __thread bool resuming;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static long restart_wait_ms(void)
{
    const char *v = getenv(DANAUS_ENV_RESTART_WAIT);
    if (!v || !*v)
        return RESTART_WAIT_DEFAULT_MS;
    char *end;
    long ms = strtol(v, &end, 10);
    return *end || ms < 0 ? RESTART_WAIT_DEFAULT_MS : ms;
}

/* A check is a poll of the door, made at most once a millisecond or so;
 * the clock is the coarse one (a few milliseconds' resolution), so a
 * process notices a dead service within a few milliseconds of cached
 * answers. Any event on the door (its hang-up, or an answer another
 * thread waits for) counts as not seen alive. */
#define SEEN_ALIVE_NS 1000000u

static _Atomic uint64_t seen_alive_ns;

bool service_seen_alive(const struct service *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (now - atomic_load_explicit(&seen_alive_ns, memory_order_relaxed) <
        SEEN_ALIVE_NS)
        return true;
    if (sys_poll_now(s->door, POLLIN) != 0)
        return false;
    atomic_store_explicit(&seen_alive_ns, now, memory_order_relaxed);
    return true;
}

static void conn_unmap(struct service *s)
{
    if (s->door >= 0)
        sys_close(s->door);
    s->door = -1;
    if (s->pass >= 0)
        sys_close(s->pass);
    s->pass = -1;
    if (s->mapped) {
        ipc_queues_unmap(&s->seg);
        ipc_area_unmap(&s->area);
        ipc_announce_unmap(s->announce);
        s->announce = NULL;
    }
    s->mapped = false;
}

/* The socket path from DANAUS_SERVICE / DANAUS_RUNDIR. */
static int socket_path(struct sockaddr_un *addr)
{
    const char *name = getenv(DANAUS_ENV_SERVICE);
    if (!name || !*name)
        return -1;
    int n;
    if (strchr(name, '/')) {
        n = snprintf(addr->sun_path, sizeof addr->sun_path, "%s", name);
    } else {
        const char *dir = getenv(DANAUS_ENV_RUNDIR);
        if (!dir || !*dir)
            dir = DANAUS_DEFAULT_RUNDIR;
        n = snprintf(addr->sun_path, sizeof addr->sun_path, "%s/%s.sock",
                     dir, name);
    }
    if (n < 0 || (size_t)n >= sizeof addr->sun_path)
        return -1;
    addr->sun_family = AF_UNIX;
    return 0;
}

/* Moves the library's own descriptor out of the application's way, near
 * the top of the descriptor table: shells and daemons dup2 onto low
 * numbers ("exec 3>file") and would otherwise replace our connection. */
static int move_high(int fd)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur < 256)
        return fd;
    rlim_t floor = lim.rlim_cur > 65536 ? 65536 : lim.rlim_cur;
    int high = sys_fcntl(fd, F_DUPFD_CLOEXEC, (long)(floor - floor / 8));
    if (high < 0)
        return fd;
    sys_close(fd);
    return high;
}

/* A socket of ours connected to the door, out of the application's way:
 * its descriptor, or -1 (errno says why, but for no socket path). */
static int door_connect(void)
{
    struct sockaddr_un addr = {0};
    if (socket_path(&addr) < 0)
        return -1;
    int door = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (door < 0)
        return -1;
    door = move_high(door);
    if (connect(door, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int err = errno;
        sys_close(door);
        errno = err;
        return -1;
    }
    return door;
}

/* Maps the queues (fds[0]), our area (fds[1]) and the announcement page
 * (fds[2]) the reply describes.
 * The mappings are all we keep: the caller closes the descriptors, so no
 * descriptor of ours sits in the application's table. */
static int map_shared(struct service *s, const struct danaus_hello_reply *r,
                      const int *fds)
{
    struct ipc_geometry g = {.nqueues = r->nqueues, .ncells = r->ncells,
                             .nslots = r->nslots, .slot_buf = r->slot_buf,
                             .cache_blocks = r->cache_blocks,
                             .dirty_pages = r->dirty_pages};
    memcpy(g.cpu_queue, r->cpu_queue, sizeof g.cpu_queue);
    if (ipc_queues_map(fds[0], &g, &s->seg) != 0)
        return -1;
    s->seg.fd = -1;
    if (ipc_area_map(fds[1], &g, &s->area) != 0) {
        ipc_queues_unmap(&s->seg);
        return -1;
    }
    s->area.fd = -1;
    if (ipc_announce_map(fds[2], &s->announce) != 0) {
        ipc_area_unmap(&s->area);
        ipc_queues_unmap(&s->seg);
        return -1;
    }
    s->mapped = true;
    memcpy(s->cpu_queue, g.cpu_queue, sizeof s->cpu_queue);
    return 0;
}

/* Checks the hello reply and takes the queues, our area and the mount
 * table from it. */
static int take_hello(struct service *s, const struct danaus_hello_reply *r,
                      size_t len, const int *fds)
{
    if (len < sizeof *r || r->error != 0 || r->nmounts > DANAUS_MAX_MOUNTS)
        return -1;
    const char *p = r->mounts;
    const char *end = (const char *)r + len;
    for (uint32_t i = 0; i < r->nmounts; i++) {
        uint32_t index;
        if ((size_t)(end - p) < sizeof index)
            return -1;
        memcpy(&index, p, sizeof index); /* not aligned (wire.h) */
        p += sizeof index;
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        if (!nul || mount_table_add(&s->mounts, p, index) < 0)
            return -1;
        p = nul + 1;
    }
    if (map_shared(s, r, fds) != 0)
        return -1;
    s->client_id = r->client_id;
    s->client_index = r->client_index;
    s->flags = r->flags;
    return 0;
}

static int say_hello(struct service *s, int door)
{
    struct danaus_door_msg hello = {
        .op = DANAUS_DOOR_HELLO, .version = DANAUS_WIRE_VERSION};
    if (send(door, &hello, sizeof hello, MSG_NOSIGNAL) != sizeof hello)
        return -1;
    /* Static, not malloc'ed: connecting may happen inside an allocator's
     * initialisation (see mounts.h). Only one thread ever connects. */
    static union {
        struct danaus_hello_reply r;
        char bytes[sizeof(struct danaus_hello_reply) + DANAUS_MOUNTS_BYTES];
    } buf;
    struct danaus_hello_reply *reply = &buf.r;
    union {
        struct cmsghdr h;
        char bytes[CMSG_SPACE(DANAUS_HELLO_FDS * sizeof(int))];
    } control;
    struct iovec iov = {reply, sizeof buf};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1,
                         .msg_control = control.bytes,
                         .msg_controllen = sizeof control.bytes};
    ssize_t n = recvmsg(door, &msg, MSG_CMSG_CLOEXEC);
    int fds[DANAUS_HELLO_FDS] = {-1, -1, -1, -1};
    struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
        cm->cmsg_len == CMSG_LEN(sizeof fds))
        memcpy(fds, CMSG_DATA(cm), sizeof fds);
    int rc = -1;
    if (n > 0 && !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && fds[3] >= 0)
        rc = take_hello(s, reply, (size_t)n, fds);
    if (rc == 0) {
        s->pass = move_high(fds[3]);
        fds[3] = -1;
    }
    for (int i = 0; i < DANAUS_HELLO_FDS; i++)
        if (fds[i] >= 0)
            sys_close(fds[i]);
    /* A service that hung up before answering died meanwhile (see
     * connect_first); a refusal says why (its error: ESRCH, EUSERS, ...);
     * any other failure is a reply we cannot use. */
    if (rc < 0)
        errno = n == 0 ? ECONNRESET
                : n < 0 ? errno
                : (size_t)n >= sizeof *reply && reply->error > 0
                    ? reply->error
                    : EPROTO;
    return rc;
}

static void mark_attached(void)
{
    if (!attached_here) {
        void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page != MAP_FAILED && madvise(page, 4096, MADV_WIPEONFORK) == 0)
            attached_here = page;
        else if (page != MAP_FAILED)
            munmap(page, 4096);
    }
    if (attached_here)
        atomic_store_explicit(attached_here, 1, memory_order_relaxed);
}

/* Attaches to the service as connection number epoch and publishes it;
 * NULL when it cannot be reached. Under connect_lock. */
static struct service *connect_service(uint32_t epoch)
{
    identity_remember(); /* what SO_PEERCRED is about to record */
    struct service *s = &conns[next_conn % CONNS];
    conn_unmap(s); /* a connection CONNS - 1 restarts old */
    mount_table_clear(&s->mounts);
    int door = door_connect();
    if (door < 0 || say_hello(s, door) < 0) {
        int err = errno;
        conn_unmap(s);
        if (door >= 0)
            sys_close(door);
        errno = err;
        return NULL;
    }
    next_conn++;
    s->door = door;
    s->generation = ++generations;
    s->epoch = epoch;
    s->give_up_ms = 0;
    atomic_store(&s->gone, false);
    mark_attached();
    atomic_store_explicit(&current, s, memory_order_release);
    return s;
}

static void nap(void)
{
    struct timespec ts = {0, RESTART_RETRY_MS * 1000000L};
    nanosleep(&ts, NULL);
}

/* Whether a failed attach (errno err) met a service that died: a socket
 * a killed service left refuses (ECONNREFUSED), one dying under us hangs
 * up (ECONNRESET, EPIPE). No socket at all is no service. */
static bool service_died(int err)
{
    return err == ECONNREFUSED || err == ECONNRESET || err == EPIPE;
}

/* A forked child whose ticket is gone when it attaches (its service was
 * restarted since the fork, or the ticket was never claimed in time)
 * opens what it inherited again by path, as a restart would have: its
 * connection counts as the parent's successor. Under connect_lock. */
static void reopen_inherited(void)
{
    struct service *s = atomic_load(&current);
    s->epoch = parent_conn->epoch + 1;
    epoch_now = s->epoch;
    resuming = true;
    resume_descriptors(parent_conn, s);
    resuming = false;
}

/* The first connection of this process (or of a forked child). A process
 * started while its service restarts waits for it as a running one does;
 * without a service it fails at once. */
static void connect_first(void)
{
    /* An exec'd image must know its ticket before it says hello. */
    proc_inherit();
    bool restarting = false;
    uint64_t until = 0;
    while (!connect_service(epoch_now)) {
        if (service_died(errno) && !restarting) {
            restarting = true;
            until = now_ms() + (uint64_t)restart_wait_ms();
        }
        if (!restarting || now_ms() >= until)
            return;
        nap();
    }
    if (pending_ticket) {
        uint64_t token = pending_ticket;
        pending_ticket = 0;
        reopen_due = service_door_adopt(token) != 0 && parent_conn;
    }
    /* Adopted (or gone): the claim's connection has done its part. */
    if (claim_door >= 0)
        sys_close(claim_door);
    claim_door = -1;
}

/* Connects once; the flags are published after the attempt, under the
 * lock, so a thread that sees tried sees its outcome too. */
static void connect_once(void)
{
    if (atomic_load_explicit(&tried, memory_order_acquire))
        return;
    pthread_mutex_lock(&connect_lock);
    if (!atomic_load_explicit(&tried, memory_order_relaxed)) {
        connect_first();
        atomic_store_explicit(&tried, true, memory_order_release);
        /* After tried: the reopening's own calls find the connection. */
        if (reopen_due)
            reopen_inherited();
        reopen_due = false;
    }
    pthread_mutex_unlock(&connect_lock);
}

/* dead's service is gone: attach to its successor, waiting for one to
 * appear for up to the restart wait (every thread that finds dead gone
 * waits for the same deadline; after it, each call tries once more), and
 * open our descriptors there. Under connect_lock. */
static struct service *replace(struct service *dead)
{
    uint64_t now = now_ms();
    if (!dead->give_up_ms)
        dead->give_up_ms = now + (uint64_t)restart_wait_ms();
    struct service *s;
    while (!(s = connect_service(dead->epoch + 1)) &&
           now_ms() < dead->give_up_ms)
        nap();
    if (!s)
        return NULL;
    epoch_now = s->epoch;
    resuming = true;
    resume_descriptors(dead, s);
    resuming = false;
    return s;
}

const struct service *service_resume(const struct service *dead)
{
    if (resuming) {
        errno = ENOTCONN;
        return NULL;
    }
    pthread_mutex_lock(&connect_lock);
    struct service *s = atomic_load(&current);
    if (s == dead && s && atomic_load(&s->gone))
        s = replace(s);
    pthread_mutex_unlock(&connect_lock);
    if (!s || atomic_load(&s->gone)) {
        errno = ENOTCONN;
        return NULL;
    }
    return s;
}

void service_wait_resumed(void)
{
    if (resuming)
        return;
    pthread_mutex_lock(&connect_lock);
    pthread_mutex_unlock(&connect_lock);
}

const struct service *service_get(void)
{
    struct service *s = atomic_load_explicit(&current, memory_order_acquire);
    if (s && attached_here &&
        !atomic_load_explicit(attached_here, memory_order_relaxed))
        service_forget(); /* a child forked past our atfork handlers */
    connect_once();
    s = atomic_load_explicit(&current, memory_order_acquire);
    if (!s) {
        errno = ENOTCONN;
        return NULL;
    }
    if (atomic_load_explicit(&s->gone, memory_order_relaxed))
        return service_resume(s);
    return s;
}

const struct service *service_peek(void)
{
    struct service *s = atomic_load_explicit(&current, memory_order_acquire);
    return s && !atomic_load(&s->gone) ? s : NULL;
}

bool service_connected(void)
{
    return atomic_load_explicit(&current, memory_order_acquire) != NULL;
}

const struct mount_table *service_mounts(void)
{
    int saved = errno;
    connect_once();
    errno = saved;
    struct service *s = atomic_load_explicit(&current, memory_order_acquire);
    return s ? &s->mounts : NULL;
}

bool service_alive(void *arg)
{
    struct service *s = arg;
    if (atomic_load(&s->gone))
        return false;
    struct pollfd p = {.fd = s->door, .events = POLLIN};
    if (poll(&p, 1, 0) < 0)
        return true; /* EINTR: no news */
    bool dead = p.revents & (POLLHUP | POLLERR | POLLNVAL);
    if (!dead && (p.revents & POLLIN)) {
        /* Readable with nothing to read is end-of-file: a pending door
         * reply (another thread's) reads as at least one byte. */
        char byte;
        dead = recv(s->door, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
    }
    if (dead)
        atomic_store(&s->gone, true);
    return !dead;
}

bool service_gone(const struct service *s)
{
    return atomic_load(&s->gone);
}

/* Passes (wire.h danaus_pass) that a thread received for another: each
 * thread that was told its file was passed takes its own from here or
 * from the socket, under pass_lock. At most one per thread is ever in
 * flight. */
#define PASS_STASH 64
static struct {
    uint64_t handle, generation;
    int fd; /* -1: free */
} stash[PASS_STASH] = {[0 ... PASS_STASH - 1] = {.fd = -1}};
static pthread_mutex_t pass_lock = PTHREAD_MUTEX_INITIALIZER;

/* Takes the stash's pass for handle on s; -1 if none. Forgets (closes)
 * those of an older connection on the way. Under pass_lock. */
static int stash_take(const struct service *s, uint64_t handle)
{
    int fd = -1;
    for (int i = 0; i < PASS_STASH; i++) {
        if (stash[i].fd < 0)
            continue;
        if (stash[i].generation != s->generation) {
            sys_close(stash[i].fd);
            stash[i].fd = -1;
        } else if (fd < 0 && stash[i].handle == handle) {
            fd = stash[i].fd;
            stash[i].fd = -1;
        }
    }
    return fd;
}

/* Keeps another thread's pass; closes it when the stash is full (its
 * thread then reads through the service). Under pass_lock. */
static void stash_put(const struct service *s, uint64_t handle, int fd)
{
    for (int i = 0; i < PASS_STASH; i++)
        if (stash[i].fd < 0) {
            stash[i].handle = handle;
            stash[i].generation = s->generation;
            stash[i].fd = fd;
            return;
        }
    sys_close(fd);
}

/* One pass from the socket: its descriptor (close-on-exec) and handle,
 * or -1 when none is there whole. */
static int pass_recv(int sock, uint64_t *handle)
{
    struct danaus_pass pass;
    for (;;) {
        int fd, got;
        ssize_t n = ipc_recv_fds(sock, &pass, sizeof pass, &fd, 1, &got,
                                 MSG_DONTWAIT);
        if (n == sizeof pass && got == 1) {
            *handle = pass.handle;
            return fd;
        }
        if (got == 1) /* not a whole pass: the service's to get right */
            sys_close(fd);
        if (n == 0 || (n < 0 && errno != EMSGSIZE))
            return -1;
    }
}

int service_take_pass(const struct service *s, uint64_t handle, bool cloexec)
{
    int saved = errno;
    pthread_mutex_lock(&pass_lock);
    int fd = stash_take(s, handle);
    while (fd < 0 && s->pass >= 0) {
        uint64_t whose;
        int got = pass_recv(s->pass, &whose);
        if (got < 0)
            break;
        if (whose == handle)
            fd = got;
        else
            stash_put(s, whose, got);
    }
    pthread_mutex_unlock(&pass_lock);
    if (fd >= 0 && !cloexec && sys_fcntl(fd, F_SETFD, 0) < 0) {
        sys_close(fd);
        fd = -1;
    }
    errno = saved;
    return fd;
}

/* One door reply on fd: 0, or -1 when none came whole. */
static int recv_reply(int fd, struct danaus_door_reply *reply)
{
    ssize_t n;
    do
        n = recv(fd, reply, sizeof *reply, 0);
    while (n < 0 && errno == EINTR);
    return n == sizeof *reply ? 0 : -1;
}

/* Sends msg (len bytes) on fd and receives its reply: 0, or -1. */
static int exchange(int fd, const struct danaus_door_msg *msg, size_t len,
                    struct danaus_door_reply *reply)
{
    ssize_t n;
    do
        n = send(fd, msg, len, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? recv_reply(fd, reply) : -1;
}

/* Sends msg (len bytes) and receives the reply, serialized with other
 * threads. 0 or an errno. */
static int door_exchange(const struct service *s,
                         const struct danaus_door_msg *msg, size_t len,
                         struct danaus_door_reply *reply)
{
    pthread_mutex_lock(&door_lock);
    int rc = exchange(s->door, msg, len, reply);
    pthread_mutex_unlock(&door_lock);
    if (rc < 0) {
        atomic_store(&((struct service *)s)->gone, true);
        return ENOTCONN;
    }
    return reply->error;
}

int service_door(uint32_t op, uint32_t arg, uint32_t *value)
{
    const struct service *s = service_get();
    if (!s)
        return ENOTCONN;
    struct danaus_door_msg msg = {
        .op = op, .version = DANAUS_WIRE_VERSION, .arg = arg};
    struct danaus_door_reply reply;
    int err = door_exchange(s, &msg, sizeof msg, &reply);
    if (err == 0)
        *value = reply.value;
    return err;
}

/* The one buffer of the messages that carry handles (TICKET, PASS):
 * static, not on the stack (a vfork child may send one), used under
 * handles_lock like the exchange itself. */
static union {
    struct danaus_door_msg m;
    char bytes[sizeof(struct danaus_door_msg) +
               DANAUS_TICKET_MAX * sizeof(uint64_t)];
} handles_buf;
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;

/* Fills handles_buf with op (arg, token) and the n handles after it: its
 * length. */
static size_t handles_message(uint32_t op, uint32_t arg, uint64_t token,
                              const uint64_t *handles, uint32_t n)
{
    handles_buf.m = (struct danaus_door_msg){.op = op,
                                             .version = DANAUS_WIRE_VERSION,
                                             .arg = arg,
                                             .token = token};
    if (n)
        memcpy(handles_buf.m.handles, handles, n * sizeof handles[0]);
    return sizeof handles_buf.m + n * sizeof handles[0];
}

int service_door_ticket(const uint64_t *handles, uint32_t n, uint64_t *token)
{
    const struct service *s = service_get();
    if (!s)
        return ENOTCONN;
    bool all = n == DANAUS_TICKET_ALL;
    if (!all && n > DANAUS_TICKET_MAX)
        return EMFILE;
    pthread_mutex_lock(&handles_lock);
    size_t len = handles_message(DANAUS_DOOR_TICKET, n, 0, handles,
                                 all ? 0 : n);
    struct danaus_door_reply reply;
    int err = door_exchange(s, &handles_buf.m, len, &reply);
    pthread_mutex_unlock(&handles_lock);
    if (err == 0)
        *token = reply.token;
    return err;
}

int service_door_adopt(uint64_t token)
{
    struct danaus_door_msg msg = {.op = DANAUS_DOOR_ADOPT,
                                  .version = DANAUS_WIRE_VERSION,
                                  .token = token};
    struct danaus_door_reply reply;
    return door_exchange(atomic_load(&current), &msg, sizeof msg, &reply);
}

void service_adopt_on_connect(uint64_t token)
{
    pending_ticket = token;
}

int service_door_claim(uint64_t token)
{
    int door = door_connect();
    if (door < 0)
        return -1;
    struct danaus_door_msg msg = {.op = DANAUS_DOOR_CLAIM,
                                  .version = DANAUS_WIRE_VERSION,
                                  .token = token};
    if (send(door, &msg, sizeof msg, MSG_NOSIGNAL) != sizeof msg) {
        sys_close(door);
        return -1;
    }
    claim_door = door;
    claim_answer_due = true;
    return 0;
}

bool service_claimed(void)
{
    return claim_door >= 0;
}

int service_door_pass(const uint64_t *handles, uint32_t n, uint64_t *token)
{
    if (claim_door < 0)
        return ENOTCONN;
    if (n > DANAUS_TICKET_MAX)
        return EMFILE;
    struct danaus_door_reply reply;
    if (claim_answer_due) {
        claim_answer_due = false;
        if (recv_reply(claim_door, &reply) < 0)
            return EPROTO;
        if (reply.error)
            return reply.error;
    }
    pthread_mutex_lock(&handles_lock);
    size_t len = handles_message(DANAUS_DOOR_PASS, n, pending_ticket,
                                 handles, n);
    int rc = exchange(claim_door, &handles_buf.m, len, &reply);
    pthread_mutex_unlock(&handles_lock);
    if (rc < 0)
        return EPROTO;
    if (reply.error == 0)
        *token = reply.token;
    return reply.error;
}

void service_forget(void)
{
    parent_conn = atomic_load(&current);
    for (int i = 0; i < CONNS; i++)
        conn_unmap(&conns[i]);
    atomic_store(&current, NULL);
    pthread_mutex_init(&connect_lock, NULL);
    pthread_mutex_init(&door_lock, NULL);
    pthread_mutex_init(&handles_lock, NULL);
    atomic_store(&tried, false);
}
