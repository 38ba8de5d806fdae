/*
 * fuse_uring.c - the FUSE door's requests through io_uring (fuse_uring.h).
 */
#include "fuse_uring.h"

#include <errno.h>
#include <liburing.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Linux 6.14's protocol (uapi linux/fuse.h, 7.42), which Debian 12's
 * headers predate. */
#define OVER_IO_URING (1ull << 41) /* an INIT flag, of the second word */
#define CMD_REGISTER 1
#define CMD_COMMIT_AND_FETCH 2
#define HEADER_IN_OUT 128
#define HEADER_OP_IN 128
#define MIN_PAYLOAD 8192 /* the kernel's FUSE_MIN_READ_BUFFER */

struct ring_header {
    unsigned char in_out[HEADER_IN_OUT]; /* fuse_in_header, fuse_out_header */
    unsigned char op_in[HEADER_OP_IN];   /* the request's first argument */
    struct {
        uint64_t flags;
        uint64_t commit_id;
        uint32_t payload_sz;
        uint32_t padding;
        uint64_t reserved;
    } ent;
};

/* In the command area of a 128-byte SQE. */
struct ring_cmd {
    uint64_t flags;
    uint64_t commit_id;
    uint16_t qid;
    uint8_t padding[6];
};

/* Threads of a queue whose cpu the service may run on: while one runs a
 * long call another takes the queue's next request. */
#define THREADS_PER_QUEUE 2

struct worker {
    struct fuse_uring *u;
    unsigned qid;
    bool pin;
    pthread_t thread;
    bool started;
    struct io_uring ring;
    struct ring_header *head;
    unsigned char *payload;
    struct iovec iov[2];
    unsigned char *request; /* header, first argument and payload, joined */
};

struct fuse_uring {
    struct fuse_loop *loop;
    int fd;
    size_t payload;
    atomic_bool stopping;
    int nworkers;
    struct worker workers[];
};

/* The worker serving a request on this thread, and that request's id. */
static __thread struct worker *serving;
static __thread uint64_t serving_unique;
static __thread bool answered;

static int new_ring(struct io_uring *ring);

bool fuse_uring_allowed(void)
{
    FILE *f = fopen("/sys/module/fuse/parameters/enable_uring", "r");
    if (!f)
        return false;
    int c = fgetc(f);
    fclose(f);
    /* The rings the threads will make must be possible too (io_uring may
     * be off: kernel.io_uring_disabled). */
    struct io_uring ring;
    if ((c != 'Y' && c != '1') || new_ring(&ring) < 0)
        return false;
    io_uring_queue_exit(&ring);
    return true;
}

void fuse_uring_offer(void *out, size_t len, size_t *payload)
{
    struct fuse_init_out init;
    if (len < sizeof(struct fuse_out_header) + sizeof init)
        return;
    unsigned char *arg = (unsigned char *)out + sizeof(struct fuse_out_header);
    memcpy(&init, arg, sizeof init);
    /* The second word counts only with FUSE_INIT_EXT set. */
    init.flags |= FUSE_INIT_EXT;
    init.flags2 |= (uint32_t)(OVER_IO_URING >> 32);
    memcpy(arg, &init, sizeof init);
    size_t pages = (init.flags & FUSE_MAX_PAGES) ? init.max_pages : 32;
    size_t need = init.max_write;
    if (need < pages * 4096)
        need = pages * 4096;
    if (need < MIN_PAYLOAD)
        need = MIN_PAYLOAD;
    *payload = need;
}

ssize_t fuse_uring_answer(uint64_t unique, const struct iovec *iov, int count)
{
    struct worker *w = serving;
    if (!w || unique != serving_unique || count < 1 ||
        iov[0].iov_len != sizeof(struct fuse_out_header))
        return -1;
    size_t body = 0;
    for (int i = 1; i < count; i++)
        body += iov[i].iov_len;
    if (body > w->u->payload)
        return -1;
    memcpy(w->head->in_out, iov[0].iov_base, iov[0].iov_len);
    size_t at = 0;
    for (int i = 1; i < count; i++) {
        memcpy(w->payload + at, iov[i].iov_base, iov[i].iov_len);
        at += iov[i].iov_len;
    }
    w->head->ent.payload_sz = (uint32_t)body;
    answered = true;
    return (ssize_t)(sizeof(struct fuse_out_header) + body);
}

/* Queues command op for the entry of buffers iov in queue qid of
 * connection fd on ring: 0 or -errno. */
static int submit(struct io_uring *ring, int fd, struct iovec *iov,
                  uint32_t op, uint64_t commit_id, uint16_t qid)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (!sqe)
        return -EBUSY;
    memset(sqe, 0, 2 * sizeof *sqe); /* SQE128: two slots' worth */
    sqe->opcode = IORING_OP_URING_CMD;
    sqe->fd = fd;
    sqe->addr = (uint64_t)(uintptr_t)iov;
    sqe->len = 2;
    sqe->cmd_op = op;
    struct ring_cmd cmd = {.commit_id = commit_id, .qid = qid};
    memcpy(sqe->cmd, &cmd, sizeof cmd);
    int rc = io_uring_submit(ring);
    return rc < 0 ? rc : 0;
}

static int worker_submit(struct worker *w, uint32_t op, uint64_t commit_id)
{
    return submit(&w->ring, w->u->fd, w->iov, op, commit_id,
                  (uint16_t)w->qid);
}

/* The request in the worker's buffers, joined as /dev/fuse gives it: its
 * length, or 0 when the kernel's lengths do not add up. */
static size_t join_request(struct worker *w)
{
    struct fuse_in_header in;
    memcpy(&in, w->head->in_out, sizeof in);
    size_t payload = w->head->ent.payload_sz;
    if (in.len < sizeof in || payload > w->u->payload ||
        in.len - sizeof in < payload ||
        in.len - sizeof in - payload > HEADER_OP_IN)
        return 0;
    size_t op = in.len - sizeof in - payload;
    memcpy(w->request, &in, sizeof in);
    memcpy(w->request + sizeof in, w->head->op_in, op);
    memcpy(w->request + sizeof in + op, w->payload, payload);
    return in.len;
}

/* An error answer to a request nothing answered. */
static void answer_error(struct worker *w, uint64_t unique, int err)
{
    struct fuse_out_header out = {
        .len = sizeof out, .error = -err, .unique = unique};
    memcpy(w->head->in_out, &out, sizeof out);
    w->head->ent.payload_sz = 0;
}

static int new_ring(struct io_uring *ring)
{
    return io_uring_queue_init(4, ring,
                               IORING_SETUP_SQE128 |
                                   IORING_SETUP_SINGLE_ISSUER |
                                   IORING_SETUP_DEFER_TASKRUN);
}

/* Makes the kernel give up io_uring on connection fd: once INIT agreed to
 * it, every request waits until each cpu's queue has an entry, so a queue
 * that will have none must say so. A registration the kernel refuses (a
 * queue past the last) turns io_uring off for the connection, unless its
 * queues were all ready already. */
static void refuse(int fd)
{
    struct io_uring ring;
    struct ring_header head;
    struct iovec iov[2] = {{&head, sizeof head}, {NULL, 0}};
    if (new_ring(&ring) < 0)
        return;
    if (submit(&ring, fd, iov, CMD_REGISTER, 0, UINT16_MAX) == 0) {
        struct io_uring_cqe *cqe;
        if (io_uring_wait_cqe(&ring, &cqe) == 0)
            io_uring_cqe_seen(&ring, cqe);
    }
    io_uring_queue_exit(&ring);
}

static void *serve(void *arg)
{
    struct worker *w = arg;
    struct fuse_uring *u = w->u;
    if (w->pin) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(w->qid, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    }
    fuse_loop_join(u->loop);
    /* A ring of one issuer, made by it; its task work (a request put on
     * the entry) runs when it waits. */
    int rc = new_ring(&w->ring);
    if (rc == 0) {
        rc = worker_submit(w, CMD_REGISTER, 0);
        if (rc < 0)
            io_uring_queue_exit(&w->ring);
    }
    if (rc < 0) {
        fprintf(stderr, "danausd: FUSE over io_uring, queue %u: cannot "
                "register: %s\n", w->qid, strerror(-rc));
        refuse(u->fd);
        fuse_loop_leave();
        return NULL;
    }
    while (rc == 0 && !atomic_load(&u->stopping)) {
        struct io_uring_cqe *cqe;
        rc = io_uring_wait_cqe(&w->ring, &cqe);
        if (rc == -EINTR) {
            rc = 0;
            continue;
        }
        if (rc < 0)
            break;
        int res = cqe->res;
        io_uring_cqe_seen(&w->ring, cqe);
        if (res < 0) {
            rc = res; /* the connection ended, or the entry was refused */
            break;
        }
        struct fuse_in_header in;
        memcpy(&in, w->head->in_out, sizeof in);
        size_t n = join_request(w);
        answered = false;
        if (n > 0) {
            serving = w;
            serving_unique = in.unique;
            struct fuse_buf buf = {.mem = w->request, .size = n};
            fuse_loop_run(u->loop, &buf, n);
            serving = NULL;
        }
        if (!answered)
            answer_error(w, in.unique, n > 0 ? ENOSYS : EIO);
        rc = worker_submit(w, CMD_COMMIT_AND_FETCH, in.unique);
    }
    if (rc < 0 && rc != -ENOTCONN && rc != -ECANCELED &&
        !atomic_load(&u->stopping))
        fprintf(stderr, "danausd: FUSE over io_uring, queue %u: %s\n",
                w->qid, strerror(-rc));
    io_uring_queue_exit(&w->ring);
    fuse_loop_leave();
    return NULL;
}

/* The highest possible cpu's number plus one: the kernel's queue count. */
static unsigned possible_cpus(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
    unsigned last = 0;
    if (f) {
        char line[256];
        if (fgets(line, sizeof line, f)) {
            char *dash = strrchr(line, '-'), *comma = strrchr(line, ',');
            char *tail = dash && (!comma || dash > comma) ? dash + 1
                         : comma                          ? comma + 1
                                                          : line;
            last = (unsigned)strtoul(tail, NULL, 10);
        }
        fclose(f);
    }
    return last + 1;
}

static void worker_free(struct worker *w)
{
    free(w->head);
    free(w->payload);
    free(w->request);
}

static int worker_init(struct worker *w, struct fuse_uring *u, unsigned qid,
                       bool pin)
{
    memset(w, 0, sizeof *w);
    w->u = u;
    w->qid = qid;
    w->pin = pin;
    w->head = calloc(1, sizeof *w->head);
    w->payload = malloc(u->payload);
    w->request = malloc(sizeof(struct fuse_in_header) + HEADER_OP_IN +
                        u->payload);
    if (!w->head || !w->payload || !w->request) {
        worker_free(w);
        return -ENOMEM;
    }
    w->iov[0] = (struct iovec){w->head, sizeof *w->head};
    w->iov[1] = (struct iovec){w->payload, u->payload};
    return 0;
}

int fuse_uring_start(struct fuse_loop *l, int fd, size_t payload,
                     struct fuse_uring **out)
{
    *out = NULL;
    cpu_set_t mine;
    CPU_ZERO(&mine);
    sched_getaffinity(0, sizeof mine, &mine);
    unsigned queues = possible_cpus();
    int n = 0;
    for (unsigned q = 0; q < queues; q++)
        n += q < CPU_SETSIZE && CPU_ISSET(q, &mine) ? THREADS_PER_QUEUE : 1;
    struct fuse_uring *u = calloc(1, sizeof *u + (size_t)n * sizeof(struct worker));
    if (!u) {
        refuse(fd);
        return -ENOMEM;
    }
    u->loop = l;
    u->fd = fd;
    u->payload = payload;
    atomic_init(&u->stopping, false);
    int rc = 0;
    for (unsigned q = 0; q < queues && rc == 0; q++) {
        bool here = q < CPU_SETSIZE && CPU_ISSET(q, &mine);
        for (int t = 0; t < (here ? THREADS_PER_QUEUE : 1) && rc == 0; t++) {
            rc = worker_init(&u->workers[u->nworkers], u, q, here);
            if (rc == 0)
                u->nworkers++;
        }
    }
    for (int i = 0; i < u->nworkers && rc == 0; i++) {
        rc = -pthread_create(&u->workers[i].thread, NULL, serve,
                             &u->workers[i]);
        u->workers[i].started = rc == 0;
    }
    if (rc < 0) {
        fprintf(stderr, "danausd: FUSE over io_uring not started: %s\n",
                strerror(-rc));
        refuse(fd);
        fuse_uring_stop(u);
        return 0;
    }
    *out = u;
    return 0;
}

void fuse_uring_stop(struct fuse_uring *u)
{
    if (!u)
        return;
    atomic_store(&u->stopping, true);
    /* SIGUSR1 (no SA_RESTART, fuse_door.c) ends a wait for a request. */
    for (int i = 0; i < u->nworkers; i++)
        if (u->workers[i].started)
            fuse_loop_interrupt_join(u->workers[i].thread);
    for (int i = 0; i < u->nworkers; i++)
        worker_free(&u->workers[i]);
    free(u);
}
