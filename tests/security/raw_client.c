/*
 * raw_client.c - the wire-level client of the security tests (see
 * raw_client.h).
 */
#include "raw_client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int take_reply(struct raw *r, const struct danaus_hello_reply *h,
                      size_t len, const int *fds)
{
    if (len < sizeof *h || h->error)
        return h->error ? -h->error : -EPROTO;
    r->index = h->client_index;
    r->g = (struct ipc_geometry){.nqueues = h->nqueues, .ncells = h->ncells,
                                 .nslots = h->nslots, .slot_buf = h->slot_buf,
                                 .cache_blocks = h->cache_blocks,
                                 .dirty_pages = h->dirty_pages};
    memcpy(r->g.cpu_queue, h->cpu_queue, sizeof r->g.cpu_queue);
    const char *p = h->mounts, *end = (const char *)h + len;
    for (uint32_t i = 0; i < h->nmounts && i < RAW_MAX_MOUNTS; i++) {
        memcpy(&r->mount[i], p, sizeof(uint32_t));
        p += sizeof(uint32_t);
        snprintf(r->path[i], sizeof r->path[i], "%s", p);
        p += strnlen(p, (size_t)(end - p)) + 1;
        r->nmounts++;
    }
    int rc = ipc_queues_map(fds[0], &r->g, &r->seg);
    if (rc == 0 && (rc = ipc_area_map(fds[1], &r->g, &r->area)) < 0)
        ipc_queues_unmap(&r->seg);
    return rc;
}

int raw_attach(struct raw *r, const char *socket_path)
{
    int rc = raw_connect(r, socket_path);
    return rc < 0 ? rc : raw_hello(r);
}

int raw_connect(struct raw *r, const char *socket_path)
{
    memset(r, 0, sizeof *r);
    r->seg.fd = r->area.fd = r->announce_fd = r->pass_fd = -1;
    r->door = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", socket_path);
    if (r->door < 0 || connect(r->door, (struct sockaddr *)&sa, sizeof sa) < 0)
        return -errno;
    return 0;
}

int raw_hello(struct raw *r)
{
    int rc = raw_hello_send(r);
    return rc < 0 ? rc : raw_hello_take(r);
}

int raw_hello_send(struct raw *r)
{
    struct danaus_door_msg m = {.op = DANAUS_DOOR_HELLO,
                                .version = DANAUS_WIRE_VERSION};
    return send(r->door, &m, sizeof m, MSG_NOSIGNAL) == sizeof m ? 0 : -errno;
}

int raw_hello_take(struct raw *r)
{
    static char buf[sizeof(struct danaus_hello_reply) + DANAUS_MOUNTS_BYTES];
    union {
        struct cmsghdr h;
        char bytes[CMSG_SPACE(DANAUS_HELLO_FDS * sizeof(int))];
    } control;
    struct iovec iov = {buf, sizeof buf};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1,
                         .msg_control = control.bytes,
                         .msg_controllen = sizeof control.bytes};
    ssize_t n = recvmsg(r->door, &msg, MSG_CMSG_CLOEXEC);
    struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
    int fds[DANAUS_HELLO_FDS] = {-1, -1, -1, -1};
    if (cm && cm->cmsg_type == SCM_RIGHTS &&
        cm->cmsg_len == CMSG_LEN(sizeof fds))
        memcpy(fds, CMSG_DATA(cm), sizeof fds);
    if (n <= 0)
        return -EPIPE;
    if (fds[1] < 0)
        return ((struct danaus_hello_reply *)buf)->error
                   ? -((struct danaus_hello_reply *)buf)->error
                   : -EPROTO;
    int rc = take_reply(r, (struct danaus_hello_reply *)buf, (size_t)n, fds);
    if (rc < 0) {
        close(fds[0]);
        close(fds[1]);
        close(fds[2]);
        close(fds[3]);
    } else {
        r->announce_fd = fds[2];
        r->pass_fd = fds[3];
    }
    return rc;
}

void raw_detach(struct raw *r)
{
    if (r->seg.queues)
        ipc_queues_unmap(&r->seg);
    if (r->area.slots)
        ipc_area_unmap(&r->area);
    if (r->announce_fd >= 0)
        close(r->announce_fd);
    r->announce_fd = -1;
    if (r->pass_fd >= 0)
        close(r->pass_fd);
    r->pass_fd = -1;
    if (r->door >= 0)
        close(r->door);
    r->door = -1;
}

int raw_door(struct raw *r, uint32_t op, uint32_t arg, uint64_t token,
             const void *extra, size_t extra_len,
             struct danaus_door_reply *reply)
{
    static char buf[sizeof(struct danaus_door_msg) + 65536];
    struct danaus_door_msg m = {.op = op, .version = DANAUS_WIRE_VERSION,
                                .arg = arg, .token = token};
    if (extra_len > sizeof buf - sizeof m)
        return EINVAL;
    memcpy(buf, &m, sizeof m);
    if (extra_len)
        memcpy(buf + sizeof m, extra, extra_len);
    if (send(r->door, buf, sizeof m + extra_len, MSG_NOSIGNAL) < 0 ||
        recv(r->door, reply, sizeof *reply, 0) != sizeof *reply)
        return EPIPE;
    return reply->error;
}

int raw_slot(struct raw *r)
{
    struct danaus_door_reply reply;
    int err = raw_door(r, DANAUS_DOOR_SLOT_GET, 0, 0, NULL, 0, &reply);
    if (err)
        return -err;
    if (reply.value >= r->area.nslots || reply.value >= 64)
        return -EPROTO;
    r->seq[reply.value] = 0;
    return (int)reply.value;
}

static bool before_deadline(void *arg)
{
    return ipc_now_ns() < *(uint64_t *)arg;
}

int64_t raw_call(struct raw *r, uint32_t slot, struct danaus_desc *d,
                 const void *in, uint32_t len, int timeout_ms)
{
    return raw_call_claiming(r, slot, d, in, len, 0, len, timeout_ms);
}

int64_t raw_call_claiming(struct raw *r, uint32_t slot,
                          struct danaus_desc *d, const void *in,
                          uint32_t len, int32_t seq_delta, uint32_t claimed,
                          int timeout_ms)
{
    struct ipc_slot *s = ipc_slot(&r->area, slot);
    uint64_t deadline = ipc_now_ns() + (uint64_t)timeout_ms * 1000000;
    if (len)
        memcpy(s->buf, in, len);
    d->slot = slot;
    d->buf_off = 0;
    d->buf_len = len;
    uint32_t seq = ++r->seq[slot];
    int cpu = sched_getcpu();
    uint32_t q = cpu >= 0 && cpu < IPC_MAX_CPUS ? r->g.cpu_queue[cpu] : 0;
    struct ipc_bell b = {r->index, slot, seq};
    ipc_publish_input(s, seq + (uint32_t)seq_delta, claimed);
    /* As libdanaus: no bell while a service thread watches the slot. */
    if (ipc_send(&r->seg, ipc_queue(&r->seg, q), s, d, b, before_deadline,
                 &deadline) == -ENOTCONN)
        return -ETIMEDOUT;
    int64_t rc = ipc_await(s, seq, before_deadline, &deadline);
    return rc == -ENOTCONN && ipc_now_ns() >= deadline ? -ETIMEDOUT : rc;
}

int64_t raw_open(struct raw *r, uint32_t slot, uint32_t mount,
                 const char *path, int flags)
{
    struct danaus_desc d = {.call = DANAUS_CALL_OPEN, .mount = mount};
    d.arg[0] = flags;
    d.arg[1] = 0600;
    return raw_call(r, slot, &d, path, (uint32_t)strlen(path) + 1, 5000);
}

uint32_t raw_mount(const struct raw *r, const char *path)
{
    for (uint32_t i = 0; i < r->nmounts; i++)
        if (strcmp(r->path[i], path) == 0)
            return r->mount[i];
    return UINT32_MAX;
}
