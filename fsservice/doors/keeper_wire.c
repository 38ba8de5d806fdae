/*
 * keeper_wire.c - messages between a service and keepers (keeper_wire.h).
 */
#include "keeper_wire.h"

#include "ipc/ipc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int keeper_address(const char *rundir, const char *service,
                   struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    int n = snprintf(sa->sun_path, sizeof sa->sun_path, "%s/%s.keeper",
                     rundir, service);
    return n < 0 || (size_t)n >= sizeof sa->sun_path ? -1 : 0;
}

bool keeper_peer_trusted(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
           (cred.uid == geteuid() || cred.uid == 0);
}

void keeper_bound_waits(int fd)
{
    struct timeval two = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &two, sizeof two);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &two, sizeof two);
}

static int send_msg(int fd, const struct keeper_msg *msg, const int *fds,
                    int nfds, int flags)
{
    size_t len = msg->op == KEEPER_WRITE ? KEEPER_WRITE_LEN : sizeof *msg;
    return ipc_send_fds(fd, msg, len, fds, nfds, flags) == (ssize_t)len ? 0
                                                                        : -1;
}

int keeper_send(int fd, const struct keeper_msg *msg, const int *fds,
                int nfds)
{
    return send_msg(fd, msg, fds, nfds, 0);
}

int keeper_send_now(int fd, const struct keeper_msg *msg, const int *fds,
                    int nfds)
{
    return send_msg(fd, msg, fds, nfds, MSG_DONTWAIT);
}

int keeper_recv(int fd, struct keeper_msg *msg, int fds[KEPT_FDS])
{
    struct iovec iov = {msg, sizeof *msg};
    union {
        char buf[CMSG_SPACE(KEPT_FDS * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr mh = {.msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control.buf,
                        .msg_controllen = sizeof control.buf};
    ssize_t n;
    do
        n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        errno = 0;
    if (n <= 0)
        return -1;
    int got = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
         cm = CMSG_NXTHDR(&mh, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        int count = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < count; i++) {
            int one;
            memcpy(&one, CMSG_DATA(cm) + i * sizeof(int), sizeof one);
            if (got < KEPT_FDS)
                fds[got++] = one;
            else
                close(one);
        }
    }
    if (n == (ssize_t)KEEPER_WRITE_LEN && msg->op == KEEPER_WRITE &&
        !(mh.msg_flags & MSG_TRUNC) && got <= 1)
        return got;
    bool whole = n == (ssize_t)sizeof *msg && !(mh.msg_flags & MSG_TRUNC) &&
                 msg->init_len <= sizeof msg->init &&
                 msg->spec_len <= sizeof msg->spec &&
                 msg->view_len <= sizeof msg->view &&
                 memchr(msg->mountpoint, '\0', sizeof msg->mountpoint);
    if (!whole) {
        for (int i = 0; i < got; i++)
            close(fds[i]);
        msg->op = 0;
        return 0;
    }
    return got;
}
