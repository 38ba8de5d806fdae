/*
 * fuse_loop.c - the threads that serve one FUSE export (fuse_loop.h).
 */
#include "fuse_loop.h"
#include "fsservice/core/blocking.h"
#include "ipc/ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Linux 6.9's mark on a request sent again (FUSE_UNIQUE_RESEND), which
 * Debian 12's headers predate. */
#define UNIQUE_RESEND (1ull << 63)

static __thread uint64_t request_unique;
static __thread bool request_resent;
static __thread uint64_t request_read, request_written;
/* Whether the request runs long (see the head comment), and this
 * thread's place in the long calls' cpu groups. */
static __thread bool request_long;
static __thread struct cpu_member cpu_me;

uint64_t fuse_loop_request(bool *resent)
{
    *resent = request_resent;
    return request_unique;
}

void fuse_loop_moved(uint64_t bytes_read, uint64_t bytes_written)
{
    request_read = bytes_read;
    request_written = bytes_written;
}

void fuse_loop_caller(int64_t uid)
{
    if (request_long)
        cpu_groups_want(&cpu_me, uid);
}

/* The preload's call that a request of opcode, with arguments arg (len
 * bytes, the kernel's), stands for, into d. False for the ones the
 * preload has no long counterpart of: lookups, attribute reads, listings
 * (each one reply's worth, as a getdents is), closes, and what the door
 * does not serve (libfuse answers ENOSYS at once). */
static bool preload_call(uint32_t opcode, const void *arg, size_t len,
                         struct danaus_desc *d)
{
    union {
        struct fuse_read_in read;
        struct fuse_write_in write;
        struct fuse_open_in open;
        struct fuse_setattr_in setattr;
    } in;
    memset(&in, 0, sizeof in);
    memcpy(&in, arg, len < sizeof in ? len : sizeof in);
    switch (opcode) {
    case FUSE_READ:
        d->call = DANAUS_CALL_PREAD;
        d->arg[0] = in.read.size;
        return true;
    case FUSE_WRITE:
        d->call = DANAUS_CALL_PWRITE;
        d->buf_len = in.write.size;
        return true;
    case FUSE_OPEN:
        d->call = DANAUS_CALL_OPEN;
        d->arg[0] = in.open.flags;
        return true;
    case FUSE_CREATE:
        d->call = DANAUS_CALL_OPEN;
        d->arg[0] = O_CREAT;
        return true;
    case FUSE_FSYNC:
    case FUSE_FSYNCDIR:
        d->call = DANAUS_CALL_FSYNC;
        return true;
    case FUSE_FALLOCATE:
        d->call = DANAUS_CALL_FALLOCATE;
        return true;
    case FUSE_SETATTR:
        d->call = (in.setattr.valid & FATTR_SIZE) ? DANAUS_CALL_TRUNCATE
                                                  : DANAUS_CALL_CHMOD;
        return true;
    case FUSE_MKNOD:
    case FUSE_MKDIR:
    case FUSE_SYMLINK:
    case FUSE_LINK:
    case FUSE_UNLINK:
    case FUSE_RMDIR:
    case FUSE_RENAME:
    case FUSE_RENAME2:
    case FUSE_SETXATTR:
    case FUSE_REMOVEXATTR:
        d->call = DANAUS_CALL_MKDIR; /* a change of names or attributes */
        return true;
    default:
        return false;
    }
}

/* Whether the request in buf (n bytes read) is long, as workers.c judges
 * the preload's calls (blocking.h). A request left in a pipe (spliced)
 * is not looked into: the door asks for none. */
static bool long_request(const struct fuse_loop *l, const struct fuse_buf *buf,
                         size_t n, const struct fuse_in_header *in)
{
    struct danaus_desc d;
    memset(&d, 0, sizeof d);
    if ((buf->flags & FUSE_BUF_IS_FD) || n < sizeof *in ||
        !preload_call(in->opcode, (const char *)buf->mem + sizeof *in,
                      n - sizeof *in, &d))
        return false;
    return call_may_block(&d) &&
           !(l->kernel_name_space && call_short_in_kernel(&d));
}

/* Requests that are the kernel's bookkeeping, not a program's call. */
static bool counted(uint32_t opcode)
{
    return opcode != FUSE_FORGET && opcode != FUSE_BATCH_FORGET &&
           opcode != FUSE_INTERRUPT && opcode != FUSE_INIT &&
           opcode != FUSE_DESTROY && opcode != 0;
}

void fuse_loop_join(struct fuse_loop *l)
{
    if (l->groups)
        cpu_groups_join(l->groups, &cpu_me, true);
}

void fuse_loop_leave(void)
{
    cpu_groups_leave(&cpu_me);
}

void fuse_loop_run(struct fuse_loop *l, const struct fuse_buf *buf, size_t n)
{
    struct fuse_in_header in = {0};
    if (!(buf->flags & FUSE_BUF_IS_FD) && n >= sizeof in)
        memcpy(&in, buf->mem, sizeof in);
    request_unique = in.unique & ~UNIQUE_RESEND;
    request_resent = (in.unique & UNIQUE_RESEND) != 0;
    request_read = request_written = 0;
    request_long = cpu_me.g && long_request(l, buf, n, &in);
    uint64_t start = ipc_now_ns();
    fuse_session_process_buf(l->se, buf);
    if (request_long)
        cpu_groups_want(&cpu_me, CPU_HOME);
    if (counted(in.opcode))
        stats_add(l->stats, l->mount, ipc_now_ns() - start, request_read,
                  request_written);
}

static void *serve(void *arg)
{
    struct fuse_loop *l = arg;
    struct fuse_session *se = l->se;
    struct fuse_buf buf;
    memset(&buf, 0, sizeof buf);
    /* Started by a thread that never moves: in the service's group. */
    fuse_loop_join(l);
    while (!fuse_session_exited(se)) {
        int n = fuse_session_receive_buf(se, &buf);
        if (n == -EINTR || n == -EAGAIN)
            continue;
        if (n <= 0)
            break; /* ENODEV: the mount is gone */
        fuse_loop_run(l, &buf, (size_t)n);
    }
    free(buf.mem);
    fuse_loop_leave();
    return NULL;
}

int fuse_loop_start(struct fuse_loop *l, struct fuse_session *se,
                    struct stats_table *stats, uint32_t mount,
                    struct cpu_groups *groups, bool kernel_name_space)
{
    l->se = se;
    l->stats = stats;
    l->mount = mount;
    l->groups = groups;
    l->kernel_name_space = kernel_name_space;
    for (l->n = 0; l->n < FUSE_LOOP_THREADS; l->n++)
        if (pthread_create(&l->threads[l->n], NULL, serve, l) != 0)
            break;
    if (l->n == FUSE_LOOP_THREADS)
        return 0;
    fuse_loop_stop(l, se);
    return -1;
}

void fuse_loop_interrupt_join(pthread_t thread)
{
    /* The signal is repeated in case it came just before a wait began. */
    struct timespec deadline;
    do {
        pthread_kill(thread, SIGUSR1);
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += 100 * 1000 * 1000;
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000;
        }
    } while (pthread_timedjoin_np(thread, NULL, &deadline) == ETIMEDOUT);
}

void fuse_loop_stop(struct fuse_loop *l, struct fuse_session *se)
{
    fuse_session_exit(se);
    for (int i = 0; i < l->n; i++)
        fuse_loop_interrupt_join(l->threads[i]);
    l->n = 0;
}
