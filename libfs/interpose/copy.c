/*
 * copy.c - copy_file_range and sendfile between any mix of
 * Danaus and kernel descriptors.
 *
 * The kernel cannot move bytes to or from a Danaus file, so when either
 * side is Danaus's the bytes go through a bounce buffer: read from one
 * side, write to the other. A side read or written at an explicit position
 * uses positioned I/O, which leaves its descriptor's offset alone, as the
 * offset pointers of both calls promise. A side without one is moved by the
 * bytes that reached the output: only those count as copied. Unlike the
 * kernel's, the emulated copy is not atomic against other users of the same
 * open files.
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most one call moves, as Linux caps every read and write. */
#define RW_MAX 0x7ffff000u
#define BOUNCE_MAX (256u * 1024)

/* One side of a copy. */
struct end {
    int fd;
    bool danaus;
};

static struct end end_of(int fd)
{
    return (struct end){fd, route_fd(fd)};
}

static int end_fstat(struct end e, struct stat *st)
{
    return e.danaus ? danaus_fstat(e.fd, st) : REAL(fstat)(e.fd, st);
}

static int end_flags(struct end e)
{
    return e.danaus ? danaus_fcntl(e.fd, F_GETFL)
                    : REAL(fcntl)(e.fd, F_GETFL);
}

static off_t end_tell(struct end e)
{
    return e.danaus ? danaus_lseek(e.fd, 0, SEEK_CUR)
                    : REAL(lseek)(e.fd, 0, SEEK_CUR);
}

static off_t end_seek(struct end e, off_t pos)
{
    return e.danaus ? danaus_lseek(e.fd, pos, SEEK_SET)
                    : REAL(lseek)(e.fd, pos, SEEK_SET);
}

/* At *pos when pos is given, else at the descriptor's offset. */
static ssize_t end_read(struct end e, void *buf, size_t n, const off_t *pos)
{
    if (pos)
        return e.danaus ? danaus_pread(e.fd, buf, n, *pos)
                        : REAL(pread)(e.fd, buf, n, *pos);
    return e.danaus ? danaus_read(e.fd, buf, n) : REAL(read)(e.fd, buf, n);
}

static ssize_t end_write(struct end e, const void *buf, size_t n,
                         const off_t *pos)
{
    if (pos)
        return e.danaus ? danaus_pwrite(e.fd, buf, n, *pos)
                        : REAL(pwrite)(e.fd, buf, n, *pos);
    return e.danaus ? danaus_write(e.fd, buf, n) : REAL(write)(e.fd, buf, n);
}

/* Moves up to count bytes from in to out, at *in_pos and *out_pos where
 * given (advanced by the bytes copied). Stops at end of input, at a short
 * read, or at an error; returns the bytes copied, or -1 with errno when an
 * error came before any. */
static ssize_t bounce(struct end in, off_t *in_pos, struct end out,
                      off_t *out_pos, size_t count)
{
    if (count > RW_MAX)
        count = RW_MAX;
    size_t cap = count < BOUNCE_MAX ? count : BOUNCE_MAX;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return -1;
    size_t done = 0;
    int error = 0;
    while (done < count && !error) {
        size_t want = count - done < cap ? count - done : cap;
        ssize_t got = end_read(in, buf, want, in_pos);
        if (got <= 0) {
            error = got < 0 ? errno : 0;
            break;
        }
        size_t put = 0;
        while (put < (size_t)got) {
            ssize_t n = end_write(out, buf + put, (size_t)got - put, out_pos);
            if (n <= 0) {
                error = n < 0 ? errno : EIO;
                break;
            }
            put += (size_t)n;
            if (out_pos)
                *out_pos += n;
        }
        if (in_pos)
            *in_pos += (off_t)put;
        done += put;
        if ((size_t)got < want)
            break;
    }
    free(buf);
    if (done == 0 && error) {
        errno = error;
        return -1;
    }
    return (ssize_t)done;
}

/* Copies with in read at its own offset when no position is given: reads
 * at the offset explicitly and moves it by what was copied afterwards, so
 * bytes read but not written are not lost. A kernel input that cannot seek
 * (a pipe, for sendfile) is read as a stream. */
static ssize_t bounce_from_offset(struct end in, struct end out,
                                  off_t *out_pos, size_t count)
{
    off_t pos = end_tell(in);
    if (pos < 0)
        return errno == ESPIPE && !in.danaus
                   ? bounce(in, NULL, out, out_pos, count)
                   : -1;
    ssize_t n = bounce(in, &pos, out, out_pos, count);
    if (n > 0 && end_seek(in, pos) < 0)
        return -1;
    return n;
}

/* copy_file_range's checks, in the kernel's order. */
static int copy_range_check(struct end in, const off64_t *off_in,
                            struct end out, const off64_t *off_out,
                            size_t len, unsigned int flags)
{
    struct stat si, so;
    if (flags != 0) {
        errno = EINVAL;
        return -1;
    }
    if (end_fstat(in, &si) < 0 || end_fstat(out, &so) < 0)
        return -1;
    if (S_ISDIR(si.st_mode) || S_ISDIR(so.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    if (!S_ISREG(si.st_mode) || !S_ISREG(so.st_mode)) {
        errno = EINVAL;
        return -1;
    }
    int fi = end_flags(in), fo = end_flags(out);
    if (fi < 0 || fo < 0)
        return -1;
    if ((fi & O_ACCMODE) == O_WRONLY || (fo & O_ACCMODE) == O_RDONLY ||
        (fo & O_APPEND)) {
        errno = EBADF;
        return -1;
    }
    off_t pin = off_in ? *off_in : end_tell(in);
    off_t pout = off_out ? *off_out : end_tell(out);
    if (pin < 0 || pout < 0) {
        errno = EINVAL;
        return -1;
    }
    /* Overlapping ranges of one file. */
    if (in.danaus == out.danaus && si.st_dev == so.st_dev &&
        si.st_ino == so.st_ino && pin < pout + (off_t)len &&
        pout < pin + (off_t)len) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

DANAUS_EXPORT ssize_t copy_file_range(int infd, off64_t *pinoff, int outfd,
                                      off64_t *poutoff, size_t length,
                                      unsigned int flags)
{
    struct end in = end_of(infd), out = end_of(outfd);
    if (!in.danaus && !out.danaus)
        return REAL(copy_file_range)(infd, pinoff, outfd, poutoff, length,
                                     flags);
    if (copy_range_check(in, pinoff, out, poutoff, length, flags) < 0)
        return -1;
    if (length == 0)
        return 0;
    if (pinoff)
        return bounce(in, pinoff, out, poutoff, length);
    return bounce_from_offset(in, out, poutoff, length);
}

/* sendfile's checks, in the kernel's order. */
static int sendfile_check(struct end out, struct end in, const off_t *offset)
{
    struct stat si, so;
    if (end_fstat(in, &si) < 0)
        return -1;
    int fi = end_flags(in);
    if (fi < 0)
        return -1;
    if ((fi & O_ACCMODE) == O_WRONLY) {
        errno = EBADF;
        return -1;
    }
    if ((in.danaus && !S_ISREG(si.st_mode)) || (offset && *offset < 0)) {
        errno = EINVAL;
        return -1;
    }
    if (end_fstat(out, &so) < 0)
        return -1;
    int fo = end_flags(out);
    if (fo < 0)
        return -1;
    if ((fo & O_ACCMODE) == O_RDONLY) {
        errno = EBADF;
        return -1;
    }
    if (fo & O_APPEND) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

static ssize_t sendfile_bounce(struct end out, struct end in, off_t *offset,
                               size_t count)
{
    if (sendfile_check(out, in, offset) < 0)
        return -1;
    if (count == 0)
        return 0;
    if (offset)
        return bounce(in, offset, out, NULL, count);
    return bounce_from_offset(in, out, NULL, count);
}

DANAUS_EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *offset,
                               size_t count)
{
    struct end in = end_of(in_fd), out = end_of(out_fd);
    if (!in.danaus && !out.danaus)
        return REAL(sendfile)(out_fd, in_fd, offset, count);
    return sendfile_bounce(out, in, offset, count);
}

DANAUS_EXPORT ssize_t sendfile64(int out_fd, int in_fd, off64_t *offset,
                                 size_t count)
{
    struct end in = end_of(in_fd), out = end_of(out_fd);
    if (!in.danaus && !out.danaus)
        return REAL(sendfile64)(out_fd, in_fd, offset, count);
    return sendfile_bounce(out, in, offset, count);
}
