/*
 * fd.c - the descriptor family of interposers: open and its
 * variants (fortified ones too), close, lseek, fsync, truncate, space and
 * advice calls, dup, fcntl, ioctl and mmap.
 *
 * Each one asks route.h whether the call is Danaus's and hands it to the
 * danaus_* call or, unchanged, to libc. The read/write family is in
 * io.c, copy_file_range and sendfile in copy.c.
 */
#include "libfs/call.h"
#include "libfs/export.h"
#include "libfs/fdtable.h"
#include "libfs/openfds.h"
#include "libfs/real.h"
#include "libfs/route.h"
#include "libfs/stdstreams.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

/* glibc's fortified open entry points; its headers declare them only for
 * _FORTIFY_SOURCE builds. */
extern int __open_2(const char *path, int oflag);
extern int __open64_2(const char *path, int oflag);
extern int __openat_2(int fd, const char *path, int oflag);
extern int __openat64_2(int fd, const char *path, int oflag);

/* A Danaus descriptor that lands on 0, 1 or 2 takes its stdio stream with
 * it (stdstreams.h); numbers above 2 are ignored there. */
static int follow(int fd)
{
    stdstreams_follow(fd);
    return fd;
}

/* open's mode argument is passed only when the flags create a file. */
static bool needs_mode(int flags)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#define MODE_ARG(flags, mode)                                                \
    do {                                                                     \
        if (needs_mode(flags)) {                                             \
            va_list ap_;                                                     \
            va_start(ap_, flags);                                            \
            mode = (mode_t)va_arg(ap_, unsigned int);                        \
            va_end(ap_);                                                     \
        }                                                                    \
    } while (0)

DANAUS_EXPORT int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(open)(route_kernel_path(AT_FDCWD, path, k), flags, mode);
    return follow(danaus_open(path, flags, mode));
}

DANAUS_EXPORT int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(open64)(route_kernel_path(AT_FDCWD, path, k), flags, mode);
    return follow(danaus_open(path, flags, mode));
}

DANAUS_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(openat)(dirfd, route_kernel_path(dirfd, path, k), flags,
                            mode);
    return follow(danaus_openat(dirfd, path, flags, mode));
}

DANAUS_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    char k[DANAUS_PATH_MAX];
    if (!route_path(dirfd, path))
        return REAL(openat64)(dirfd, route_kernel_path(dirfd, path, k), flags,
                              mode);
    return follow(danaus_openat(dirfd, path, flags, mode));
}

DANAUS_EXPORT int creat(const char *path, mode_t mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(creat)(route_kernel_path(AT_FDCWD, path, k), mode);
    return follow(danaus_creat(path, mode));
}

DANAUS_EXPORT int creat64(const char *path, mode_t mode)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(creat64)(route_kernel_path(AT_FDCWD, path, k), mode);
    return follow(danaus_creat(path, mode));
}

/* The fortified opens are called without a mode. Flags that need one make
 * glibc's own entry abort the program before it opens anything, so those
 * go to glibc whatever the path. */
DANAUS_EXPORT int __open_2(const char *path, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (needs_mode(flags) || !route_path(AT_FDCWD, path))
        return REAL(__open_2)(route_kernel_path(AT_FDCWD, path, k), flags);
    return follow(danaus_open(path, flags));
}

DANAUS_EXPORT int __open64_2(const char *path, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (needs_mode(flags) || !route_path(AT_FDCWD, path))
        return REAL(__open64_2)(route_kernel_path(AT_FDCWD, path, k), flags);
    return follow(danaus_open(path, flags));
}

DANAUS_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (needs_mode(flags) || !route_path(dirfd, path))
        return REAL(__openat_2)(dirfd, route_kernel_path(dirfd, path, k),
                                flags);
    return follow(danaus_openat(dirfd, path, flags));
}

DANAUS_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    char k[DANAUS_PATH_MAX];
    if (needs_mode(flags) || !route_path(dirfd, path))
        return REAL(__openat64_2)(dirfd, route_kernel_path(dirfd, path, k),
                                  flags);
    return follow(danaus_openat(dirfd, path, flags));
}

DANAUS_EXPORT int close(int fd)
{
    if (!route_fd(fd))
        return REAL(close)(fd);
    return danaus_close(fd);
}

/* close_range and closefrom close many descriptors in one kernel call:
 * the Danaus ones among them are closed here first (service handle and
 * table entry), or a later kernel descriptor reusing a number would still
 * be taken for Danaus's. CLOSE_RANGE_CLOEXEC only marks descriptors, which
 * the placeholders carry for Danaus ones: that goes to the kernel alone. */
struct fd_range {
    unsigned first, last;
};

static void close_if_danaus(int fd, void *arg)
{
    const struct fd_range *r = arg;
    if ((unsigned)fd >= r->first && (unsigned)fd <= r->last && route_fd(fd))
        danaus_close(fd);
}

DANAUS_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    if (route_enabled() && first <= last && !(flags & CLOSE_RANGE_CLOEXEC)) {
        struct fd_range r = {first, last};
        openfds_each(close_if_danaus, &r);
    }
    return REAL(close_range)(first, last, flags);
}

DANAUS_EXPORT void closefrom(int lowfd)
{
    if (route_enabled() && lowfd >= 0) {
        struct fd_range r = {(unsigned)lowfd, ~0u};
        openfds_each(close_if_danaus, &r);
    }
    REAL(closefrom)(lowfd);
}

DANAUS_EXPORT off_t lseek(int fd, off_t offset, int whence)
{
    if (!route_fd(fd))
        return REAL(lseek)(fd, offset, whence);
    return danaus_lseek(fd, offset, whence);
}

DANAUS_EXPORT off64_t lseek64(int fd, off64_t offset, int whence)
{
    if (!route_fd(fd))
        return REAL(lseek64)(fd, offset, whence);
    return danaus_lseek(fd, offset, whence);
}

DANAUS_EXPORT int fsync(int fd)
{
    if (!route_fd(fd))
        return REAL(fsync)(fd);
    return danaus_fsync(fd);
}

DANAUS_EXPORT int fdatasync(int fd)
{
    if (!route_fd(fd))
        return REAL(fdatasync)(fd);
    return danaus_fdatasync(fd);
}

DANAUS_EXPORT int sync_file_range(int fd, off64_t offset, off64_t nbytes,
                                  unsigned int flags)
{
    if (!route_fd(fd))
        return REAL(sync_file_range)(fd, offset, nbytes, flags);
    return danaus_sync_file_range(fd, offset, nbytes, flags);
}

DANAUS_EXPORT int truncate(const char *path, off_t length)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(truncate)(route_kernel_path(AT_FDCWD, path, k), length);
    return danaus_truncate(path, length);
}

DANAUS_EXPORT int truncate64(const char *path, off64_t length)
{
    char k[DANAUS_PATH_MAX];
    if (!route_path(AT_FDCWD, path))
        return REAL(truncate64)(route_kernel_path(AT_FDCWD, path, k), length);
    return danaus_truncate(path, length);
}

DANAUS_EXPORT int ftruncate(int fd, off_t length)
{
    if (!route_fd(fd))
        return REAL(ftruncate)(fd, length);
    return danaus_ftruncate(fd, length);
}

DANAUS_EXPORT int ftruncate64(int fd, off64_t length)
{
    if (!route_fd(fd))
        return REAL(ftruncate64)(fd, length);
    return danaus_ftruncate(fd, length);
}

DANAUS_EXPORT int fallocate(int fd, int mode, off_t offset, off_t len)
{
    if (!route_fd(fd))
        return REAL(fallocate)(fd, mode, offset, len);
    return danaus_fallocate(fd, mode, offset, len);
}

DANAUS_EXPORT int fallocate64(int fd, int mode, off64_t offset, off64_t len)
{
    if (!route_fd(fd))
        return REAL(fallocate64)(fd, mode, offset, len);
    return danaus_fallocate(fd, mode, offset, len);
}

DANAUS_EXPORT int posix_fallocate(int fd, off_t offset, off_t len)
{
    if (!route_fd(fd))
        return REAL(posix_fallocate)(fd, offset, len);
    return danaus_posix_fallocate(fd, offset, len);
}

DANAUS_EXPORT int posix_fallocate64(int fd, off64_t offset, off64_t len)
{
    if (!route_fd(fd))
        return REAL(posix_fallocate64)(fd, offset, len);
    return danaus_posix_fallocate(fd, offset, len);
}

DANAUS_EXPORT int posix_fadvise(int fd, off_t offset, off_t len, int advice)
{
    if (!route_fd(fd))
        return REAL(posix_fadvise)(fd, offset, len, advice);
    return danaus_posix_fadvise(fd, offset, len, advice);
}

DANAUS_EXPORT int posix_fadvise64(int fd, off64_t offset, off64_t len,
                                  int advice)
{
    if (!route_fd(fd))
        return REAL(posix_fadvise64)(fd, offset, len, advice);
    return danaus_posix_fadvise(fd, offset, len, advice);
}

DANAUS_EXPORT int dup(int fd)
{
    if (!route_fd(fd))
        return REAL(dup)(fd);
    return follow(danaus_dup(fd));
}

/* A kernel oldfd onto a Danaus newfd goes to the API too: newfd becomes
 * the kernel's copy, and the Danaus file it held is closed. */
DANAUS_EXPORT int dup2(int oldfd, int newfd)
{
    if (route_fd(oldfd)) {
        stdstreams_follow(newfd);
        return danaus_dup2(oldfd, newfd);
    }
    if (route_fd(newfd))
        return danaus_dup2(oldfd, newfd);
    return REAL(dup2)(oldfd, newfd);
}

DANAUS_EXPORT int dup3(int oldfd, int newfd, int flags)
{
    if (route_fd(oldfd)) {
        stdstreams_follow(newfd);
        return danaus_dup3(oldfd, newfd, flags);
    }
    if (route_fd(newfd))
        return danaus_dup3(oldfd, newfd, flags);
    return REAL(dup3)(oldfd, newfd, flags);
}

/* fcntl's third argument is an int or a pointer depending on cmd. Like
 * glibc's own fcntl, read it as a pointer-sized value (on x86-64 every
 * variadic argument takes a full 8-byte slot) and pass it on in the type
 * the command takes. */
static int fcntl_danaus(int fd, int cmd, void *arg)
{
    switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        return follow(danaus_fcntl(fd, cmd, (int)(intptr_t)arg));
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW:
        return danaus_fcntl(fd, cmd, (struct flock *)arg);
    default:
        return danaus_fcntl(fd, cmd, (int)(intptr_t)arg);
    }
}

DANAUS_EXPORT int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (!route_fd(fd))
        return REAL(fcntl)(fd, cmd, arg);
    return fcntl_danaus(fd, cmd, arg);
}

DANAUS_EXPORT int fcntl64(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (!route_fd(fd))
        return REAL(fcntl64)(fd, cmd, arg);
    return fcntl_danaus(fd, cmd, arg);
}

DANAUS_EXPORT int ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (!route_fd(fd))
        return REAL(ioctl)(fd, request, arg);
    return danaus_ioctl(fd, request, arg);
}

/* glibc's isatty and tcgetattr ask the kernel with an internal ioctl, which
 * would reach the placeholder and fail with EBADF; a Danaus file is no
 * terminal: ENOTTY, as a regular file answers. */
DANAUS_EXPORT int tcgetattr(int fd, struct termios *t)
{
    if (!route_fd(fd))
        return REAL(tcgetattr)(fd, t);
    errno = ENOTTY;
    return -1;
}

DANAUS_EXPORT int isatty(int fd)
{
    if (!route_fd(fd))
        return REAL(isatty)(fd);
    errno = ENOTTY;
    return 0;
}

/* Private maps of at most this many bytes are copies (mmap_copy). */
#define COPY_MAP_MAX (1u << 20)

/* A Danaus file the kernel cannot map: say so once per call, naming the
 * file, rather than fail silently. */
static void *mmap_refused(int fd)
{
    char path[DANAUS_PATH_MAX];
    if (fdtable_path(fd, path, sizeof path) < 0)
        strcpy(path, "a Danaus file");
    static const char head[] = "libdanaus: mmap of ";
    static const char tail[] = ": no FUSE door shows this file (ENODEV)\n";
    struct iovec line[] = {
        {(void *)head, sizeof head - 1},
        {path, strlen(path)},
        {(void *)tail, sizeof tail - 1},
    };
    syscall(SYS_writev, 2, line, 3);
    errno = ENODEV;
    return MAP_FAILED;
}

/* A Danaus descriptor has no pages of its own; the service's FUSE door
 * (fsservice/doors/fuse_door.h) shows the same file at the same path, so
 * the map is made on a kernel descriptor of it, opened with fd's access
 * mode (the library's record of it: an open file's access mode never
 * changes), and MAP_SHARED writes reach the file through the door. The
 * inode numbers must agree: without the door, or once the path names
 * another file, the map is refused. */
static void *mmap_danaus(void *addr, size_t len, int prot, int flags, int fd,
                         off_t offset)
{
    char path[DANAUS_PATH_MAX];
    struct stat dst, kst;
    if (fdtable_path(fd, path, sizeof path) < 0 ||
        danaus_fstat(fd, &dst) < 0)
        return MAP_FAILED;
    int fl = fdtable_flags(fd);
    int kfd = (int)syscall(SYS_openat, AT_FDCWD, path,
                           (fl & (O_ACCMODE | O_PATH)) | O_CLOEXEC);
    if (kfd < 0)
        return mmap_refused(fd);
    if (syscall(SYS_fstat, kfd, &kst) < 0 || kst.st_ino != dst.st_ino) {
        syscall(SYS_close, kfd);
        return mmap_refused(fd);
    }
    void *p = REAL(mmap)(addr, len, prot, flags, kfd, offset);
    int saved = errno;
    syscall(SYS_close, kfd); /* the map keeps the file */
    errno = saved;
    return p;
}

/* Whether a map is one mmap_copy makes: private, not executable, with
 * no flags but these, of at most COPY_MAP_MAX bytes at a page-aligned
 * offset. */
static bool copy_fits(size_t len, int prot, int flags, off_t offset)
{
    const int plain = MAP_PRIVATE | MAP_FIXED | MAP_FIXED_NOREPLACE |
                      MAP_POPULATE | MAP_NORESERVE;
    return (flags & MAP_TYPE) == MAP_PRIVATE && !(flags & ~plain) &&
           !(prot & PROT_EXEC) && len > 0 && len <= COPY_MAP_MAX &&
           offset >= 0 && offset % getpagesize() == 0;
}

/* A small private map of a Danaus file is an anonymous map holding a
 * copy of its bytes, read through the service: none of the FUSE door's
 * round trips (lookups of a path the kernel has not seen, an open,
 * reads, a release), which git pays for every loose object it reads.
 * POSIX leaves it unspecified whether a private map sees the file's
 * later changes; this one does not. Pages wholly past the file's end
 * read as zeros, where the kernel's map would raise SIGBUS. */
static void *mmap_copy(void *addr, size_t len, int prot, int flags, int fd,
                       off_t offset)
{
    int mode = fdtable_flags(fd);
    if (mode & O_PATH) {
        errno = EBADF;
        return MAP_FAILED;
    }
    if ((mode & O_ACCMODE) == O_WRONLY) {
        errno = EACCES;
        return MAP_FAILED;
    }
    char *p = REAL(mmap)(addr, len, PROT_READ | PROT_WRITE,
                         flags | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return MAP_FAILED;
    size_t done = 0;
    ssize_t n = 1;
    while (done < len && (n = danaus_pread(fd, p + done, len - done,
                                           offset + (off_t)done)) > 0)
        done += (size_t)n;
    if (n >= 0 && (prot == (PROT_READ | PROT_WRITE) ||
                   mprotect(p, len, prot) == 0))
        return p;
    int saved = n < 0 && errno == EISDIR ? ENODEV : errno;
    munmap(p, len);
    errno = saved;
    return MAP_FAILED;
}

static void *mmap_routed(void *addr, size_t len, int prot, int flags, int fd,
                         off_t offset)
{
    /* A file the service passed is the kernel's to map (fdtable.h). */
    struct fd_info h;
    if (fdtable_lookup(fd, &h) && h.direct)
        return REAL(mmap)(addr, len, prot, flags, fd, offset);
    if (copy_fits(len, prot, flags, offset))
        return mmap_copy(addr, len, prot, flags, fd, offset);
    return mmap_danaus(addr, len, prot, flags, fd, offset);
}

DANAUS_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
                         off_t offset)
{
    if ((flags & MAP_ANONYMOUS) || !route_fd(fd))
        return REAL(mmap)(addr, len, prot, flags, fd, offset);
    return mmap_routed(addr, len, prot, flags, fd, offset);
}

DANAUS_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags,
                           int fd, off64_t offset)
{
    if ((flags & MAP_ANONYMOUS) || !route_fd(fd))
        return REAL(mmap64)(addr, len, prot, flags, fd, offset);
    return mmap_routed(addr, len, prot, flags, fd, offset);
}
