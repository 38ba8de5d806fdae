/*
 * tty.c - the pseudo-terminal of run -t (tty.h).
 */
#include "tty.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

int tty_open(struct tty *t)
{
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, t->sock) < 0)
        return fail_errno("cannot make the terminal's socket");
    return 0;
}

/* A message of one byte with room for one descriptor (SCM_RIGHTS). */
struct fd_message {
    char data;
    struct iovec iov;
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr msg;
};

static void fd_message_init(struct fd_message *m)
{
    memset(m, 0, sizeof *m);
    m->iov = (struct iovec){&m->data, 1};
    m->msg = (struct msghdr){.msg_iov = &m->iov, .msg_iovlen = 1,
                             .msg_control = m->u.space,
                             .msg_controllen = sizeof m->u.space};
}

static int send_fd(int sock, int fd)
{
    struct fd_message m;
    fd_message_init(&m);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m.msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    return sendmsg(sock, &m.msg, 0) == 1 ? 0 : -1;
}

static int receive_fd(int sock)
{
    struct fd_message m;
    fd_message_init(&m);
    struct cmsghdr *cm;
    int fd = -1;
    if (recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC) == 1 &&
        (cm = CMSG_FIRSTHDR(&m.msg)) && cm->cmsg_type == SCM_RIGHTS &&
        cm->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&fd, CMSG_DATA(cm), sizeof fd);
    return fd;
}

int tty_attach(struct tty *t)
{
    /* /dev/ptmx is the container's own devpts instance (dev.c); the slave
     * is opened from the master, not by a path. */
    int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    int slave = master < 0 || unlockpt(master) < 0
                    ? -1
                    : ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY);
    if (slave < 0)
        return fail_errno("cannot open a pseudo-terminal in the container");
    struct winsize ws;
    if (ioctl(0, TIOCGWINSZ, &ws) == 0)
        ioctl(master, TIOCSWINSZ, &ws);
    if (send_fd(t->sock[1], master) < 0)
        return fail_errno("cannot pass the terminal to the engine");
    close(master);
    close(t->sock[1]);
    if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
        return fail_errno("cannot make the pseudo-terminal the container's");
    for (int fd = 0; fd < 3; fd++)
        if (dup2(slave, fd) < 0)
            return fail_errno("dup2");
    close(slave);
    return 0;
}

/* Copies what fd has to out; 0 at end of file or error. */
static int pass(int fd, int out)
{
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    for (ssize_t done = 0, w; done < n; done += w)
        if ((w = write(out, buf + done, (size_t)(n - done))) <= 0)
            return 0;
    return n > 0;
}

void tty_relay(struct tty *t, int interactive)
{
    int master = receive_fd(t->sock[0]);
    close(t->sock[0]);
    if (master < 0)
        return;
    struct termios saved, raw;
    int restore = interactive && tcgetattr(0, &saved) == 0;
    if (restore) {
        raw = saved;
        cfmakeraw(&raw);
        tcsetattr(0, TCSANOW, &raw);
    }
    /* Only the container holds the slave: EIO on the master when its last
     * process has closed it. */
    struct pollfd p[2] = {{master, POLLIN, 0}, {interactive ? 0 : -1, POLLIN, 0}};
    for (;;) {
        if (poll(p, p[1].fd < 0 ? 1 : 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents && !pass(master, 1))
            break;
        if (p[1].fd >= 0 && p[1].revents && !pass(0, master))
            p[1].fd = -1; /* our stdin ended; the container's output goes on */
    }
    if (restore)
        tcsetattr(0, TCSANOW, &saved);
    close(master);
}
