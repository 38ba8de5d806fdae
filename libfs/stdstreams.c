/*
 * stdstreams.c - standard streams over Danaus descriptors (stdstreams.h).
 */
#include "stdstreams.h"

#include "real.h"
#include "route.h"

#include <danaus/danaus.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static ssize_t stream_read(void *cookie, char *buf, size_t n)
{
    int fd = (int)(intptr_t)cookie;
    return route_fd(fd) ? danaus_read(fd, buf, n) : REAL(read)(fd, buf, n);
}

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
    int fd = (int)(intptr_t)cookie;
    ssize_t w = route_fd(fd) ? danaus_write(fd, buf, n)
                             : REAL(write)(fd, buf, n);
    /* fopencookie: a write function reports failure with 0, not -1. */
    return w < 0 ? 0 : w;
}

static int stream_seek(void *cookie, off64_t *offset, int whence)
{
    int fd = (int)(intptr_t)cookie;
    off_t at = route_fd(fd) ? danaus_lseek(fd, *offset, whence)
                            : REAL(lseek)(fd, *offset, whence);
    if (at < 0)
        return -1;
    *offset = at;
    return 0;
}

static int stream_close(void *cookie)
{
    int fd = (int)(intptr_t)cookie;
    return route_fd(fd) ? danaus_close(fd) : REAL(close)(fd);
}

static const cookie_io_functions_t stream_io = {
    .read = stream_read,
    .write = stream_write,
    .seek = stream_seek,
    .close = stream_close,
};

static pthread_mutex_t follow_lock = PTHREAD_MUTEX_INITIALIZER;

void stdstreams_hold(void)
{
    pthread_mutex_lock(&follow_lock);
}

void stdstreams_release(void)
{
    pthread_mutex_unlock(&follow_lock);
}

void stdstreams_follow(int fd)
{
    static bool following[3];
    if (fd < 0 || fd > 2)
        return;
    pthread_mutex_lock(&follow_lock);
    if (!following[fd]) {
        static const char *const modes[3] = {"r", "w", "w"};
        FILE **stream = fd == 0 ? &stdin : fd == 1 ? &stdout : &stderr;
        FILE *f = fopencookie((void *)(intptr_t)fd, modes[fd], stream_io);
        if (f) {
            /* fileno(stdout) must still be 1 (libfs/api/stdio.c says why a
             * cookie stream may carry it): programs tell their standard
             * streams apart by it, e.g. sort fcloses a stream whose
             * fileno is not 0 or 1, then close_stdout fcloses stdout
             * again. */
            f->_fileno = fd;
            fflush(*stream);
            /* stderr stays unbuffered; the others are buffered as glibc
             * buffers a stream on a regular file. */
            if (fd == 2)
                setvbuf(f, NULL, _IONBF, 0);
            *stream = f;
            following[fd] = true;
        }
    }
    pthread_mutex_unlock(&follow_lock);
}
