/*
 * tty.c - the pseudo-terminal of run -t (tty.h).
 */
#include "tty.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int tty_open(struct tty *t)
{
    t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (t->master < 0 || grantpt(t->master) < 0 || unlockpt(t->master) < 0)
        return fail_errno("cannot open a pseudo-terminal");
    const char *name = ptsname(t->master);
    t->slave = name ? open(name, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
    if (t->slave < 0)
        return fail_errno("cannot open the pseudo-terminal's slave");
    struct winsize ws;
    if (ioctl(0, TIOCGWINSZ, &ws) == 0)
        ioctl(t->master, TIOCSWINSZ, &ws);
    return 0;
}

int tty_attach(const struct tty *t)
{
    if (setsid() < 0 || ioctl(t->slave, TIOCSCTTY, 0) < 0)
        return fail_errno("cannot make the pseudo-terminal the container's");
    for (int fd = 0; fd < 3; fd++)
        if (dup2(t->slave, fd) < 0)
            return fail_errno("dup2");
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

void tty_relay(struct tty *t)
{
    struct termios saved, raw;
    int restore = tcgetattr(0, &saved) == 0;
    if (restore) {
        raw = saved;
        cfmakeraw(&raw);
        tcsetattr(0, TCSANOW, &raw);
    }
    /* Only the container holds the slave now: EIO on the master when its
     * last process has closed it. */
    close(t->slave);
    struct pollfd p[2] = {{t->master, POLLIN, 0}, {0, POLLIN, 0}};
    for (;;) {
        if (poll(p, p[1].fd < 0 ? 1 : 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents && !pass(t->master, 1))
            break;
        if (p[1].fd >= 0 && p[1].revents && !pass(0, t->master))
            p[1].fd = -1; /* our stdin ended; the container's output goes on */
    }
    if (restore)
        tcsetattr(0, TCSANOW, &saved);
    close(t->master);
}
