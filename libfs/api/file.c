/*
 * file.c - the danaus_* descriptor and data calls: open, close, read,
 * write and their positioned and vectored forms, lseek, fsync, ftruncate,
 * dup, dup2, dup3 and fcntl.
 *
 * Transfers larger than the slot buffer go in chunks, one request each.
 * read/write chunks use READ/WRITE, so the service-side offset (shared by
 * dup'ed descriptors) advances as POSIX says; a transfer stops at the first
 * short chunk, and an error after some bytes moved returns those bytes.
 */
#include "libfs/call.h"
#include "libfs/closes.h"
#include "libfs/dirstream.h"
#include "libfs/export.h"
#include "libfs/fdtable.h"
#include "libfs/heldlocks.h"
#include "libfs/listings.h"
#include "libfs/lock.h"
#include "libfs/namecache.h"
#include "libfs/readcache.h"
#include "libfs/writeback.h"
#include "libfs/sys.h"
#include "libfs/umask.h"
#include "libfs/usermem.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

/* Closes a service handle nobody refers to any more; keeps errno. */
static void close_handle(const struct fd_info *info)
{
    int saved = errno;
    listings_forget(info);
    call_close(info);
    errno = saved;
}

/* Whether this process's cache holds the path c is about to open (as
 * packed, followed as at says) as a regular file: the service may then
 * skip its look for a FIFO or device (wire.h DANAUS_OPEN_SEEN_REGULAR).
 * An lstat's answer of a regular file says the same of a followed open.
 * *fill is ready for namecache_keep either way. */
static bool seen_regular(const struct call *c, int at,
                         struct namecache_fill *fill, int64_t *size)
{
    struct danaus_stat st;
    const char *path = (const char *)call_out(c);
    if (namecache_lookup(c->svc, c->desc.mount, path, at, &st, fill) == 1 &&
        S_ISREG(st.mode)) {
        *size = st.size;
        return true;
    }
    if (at == AT_SYMLINK_NOFOLLOW)
        return false;
    struct namecache_fill name;
    bool regular = namecache_lookup(c->svc, c->desc.mount, path,
                                    AT_SYMLINK_NOFOLLOW, &st, &name) == 1 &&
                   S_ISREG(st.mode);
    if (regular)
        *size = st.size;
    return regular;
}

/* A placeholder taken while the service opens (call.h's meanwhile). */
struct early {
    bool cloexec;
    int fd; /* or -1: none yet, or it failed (taken again after) */
};

static void reserve_early(void *arg)
{
    struct early *e = arg;
    int saved = errno;
    e->fd = fdtable_reserve(e->cloexec);
    errno = saved;
}

static void unreserve_early(struct early *e)
{
    int saved = errno;
    if (e->fd >= 0)
        fdtable_unreserve(e->fd);
    e->fd = -1;
    errno = saved;
}

static int open_at(int dirfd, const char *path, int flags, mode_t mode)
{
    /* Linux's answer on a file system without unnamed temporary files. */
    if ((flags & O_TMPFILE) == O_TMPFILE) {
        errno = EOPNOTSUPP;
        return -1;
    }
    if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
        closes_flush();
    struct call c;
    struct resolved_path where;
    if (call_begin_path(&c, DANAUS_CALL_OPEN, dirfd, path, &where) < 0)
        return -1;
    /* O_CLOEXEC belongs to the descriptor (our placeholder), not to the
     * service's open file. */
    c.desc.arg[0] = flags & ~O_CLOEXEC;
    c.desc.arg[1] = flags & O_CREAT ? umask_apply(mode) : 0;
    /* A directory opened to be read (tar opens every name alike, and
     * lists what turns out to be one): its first records come along. */
    int place = dirstream_open_ask(&c, where.rel, flags);
    struct namecache_fill fill;
    int at = flags & O_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0;
    int64_t size = 0;
    bool known = seen_regular(&c, at, &fill, &size);
    /* A file only read may come back as itself (wire.h danaus_pass),
     * whose descriptor is then the kernel's to number; not one seen
     * smaller than the service passes. */
    bool may_pass = (flags & O_ACCMODE) == O_RDONLY &&
                    !(flags & (O_PATH | O_DIRECTORY | O_CREAT | O_TRUNC)) &&
                    c.svc->pass >= 0 && !(known && size < DANAUS_PASS_MIN);
    c.desc.arg[4] = may_pass;
    /* A file that is there most likely opens: its descriptor is taken
     * while the service opens it, and given back if it did not. */
    struct early early = {flags & O_CLOEXEC, -1};
    if (known)
        c.desc.arg[0] |= DANAUS_OPEN_SEEN_REGULAR;
    if (known && !may_pass) {
        c.meanwhile = reserve_early;
        c.meanwhile_arg = &early;
    }
    int64_t handle = call_send(&c);
    if (handle <= 0)
        unreserve_early(&early);
    if (handle <= 0 && place >= 0)
        listings_cancel(place);
    if (handle < 0)
        return -1;
    struct fd_info info = {(uint64_t)handle, c.desc.mount, c.svc->epoch,
                           false};
    struct danaus_open_out out;
    memcpy(&out, call_out(&c), sizeof out);
    uint64_t ino = out.ino;
    if (handle != 0 && out.has_attrs == 1) {
        /* What stat of the path answers, and the next open's hint. */
        if (!known && !(flags & O_CREAT))
            namecache_keep(&fill, 0, &out.attrs);
        namecache_key_fstat(&fill, c.desc.mount, (uint64_t)handle);
        namecache_keep(&fill, 0, &out.attrs);
        dirstream_open_found(flags, S_ISDIR(out.attrs.mode));
    }
    /* A FIFO, device or socket: its data path is the kernel's, which
     * reaches it through the FUSE door at the same path. The descriptor is
     * a kernel one; without the door the open fails as the kernel says. */
    if (handle == 0)
        return (int)syscall(SYS_openat, AT_FDCWD, where.abs, flags, mode);
    if (place >= 0)
        dirstream_open_keep(&c, place, &info, where.rel, &fill);
    int fd = -1;
    if (out.passed == 1)
        fd = service_take_pass(c.svc, info.handle, flags & O_CLOEXEC);
    info.direct = fd >= 0;
    if (fd < 0)
        fd = early.fd >= 0 ? early.fd : fdtable_reserve(flags & O_CLOEXEC);
    if (fd < 0) {
        close_handle(&info);
        return -1;
    }
    if (fdtable_insert(fd, &info, where.abs, flags & ~O_CLOEXEC, ino) < 0) {
        fdtable_unreserve(fd);
        close_handle(&info);
        return -1;
    }
    return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
        return (mode_t)va_arg(ap, unsigned int);
    return 0;
}

DANAUS_EXPORT int danaus_open(const char *pathname, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_at(AT_FDCWD, pathname, flags, mode);
}

DANAUS_EXPORT int danaus_openat(int dirfd, const char *pathname, int flags,
                                ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_at(dirfd, pathname, flags, mode);
}

DANAUS_EXPORT int danaus_creat(const char *pathname, mode_t mode)
{
    return open_at(AT_FDCWD, pathname, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

DANAUS_EXPORT int danaus_close(int fd)
{
    bool may_wait = closes_may_wait(fd);
    /* Closing any descriptor of a file drops the process's POSIX locks on
     * it, also while a dup keeps the open file. */
    if (heldlocks_closing(fd))
        lock_drop_posix(fd);
    struct fd_info old;
    int last = fdtable_remove(fd, &old);
    if (last < 0)
        return -1;
    if (last)
        listings_forget(&old);
    /* The descriptor is gone even if the service reports an error, as with
     * close(2). */
    return last ? closes_close(&old, may_wait) : 0;
}

/* Walks an iovec array, copying to or from it. */
struct iov_cursor {
    const struct iovec *iov;
    int left;   /* entries from iov on */
    size_t off; /* into iov[0] */
};

static void iov_copy(struct iov_cursor *cur, unsigned char *bytes, size_t n,
                     bool into_iov)
{
    while (n > 0 && cur->left > 0) {
        size_t room = cur->iov->iov_len - cur->off;
        size_t k = n < room ? n : room;
        unsigned char *base = (unsigned char *)cur->iov->iov_base + cur->off;
        if (into_iov)
            memcpy(base, bytes, k);
        else
            memcpy(bytes, base, k);
        bytes += k;
        n -= k;
        cur->off += k;
        if (cur->off == cur->iov->iov_len) {
            cur->iov++;
            cur->left--;
            cur->off = 0;
        }
    }
}

/* A cursor at byte pos of the array. */
static struct iov_cursor iov_at(const struct iovec *iov, int iovcnt,
                                size_t pos)
{
    struct iov_cursor cur = {iov, iovcnt, 0};
    while (cur.left > 0 && pos >= cur.iov->iov_len) {
        pos -= cur.iov->iov_len;
        cur.iov++;
        cur.left--;
    }
    cur.off = pos;
    return cur;
}

/* A write's input copied in while the service writes (call.h's fill). */
static void copy_in_piece(void *arg, unsigned char *dst, size_t n)
{
    iov_copy(arg, dst, n, false);
}

/* Total length of an iovec array; -1 with EINVAL when invalid, EFAULT
 * when the array or a buffer is not there (usermem.h). */
static ssize_t iov_total(const struct iovec *iov, int iovcnt)
{
    if (iovcnt < 0 || iovcnt > IOV_MAX) {
        errno = EINVAL;
        return -1;
    }
    if (!usermem_range(iov, (size_t)iovcnt * sizeof *iov)) {
        errno = EFAULT;
        return -1;
    }
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len > (size_t)SSIZE_MAX - total) {
            errno = EINVAL;
            return -1;
        }
        if (!usermem_range(iov[i].iov_base, iov[i].iov_len)) {
            errno = EFAULT;
            return -1;
        }
        total += iov[i].iov_len;
    }
    return (ssize_t)total;
}

/* A pread into one buffer that missed the cache: asks for the readahead
 * window around it (readcache.h) and keeps what comes back. False when n
 * does not fit one request (a slot buffer configured smaller). */
static bool pread_through_cache(int fd, void *buf, size_t n, off_t off,
                                ssize_t *result)
{
    struct call c;
    *result = -1;
    if (call_begin_fd(&c, DANAUS_CALL_PREAD, fd, false) < 0)
        return true;
    if (n > call_capacity(&c))
        return false;
    off_t start;
    size_t len;
    readcache_window(&c, n, off, &start, &len);
    c.desc.arg[0] = (int64_t)len;
    c.desc.arg[1] = start;
    int64_t got = call_send(&c);
    if (got < 0)
        return true;
    if ((uint64_t)got > len) {
        errno = EIO;
        return true;
    }
    readcache_keep(&c, len, (size_t)got, start);
    size_t skip = (size_t)(off - start);
    size_t mine = (size_t)got > skip ? (size_t)got - skip : 0;
    if (mine > n)
        mine = n;
    memcpy(buf, (unsigned char *)call_out(&c) + skip, mine);
    *result = (ssize_t)mine;
    return true;
}

/* A read's answer copied out while it lands (call.h's on_bytes). */
struct read_out {
    struct call *c;
    struct iov_cursor *cur;
    size_t chunk;  /* bytes asked for */
    size_t copied; /* bytes of the answer copied out so far */
};

static void copy_out_to(struct read_out *r, size_t ready)
{
    if (ready > r->chunk)
        ready = r->chunk;
    if (ready <= r->copied)
        return;
    iov_copy(r->cur, (unsigned char *)call_out(r->c) + r->copied,
             ready - r->copied, true);
    r->copied = ready;
}

static void copy_out_piece(uint32_t ready, void *arg)
{
    copy_out_to(arg, ready);
}

/* The descriptor whose last read() on this thread came back short, as
 * the read before the end of a file does: the only one worth the look
 * below. */
static __thread int short_read_fd = -1;

/* Whether a read() of fd would find the end of its file, answered with
 * no call as a read past the size a FUSE mount caches is: this process
 * alone moves the offset (fdtable_own_pos) and has read up to it (past 0:
 * a file whose size says 0 may still have bytes, as /proc's do), and the
 * name cache still holds the file's attributes under its handle, which
 * end at or before the offset. Those go with any change of the file the
 * service announces, through either door (namecache.h). */
static bool at_known_end(int fd)
{
    if (fd != short_read_fd)
        return false;
    int64_t pos;
    struct fd_info info;
    struct danaus_stat st;
    struct namecache_fill fill;
    const struct service *svc;
    return fdtable_own_pos(fd, &pos) && pos > 0 &&
           fdtable_lookup(fd, &info) && (svc = service_peek()) != NULL &&
           info.epoch == svc->epoch &&
           namecache_lookup_fstat(svc, info.mount, info.handle, &st,
                                  &fill) == 1 &&
           S_ISREG(st.mode) && pos >= st.size;
}

/* Reads into iov (writing false) or writes from it (writing true), at
 * offset or at the file offset when offset < 0, one slot buffer at a time:
 * a write packs its chunk as it is sent (a large one goes in pieces), a
 * read copies what came back out as it comes (a large one lands in
 * pieces). A read stops at the first short transfer, as the kernel's do; a
 * write cut short sends the rest again, since the service cuts one short
 * when its pieces come late (calls_fd.c), and stops at the first error
 * then, as a caller's loop around write(2) would. A positioned read into
 * one buffer is first looked up in the read cache (readcache.h), and one
 * of up to 32 KiB that missed it asks for its readahead window; what
 * positioned reads bring is kept there. A positioned write of up to a
 * few pages from one buffer may be kept back (writeback.h). A read() at a
 * known end of its file answers 0 with no call (at_known_end). */
/* Whether fd is a file the service passed (fdtable.h direct). */
static bool is_direct(int fd)
{
    struct fd_info h;
    return fdtable_lookup(fd, &h) && h.direct;
}

/* A read of a passed file: the kernel's, where offsets, errors and short
 * reads are the file's own. */
static ssize_t read_direct(int fd, const struct iovec *iov, int iovcnt,
                           off_t offset)
{
    if (offset < 0)
        return syscall(SYS_readv, fd, iov, iovcnt);
    /* The offset as the kernel takes it: low and high longs. */
    return syscall(SYS_preadv, fd, iov, iovcnt, (long)offset, 0L);
}

static ssize_t transfer_iov(int fd, const struct iovec *iov, int iovcnt,
                            off_t offset, bool writing)
{
    if (!writing && is_direct(fd))
        return read_direct(fd, iov, iovcnt, offset);
    ssize_t total = iov_total(iov, iovcnt);
    if (total < 0)
        return -1;
    if (!writing && offset < 0 && total > 0 && at_known_end(fd))
        return 0;
    if (writing && offset >= 0 && iovcnt == 1 && total > 0) {
        ssize_t n = writeback_pwrite(fd, iov[0].iov_base, (size_t)total, offset);
        if (n >= 0)
            return n;
    }
    if (!writing && offset >= 0 && iovcnt == 1 && total > 0) {
        ssize_t n = readcache_pread(fd, iov[0].iov_base, (size_t)total, offset);
        if (n >= 0)
            return n;
        if ((size_t)total <= READCACHE_WINDOW &&
            pread_through_cache(fd, iov[0].iov_base, (size_t)total, offset,
                                &n))
            return n;
    }
    enum danaus_call id =
        writing ? (offset < 0 ? DANAUS_CALL_WRITE : DANAUS_CALL_PWRITE)
                : (offset < 0 ? DANAUS_CALL_READ : DANAUS_CALL_PREAD);
    struct iov_cursor cur = {iov, iovcnt, 0};
    size_t done = 0;
    do {
        struct call c;
        if (call_begin_fd(&c, id, fd, false) < 0)
            return done ? (ssize_t)done : -1;
        size_t want = (size_t)total - done;
        size_t chunk = want < call_capacity(&c) ? want : call_capacity(&c);
        struct read_out out = {&c, &cur, chunk, 0};
        if (writing) {
            size_t first = chunk < IPC_INPUT_FIRST ? chunk : IPC_INPUT_FIRST;
            iov_copy(&cur, c.pack.buf, first, false);
            c.pack.len = (uint32_t)chunk;
            if (chunk > first) {
                c.fill = copy_in_piece;
                c.fill_arg = &cur;
            }
        } else {
            c.desc.arg[0] = (int64_t)chunk;
            c.on_bytes = copy_out_piece;
            c.on_bytes_arg = &out;
        }
        c.desc.arg[1] = offset < 0 ? 0 : offset + (off_t)done;
        int64_t n = call_send(&c);
        if (n < 0)
            return done ? (ssize_t)done : -1;
        if ((uint64_t)n > chunk) {
            errno = EIO;
            return -1;
        }
        if (id == DANAUS_CALL_PREAD)
            readcache_keep(&c, chunk, (size_t)n, offset + (off_t)done);
        if (!writing)
            copy_out_to(&out, (size_t)n);
        if (id == DANAUS_CALL_READ)
            short_read_fd = (size_t)n < chunk ? fd : -1;
        done += (size_t)n;
        if ((size_t)n < chunk) {
            if (!writing || n == 0)
                break;
            cur = iov_at(iov, iovcnt, done);
        }
    } while (done < (size_t)total);
    return (ssize_t)done;
}

DANAUS_EXPORT ssize_t danaus_read(int fd, void *buf, size_t count)
{
    struct iovec iov = {buf, count};
    return transfer_iov(fd, &iov, 1, -1, false);
}

DANAUS_EXPORT ssize_t danaus_write(int fd, const void *buf, size_t count)
{
    struct iovec iov = {(void *)buf, count};
    return transfer_iov(fd, &iov, 1, -1, true);
}

DANAUS_EXPORT ssize_t danaus_pread(int fd, void *buf, size_t count,
                                   off_t offset)
{
    if (offset < 0) {
        errno = EINVAL;
        return -1;
    }
    struct iovec iov = {buf, count};
    return transfer_iov(fd, &iov, 1, offset, false);
}

DANAUS_EXPORT ssize_t danaus_pwrite(int fd, const void *buf, size_t count,
                                    off_t offset)
{
    if (offset < 0) {
        errno = EINVAL;
        return -1;
    }
    struct iovec iov = {(void *)buf, count};
    return transfer_iov(fd, &iov, 1, offset, true);
}

DANAUS_EXPORT ssize_t danaus_readv(int fd, const struct iovec *iov,
                                   int iovcnt)
{
    return transfer_iov(fd, iov, iovcnt, -1, false);
}

DANAUS_EXPORT ssize_t danaus_writev(int fd, const struct iovec *iov,
                                    int iovcnt)
{
    return transfer_iov(fd, iov, iovcnt, -1, true);
}

DANAUS_EXPORT ssize_t danaus_preadv(int fd, const struct iovec *iov,
                                    int iovcnt, off_t offset)
{
    if (offset < 0) {
        errno = EINVAL;
        return -1;
    }
    return transfer_iov(fd, iov, iovcnt, offset, false);
}

DANAUS_EXPORT ssize_t danaus_pwritev(int fd, const struct iovec *iov,
                                     int iovcnt, off_t offset)
{
    if (offset < 0) {
        errno = EINVAL;
        return -1;
    }
    return transfer_iov(fd, iov, iovcnt, offset, true);
}

/* The RWF_ flags ask for cache and durability behaviour the service does
 * not offer per call; Linux says EOPNOTSUPP for flags a file cannot honour. */
static int rwf_check(off_t offset, int flags)
{
    if (flags != 0) {
        errno = EOPNOTSUPP;
        return -1;
    }
    if (offset < -1) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

DANAUS_EXPORT ssize_t danaus_preadv2(int fd, const struct iovec *iov,
                                     int iovcnt, off_t offset, int flags)
{
    if (rwf_check(offset, flags) < 0)
        return -1;
    return transfer_iov(fd, iov, iovcnt, offset, false);
}

DANAUS_EXPORT ssize_t danaus_pwritev2(int fd, const struct iovec *iov,
                                      int iovcnt, off_t offset, int flags)
{
    if (rwf_check(offset, flags) < 0)
        return -1;
    return transfer_iov(fd, iov, iovcnt, offset, true);
}

DANAUS_EXPORT off_t danaus_lseek(int fd, off_t offset, int whence)
{
    if (is_direct(fd))
        return (off_t)syscall(SYS_lseek, fd, offset, whence);
    /* Where am I (ftell, Python's reads): known here when no one else
     * moves the offset. */
    int64_t pos;
    if (offset == 0 && whence == SEEK_CUR && fdtable_own_pos(fd, &pos))
        return (off_t)pos;
    listings_settle(fd, whence);
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_LSEEK, fd, false) < 0)
        return -1;
    c.desc.arg[0] = offset;
    c.desc.arg[1] = whence;
    return (off_t)call_send(&c);
}

static int sync_fd(int fd, int datasync)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_FSYNC, fd, false) < 0)
        return -1;
    c.desc.arg[0] = datasync;
    return call_send(&c) < 0 ? -1 : 0;
}

DANAUS_EXPORT int danaus_fsync(int fd)
{
    return sync_fd(fd, 0);
}

DANAUS_EXPORT int danaus_fdatasync(int fd)
{
    return sync_fd(fd, 1);
}

DANAUS_EXPORT int danaus_sync_file_range(int fd, off_t offset, off_t nbytes,
                                         unsigned int flags)
{
    const unsigned int known = SYNC_FILE_RANGE_WAIT_BEFORE |
                               SYNC_FILE_RANGE_WRITE |
                               SYNC_FILE_RANGE_WAIT_AFTER;
    /* The kernel's checks (fs/sync.c), in its order. */
    if ((flags & ~known) || offset < 0 || nbytes < 0 ||
        nbytes > INT64_MAX - offset) {
        errno = EINVAL;
        return -1;
    }
    if (flags & SYNC_FILE_RANGE_WRITE)
        return sync_fd(fd, 1);
    struct fd_info info;
    if (!fdtable_lookup(fd, &info)) {
        errno = EBADF;
        return -1;
    }
    return 0;
}

DANAUS_EXPORT int danaus_ftruncate(int fd, off_t length)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_TRUNCATE, fd, true) < 0)
        return -1;
    c.desc.arg[0] = length;
    return call_send(&c) < 0 ? -1 : 0;
}

DANAUS_EXPORT int danaus_dup(int oldfd)
{
    return fdtable_dup(oldfd);
}

/* dup2 and dup3 once oldfd != newfd. oldfd may be a kernel descriptor:
 * newfd then becomes the kernel's copy. Either way the file newfd held is
 * closed, its POSIX locks dropped as close drops them. */
static int dup_onto(int oldfd, int newfd, int flags)
{
    if (newfd < 0) {
        errno = EBADF;
        return -1;
    }
    if (heldlocks_closing(newfd))
        lock_drop_posix(newfd);
    struct fd_info old, replaced;
    bool close_replaced;
    int fd = fdtable_lookup(oldfd, &old)
                 ? fdtable_dup3(oldfd, newfd, flags & O_CLOEXEC, &replaced,
                                &close_replaced)
                 : fdtable_kernel_dup3(oldfd, newfd, flags, &replaced,
                                       &close_replaced);
    if (close_replaced)
        close_handle(&replaced);
    return fd;
}

DANAUS_EXPORT int danaus_dup2(int oldfd, int newfd)
{
    if (oldfd == newfd) {
        struct fd_info info;
        if (!fdtable_lookup(oldfd, &info)) {
            errno = EBADF;
            return -1;
        }
        return newfd;
    }
    return dup_onto(oldfd, newfd, 0);
}

DANAUS_EXPORT int danaus_dup3(int oldfd, int newfd, int flags)
{
    if ((flags & ~O_CLOEXEC) || oldfd == newfd) {
        errno = EINVAL;
        return -1;
    }
    return dup_onto(oldfd, newfd, flags);
}

/* F_GETFL and F_SETFL: the open file's flags live in the service. */
static int flags_get(int fd)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_GETFL, fd, false) < 0)
        return -1;
    int64_t flags = call_send(&c);
    if (flags < 0)
        return -1;
    /* Linux on 64-bit forces O_LARGEFILE onto every open file; glibc's
     * O_LARGEFILE is 0 there, so this is the kernel's value. */
    return (int)flags | 0100000;
}

static int flags_set(int fd, int flags)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_SETFL, fd, false) < 0)
        return -1;
    c.desc.arg[0] = flags;
    return call_send(&c) < 0 ? -1 : 0;
}

/* F_DUPFD and F_DUPFD_CLOEXEC. */
static int dup_from(int oldfd, int minfd, bool cloexec)
{
    if (minfd < 0) {
        errno = EINVAL;
        return -1;
    }
    return fdtable_dupfd(oldfd, minfd, cloexec);
}

DANAUS_EXPORT int danaus_fcntl(int fd, int cmd, ...)
{
    struct fd_info info;
    if (!fdtable_lookup(fd, &info)) {
        errno = EBADF;
        return -1;
    }
    va_list ap;
    va_start(ap, cmd);
    int rc;
    switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        rc = dup_from(fd, va_arg(ap, int), cmd == F_DUPFD_CLOEXEC);
        break;
    case F_GETFD:
        /* The descriptor flags are the placeholder's (fdtable.h). */
        rc = sys_fcntl(fd, F_GETFD, 0);
        break;
    case F_SETFD:
        rc = sys_fcntl(fd, F_SETFD, va_arg(ap, int));
        break;
    case F_GETFL:
        rc = flags_get(fd);
        break;
    case F_SETFL:
        rc = flags_set(fd, va_arg(ap, int));
        break;
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW:
        rc = lock_fcntl(fd, cmd, va_arg(ap, struct flock *));
        break;
    default:
        errno = EINVAL;
        rc = -1;
        break;
    }
    va_end(ap);
    return rc;
}
