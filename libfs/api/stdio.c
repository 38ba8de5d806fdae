/*
 * stdio.c - FILE streams on Danaus files: danaus_fopen, danaus_fdopen,
 * danaus_freopen.
 *
 * glibc's fopen opens with its internal open, which no interposer sees, so
 * a stream on a Danaus file is made with fopencookie over danaus_read,
 * danaus_write, danaus_lseek and danaus_close of one Danaus descriptor; the
 * cookie is the descriptor number itself. The mode strings are parsed as
 * glibc parses them (fileops.c _IO_new_file_fopen, iofdopen.c).
 *
 * fileno: glibc marks a cookie stream with _fileno -2, so fileno() fails
 * with EBADF and a program that goes on with fstat(fileno(fp)), fsync or
 * fchmod breaks. We store the Danaus descriptor in _fileno instead (a field
 * of glibc's public struct _IO_FILE): fileno() and fileno_unlocked() then
 * return it without any interposer, and calls on it route to Danaus. glibc
 * never does I/O through _fileno of a cookie stream (the cookie functions
 * do it all); it only tests it for "open" (!= -1) and, in its buffer
 * sizing, stats through the cookie table, which declines.
 */
#include "libfs/export.h"
#include "libfs/fdtable.h"

#include <danaus/danaus.h>
#include <danaus/wire.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fd_of(void *cookie)
{
    return (int)(intptr_t)cookie;
}

static ssize_t cookie_read(void *cookie, char *buf, size_t size)
{
    return danaus_read(fd_of(cookie), buf, size);
}

/* glibc counts a short write as an error and drops the rest of its
 * buffer, so write all of it unless the file refuses. Failure is reported
 * as fewer bytes (0 if none), never -1: glibc's size_t arithmetic on the
 * count would miscount fwrite's result (fopencookie(3) says the same). */
static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = danaus_write(fd_of(cookie), buf + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int cookie_seek(void *cookie, off64_t *offset, int whence)
{
    off_t at = danaus_lseek(fd_of(cookie), *offset, whence);
    if (at < 0)
        return -1;
    *offset = at;
    return 0;
}

static int cookie_close(void *cookie)
{
    return danaus_close(fd_of(cookie));
}

/* What a mode string asks for. */
struct stream_mode {
    int flags;            /* open flags */
    bool seek_end;        /* "a" without "+": start at the end, as glibc */
    char cookie_mode[3];  /* "r", "w", "a", optionally "+" */
};

/* fopen's mode: r, w or a, then up to six of '+', 'x' (O_EXCL), 'e'
 * (O_CLOEXEC), 'b', 'm', 'c' and characters glibc ignores. A ",ccs="
 * charset conversion, which fopencookie streams cannot do, fails with
 * EINVAL. 0, or -1 with errno EINVAL. */
static int parse_fopen_mode(const char *mode, struct stream_mode *m)
{
    int access, extra = 0;
    switch (mode[0]) {
    case 'r':
        access = O_RDONLY;
        break;
    case 'w':
        access = O_WRONLY;
        extra = O_CREAT | O_TRUNC;
        break;
    case 'a':
        access = O_WRONLY;
        extra = O_CREAT | O_APPEND;
        break;
    default:
        errno = EINVAL;
        return -1;
    }
    const char *last_recognized = mode;
    for (int i = 1; i < 7 && mode[i] != '\0'; i++) {
        switch (mode[i]) {
        case '+':
            access = O_RDWR;
            last_recognized = &mode[i];
            break;
        case 'x':
            extra |= O_EXCL;
            last_recognized = &mode[i];
            break;
        case 'b':
            last_recognized = &mode[i];
            break;
        case 'e':
            extra |= O_CLOEXEC;
            break;
        default: /* 'm', 'c' and the rest: nothing to do */
            break;
        }
    }
    if (strstr(last_recognized + 1, ",ccs=")) {
        errno = EINVAL;
        return -1;
    }
    m->flags = access | extra;
    m->seek_end = mode[0] == 'a' && access == O_WRONLY;
    m->cookie_mode[0] = mode[0];
    m->cookie_mode[1] = access == O_RDWR ? '+' : '\0';
    m->cookie_mode[2] = '\0';
    return 0;
}

/* A stream over Danaus descriptor fd; fd is not closed on failure. */
static FILE *stream_new(int fd, const struct stream_mode *m)
{
    if (m->seek_end && danaus_lseek(fd, 0, SEEK_END) < 0)
        return NULL;
    cookie_io_functions_t io = {
        .read = cookie_read,
        .write = cookie_write,
        .seek = cookie_seek,
        .close = cookie_close,
    };
    FILE *fp = fopencookie((void *)(intptr_t)fd, m->cookie_mode, io);
    if (fp)
        fp->_fileno = fd;
    return fp;
}

static FILE *open_stream(const char *pathname, const struct stream_mode *m)
{
    int fd = danaus_open(pathname, m->flags, 0666);
    if (fd < 0)
        return NULL;
    FILE *fp = stream_new(fd, m);
    if (!fp) {
        int saved = errno;
        danaus_close(fd);
        errno = saved;
    }
    return fp;
}

DANAUS_EXPORT FILE *danaus_fopen(const char *pathname, const char *mode)
{
    struct stream_mode m;
    if (parse_fopen_mode(mode, &m) < 0)
        return NULL;
    return open_stream(pathname, &m);
}

/* fdopen's mode: r, w or a, then up to four characters, of which only the
 * first '+' counts (it ends the scan); the descriptor's access mode must
 * allow the stream's, and "a" turns O_APPEND on. */
DANAUS_EXPORT FILE *danaus_fdopen(int fd, const char *mode)
{
    struct stream_mode m = {0};
    bool reads = mode[0] == 'r', writes = mode[0] != 'r';
    if (mode[0] != 'r' && mode[0] != 'w' && mode[0] != 'a') {
        errno = EINVAL;
        return NULL;
    }
    for (int i = 1; i < 5 && mode[i] != '\0'; i++) {
        if (mode[i] == '+') {
            reads = writes = true;
            break;
        }
    }
    int fl = danaus_fcntl(fd, F_GETFL);
    if (fl < 0)
        return NULL;
    if (((fl & O_ACCMODE) == O_RDONLY && writes) ||
        ((fl & O_ACCMODE) == O_WRONLY && reads)) {
        errno = EINVAL;
        return NULL;
    }
    /* glibc moves to the end only when it was the one to add O_APPEND. */
    if (mode[0] == 'a' && !(fl & O_APPEND)) {
        if (danaus_fcntl(fd, F_SETFL, fl | O_APPEND) < 0)
            return NULL;
        m.seek_end = !reads;
    }
    m.cookie_mode[0] = mode[0];
    m.cookie_mode[1] = reads && writes ? '+' : '\0';
    return stream_new(fd, &m);
}

DANAUS_EXPORT FILE *danaus_freopen(const char *pathname, const char *mode,
                                   FILE *stream)
{
    char path[DANAUS_PATH_MAX];
    int old = fileno(stream); /* a Danaus or kernel descriptor, or -1 */
    if (!pathname) {
        if (fdtable_path(old, path, sizeof path) < 0) {
            int saved = errno;
            fclose(stream);
            errno = saved;
            return NULL;
        }
        pathname = path;
    }
    bool is_stdin = stream == stdin, is_stdout = stream == stdout,
         is_stderr = stream == stderr;
    /* As glibc's freopen: the old stream is closed first, whatever
     * happens next. */
    fclose(stream);
    struct stream_mode m;
    if (parse_fopen_mode(mode, &m) < 0)
        return NULL;
    int fd = danaus_open(pathname, m.flags, 0666);
    if (fd < 0)
        return NULL;
    /* Keep the old descriptor number, as glibc does, so that code holding
     * fileno(stream) (or writing to 1 after freopen of stdout) reaches the
     * new file. */
    if (old >= 0 && old != fd &&
        danaus_dup3(fd, old, m.flags & O_CLOEXEC) == old) {
        danaus_close(fd);
        fd = old;
    }
    FILE *fp = stream_new(fd, &m);
    if (!fp) {
        int saved = errno;
        danaus_close(fd);
        errno = saved;
        return NULL;
    }
    /* The stream object cannot change its kind in place (a cookie stream
     * is a larger object), so the standard streams' variables are pointed
     * at the new one: printf, puts and the rest read stdout each time. */
    if (is_stdin)
        stdin = fp;
    else if (is_stdout)
        stdout = fp;
    else if (is_stderr)
        stderr = fp;
    return fp;
}
