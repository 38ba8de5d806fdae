/*
 * fileops_suite.h - one file-operation suite over a table of calls.
 *
 * struct fsops holds the calls the suite uses, with libc's signatures, so it
 * can be filled with libc's functions or with the danaus_* API. A side is
 * one run of the suite: its calls, its root directory and the transcript it
 * writes, one line per step ("what -> result", with what users rely on:
 * data by checksum, sizes, types and permission bits, link counts, sorted
 * listings, link targets, xattr values; never inode numbers, devices,
 * access times unless set explicitly, or block counts).
 */
#ifndef DANAUS_FILEOPS_SUITE_H
#define DANAUS_FILEOPS_SUITE_H

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

struct fsops {
    const char *name;
    int (*open)(const char *, int, ...);
    int (*openat)(int, const char *, int, ...);
    int (*creat)(const char *, mode_t);
    int (*close)(int);
    ssize_t (*read)(int, void *, size_t);
    ssize_t (*write)(int, const void *, size_t);
    ssize_t (*pread)(int, void *, size_t, off_t);
    ssize_t (*pwrite)(int, const void *, size_t, off_t);
    ssize_t (*readv)(int, const struct iovec *, int);
    ssize_t (*writev)(int, const struct iovec *, int);
    off_t (*lseek)(int, off_t, int);
    int (*fsync)(int);
    int (*fdatasync)(int);
    int (*truncate)(const char *, off_t);
    int (*ftruncate)(int, off_t);
    int (*stat)(const char *, struct stat *);
    int (*lstat)(const char *, struct stat *);
    int (*fstat)(int, struct stat *);
    int (*fstatat)(int, const char *, struct stat *, int);
    int (*access)(const char *, int);
    int (*mkdir)(const char *, mode_t);
    int (*rmdir)(const char *);
    int (*unlink)(const char *);
    int (*rename)(const char *, const char *);
    int (*link)(const char *, const char *);
    int (*symlink)(const char *, const char *);
    ssize_t (*readlink)(const char *, char *, size_t);
    int (*chmod)(const char *, mode_t);
    int (*fchmod)(int, mode_t);
    int (*chown)(const char *, uid_t, gid_t);
    int (*fchown)(int, uid_t, gid_t);
    int (*utimensat)(int, const char *, const struct timespec[2], int);
    int (*futimens)(int, const struct timespec[2]);
    int (*statfs)(const char *, struct statfs *);
    DIR *(*opendir)(const char *);
    DIR *(*fdopendir)(int);
    struct dirent *(*readdir)(DIR *);
    int (*closedir)(DIR *);
    void (*rewinddir)(DIR *);
    ssize_t (*getxattr)(const char *, const char *, void *, size_t);
    int (*setxattr)(const char *, const char *, const void *, size_t, int);
    ssize_t (*listxattr)(const char *, char *, size_t);
    int (*removexattr)(const char *, const char *);
    int (*dup)(int);
    int (*dup2)(int, int);
};

struct transcript {
    char **line;
    int n, cap;
};

void transcript_free(struct transcript *t);

struct side {
    const struct fsops *fs;
    char root[PATH_MAX];
    struct transcript t;
};

struct fileops_section {
    const char *name;
    void (*run)(struct side *s);
};

#define FILEOPS_MAX_SECTIONS 32

/* The suite's sections, ended by an entry with name NULL. */
extern const struct fileops_section fileops_sections[];

/* Removes path and everything below it through fs; 0 or -1 with errno. */
int fileops_remove_tree(const struct fsops *fs, const char *path);

#endif
