/*
 * sys.h - the kernel calls libdanaus makes for itself.
 *
 * libdanaus also exports libc's names (open, close, read, ...) when it is
 * preloaded, and a call to one of those names from inside the library would
 * come back into our own interposer. The library's own housekeeping (the
 * placeholder descriptors, /proc reads, the current directory) therefore
 * goes straight to the kernel through these. They keep libc's convention:
 * -1 and errno on failure. None of them allocates memory.
 */
#ifndef DANAUS_LIBFS_SYS_H
#define DANAUS_LIBFS_SYS_H

#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static inline int sys_open(const char *path, int flags)
{
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0);
}

static inline int sys_close(int fd)
{
    return (int)syscall(SYS_close, fd);
}

/* Whether fd has any of events, or a hang-up or error, now: 1, 0, or -1
 * (ppoll with a zero timeout). */
static inline int sys_poll_now(int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};
    struct timespec zero = {0, 0};
    return (int)syscall(SYS_ppoll, &p, 1, &zero, NULL, 0);
}

static inline ssize_t sys_read(int fd, void *buf, size_t n)
{
    return syscall(SYS_read, fd, buf, n);
}

static inline ssize_t sys_readlink(const char *path, char *buf, size_t n)
{
    return syscall(SYS_readlinkat, AT_FDCWD, path, buf, n);
}

/* fstat (x86-64's kernel struct stat is glibc's). */
static inline int sys_fstat(int fd, struct stat *st)
{
    return (int)syscall(SYS_fstat, fd, st);
}

/* lstat (x86-64's kernel struct stat is glibc's). */
static inline int sys_lstat(const char *path, struct stat *st)
{
    return (int)syscall(SYS_newfstatat, AT_FDCWD, path, st,
                        AT_SYMLINK_NOFOLLOW);
}

/* Whether the kernel has a file system mounted at path (a mount over a
 * Danaus directory that the service cannot see; statx's MOUNT_ROOT). */
static inline bool sys_mount_root(const char *path)
{
    struct statx stx;
    return syscall(SYS_statx, AT_FDCWD, path,
                   AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, 0, &stx) == 0 &&
           (stx.stx_attributes_mask & stx.stx_attributes &
            STATX_ATTR_MOUNT_ROOT);
}

static inline int sys_dup(int fd)
{
    return (int)syscall(SYS_dup, fd);
}

/* dup2, which the kernel offers on x86-64 only; dup3 refuses oldfd ==
 * newfd, which dup2 accepts. */
static inline int sys_dup2(int oldfd, int newfd)
{
    if (oldfd == newfd)
        return syscall(SYS_fcntl, oldfd, F_GETFD) < 0 ? -1 : newfd;
    return (int)syscall(SYS_dup3, oldfd, newfd, 0);
}

static inline int sys_fcntl(int fd, int cmd, long arg)
{
    return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

/* getcwd; the kernel returns the length, libc the buffer. */
static inline char *sys_getcwd(char *buf, size_t size)
{
    return syscall(SYS_getcwd, buf, size) < 0 ? NULL : buf;
}

static inline int sys_chdir(const char *path)
{
    return (int)syscall(SYS_chdir, path);
}

static inline int sys_mkdir(const char *path, mode_t mode)
{
    return (int)syscall(SYS_mkdir, path, mode);
}

static inline int sys_rmdir(const char *path)
{
    return (int)syscall(SYS_rmdir, path);
}

static inline int sys_statfs(const char *path, struct statfs *fs)
{
    return (int)syscall(SYS_statfs, path, fs);
}

#endif
