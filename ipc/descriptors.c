/*
 * descriptors.c - one message with kernel descriptors beside it
 * (SCM_RIGHTS), as the door's hello, a passed file and the keeper's
 * messages go (ipc.h).
 */
#include "ipc.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

ssize_t ipc_send_fds(int sock, const void *buf, size_t len, const int *fds,
                     int nfds, int flags)
{
    if (nfds < 0 || nfds > IPC_FDS_MAX) {
        errno = EINVAL;
        return -1;
    }
    struct iovec iov = {(void *)buf, len};
    union {
        char bytes[CMSG_SPACE(IPC_FDS_MAX * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.bytes;
        msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    }
    ssize_t n;
    do
        n = sendmsg(sock, &msg, MSG_NOSIGNAL | flags);
    while (n < 0 && errno == EINTR);
    return n;
}

ssize_t ipc_recv_fds(int sock, void *buf, size_t len, int *fds, int max,
                     int *nfds, int flags)
{
    *nfds = 0;
    if (max < 0 || max > IPC_FDS_MAX) {
        errno = EINVAL;
        return -1;
    }
    struct iovec iov = {buf, len};
    union {
        char bytes[CMSG_SPACE(IPC_FDS_MAX * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1,
                         .msg_control = control.bytes,
                         .msg_controllen = CMSG_SPACE((size_t)max *
                                                      sizeof(int))};
    ssize_t n;
    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return n;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm;
         cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++)
            memcpy(&fds[(*nfds)++], CMSG_DATA(cm) + i * sizeof(int),
                   sizeof(int));
    }
    if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        for (int i = 0; i < *nfds; i++)
            close(fds[i]);
        *nfds = 0;
        errno = EMSGSIZE;
        return -1;
    }
    return n;
}
