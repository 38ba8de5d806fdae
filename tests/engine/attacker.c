/*
 * attacker.c - a tenant's hostile program, run inside a container by
 * tests/engine/confinement.sh. Built static, so it reaches its root
 * through the FUSE door like any static or Go program. Each verb tries
 * one escape and prints "ok" or the errno's name (EPERM, EROFS, ...),
 * which is what the test asserts.
 *
 *   attacker handle PATH        open_by_handle_at of PATH's own handle
 *                               (the "shocker" escape's primitive)
 *   attacker mount TYPE DIR     mount(TYPE, DIR), e.g. cgroup or proc
 *   attacker write FILE TEXT    open FILE for writing (O_CREAT) and write
 *   attacker open FILE          open FILE read-write (a device node)
 *   attacker read FILE          open FILE read-only (a host's secret)
 *   attacker mknod PATH         make a character device 10:229 (/dev/fuse)
 *   attacker connect IP PORT    a TCP connection (EINPROGRESS: no
 *                               answer within 5 s, as when dropped)
 *   attacker udp PORT           wait for one UDP datagram on PORT, print it
 *   attacker fork N             fork N sleeping children: how many forked
 *   attacker unshare            a new user namespace
 *   attacker euid               the effective uid it runs with (made
 *                               setuid, run from the host)
 *   attacker hello SOCKET       connect to a danausd door and say hello:
 *                               "ok" when attached, "connect ERRNO" when
 *                               the socket cannot be reached
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "danaus/wire.h"

static int report(int rc)
{
    printf("%s\n", rc < 0 ? strerrorname_np(errno) : "ok");
    return 0;
}

static int handle(const char *path)
{
    struct file_handle *h = malloc(sizeof *h + MAX_HANDLE_SZ);
    int mount_id;
    h->handle_bytes = MAX_HANDLE_SZ;
    int dir = open(path, O_RDONLY | O_DIRECTORY);
    if (dir < 0 || name_to_handle_at(AT_FDCWD, path, h, &mount_id, 0) < 0)
        return report(-1);
    int fd = open_by_handle_at(dir, h, O_RDONLY);
    return report(fd);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return report(-1);
    return report(write(fd, text, strlen(text)) < 0 ? -1 : 0);
}

static int connect_to(const char *ip, const char *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)atoi(port))};
    inet_pton(AF_INET, ip, &sa.sin_addr);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct timeval wait = {.tv_sec = 5};
    if (s >= 0 && setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait) < 0)
        return report(-1);
    return report(s < 0 ? -1 : connect(s, (struct sockaddr *)&sa, sizeof sa));
}

static int udp_once(const char *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)atoi(port))};
    char text[256];
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) < 0)
        return report(-1);
    ssize_t n = recv(s, text, sizeof text - 1, 0);
    if (n < 0)
        return report(-1);
    text[n] = '\0';
    printf("%s\n", text);
    return 0;
}

/* A hello at the door socket path; the reply's first word is its errno. */
static int hello(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
        printf("connect ");
        return report(-1);
    }
    struct danaus_door_msg msg = {.op = DANAUS_DOOR_HELLO,
                                  .version = DANAUS_WIRE_VERSION};
    static char reply[65536];
    if (send(s, &msg, sizeof msg, 0) != sizeof msg ||
        recv(s, reply, sizeof reply, 0) < (ssize_t)sizeof(int32_t))
        return report(-1);
    int32_t error;
    memcpy(&error, reply, sizeof error);
    errno = error;
    return report(error ? -1 : 0);
}

/* Forks until n children or the first failure; prints the count and the
 * failure's errno, then ends them all. */
static int fork_many(int n)
{
    pid_t *kids = calloc((size_t)n, sizeof *kids);
    int made = 0, err = 0;
    for (; made < n; made++) {
        pid_t pid = fork();
        if (pid == 0) {
            pause();
            _exit(0);
        }
        if (pid < 0) {
            err = errno;
            break;
        }
        kids[made] = pid;
    }
    printf("%d %s\n", made, err ? strerrorname_np(err) : "ok");
    for (int i = 0; i < made; i++)
        kill(kids[i], SIGKILL);
    return 0;
}

int main(int argc, char **argv)
{
    const char *verb = argc > 1 ? argv[1] : "";
    if (strcmp(verb, "handle") == 0 && argc == 3)
        return handle(argv[2]);
    if (strcmp(verb, "mount") == 0 && argc == 4)
        return report(mount(argv[2], argv[3], argv[2], 0, NULL));
    if (strcmp(verb, "write") == 0 && argc == 4)
        return write_file(argv[2], argv[3]);
    if (strcmp(verb, "open") == 0 && argc == 3)
        return report(open(argv[2], O_RDWR));
    if (strcmp(verb, "read") == 0 && argc == 3)
        return report(open(argv[2], O_RDONLY));
    if (strcmp(verb, "mknod") == 0 && argc == 3)
        return report(mknod(argv[2], S_IFCHR | 0666, makedev(10, 229)));
    if (strcmp(verb, "connect") == 0 && argc == 4)
        return connect_to(argv[2], argv[3]);
    if (strcmp(verb, "udp") == 0 && argc == 3)
        return udp_once(argv[2]);
    if (strcmp(verb, "fork") == 0 && argc == 3)
        return fork_many(atoi(argv[2]));
    if (strcmp(verb, "unshare") == 0 && argc == 2)
        return report(unshare(CLONE_NEWUSER));
    if (strcmp(verb, "hello") == 0 && argc == 3)
        return hello(argv[2]);
    if (strcmp(verb, "euid") == 0 && argc == 2)
        return printf("%u\n", (unsigned)geteuid()) < 0;
    fprintf(stderr, "usage: see attacker.c\n");
    return 2;
}
