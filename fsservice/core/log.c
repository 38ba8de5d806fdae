/*
 * log.c - danausd's log lines (log.h).
 *
 * The ~40 places that log write to stderr through stdio, but the
 * libraries the service links also write descriptor 2 themselves
 * (libcephfs's log thread, a library's perror before stdio is set up).
 * So descriptor 2 itself becomes a pipe, read by a relay of its own that
 * adds the time and the name to each line and writes it to the
 * descriptor 2 the service was given (its log file).
 *
 * The relay is a process, not a thread: a line written before a crash
 * or a kill -9 is in the pipe, which the relay still reads, so the last
 * lines reach the log; it ends at the pipe's end of file, once every
 * writer has gone. The writers are the service and what it starts: its
 * FUSE keeper, and the services the keeper starts after a crash. Those
 * inherit the pipe, and the environment names it (LOG_PIPE_ENV), so they
 * write through the same relay rather than start a second one, which
 * would prefix their lines twice. It is a grandchild (the child between
 * exits at once), so the service's only child is its keeper.
 *
 * stderr is made line buffered: a line of stdio is one write, and a
 * pipe's write of up to PIPE_BUF bytes is never split, so lines of
 * threads do not mix.
 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOG_NAME_MAX 128
#define LOG_BUFFER 4096 /* PIPE_BUF: a longer line reaches the log in pieces */
#define LOG_PIPE_ENV "DANAUS_LOG_PIPE" /* the relay's pipe: its inode */
#define LOG_FLUSH_WAIT_MS 1000

static bool log_relayed; /* descriptor 2 is a relay's pipe */

/* "2026-11-29T03:20:00.123Z NAME " into out; its length. */
static size_t prefix(const char *name, char *out, size_t size)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
    int m = snprintf(out + n, size - n, ".%03ldZ %s ", ts.tv_nsec / 1000000,
                     name);
    size_t len = n + (m > 0 ? (size_t)m : 0);
    return len < size ? len : size - 1;
}

/* All of the iovecs to descriptor 2, or as much as it takes. */
static void write_all(struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(STDERR_FILENO, iov, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
}

/* A NUL is log_flush's fence, never part of a line: the bytes of buf
 * without them, moved to its start. */
static ssize_t drop_fences(char *buf, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != '\0')
            buf[kept++] = buf[i];
    return (ssize_t)kept;
}

/* The relay: what arrives on in, each line that starts there with its
 * prefix in the same writev, so that a line is one write to the log file
 * (O_APPEND). A log that cannot be written drops the line. */
static void relay(int in, const char *name)
{
    char buf[LOG_BUFFER], head[LOG_NAME_MAX + 64];
    bool mid_line = false; /* the last piece did not end its line */
    for (;;) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        got = drop_fences(buf, (size_t)got);
        size_t head_len = prefix(name, head, sizeof head), done = 0;
        while (done < (size_t)got) {
            const char *nl = memchr(buf + done, '\n', (size_t)got - done);
            size_t len = nl ? (size_t)(nl - (buf + done)) + 1
                            : (size_t)got - done;
            struct iovec iov[2];
            int n = 0;
            if (!mid_line)
                iov[n++] = (struct iovec){head, head_len};
            iov[n++] = (struct iovec){buf + done, len};
            write_all(iov, n);
            mid_line = !nl;
            done += len;
        }
    }
    /* A last line cut short ends here, not glued to the next writer's. */
    char newline[] = "\n";
    if (mid_line)
        write_all(&(struct iovec){newline, 1}, 1);
}

/* Whether descriptor 2 is the pipe of a relay that still reads it: the
 * one the environment names (a keeper, or a service its keeper started). */
static bool relayed(void)
{
    const char *named = getenv(LOG_PIPE_ENV);
    struct stat st;
    char ino[32];
    if (!named || fstat(STDERR_FILENO, &st) < 0 || !S_ISFIFO(st.st_mode))
        return false;
    snprintf(ino, sizeof ino, "%llu", (unsigned long long)st.st_ino);
    /* A pipe without a reader polls as an error. */
    struct pollfd p = {STDERR_FILENO, POLLOUT, 0};
    return strcmp(named, ino) == 0 && poll(&p, 1, 0) >= 0 &&
           !(p.revents & POLLERR);
}

/* Starts the relay of a new pipe and makes the pipe descriptor 2. 0, or
 * -1 (descriptor 2 unchanged). */
static int start_relay(const char *name)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    pid_t child = fork();
    if (child == 0) {
        if (fork() != 0)
            _exit(0);
        /* The relay: only the pipe (as 0) and the log (2) kept open;
         * what stops the service does not stop it, its end of file does. */
        prctl(PR_SET_NAME, "danaus-log");
        signal(SIGTERM, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (dup2(p[0], STDIN_FILENO) < 0 || null < 0 ||
            dup2(null, STDOUT_FILENO) < 0)
            _exit(1);
        close_range(3, ~0u, 0);
        relay(STDIN_FILENO, name);
        _exit(0);
    }
    close(p[0]);
    int rc = child < 0 || dup2(p[1], STDERR_FILENO) < 0 ? -1 : 0;
    close(p[1]);
    if (child > 0)
        waitpid(child, NULL, 0);
    struct stat st;
    char ino[32];
    if (rc == 0 && fstat(STDERR_FILENO, &st) == 0) {
        snprintf(ino, sizeof ino, "%llu", (unsigned long long)st.st_ino);
        setenv(LOG_PIPE_ENV, ino, 1);
    }
    return rc;
}

void log_start(const char *name)
{
    fflush(stderr);
    if (!relayed() && start_relay(name) < 0)
        return; /* out of descriptors or processes: lines without time */
    log_relayed = true;
    FILE *f = fdopen(STDERR_FILENO, "w");
    if (!f)
        return;
    /* (Unbuffered if this fails: lines may then reach the pipe in
     * pieces.) */
    setvbuf(f, NULL, _IOLBF, LOG_BUFFER);
    stderr = f;
}

/* Waits (bounded) until the relay has read all the pipe holds. */
static void drained(void)
{
    for (int ms = 0; ms < LOG_FLUSH_WAIT_MS; ms++) {
        int queued = 0;
        if (ioctl(STDERR_FILENO, FIONREAD, &queued) < 0 || queued == 0)
            return;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* An empty pipe only says that the relay read the last lines, maybe not
 * that it wrote them yet: it then reads a fence (a NUL it drops) only
 * once it has, as it writes what it read before it reads again. */
void log_flush(void)
{
    fflush(stderr);
    if (!log_relayed)
        return;
    drained();
    if (write(STDERR_FILENO, "", 1) == 1)
        drained();
}
