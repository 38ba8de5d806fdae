/*
 * danaus.h - the danaus_* API of libdanaus.so.
 *
 * Each call has the signature and errno conventions of its libc twin and
 * acts on files of the Danaus service named by the environment:
 *
 *   DANAUS_SERVICE=NAME   the service's socket is $DANAUS_RUNDIR/NAME.sock
 *                         (DANAUS_RUNDIR defaults to /run/danaus); a value
 *                         containing '/' is the socket path itself.
 *
 * Paths are resolved against the mount points the service exports; a path
 * outside every mount point fails with EXDEV ("not on a Danaus file system"),
 * and a descriptor that Danaus did not open fails with EBADF. Descriptors are
 * ordinary numbers, reserved in the kernel's descriptor table, so they never
 * collide with descriptors the process opens otherwise. If the service cannot
 * be reached, calls fail with ENOTCONN.
 */
#ifndef DANAUS_H
#define DANAUS_H

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* glibc defines struct statx only under _GNU_SOURCE. */
struct statx;
/* ftw.h defines struct FTW only for XSI. */
struct FTW;

/* Descriptors and data. */
int danaus_open(const char *pathname, int flags, ...);
int danaus_openat(int dirfd, const char *pathname, int flags, ...);
int danaus_creat(const char *pathname, mode_t mode);
int danaus_close(int fd);
ssize_t danaus_read(int fd, void *buf, size_t count);
ssize_t danaus_write(int fd, const void *buf, size_t count);
ssize_t danaus_pread(int fd, void *buf, size_t count, off_t offset);
ssize_t danaus_pwrite(int fd, const void *buf, size_t count, off_t offset);
ssize_t danaus_readv(int fd, const struct iovec *iov, int iovcnt);
ssize_t danaus_writev(int fd, const struct iovec *iov, int iovcnt);
off_t danaus_lseek(int fd, off_t offset, int whence);
int danaus_fsync(int fd);
int danaus_fdatasync(int fd);
/* Writeout requested with SYNC_FILE_RANGE_WRITE is a whole-file
 * fdatasync (the service has no ranged writeout; stronger is allowed);
 * waits alone succeed. EINVAL for unknown flags or a negative range. */
int danaus_sync_file_range(int fd, off_t offset, off_t nbytes,
                           unsigned int flags);
/* Unique temporary files and directories, as mkstemp(3) and mkdtemp(3):
 * the six X's before the suffix are replaced in place. */
int danaus_mkstemp(char *tmpl);
int danaus_mkostemp(char *tmpl, int flags);
int danaus_mkstemps(char *tmpl, int suffixlen);
int danaus_mkostemps(char *tmpl, int suffixlen, int flags);
char *danaus_mkdtemp(char *tmpl);
int danaus_ftruncate(int fd, off_t length);
int danaus_dup(int oldfd);
/* oldfd may be a kernel descriptor and newfd a Danaus one (also in dup3):
 * newfd's file is closed and newfd becomes the kernel's copy. */
int danaus_dup2(int oldfd, int newfd);
ssize_t danaus_preadv(int fd, const struct iovec *iov, int iovcnt,
                      off_t offset);
ssize_t danaus_pwritev(int fd, const struct iovec *iov, int iovcnt,
                       off_t offset);
/* flags (RWF_*) must be 0: EOPNOTSUPP otherwise. offset -1 is the file
 * offset, as with readv and writev. */
ssize_t danaus_preadv2(int fd, const struct iovec *iov, int iovcnt,
                       off_t offset, int flags);
ssize_t danaus_pwritev2(int fd, const struct iovec *iov, int iovcnt,
                        off_t offset, int flags);
int danaus_dup3(int oldfd, int newfd, int flags);
/* Descriptor flags, F_DUPFD*, F_GETFL, F_SETFL, and record locks (F_GETLK,
 * F_SETLK, F_SETLKW, F_OFD_*) held by the service for all its clients.
 * Other commands fail with EINVAL. */
int danaus_fcntl(int fd, int cmd, ...);
/* BSD locks on the whole file, owned by the open file (sys/file.h). */
int danaus_flock(int fd, int operation);
/* lockf(3): F_LOCK, F_TLOCK, F_ULOCK, F_TEST over fcntl's locks. */
int danaus_lockf(int fd, int cmd, off_t len);
/* FIONREAD, FIOCLEX, FIONCLEX and FIONBIO; other requests fail with ENOTTY. */
int danaus_ioctl(int fd, unsigned long request, ...);
/* fallocate(2): the modes the backend has (on a local directory, the host
 * file system's; EOPNOTSUPP for the others). */
int danaus_fallocate(int fd, int mode, off_t offset, off_t len);
/* These two return the error number instead of setting errno.
 * posix_fallocate extends the file by writing where the backend has no
 * mode 0, as glibc does (not on an O_APPEND descriptor: EBADF). */
int danaus_posix_fallocate(int fd, off_t offset, off_t len);
int danaus_posix_fadvise(int fd, off_t offset, off_t len, int advice);

/* Paths and metadata. */
int danaus_truncate(const char *path, off_t length);
int danaus_stat(const char *pathname, struct stat *statbuf);
int danaus_lstat(const char *pathname, struct stat *statbuf);
int danaus_fstat(int fd, struct stat *statbuf);
int danaus_fstatat(int dirfd, const char *pathname, struct stat *statbuf,
                   int flags);
int danaus_access(const char *pathname, int mode);
int danaus_mkdir(const char *pathname, mode_t mode);
int danaus_rmdir(const char *pathname);
int danaus_unlink(const char *pathname);
int danaus_rename(const char *oldpath, const char *newpath);
int danaus_link(const char *oldpath, const char *newpath);
int danaus_symlink(const char *target, const char *linkpath);
ssize_t danaus_readlink(const char *pathname, char *buf, size_t bufsiz);
int danaus_chmod(const char *pathname, mode_t mode);
int danaus_fchmod(int fd, mode_t mode);
int danaus_chown(const char *pathname, uid_t owner, gid_t group);
int danaus_fchown(int fd, uid_t owner, gid_t group);
int danaus_utimensat(int dirfd, const char *pathname,
                     const struct timespec times[2], int flags);
int danaus_futimens(int fd, const struct timespec times[2]);
int danaus_statfs(const char *path, struct statfs *buf);

/* The *at twins of the calls above, and the rest of the family. Where the
 * service cannot do what a flag asks, the call fails as Linux does on a file
 * system without the feature (see each definition). */
int danaus_statx(int dirfd, const char *pathname, int flags,
                 unsigned int mask, struct statx *statxbuf);
int danaus_faccessat(int dirfd, const char *pathname, int mode, int flags);
int danaus_euidaccess(const char *pathname, int mode);
int danaus_mkdirat(int dirfd, const char *pathname, mode_t mode);
/* FIFOs, sockets, regular files and (for root) devices. danaus_open of a
 * FIFO, socket or device gives a kernel descriptor, opened through the
 * service's FUSE door: their data path is the kernel's. */
int danaus_mknod(const char *pathname, mode_t mode, dev_t dev);
int danaus_mknodat(int dirfd, const char *pathname, mode_t mode, dev_t dev);
int danaus_mkfifo(const char *pathname, mode_t mode);
int danaus_mkfifoat(int dirfd, const char *pathname, mode_t mode);
int danaus_unlinkat(int dirfd, const char *pathname, int flags);
int danaus_renameat(int olddirfd, const char *oldpath, int newdirfd,
                    const char *newpath);
int danaus_renameat2(int olddirfd, const char *oldpath, int newdirfd,
                     const char *newpath, unsigned int flags);
int danaus_linkat(int olddirfd, const char *oldpath, int newdirfd,
                  const char *newpath, int flags);
int danaus_symlinkat(const char *target, int newdirfd, const char *linkpath);
ssize_t danaus_readlinkat(int dirfd, const char *pathname, char *buf,
                          size_t bufsiz);
int danaus_fchmodat(int dirfd, const char *pathname, mode_t mode, int flags);
int danaus_lchown(const char *pathname, uid_t owner, gid_t group);
int danaus_fchownat(int dirfd, const char *pathname, uid_t owner,
                    gid_t group, int flags);
int danaus_fstatfs(int fd, struct statfs *buf);
int danaus_statvfs(const char *path, struct statvfs *buf);
int danaus_fstatvfs(int fd, struct statvfs *buf);
long danaus_pathconf(const char *path, int name);
long danaus_fpathconf(int fd, int name);
/* Resolves every symbolic link, through the service for the components on
 * a Danaus mount and through the kernel for the others. */
char *danaus_realpath(const char *path, char *resolved_path);

/* The current directory: danaus_chdir and danaus_fchdir make a Danaus
 * directory the one relative paths start from (for the danaus_* calls and,
 * under LD_PRELOAD, for the application's); danaus_getcwd reports it, or
 * fails with EXDEV while the current directory is not a Danaus one. */
int danaus_chdir(const char *path);
int danaus_fchdir(int fd);
char *danaus_getcwd(char *buf, size_t size);

/* Directories. The DIR of these calls is Danaus's own: pass it only to the
 * danaus_ directory calls. */
DIR *danaus_opendir(const char *name);
DIR *danaus_fdopendir(int fd);
struct dirent *danaus_readdir(DIR *dirp);
int danaus_closedir(DIR *dirp);
void danaus_rewinddir(DIR *dirp);
int danaus_readdir_r(DIR *dirp, struct dirent *entry, struct dirent **result);
long danaus_telldir(DIR *dirp);
void danaus_seekdir(DIR *dirp, long loc);
int danaus_dirfd(DIR *dirp);
int danaus_scandir(const char *dirp, struct dirent ***namelist,
                   int (*filter)(const struct dirent *),
                   int (*compar)(const struct dirent **,
                                 const struct dirent **));
int danaus_scandirat(int dirfd, const char *dirp, struct dirent ***namelist,
                     int (*filter)(const struct dirent *),
                     int (*compar)(const struct dirent **,
                                   const struct dirent **));
/* Records laid out as the kernel's linux_dirent64 (struct danaus_dirent). */
ssize_t danaus_getdents64(int fd, void *dirp, size_t count);
/* File tree walks with glibc's semantics (FTW_PHYS, FTW_MOUNT, FTW_CHDIR,
 * FTW_DEPTH, FTW_ACTIONRETVAL); the tree must start on a Danaus mount.
 * Directories are read whole before their entries are visited, so a walk
 * holds one descriptor at a time whatever nopenfd says. */
int danaus_ftw(const char *dirpath,
               int (*fn)(const char *fpath, const struct stat *sb,
                         int typeflag),
               int nopenfd);
int danaus_nftw(const char *dirpath,
                int (*fn)(const char *fpath, const struct stat *sb,
                          int typeflag, struct FTW *ftwbuf),
                int nopenfd, int flags);

/* Streams: FILEs made with fopencookie over danaus_* calls, with fopen's
 * and fdopen's mode strings (",ccs=" conversions fail with EINVAL).
 * fileno() of such a FILE is its Danaus descriptor. danaus_freopen opens a
 * new FILE on a Danaus file (pathname NULL: the file stream has open) and
 * closes stream; the result keeps stream's descriptor number, and when
 * stream is stdin, stdout or stderr that variable is set to the result. */
FILE *danaus_fopen(const char *pathname, const char *mode);
FILE *danaus_fdopen(int fd, const char *mode);
FILE *danaus_freopen(const char *pathname, const char *mode, FILE *stream);

/* Extended attributes. */
ssize_t danaus_getxattr(const char *path, const char *name, void *value,
                        size_t size);
int danaus_setxattr(const char *path, const char *name, const void *value,
                    size_t size, int flags);
ssize_t danaus_listxattr(const char *path, char *list, size_t size);
int danaus_removexattr(const char *path, const char *name);
ssize_t danaus_lgetxattr(const char *path, const char *name, void *value,
                         size_t size);
ssize_t danaus_fgetxattr(int fd, const char *name, void *value, size_t size);
int danaus_lsetxattr(const char *path, const char *name, const void *value,
                     size_t size, int flags);
int danaus_fsetxattr(int fd, const char *name, const void *value,
                     size_t size, int flags);
ssize_t danaus_llistxattr(const char *path, char *list, size_t size);
ssize_t danaus_flistxattr(int fd, char *list, size_t size);
int danaus_lremovexattr(const char *path, const char *name);
int danaus_fremovexattr(int fd, const char *name);

#ifdef __cplusplus
}
#endif

#endif
