/*
 * log.c - danausd's log lines (log.h).
 *
 * The ~40 places that log write to stderr, and so do the libraries the
 * service links. Rather than each adding a time, stderr itself becomes a
 * stream whose write adds it: glibc lets a program assign stderr, and
 * fopencookie gives a FILE whose writes are a function of ours. The
 * stream is line buffered, so a line reaches descriptor 2 when it ends
 * (a kill -9 loses no finished line), and every stdio call holds the
 * stream's lock, so lines of different threads do not mix and the state
 * below needs no lock of its own.
 */
#include "log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define LOG_NAME_MAX 128
#define LOG_BUFFER 4096 /* a longer line reaches the log in pieces */

static struct {
    char name[LOG_NAME_MAX];
    bool mid_line; /* the last write did not end its line */
} log_state;

/* "2026-11-29T03:20:00.123Z NAME " into out; its length. */
static size_t prefix(char *out, size_t size)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
    int m = snprintf(out + n, size - n, ".%03ldZ %s ", ts.tv_nsec / 1000000,
                     log_state.name);
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

/* The stream's write: each line that starts here gets its prefix, in the
 * same writev as the line, so that a line is one write to the log file
 * (O_APPEND, shared with the keeper). A log that cannot be written drops
 * the line: the service goes on. */
static ssize_t log_write(void *cookie, const char *buf, size_t size)
{
    size_t done = 0;
    while (done < size) {
        const char *nl = memchr(buf + done, '\n', size - done);
        size_t len = nl ? (size_t)(nl - (buf + done)) + 1 : size - done;
        char head[LOG_NAME_MAX + 64];
        struct iovec iov[2];
        int n = 0;
        if (!log_state.mid_line)
            iov[n++] = (struct iovec){head, prefix(head, sizeof head)};
        iov[n++] = (struct iovec){(char *)buf + done, len};
        write_all(iov, n);
        log_state.mid_line = !nl;
        done += len;
    }
    return (ssize_t)size;
}

void log_start(const char *name)
{
    snprintf(log_state.name, sizeof log_state.name, "%s", name);
    FILE *f = fopencookie(NULL, "w",
                          (cookie_io_functions_t){.write = log_write});
    if (!f)
        return; /* out of memory: lines without their time */
    if (setvbuf(f, NULL, _IOLBF, LOG_BUFFER) != 0) {
        fclose(f);
        return;
    }
    fflush(stderr);
    stderr = f;
}
