/*
 * proc.c - fork, exec and spawn for Danaus descriptors (see proc.h).
 *
 * The inheritance file, written by the old image and read by the new one:
 *
 *   struct inherit_head                  magic, token, counts
 *   char cwd[cwd_len]                    the Danaus cwd, or nothing
 *   { struct inherit_fd; char path[path_len]; } x nfds
 */
#include "proc.h"

#include "closes.h"
#include "cwd.h"
#include "dirstream.h"
#include "fdtable.h"
#include "heldlocks.h"
#include "listings.h"
#include "namecache.h"
#include "openfds.h"
#include "route.h"
#include "service.h"
#include "stdstreams.h"
#include "sys.h"
#include "thread.h"
#include "writeback.h"

#include <danaus/wire.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define INHERIT_MAGIC 0x444e4852u /* "DNHR" */

struct inherit_head {
    uint32_t magic;
    uint32_t nfds;
    uint64_t token;
    uint32_t cwd_len;
    uint32_t pad;
};

struct inherit_fd {
    int32_t fd;
    uint32_t mount;
    uint64_t handle;
    uint32_t path_len;
    int32_t flags; /* open flags, for a restart (resume.h) */
};

/* fork ----------------------------------------------------------------- */

static uint64_t fork_token;

/* Descriptors came with the exec that started this image, in the ticket
 * inherited_token (proc_inherit), which the first connection adopts, or
 * with the fork that made this process, in the ticket it claimed. */
static bool inherited_fds;
static uint64_t inherited_token;
/* The process that claimed its fork ticket (after_fork_child): a vfork
 * child running in its memory has another pid. */
static pid_t claimer;

/* The library's locks that a thread other than the forking one may hold at
 * fork: all taken, so the child starts with each free and what it guards
 * whole. The stream lock first: it is held across a flush, which may call
 * into the rest; the others are never held together. */
static void hold_locks(void)
{
    stdstreams_hold();
    heldlocks_hold(); /* before fdtable's: heldlocks_restore's order */
    fdtable_hold();
    cwd_hold();
    dirstream_hold();
    listings_hold();
}

static void release_locks(void)
{
    listings_release();
    dirstream_release();
    cwd_release();
    fdtable_release();
    heldlocks_release();
    stdstreams_release();
}

/* Descriptors open now may share their offsets with another process
 * from here on: the records their opens brought give their offsets back
 * first (listings.h). */
static void offsets_to_share(void)
{
    listings_give_back_all();
    fdtable_offsets_shared();
}

static void before_fork(void)
{
    /* The child reads the files this process wrote (writeback.h). */
    writeback_flush();
    offsets_to_share();
    closes_hold();
    fork_token = 0;
    /* Until this image attaches, its inherited descriptors wait in a ticket
     * that only one process can adopt: attach now, so that parent and child
     * each keep them. */
    if (inherited_fds && !service_connected())
        service_get();
    /* A process whose descriptors hold no handle (a shell in a Danaus
     * directory, with files of its own nowhere) has nothing to hand on:
     * its child starts as a new process would. */
    if (service_connected() && fdtable_holds_handles() &&
        service_door_ticket(NULL, DANAUS_TICKET_ALL, &fork_token) != 0)
        fork_token = 0;
    hold_locks();
}

static void after_fork_parent(void)
{
    release_locks();
    closes_release();
    fork_token = 0;
}

/* The child's descriptors wait in the fork ticket, which it claims (a
 * message, not a round trip): kept for it past the ticket's time, for
 * however long it waits before using them, without the attach most
 * children of a shell would make only to exec. It attaches when it first
 * needs the service, and before it forks; an exec passes the descriptors
 * on from the claimed ticket (proc_exec_prepare). Where no claim can be
 * sent, it attaches at once. */
static void after_fork_child(void)
{
    release_locks();
    closes_release();
    heldlocks_after_fork_child();
    namecache_drop();
    writeback_forget();
    if (!service_connected())
        return;
    service_forget();
    thread_forget();
    if (fork_token) {
        service_adopt_on_connect(fork_token);
        if (service_door_claim(fork_token) == 0) {
            inherited_fds = true;
            claimer = getpid();
        } else {
            service_get();
        }
    }
    fork_token = 0;
}

/* exec: the old image ------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = syscall(SYS_write, fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

struct inherited {
    int n;
    int fds[DANAUS_TICKET_MAX];
    uint64_t handles[DANAUS_TICKET_MAX];
};

static void note_inheritable(int fd, void *arg)
{
    struct inherited *in = arg;
    struct fd_info info;
    if (in->n == DANAUS_TICKET_MAX || !fdtable_lookup(fd, &info) ||
        info.handle == FDTABLE_LOST)
        return;
    int flags = sys_fcntl(fd, F_GETFD, 0);
    if (flags < 0 || (flags & FD_CLOEXEC))
        return;
    in->fds[in->n] = fd;
    in->handles[in->n] = info.handle;
    in->n++;
}

/* Writes the inheritance file; its descriptor, or -1. */
static int write_inheritance(const struct inherited *in, uint64_t token,
                             const char *cwd)
{
    int memfd = (int)syscall(SYS_memfd_create, "danaus-inherit", 0);
    if (memfd < 0)
        return -1;
    struct inherit_head head = {.magic = INHERIT_MAGIC,
                                .nfds = (uint32_t)in->n,
                                .token = token,
                                .cwd_len = (uint32_t)strlen(cwd)};
    int rc = write_all(memfd, &head, sizeof head) |
             write_all(memfd, cwd, head.cwd_len);
    for (int i = 0; i < in->n && rc == 0; i++) {
        char path[DANAUS_PATH_MAX];
        struct fd_info info;
        if (!fdtable_lookup(in->fds[i], &info) ||
            fdtable_path(in->fds[i], path, sizeof path) < 0)
            path[0] = '\0';
        struct inherit_fd rec = {.fd = in->fds[i],
                                 .mount = info.mount,
                                 .flags = fdtable_flags(in->fds[i]),
                                 .handle = in->handles[i],
                                 .path_len = (uint32_t)strlen(path)};
        rc = write_all(memfd, &rec, sizeof rec) |
             write_all(memfd, path, rec.path_len);
    }
    if (rc < 0) {
        sys_close(memfd);
        return -1;
    }
    return memfd;
}

/* envp without any DANAUS_INHERIT, plus DANAUS_INHERIT=memfd, in memory
 * from mmap (a vfork child must not malloc). */
static char *const *build_env(char *const envp[], int memfd,
                              struct exec_state *st)
{
    static const char key[] = DANAUS_ENV_INHERIT "=";
    size_t n = 0;
    while (envp && envp[n])
        n++;
    size_t len = (n + 2) * sizeof(char *) + 32;
    char **env = (char **)syscall(SYS_mmap, NULL, len,
                                  PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (env == MAP_FAILED)
        return envp;
    char *var = (char *)(env + n + 2);
    memcpy(var, key, sizeof key - 1);
    char digits[16];
    int d = 0;
    for (unsigned v = (unsigned)memfd; d == 0 || v; v /= 10)
        digits[d++] = (char)('0' + v % 10);
    char *p = var + sizeof key - 1;
    while (d)
        *p++ = digits[--d];
    *p = '\0';
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(envp[i], key, sizeof key - 1) != 0)
            env[k++] = envp[i];
    env[k++] = var;
    env[k] = NULL;
    st->map = env;
    st->map_len = len;
    return env;
}

/* The ticket this process's last exec asked the door for, and the
 * handles it holds: after that exec failed (usable), the next exec of the
 * same handles takes it again, within the ticket's time. Under in_lock;
 * pid tells a vfork child, which shares this memory, from its parent. */
static pthread_mutex_t in_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    pid_t pid;
    bool usable;
    uint64_t token, until_ns;
    int n;
    uint64_t handles[DANAUS_TICKET_MAX];
} last_ticket;

void proc_exec_failed(void)
{
    int saved = errno;
    pthread_mutex_lock(&in_lock);
    if (last_ticket.pid == getpid() && last_ticket.token) {
        last_ticket.usable = true;
        /* A second less than the door keeps it: the time an exec takes. */
        last_ticket.until_ns =
            ipc_now_ns() + (DANAUS_TICKET_TTL_S - 1) * 1000000000ull;
    }
    pthread_mutex_unlock(&in_lock);
    errno = saved;
}

static bool last_ticket_fits(const struct inherited *in)
{
    return last_ticket.usable && last_ticket.pid == getpid() &&
           last_ticket.n == in->n && ipc_now_ns() < last_ticket.until_ns &&
           memcmp(last_ticket.handles, in->handles,
                  (size_t)in->n * sizeof in->handles[0]) == 0;
}

/* A new ticket that carries in's descriptors to a new image, in *token:
 * whether there is one. */
static bool new_ticket_for(const struct inherited *in, uint64_t *token)
{
    /* A forked child that claimed its fork ticket passes from it what
     * stays open; failing that (a service without PASS), it attaches, but
     * not in a vfork child, whose connection the parent would then believe
     * its own. */
    if (!service_connected() && service_claimed()) {
        if (service_door_pass(in->handles, (uint32_t)in->n, token) == 0)
            return true;
        if (getpid() != claimer)
            return false;
        service_get();
    }
    /* A program that only passes on what it inherited (env, nice, timeout,
     * a #! interpreter) never attached: its descriptors are still in the
     * unclaimed ticket it was given, which goes on as it is; attaching here
     * could happen in a vfork child too. */
    if (!service_connected()) {
        *token = inherited_token;
        return true;
    }
    return service_door_ticket(in->handles, (uint32_t)in->n, token) == 0;
}

/* A ticket that carries in's descriptors to a new image, in *token:
 * whether there is one. */
static bool ticket_for(const struct inherited *in, uint64_t *token)
{
    if (last_ticket_fits(in)) {
        *token = last_ticket.token;
        return true;
    }
    last_ticket.usable = false;
    bool got = new_ticket_for(in, token);
    last_ticket.pid = getpid();
    last_ticket.token = got ? *token : 0;
    last_ticket.n = in->n;
    memcpy(last_ticket.handles, in->handles,
           (size_t)in->n * sizeof in->handles[0]);
    return got;
}

char *const *proc_exec_prepare(char *const envp[], struct exec_state *st)
{
    st->memfd = -1;
    st->map = NULL;
    if (!route_enabled())
        return envp;
    int saved = errno;
    /* The new image may read what this one wrote, before the service
     * learns that this one is gone. */
    writeback_flush();
    static struct inherited in; /* too big for a vfork child's stack */
    pthread_mutex_lock(&in_lock);
    in.n = 0;
    openfds_each(note_inheritable, &in);
    char cwd[DANAUS_PATH_MAX];
    if (cwd_get(cwd, sizeof cwd) <= 0)
        cwd[0] = '\0';
    uint64_t token = 0;
    bool have_ticket = in.n == 0; /* the cwd needs no ticket */
    if (in.n > 0) {
        offsets_to_share(); /* a spawned child shares them */
        have_ticket = ticket_for(&in, &token);
    }
    char *const *env = envp;
    if (have_ticket && (in.n > 0 || cwd[0])) {
        st->memfd = write_inheritance(&in, token, cwd);
        if (st->memfd >= 0)
            env = build_env(envp, st->memfd, st);
    }
    pthread_mutex_unlock(&in_lock);
    errno = saved;
    return env;
}

void proc_exec_done(struct exec_state *st)
{
    int saved = errno;
    if (st->memfd >= 0)
        sys_close(st->memfd);
    if (st->map)
        syscall(SYS_munmap, st->map, st->map_len);
    st->memfd = -1;
    st->map = NULL;
    errno = saved;
}

/* exec: the new image -------------------------------------------------- */

static int read_at(int fd, void *buf, size_t n, off_t *off)
{
    ssize_t r = syscall(SYS_pread64, fd, buf, n, *off);
    if (r != (ssize_t)n)
        return -1;
    *off += (off_t)n;
    return 0;
}

/* Takes over what the previous image left in DANAUS_INHERIT: registers
 * the descriptors and the cwd, and leaves the ticket for the connection to
 * adopt. A descriptor the kernel no longer holds is skipped; a damaged
 * file is ignored. Runs once, from whichever comes first: the constructor,
 * or a connection made before it (an interposed call in another library's
 * constructor). It never connects itself. */
void proc_inherit(void)
{
    static atomic_bool done;
    if (atomic_exchange(&done, true))
        return;
    const char *var = getenv(DANAUS_ENV_INHERIT);
    if (!var)
        return;
    char *end;
    long memfd = strtol(var, &end, 10);
    unsetenv(DANAUS_ENV_INHERIT);
    if (*end || end == var || memfd < 0 || memfd > INT32_MAX)
        return;
    struct inherit_head head;
    off_t off = 0;
    char path[DANAUS_PATH_MAX];
    if (read_at((int)memfd, &head, sizeof head, &off) < 0 ||
        head.magic != INHERIT_MAGIC || head.cwd_len >= sizeof path ||
        head.nfds > DANAUS_TICKET_MAX ||
        read_at((int)memfd, path, head.cwd_len, &off) < 0)
        goto out;
    path[head.cwd_len] = '\0';
    if (head.token)
        service_adopt_on_connect(head.token);
    inherited_token = head.token;
    if (head.cwd_len)
        cwd_set(path);
    for (uint32_t i = 0; i < head.nfds; i++) {
        struct inherit_fd rec;
        if (read_at((int)memfd, &rec, sizeof rec, &off) < 0 ||
            rec.path_len >= sizeof path ||
            read_at((int)memfd, path, rec.path_len, &off) < 0)
            break;
        path[rec.path_len] = '\0';
        int kernel_flags = sys_fcntl(rec.fd, F_GETFL, 0);
        if (kernel_flags < 0)
            continue;
        stdstreams_follow(rec.fd);
        /* A placeholder is O_PATH; one open for reading is the file the
         * service passed (fdtable.h direct), its offset the kernel's. */
        struct fd_info info = {rec.handle, rec.mount, 0,
                               !(kernel_flags & O_PATH)};
        if (fdtable_insert(rec.fd, &info, path, rec.flags, 0) == 0)
            inherited_fds = true;
    }
    /* Their offsets are where the old image left them, and not ours to
     * know; the process that forked it may still share them. */
    fdtable_offsets_shared();
out:
    sys_close((int)memfd);
}

/* The handlers do nothing in a process that never attached; registering
 * them does not depend on the environment, which a program may still
 * change before its first call. */
__attribute__((constructor)) static void proc_init(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    proc_inherit();
}
