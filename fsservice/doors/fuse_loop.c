/*
 * fuse_loop.c - the threads that serve one FUSE export (fuse_loop.h).
 */
#include "fuse_loop.h"
#include "ipc/ipc.h"

#include <errno.h>
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

/* Requests that are the kernel's bookkeeping, not a program's call. */
static bool counted(uint32_t opcode)
{
    return opcode != FUSE_FORGET && opcode != FUSE_BATCH_FORGET &&
           opcode != FUSE_INTERRUPT && opcode != FUSE_INIT &&
           opcode != FUSE_DESTROY && opcode != 0;
}

static void *serve(void *arg)
{
    struct fuse_loop *l = arg;
    struct fuse_session *se = l->se;
    struct fuse_buf buf;
    memset(&buf, 0, sizeof buf);
    while (!fuse_session_exited(se)) {
        int n = fuse_session_receive_buf(se, &buf);
        if (n == -EINTR || n == -EAGAIN)
            continue;
        if (n <= 0)
            break; /* ENODEV: the mount is gone */
        struct fuse_in_header in = {0};
        if (!(buf.flags & FUSE_BUF_IS_FD) && (size_t)n >= sizeof in)
            memcpy(&in, buf.mem, sizeof in);
        request_unique = in.unique & ~UNIQUE_RESEND;
        request_resent = (in.unique & UNIQUE_RESEND) != 0;
        request_read = request_written = 0;
        uint64_t start = ipc_now_ns();
        fuse_session_process_buf(se, &buf);
        if (counted(in.opcode))
            stats_add(l->stats, l->mount, ipc_now_ns() - start, request_read,
                      request_written);
    }
    free(buf.mem);
    return NULL;
}

int fuse_loop_start(struct fuse_loop *l, struct fuse_session *se,
                    struct stats_table *stats, uint32_t mount)
{
    l->se = se;
    l->stats = stats;
    l->mount = mount;
    for (l->n = 0; l->n < FUSE_LOOP_THREADS; l->n++)
        if (pthread_create(&l->threads[l->n], NULL, serve, l) != 0)
            break;
    if (l->n == FUSE_LOOP_THREADS)
        return 0;
    fuse_loop_stop(l, se);
    return -1;
}

void fuse_loop_stop(struct fuse_loop *l, struct fuse_session *se)
{
    fuse_session_exit(se);
    /* The signal is repeated in case it came just before a read began. */
    for (int i = 0; i < l->n; i++) {
        struct timespec deadline;
        do {
            pthread_kill(l->threads[i], SIGUSR1);
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_nsec += 100 * 1000 * 1000;
            if (deadline.tv_nsec >= 1000000000) {
                deadline.tv_sec++;
                deadline.tv_nsec -= 1000000000;
            }
        } while (pthread_timedjoin_np(l->threads[i], NULL, &deadline) ==
                 ETIMEDOUT);
    }
    l->n = 0;
}
