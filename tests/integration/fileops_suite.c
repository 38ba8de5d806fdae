/*
 * fileops_suite.c - the file-operation suite (see fileops_suite.h).
 *
 * Every step writes exactly one transcript line whatever happens, so the two
 * sides' lines stay aligned and a difference shows at the step that caused
 * it. Steps never branch on earlier results: a failed open leaves fd -1 and
 * the following steps record what that gives (EBADF).
 */
#include "fileops_suite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#define KiB 1024
#define MiB (1024 * 1024)

/* ---- transcript ---- */

static void rec(struct side *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void rec(struct side *s, const char *fmt, ...)
{
    struct transcript *t = &s->t;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->line = realloc(t->line, (size_t)t->cap * sizeof *t->line);
        if (!t->line)
            abort();
    }
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&t->line[t->n], fmt, ap) < 0)
        abort();
    va_end(ap);
    t->n++;
}

void transcript_free(struct transcript *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->line[i]);
    free(t->line);
    memset(t, 0, sizeof *t);
}

static const char *err_name(int e)
{
    const char *n = strerrorname_np(e);
    return n ? n : "E?";
}

/* The side's path of rel, in one of a few rotating buffers so a step can
 * name several paths. */
static const char *P(struct side *s, const char *rel)
{
    static char buf[8][2 * PATH_MAX];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", s->root, rel);
    return b;
}

static uint64_t fnv(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Bytes as users would check them: short text verbatim, all-zero runs as
 * such, anything else by length and checksum. */
static void summarize(const void *data, size_t n, char *out, size_t len)
{
    const unsigned char *p = data;
    int printable = n <= 48, zeros = 1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x20 || p[i] > 0x7e)
            printable = 0;
        if (p[i])
            zeros = 0;
    }
    if (printable)
        snprintf(out, len, "'%.*s'", (int)n, (const char *)data);
    else if (zeros)
        snprintf(out, len, "%zu zero bytes", n);
    else
        snprintf(out, len, "%zu bytes fnv %016llx", n,
                 (unsigned long long)fnv(data, n));
}

/* An integer result: the value, or -1 and the errno name. */
static void rec_int(struct side *s, const char *what, long long r, int e)
{
    if (r < 0)
        rec(s, "%s -> %lld %s", what, r, err_name(e));
    else
        rec(s, "%s -> %lld", what, r);
}

/* A result whose value differs legitimately (descriptors, pointers). */
static void rec_ok(struct side *s, const char *what, int ok, int e)
{
    if (ok)
        rec(s, "%s -> ok", what);
    else
        rec(s, "%s -> failed %s", what, err_name(e));
}

#define INT(s, what, expr)                                                   \
    do {                                                                     \
        errno = 0;                                                           \
        long long r_ = (long long)(expr);                                    \
        rec_int(s, what, r_, errno);                                         \
    } while (0)

#define FD(s, var, what, expr)                                               \
    do {                                                                     \
        errno = 0;                                                           \
        var = (expr);                                                        \
        rec_ok(s, what, var >= 0, errno);                                    \
    } while (0)

/* Closes a descriptor a step did not expect to get, without a line. */
static void quiet_close(struct side *s, int fd)
{
    if (fd >= 0)
        s->fs->close(fd);
}

/* ---- steps that record what users look at ---- */

static const char *type_name(mode_t m)
{
    switch (m & S_IFMT) {
    case S_IFREG: return "file";
    case S_IFDIR: return "dir";
    case S_IFLNK: return "symlink";
    default: return "other";
    }
}

/* Directory sizes and link counts are each file system's own business. */
static void rec_stat(struct side *s, const char *what, int rc, int e,
                     const struct stat *st)
{
    if (rc < 0) {
        rec_int(s, what, rc, e);
        return;
    }
    if (S_ISDIR(st->st_mode))
        rec(s, "%s -> %s mode %04o uid %u gid %u", what, type_name(st->st_mode),
            (unsigned)(st->st_mode & 07777), (unsigned)st->st_uid,
            (unsigned)st->st_gid);
    else
        rec(s, "%s -> %s mode %04o uid %u gid %u nlink %lu size %lld", what,
            type_name(st->st_mode), (unsigned)(st->st_mode & 07777),
            (unsigned)st->st_uid, (unsigned)st->st_gid,
            (unsigned long)st->st_nlink, (long long)st->st_size);
}

static void do_stat(struct side *s, const char *rel)
{
    struct stat st;
    char what[PATH_MAX];
    snprintf(what, sizeof what, "stat %s", rel);
    errno = 0;
    int rc = s->fs->stat(P(s, rel), &st);
    rec_stat(s, what, rc, errno, &st);
}

static void do_lstat(struct side *s, const char *rel)
{
    struct stat st;
    char what[PATH_MAX];
    snprintf(what, sizeof what, "lstat %s", rel);
    errno = 0;
    int rc = s->fs->lstat(P(s, rel), &st);
    rec_stat(s, what, rc, errno, &st);
}

static void do_fstat(struct side *s, const char *what, int fd)
{
    struct stat st;
    errno = 0;
    int rc = s->fs->fstat(fd, &st);
    rec_stat(s, what, rc, errno, &st);
}

static void do_fstatat(struct side *s, const char *what, int dirfd,
                       const char *path, int flags)
{
    struct stat st;
    errno = 0;
    int rc = s->fs->fstatat(dirfd, path, &st, flags);
    rec_stat(s, what, rc, errno, &st);
}

/* Access and modification times, set explicitly by the steps. */
static void do_times(struct side *s, const char *rel)
{
    struct stat st;
    errno = 0;
    int rc = s->fs->lstat(P(s, rel), &st);
    if (rc < 0)
        rec(s, "times %s -> -1 %s", rel, err_name(errno));
    else
        rec(s, "times %s -> atime %lld.%09ld mtime %lld.%09ld", rel,
            (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
            (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static void do_read(struct side *s, const char *what, int fd, size_t n)
{
    char *buf = malloc(n + 1);
    errno = 0;
    ssize_t r = s->fs->read(fd, buf, n);
    if (r < 0) {
        rec_int(s, what, r, errno);
    } else {
        char sum[128];
        summarize(buf, (size_t)r, sum, sizeof sum);
        rec(s, "%s -> %zd %s", what, r, sum);
    }
    free(buf);
}

static void do_pread(struct side *s, const char *what, int fd, size_t n,
                     off_t off)
{
    char *buf = malloc(n + 1);
    errno = 0;
    ssize_t r = s->fs->pread(fd, buf, n, off);
    if (r < 0) {
        rec_int(s, what, r, errno);
    } else {
        char sum[128];
        summarize(buf, (size_t)r, sum, sizeof sum);
        rec(s, "%s -> %zd %s", what, r, sum);
    }
    free(buf);
}

static void do_write(struct side *s, const char *what, int fd, const char *str)
{
    INT(s, what, s->fs->write(fd, str, strlen(str)));
}

/* The whole file read through a fresh descriptor: size and checksum. */
static void content(struct side *s, const char *rel)
{
    int fd = s->fs->open(P(s, rel), O_RDONLY);
    if (fd < 0) {
        rec(s, "content %s -> open %s", rel, err_name(errno));
        return;
    }
    size_t cap = 64 * KiB, len = 0;
    char *buf = malloc(cap);
    ssize_t r;
    while ((r = s->fs->read(fd, buf + len, cap - len)) > 0) {
        len += (size_t)r;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    int e = errno;
    s->fs->close(fd);
    char sum[128];
    summarize(buf, len, sum, sizeof sum);
    if (r < 0)
        rec(s, "content %s -> read %s after %s", rel, err_name(e), sum);
    else
        rec(s, "content %s -> %s", rel, sum);
    free(buf);
}

/* Creates rel holding text, with one line for the whole step. */
static void make_file(struct side *s, const char *rel, const char *text)
{
    int fd = s->fs->open(P(s, rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = errno;
    ssize_t w = fd < 0 ? -1 : s->fs->write(fd, text, strlen(text));
    if (fd >= 0 && w < 0)
        e = errno;
    if (fd >= 0 && s->fs->close(fd) < 0 && w >= 0) {
        e = errno;
        w = -1;
    }
    if (w == (ssize_t)strlen(text))
        rec(s, "make %s -> ok", rel);
    else
        rec(s, "make %s -> failed %s", rel, err_name(e));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char type_letter(unsigned char t)
{
    switch (t) {
    case DT_REG: return 'f';
    case DT_DIR: return 'd';
    case DT_LNK: return 'l';
    case DT_UNKNOWN: return '?';
    default: return 'o';
    }
}

/* Reads the rest of a stream into a sorted "name/type ..." line; long
 * listings are recorded by count and checksum. */
static void list_stream(struct side *s, const char *what, DIR *d)
{
    int n = 0, cap = 64;
    char **names = malloc((size_t)cap * sizeof *names);
    struct dirent *e;
    errno = 0;
    while ((e = s->fs->readdir(d))) {
        if (n == cap)
            names = realloc(names, (size_t)(cap *= 2) * sizeof *names);
        if (asprintf(&names[n++], "%s/%c", e->d_name, type_letter(e->d_type)) < 0)
            abort();
    }
    int err = errno;
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += strlen(names[i]) + 1;
    char *all = calloc(1, len + 1);
    for (int i = 0; i < n; i++) {
        strcat(all, names[i]);
        strcat(all, " ");
        free(names[i]);
    }
    free(names);
    char tail[32] = "";
    if (err)
        snprintf(tail, sizeof tail, " then %s", err_name(err));
    if (len > 400)
        rec(s, "%s -> %d entries fnv %016llx%s", what, n,
            (unsigned long long)fnv(all, len), tail);
    else
        rec(s, "%s -> %s%s", what, all, tail);
    free(all);
}

static void listing(struct side *s, const char *rel)
{
    char what[PATH_MAX];
    snprintf(what, sizeof what, "list %s", rel);
    DIR *d = s->fs->opendir(P(s, rel));
    if (!d) {
        rec(s, "%s -> opendir %s", what, err_name(errno));
        return;
    }
    list_stream(s, what, d);
    s->fs->closedir(d);
}

int fileops_remove_tree(const struct fsops *fs, const char *path)
{
    struct stat st;
    if (fs->lstat(path, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return fs->unlink(path);
    DIR *d = fs->opendir(path);
    if (!d)
        return -1;
    int n = 0, cap = 64;
    char **names = malloc((size_t)cap * sizeof *names);
    struct dirent *e;
    while ((e = fs->readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap)
            names = realloc(names, (size_t)(cap *= 2) * sizeof *names);
        if (asprintf(&names[n++], "%s/%s", path, e->d_name) < 0)
            abort();
    }
    fs->closedir(d);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (fileops_remove_tree(fs, names[i]) < 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc < 0 ? -1 : fs->rmdir(path);
}

/* ---- sections ---- */

static void create_open(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd, fd2, dfd;

    FD(s, fd, "open f WRONLY|CREAT|EXCL 0666", fs->open(P(s, "f"), O_WRONLY | O_CREAT | O_EXCL, 0666));
    do_fstat(s, "fstat new f", fd);
    FD(s, fd2, "open f again CREAT|EXCL", fs->open(P(s, "f"), O_WRONLY | O_CREAT | O_EXCL, 0666));
    quiet_close(s, fd2);
    do_write(s, "write 'hello world'", fd, "hello world");
    do_read(s, "read on O_WRONLY fd", fd, 4);
    INT(s, "close f", fs->close(fd));
    INT(s, "close f twice", fs->close(fd));
    do_write(s, "write on closed fd", fd, "x");
    do_read(s, "read on closed fd", fd, 4);

    FD(s, fd2, "open missing", fs->open(P(s, "missing"), O_RDONLY));
    quiet_close(s, fd2);
    FD(s, fd2, "open nodir/f CREAT", fs->open(P(s, "nodir/f"), O_WRONLY | O_CREAT, 0644));
    quiet_close(s, fd2);
    FD(s, fd2, "open f/x (file as dir)", fs->open(P(s, "f/x"), O_RDONLY));
    quiet_close(s, fd2);
    FD(s, fd2, "open root WRONLY", fs->open(s->root, O_WRONLY));
    quiet_close(s, fd2);
    FD(s, fd2, "open f O_DIRECTORY", fs->open(P(s, "f"), O_RDONLY | O_DIRECTORY));
    quiet_close(s, fd2);
    INT(s, "mkdir d", fs->mkdir(P(s, "d"), 0755));
    FD(s, fd2, "open d RDWR|CREAT", fs->open(P(s, "d"), O_RDWR | O_CREAT, 0644));
    quiet_close(s, fd2);
    char longname[301];
    memset(longname, 'n', 300);
    longname[300] = '\0';
    FD(s, fd2, "open 300-char name CREAT", fs->open(P(s, longname), O_WRONLY | O_CREAT, 0644));
    quiet_close(s, fd2);

    FD(s, fd, "creat c 0666", fs->creat(P(s, "c"), 0666));
    do_fstat(s, "fstat c", fd);
    do_write(s, "write 'abc' to c", fd, "abc");
    INT(s, "close c", fs->close(fd));
    FD(s, fd, "creat c 0600 again", fs->creat(P(s, "c"), 0600));
    do_fstat(s, "fstat c recreated (truncated, mode kept)", fd);
    INT(s, "close c", fs->close(fd));

    FD(s, fd, "open f RDONLY", fs->open(P(s, "f"), O_RDONLY));
    do_read(s, "read 100", fd, 100);
    do_read(s, "read at EOF", fd, 100);
    do_read(s, "read 0 bytes", fd, 0);
    do_write(s, "write on O_RDONLY fd", fd, "x");
    INT(s, "close f", fs->close(fd));

    FD(s, dfd, "open root O_DIRECTORY", fs->open(s->root, O_RDONLY | O_DIRECTORY));
    FD(s, fd, "openat dfd f", fs->openat(dfd, "f", O_RDONLY));
    do_read(s, "read 5 via openat", fd, 5);
    INT(s, "close", fs->close(fd));
    FD(s, fd, "openat dfd g CREAT 0666", fs->openat(dfd, "g", O_WRONLY | O_CREAT, 0666));
    INT(s, "close g", fs->close(fd));
    do_stat(s, "g");
    do_fstatat(s, "fstatat dfd g", dfd, "g", 0);
    FD(s, fd, "open f RDONLY", fs->open(P(s, "f"), O_RDONLY));
    FD(s, fd2, "openat file-fd x", fs->openat(fd, "x", O_RDONLY));
    quiet_close(s, fd2);
    INT(s, "unlink f while open", fs->unlink(P(s, "f")));
    do_fstat(s, "fstat unlinked f", fd);
    do_pread(s, "pread 5@6 unlinked f", fd, 5, 6);
    INT(s, "close f", fs->close(fd));
    do_stat(s, "f");
    INT(s, "close dfd", fs->close(dfd));
    FD(s, fd2, "openat closed dfd", fs->openat(dfd, "g", O_RDONLY));
    quiet_close(s, fd2);
    listing(s, ".");
}

static void seek_io(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd;

    FD(s, fd, "open s RDWR|CREAT", fs->open(P(s, "s"), O_RDWR | O_CREAT, 0644));
    do_write(s, "write 'hello world'", fd, "hello world");
    INT(s, "lseek whence 42", fs->lseek(fd, 0, 42));
    INT(s, "lseek -1 SET", fs->lseek(fd, -1, SEEK_SET));
    INT(s, "lseek 6 SET", fs->lseek(fd, 6, SEEK_SET));
    do_read(s, "read 5", fd, 5);
    INT(s, "lseek 0 CUR", fs->lseek(fd, 0, SEEK_CUR));
    INT(s, "lseek -5 END", fs->lseek(fd, -5, SEEK_END));
    INT(s, "lseek 0 END", fs->lseek(fd, 0, SEEK_END));
    do_pread(s, "pread 5@0", fd, 5, 0);
    INT(s, "lseek 0 CUR after pread", fs->lseek(fd, 0, SEEK_CUR));
    INT(s, "pwrite 'HELLO'@0", fs->pwrite(fd, "HELLO", 5, 0));
    INT(s, "lseek 0 CUR after pwrite", fs->lseek(fd, 0, SEEK_CUR));
    INT(s, "pread at -1", fs->pread(fd, (char[4]){0}, 4, -1));
    content(s, "s");

    struct iovec wv[3] = {
        {(char *)"abc", 3}, {(char *)"", 0}, {(char *)"defgh", 5}};
    INT(s, "writev abc,'',defgh", fs->writev(fd, wv, 3));
    INT(s, "lseek 0 SET", fs->lseek(fd, 0, SEEK_SET));
    char a[4], b[2], c[100];
    struct iovec rv[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
    errno = 0;
    ssize_t r = fs->readv(fd, rv, 3);
    if (r < 0)
        rec_int(s, "readv 4,2,100", r, errno);
    else
        rec(s, "readv 4,2,100 -> %zd '%.4s' '%.2s' '%.*s'", r, a, b,
            (int)(r > 6 ? r - 6 : 0), c);
    INT(s, "lseek 100 SET (past EOF)", fs->lseek(fd, 100, SEEK_SET));
    do_write(s, "write 'Z' at 100", fd, "Z");
    do_fstat(s, "fstat s", fd);
    do_pread(s, "pread 81@19 (gap)", fd, 81, 19);
    do_pread(s, "pread 200@0", fd, 200, 0);
    INT(s, "fsync", fs->fsync(fd));
    INT(s, "fdatasync", fs->fdatasync(fd));
    INT(s, "close s", fs->close(fd));
    INT(s, "lseek on closed fd", fs->lseek(fd, 0, SEEK_SET));
    INT(s, "fsync on closed fd", fs->fsync(fd));
    do_fstat(s, "fstat on closed fd", fd);

    FD(s, fd, "open s WRONLY|APPEND", fs->open(P(s, "s"), O_WRONLY | O_APPEND));
    INT(s, "lseek 0 SET", fs->lseek(fd, 0, SEEK_SET));
    do_write(s, "write '++' (appends)", fd, "++");
    INT(s, "lseek 0 CUR", fs->lseek(fd, 0, SEEK_CUR));
    INT(s, "pwrite '@@'@0 on O_APPEND (Linux appends)", fs->pwrite(fd, "@@", 2, 0));
    do_fstat(s, "fstat s", fd);
    INT(s, "close", fs->close(fd));
    content(s, "s");

    FD(s, fd, "open s RDONLY", fs->open(P(s, "s"), O_RDONLY));
    INT(s, "ftruncate on O_RDONLY fd", fs->ftruncate(fd, 0));
    INT(s, "close", fs->close(fd));
    FD(s, fd, "open s RDWR|TRUNC", fs->open(P(s, "s"), O_RDWR | O_TRUNC));
    do_fstat(s, "fstat truncated s", fd);
    INT(s, "close", fs->close(fd));
}

/* A deterministic pattern no chunk of which repeats another. */
static void fill_pattern(unsigned char *buf, size_t n, uint64_t seed)
{
    uint64_t x = seed | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
}

static void sparse_large(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd;

    FD(s, fd, "open sparse RDWR|CREAT", fs->open(P(s, "sparse"), O_RDWR | O_CREAT, 0644));
    INT(s, "pwrite 'X'@1MiB+10", fs->pwrite(fd, "X", 1, MiB + 10));
    do_fstat(s, "fstat sparse", fd);
    do_pread(s, "pread 4096@0 (hole)", fd, 4096, 0);
    do_pread(s, "pread 4@1MiB+8", fd, 4, MiB + 8);
    do_read(s, "read 2MiB from 0", fd, 2 * MiB);
    INT(s, "close", fs->close(fd));

    size_t big = 3 * MiB;
    unsigned char *buf = malloc(big);
    fill_pattern(buf, big, 42);
    FD(s, fd, "open big RDWR|CREAT|TRUNC", fs->open(P(s, "big"), O_RDWR | O_CREAT | O_TRUNC, 0644));
    INT(s, "write 3MiB", fs->write(fd, buf, big));
    INT(s, "fsync", fs->fsync(fd));
    INT(s, "fdatasync", fs->fdatasync(fd));
    INT(s, "lseek 0 SET", fs->lseek(fd, 0, SEEK_SET));
    do_read(s, "read 3MiB", fd, big);
    do_read(s, "read at EOF", fd, 10);
    do_pread(s, "pread 3MiB@1", fd, big, 1);
    do_pread(s, "pread 300000@262000 (across slot-sized chunks)", fd, 300000, 262000);
    INT(s, "pwrite 3MiB@5MiB", fs->pwrite(fd, buf, big, 5 * MiB));
    do_fstat(s, "fstat big", fd);
    do_pread(s, "pread 2MiB@3MiB (hole)", fd, 2 * MiB, 3 * MiB);
    fill_pattern(buf, big, 7);
    INT(s, "lseek 0 SET", fs->lseek(fd, 0, SEEK_SET));
    struct iovec wv[2] = {{buf, big / 2}, {buf + big / 2, big / 2}};
    INT(s, "writev 1.5MiB+1.5MiB", fs->writev(fd, wv, 2));
    INT(s, "lseek 0 CUR", fs->lseek(fd, 0, SEEK_CUR));
    INT(s, "lseek 0 SET", fs->lseek(fd, 0, SEEK_SET));
    memset(buf, 0, big);
    struct iovec rv[2] = {{buf, MiB}, {buf + MiB, 2 * MiB - 17}};
    errno = 0;
    ssize_t r = fs->readv(fd, rv, 2);
    if (r < 0)
        rec_int(s, "readv 1MiB+(2MiB-17)", r, errno);
    else
        rec(s, "readv 1MiB+(2MiB-17) -> %zd fnv %016llx %016llx", r,
            (unsigned long long)fnv(buf, MiB),
            (unsigned long long)fnv(buf + MiB, 2 * MiB - 17));
    INT(s, "close", fs->close(fd));
    FD(s, fd, "open big WRONLY|APPEND", fs->open(P(s, "big"), O_WRONLY | O_APPEND));
    INT(s, "write 300001 on O_APPEND", fs->write(fd, buf + 5, 300001));
    INT(s, "pwrite 70000@0 on O_APPEND (Linux appends)", fs->pwrite(fd, buf, 70000, 0));
    do_fstat(s, "fstat big after appends", fd);
    INT(s, "close", fs->close(fd));
    content(s, "big");
    free(buf);
}

static void dup_fds(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd, fd2, other;

    FD(s, fd, "open d RDWR|CREAT", fs->open(P(s, "d"), O_RDWR | O_CREAT, 0644));
    do_write(s, "write 0123456789", fd, "0123456789");
    FD(s, fd2, "dup", fs->dup(fd));
    INT(s, "lseek fd 3 SET", fs->lseek(fd, 3, SEEK_SET));
    INT(s, "lseek dup 0 CUR (shared)", fs->lseek(fd2, 0, SEEK_CUR));
    do_read(s, "read 2 on dup", fd2, 2);
    INT(s, "lseek fd 0 CUR", fs->lseek(fd, 0, SEEK_CUR));
    INT(s, "close fd", fs->close(fd));
    do_read(s, "read 2 on dup after closing fd", fd2, 2);

    FD(s, other, "open e RDWR|CREAT", fs->open(P(s, "e"), O_RDWR | O_CREAT, 0644));
    do_write(s, "write eeee to e", other, "eeee");
    errno = 0;
    int r = fs->dup2(fd2, other);
    rec(s, "dup2 dup onto e's fd -> %s", r == other ? "newfd" : err_name(errno));
    INT(s, "lseek e's fd 0 CUR (now dup's)", fs->lseek(other, 0, SEEK_CUR));
    do_read(s, "read 3 on e's fd", other, 3);
    INT(s, "lseek dup 0 CUR", fs->lseek(fd2, 0, SEEK_CUR));
    errno = 0;
    r = fs->dup2(fd2, fd2);
    rec(s, "dup2 onto itself -> %s", r == fd2 ? "same" : err_name(errno));
    INT(s, "close e's fd", fs->close(other));
    FD(s, other, "dup closed fd", fs->dup(fd));
    quiet_close(s, other);
    errno = 0;
    r = fs->dup2(fd, fd2);
    rec(s, "dup2 closed fd onto dup -> %s", r == fd2 ? "newfd" : err_name(errno));
    INT(s, "lseek dup 0 CUR (still open)", fs->lseek(fd2, 0, SEEK_CUR));
    INT(s, "close dup", fs->close(fd2));
    content(s, "d");
    content(s, "e");
}

static void truncation(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd;

    make_file(s, "t", "0123456789");
    INT(s, "truncate t 4", fs->truncate(P(s, "t"), 4));
    do_stat(s, "t");
    content(s, "t");
    INT(s, "truncate t 10 (grow)", fs->truncate(P(s, "t"), 10));
    content(s, "t");
    FD(s, fd, "open t RDWR", fs->open(P(s, "t"), O_RDWR));
    INT(s, "ftruncate 2", fs->ftruncate(fd, 2));
    do_fstat(s, "fstat t", fd);
    INT(s, "ftruncate 65536", fs->ftruncate(fd, 65536));
    do_pread(s, "pread 10@60000", fd, 10, 60000);
    do_pread(s, "pread 10@0", fd, 10, 0);
    INT(s, "ftruncate -1", fs->ftruncate(fd, -1));
    INT(s, "close", fs->close(fd));
    INT(s, "ftruncate closed fd", fs->ftruncate(fd, 0));
    INT(s, "truncate dir", fs->truncate(s->root, 0));
    INT(s, "truncate missing", fs->truncate(P(s, "missing"), 0));
    INT(s, "truncate t/x", fs->truncate(P(s, "t/x"), 0));
    content(s, "t");
}

static void directories(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd;
    DIR *d;

    INT(s, "mkdir d 0777", fs->mkdir(P(s, "d"), 0777));
    do_stat(s, "d");
    INT(s, "mkdir d again", fs->mkdir(P(s, "d"), 0777));
    INT(s, "mkdir missing/x", fs->mkdir(P(s, "missing/x"), 0777));
    make_file(s, "f", "f");
    INT(s, "mkdir f/x", fs->mkdir(P(s, "f/x"), 0777));
    INT(s, "mkdir f (exists as file)", fs->mkdir(P(s, "f"), 0777));
    FD(s, fd, "open d O_DIRECTORY", fs->open(P(s, "d"), O_RDONLY | O_DIRECTORY));
    do_read(s, "read on dir fd", fd, 10);
    do_write(s, "write on dir fd", fd, "x");
    INT(s, "close", fs->close(fd));

    make_file(s, "d/a", "a");
    make_file(s, "d/b", "b");
    make_file(s, "d/c", "c");
    INT(s, "mkdir d/sub", fs->mkdir(P(s, "d/sub"), 0755));
    INT(s, "symlink a d/ln", fs->symlink("a", P(s, "d/ln")));
    listing(s, "d");
    INT(s, "rmdir d (not empty)", fs->rmdir(P(s, "d")));
    INT(s, "rmdir f", fs->rmdir(P(s, "f")));
    INT(s, "unlink d", fs->unlink(P(s, "d")));
    INT(s, "rmdir missing", fs->rmdir(P(s, "missing")));
    INT(s, "unlink missing", fs->unlink(P(s, "missing")));
    INT(s, "rmdir d/sub", fs->rmdir(P(s, "d/sub")));
    INT(s, "unlink d/b", fs->unlink(P(s, "d/b")));
    listing(s, "d");

    d = fs->opendir(P(s, "d"));
    rec_ok(s, "opendir d", d != NULL, errno);
    if (d) {
        list_stream(s, "readdir d", d);
        fs->rewinddir(d);
        list_stream(s, "readdir d after rewinddir", d);
        make_file(s, "d/new", "new");
        fs->rewinddir(d);
        list_stream(s, "readdir d after create+rewinddir", d);
        INT(s, "closedir", fs->closedir(d));
    }

    FD(s, fd, "open d O_DIRECTORY", fs->open(P(s, "d"), O_RDONLY | O_DIRECTORY));
    d = fs->fdopendir(fd);
    rec_ok(s, "fdopendir", d != NULL, errno);
    if (d) {
        list_stream(s, "readdir fdopendir", d);
        INT(s, "closedir", fs->closedir(d));
    }
    INT(s, "close fd closedir closed", fs->close(fd));
    d = fs->opendir(P(s, "missing"));
    rec_ok(s, "opendir missing", d != NULL, errno);
    if (d)
        fs->closedir(d);
    d = fs->opendir(P(s, "f"));
    rec_ok(s, "opendir file", d != NULL, errno);
    if (d)
        fs->closedir(d);
    FD(s, fd, "open f", fs->open(P(s, "f"), O_RDONLY));
    d = fs->fdopendir(fd);
    rec_ok(s, "fdopendir on file fd", d != NULL, errno);
    if (d)
        fs->closedir(d);
    else
        fs->close(fd);
    FD(s, fd, "open d plain", fs->open(P(s, "d"), O_RDONLY));
    d = fs->fdopendir(fd);
    rec_ok(s, "fdopendir without O_DIRECTORY", d != NULL, errno);
    if (d) {
        list_stream(s, "readdir fdopendir plain", d);
        INT(s, "closedir plain", fs->closedir(d));
    } else {
        fs->close(fd);
    }
    d = fs->fdopendir(1 << 20);
    rec_ok(s, "fdopendir bad fd", d != NULL, errno);

    /* More entries than one GETDENTS buffer holds. */
    INT(s, "mkdir many", fs->mkdir(P(s, "many"), 0755));
    int made = 0;
    char name[128];
    for (int i = 0; i < 800; i++) {
        snprintf(name, sizeof name, "many/entry-with-a-rather-long-name-%04d", i);
        int f = fs->open(P(s, name), O_WRONLY | O_CREAT, 0644);
        if (f >= 0 && fs->close(f) == 0)
            made++;
    }
    rec(s, "create 800 files -> %d", made);
    listing(s, "many");
    int gone = 0;
    for (int i = 0; i < 800; i += 2) {
        snprintf(name, sizeof name, "many/entry-with-a-rather-long-name-%04d", i);
        gone += fs->unlink(P(s, name)) == 0;
    }
    rec(s, "unlink 400 files -> %d", gone);
    listing(s, "many");
    listing(s, ".");
}

static void renames(struct side *s)
{
    const struct fsops *fs = s->fs;

    make_file(s, "a", "AAA");
    make_file(s, "b", "BBB");
    INT(s, "rename a over b", fs->rename(P(s, "a"), P(s, "b")));
    do_stat(s, "a");
    content(s, "b");
    INT(s, "mkdir d1", fs->mkdir(P(s, "d1"), 0755));
    make_file(s, "d1/x", "x");
    INT(s, "mkdir d2", fs->mkdir(P(s, "d2"), 0755));
    INT(s, "rename d1 over empty d2", fs->rename(P(s, "d1"), P(s, "d2")));
    do_stat(s, "d1");
    content(s, "d2/x");
    INT(s, "mkdir d3", fs->mkdir(P(s, "d3"), 0755));
    make_file(s, "d3/y", "y");
    INT(s, "rename d3 over non-empty d2", fs->rename(P(s, "d3"), P(s, "d2")));
    INT(s, "rename file b over dir d3", fs->rename(P(s, "b"), P(s, "d3")));
    INT(s, "rename dir d3 over file b", fs->rename(P(s, "d3"), P(s, "b")));
    INT(s, "rename missing", fs->rename(P(s, "missing"), P(s, "c")));
    INT(s, "rename d2 into d2/sub", fs->rename(P(s, "d2"), P(s, "d2/sub")));
    INT(s, "rename b to itself", fs->rename(P(s, "b"), P(s, "b")));
    INT(s, "rename b to d3/bb", fs->rename(P(s, "b"), P(s, "d3/bb")));
    INT(s, "rename to missing/dir", fs->rename(P(s, "d3/bb"), P(s, "missing/bb")));
    listing(s, ".");
    listing(s, "d3");
    content(s, "d3/bb");

    /* A descriptor follows its file or directory when it moves: *at
     * calls on a directory descriptor still reach the directory, fstat on
     * a file's still reaches the file. */
    int dir, fd;
    INT(s, "mkdir rd", fs->mkdir(P(s, "rd"), 0755));
    FD(s, dir, "open rd O_DIRECTORY", fs->open(P(s, "rd"), O_RDONLY | O_DIRECTORY));
    make_file(s, "rd/f", "moving");
    FD(s, fd, "open rd/f", fs->open(P(s, "rd/f"), O_RDONLY));
    INT(s, "rename rd rd2", fs->rename(P(s, "rd"), P(s, "rd2")));
    int in;
    FD(s, in, "openat(rd, inner, CREAT) after the move", fs->openat(dir, "inner", O_WRONLY | O_CREAT, 0644));
    INT(s, "close inner", fs->close(in));
    do_stat(s, "rd2/inner");
    INT(s, "rename rd2/f rd2/g", fs->rename(P(s, "rd2/f"), P(s, "rd2/g")));
    struct stat st;
    INT(s, "fstat rd/f's descriptor after two moves", fs->fstat(fd, &st));
    INT(s, "close f", fs->close(fd));
    INT(s, "close rd", fs->close(dir));
}

static void links(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd;

    make_file(s, "f", "data");
    INT(s, "link f h", fs->link(P(s, "f"), P(s, "h")));
    do_stat(s, "f");
    do_stat(s, "h");
    content(s, "h");
    INT(s, "unlink f", fs->unlink(P(s, "f")));
    do_stat(s, "h");
    INT(s, "link h h", fs->link(P(s, "h"), P(s, "h")));
    INT(s, "link missing x", fs->link(P(s, "missing"), P(s, "x")));
    INT(s, "mkdir d", fs->mkdir(P(s, "d"), 0755));
    INT(s, "link d dl (dir)", fs->link(P(s, "d"), P(s, "dl")));
    INT(s, "link h d/h2", fs->link(P(s, "h"), P(s, "d/h2")));
    FD(s, fd, "open d/h2 WRONLY|APPEND", fs->open(P(s, "d/h2"), O_WRONLY | O_APPEND));
    do_write(s, "append '+' via d/h2", fd, "+");
    do_fstat(s, "fstat d/h2", fd);
    INT(s, "close", fs->close(fd));
    content(s, "h");
    listing(s, ".");
}

static void symlinks(struct side *s)
{
    const struct fsops *fs = s->fs;
    char buf[64];
    int fd, dfd;

    make_file(s, "f", "target data");
    INT(s, "symlink f s", fs->symlink("f", P(s, "s")));
    errno = 0;
    ssize_t r = fs->readlink(P(s, "s"), buf, sizeof buf);
    rec(s, "readlink s -> %zd '%.*s' %s", r, r > 0 ? (int)r : 0, buf, r < 0 ? err_name(errno) : "");
    do_stat(s, "s");
    do_lstat(s, "s");
    content(s, "s");
    INT(s, "mkdir d", fs->mkdir(P(s, "d"), 0755));
    INT(s, "symlink ../f d/up", fs->symlink("../f", P(s, "d/up")));
    content(s, "d/up");
    errno = 0;
    r = fs->readlink(P(s, "d/up"), buf, 2);
    rec(s, "readlink d/up bufsiz 2 -> %zd '%.*s' %s", r, r > 0 ? (int)r : 0, buf, r < 0 ? err_name(errno) : "");

    INT(s, "symlink nowhere dang", fs->symlink("nowhere", P(s, "dang")));
    do_stat(s, "dang");
    do_lstat(s, "dang");
    FD(s, fd, "open dang RDONLY", fs->open(P(s, "dang"), O_RDONLY));
    quiet_close(s, fd);
    FD(s, fd, "open dang CREAT|EXCL", fs->open(P(s, "dang"), O_WRONLY | O_CREAT | O_EXCL, 0644));
    quiet_close(s, fd);
    FD(s, fd, "open dang CREAT (creates target)", fs->open(P(s, "dang"), O_WRONLY | O_CREAT, 0644));
    quiet_close(s, fd);
    do_stat(s, "nowhere");

    INT(s, "symlink l2 l1", fs->symlink("l2", P(s, "l1")));
    INT(s, "symlink l1 l2", fs->symlink("l1", P(s, "l2")));
    do_stat(s, "l1");
    FD(s, fd, "open l1", fs->open(P(s, "l1"), O_RDONLY));
    quiet_close(s, fd);
    FD(s, fd, "open s O_NOFOLLOW", fs->open(P(s, "s"), O_RDONLY | O_NOFOLLOW));
    quiet_close(s, fd);
    INT(s, "readlink regular file", fs->readlink(P(s, "f"), buf, sizeof buf));
    INT(s, "readlink missing", fs->readlink(P(s, "missing"), buf, sizeof buf));
    INT(s, "symlink x over existing f", fs->symlink("x", P(s, "f")));

    do_fstatat(s, "fstatat s NOFOLLOW", AT_FDCWD, P(s, "s"), AT_SYMLINK_NOFOLLOW);
    FD(s, dfd, "open root O_DIRECTORY", fs->open(s->root, O_RDONLY | O_DIRECTORY));
    do_fstatat(s, "fstatat dfd s", dfd, "s", 0);
    do_fstatat(s, "fstatat dfd dang NOFOLLOW", dfd, "dang", AT_SYMLINK_NOFOLLOW);
    INT(s, "close dfd", fs->close(dfd));

    INT(s, "symlink d sd", fs->symlink("d", P(s, "sd")));
    do_stat(s, "sd/up");
    listing(s, "sd");
    INT(s, "rmdir sd (symlink)", fs->rmdir(P(s, "sd")));
    INT(s, "unlink sd", fs->unlink(P(s, "sd")));
    do_stat(s, "d");
    listing(s, ".");
}

static void permissions(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd;

    make_file(s, "f", "f");
    INT(s, "chmod f 0640", fs->chmod(P(s, "f"), 0640));
    do_stat(s, "f");
    INT(s, "chmod f 04755", fs->chmod(P(s, "f"), 04755));
    do_stat(s, "f");
    FD(s, fd, "open f", fs->open(P(s, "f"), O_RDONLY));
    INT(s, "fchmod 0600", fs->fchmod(fd, 0600));
    do_stat(s, "f");
    INT(s, "chmod missing", fs->chmod(P(s, "missing"), 0600));
    INT(s, "mkdir d", fs->mkdir(P(s, "d"), 0755));
    INT(s, "chmod d 01777", fs->chmod(P(s, "d"), 01777));
    do_stat(s, "d");

    INT(s, "chown f 1000:1000", fs->chown(P(s, "f"), 1000, 1000));
    do_stat(s, "f");
    INT(s, "fchown 2000:-1", fs->fchown(fd, 2000, (gid_t)-1));
    do_stat(s, "f");
    INT(s, "chown f -1:3000", fs->chown(P(s, "f"), (uid_t)-1, 3000));
    do_stat(s, "f");
    INT(s, "chmod f 06755", fs->chmod(P(s, "f"), 06755));
    INT(s, "chown f 1000:1000 (clears setuid/setgid)", fs->chown(P(s, "f"), 1000, 1000));
    do_stat(s, "f");
    INT(s, "close", fs->close(fd));
    INT(s, "fchown closed fd", fs->fchown(fd, 0, 0));
    INT(s, "fchmod closed fd", fs->fchmod(fd, 0600));
    INT(s, "chown missing", fs->chown(P(s, "missing"), 0, 0));
    INT(s, "symlink f s", fs->symlink("f", P(s, "s")));
    INT(s, "chown s 1234:1234 (follows)", fs->chown(P(s, "s"), 1234, 1234));
    do_stat(s, "f");
    do_lstat(s, "s");

    make_file(s, "g", "g");
    INT(s, "access g F_OK", fs->access(P(s, "g"), F_OK));
    INT(s, "access g R_OK|W_OK", fs->access(P(s, "g"), R_OK | W_OK));
    INT(s, "access g X_OK (0644, root)", fs->access(P(s, "g"), X_OK));
    INT(s, "access d X_OK", fs->access(P(s, "d"), X_OK));
    INT(s, "access missing", fs->access(P(s, "missing"), F_OK));
    INT(s, "access g/x", fs->access(P(s, "g/x"), F_OK));
}

static void timestamps(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd, dfd;

    make_file(s, "f", "f");
    struct timespec t1[2] = {{1000000000, 123456789}, {1200000000, 500000000}};
    INT(s, "utimensat f explicit", fs->utimensat(AT_FDCWD, P(s, "f"), t1, 0));
    do_times(s, "f");
    struct timespec t2[2] = {{0, UTIME_OMIT}, {1300000000, 1}};
    INT(s, "utimensat f atime OMIT", fs->utimensat(AT_FDCWD, P(s, "f"), t2, 0));
    do_times(s, "f");
    FD(s, fd, "open f", fs->open(P(s, "f"), O_RDONLY));
    struct timespec t3[2] = {{1400000000, 0}, {0, UTIME_OMIT}};
    INT(s, "futimens mtime OMIT", fs->futimens(fd, t3));
    do_times(s, "f");
    INT(s, "close", fs->close(fd));
    INT(s, "futimens closed fd", fs->futimens(fd, t3));
    INT(s, "symlink f s", fs->symlink("f", P(s, "s")));
    struct timespec t4[2] = {{1500000000, 0}, {1500000001, 0}};
    INT(s, "utimensat s NOFOLLOW", fs->utimensat(AT_FDCWD, P(s, "s"), t4, AT_SYMLINK_NOFOLLOW));
    do_times(s, "s");
    do_times(s, "f");
    INT(s, "utimensat missing", fs->utimensat(AT_FDCWD, P(s, "missing"), t1, 0));
    struct timespec bad[2] = {{0, 2000000000}, {0, 0}};
    INT(s, "utimensat bad nsec", fs->utimensat(AT_FDCWD, P(s, "f"), bad, 0));
    INT(s, "utimensat f NULL (now)", fs->utimensat(AT_FDCWD, P(s, "f"), NULL, 0));
    struct stat st;
    int rc = fs->stat(P(s, "f"), &st);
    time_t now = time(NULL);
    rec(s, "stat f after NULL times -> mtime within 60 s of now: %d",
        rc == 0 && st.st_mtim.tv_sec > now - 60 && st.st_mtim.tv_sec <= now + 60);
    INT(s, "mkdir d", fs->mkdir(P(s, "d"), 0755));
    INT(s, "utimensat d explicit", fs->utimensat(AT_FDCWD, P(s, "d"), t1, 0));
    do_times(s, "d");
    FD(s, dfd, "open root O_DIRECTORY", fs->open(s->root, O_RDONLY | O_DIRECTORY));
    INT(s, "utimensat dfd f", fs->utimensat(dfd, "f", t4, 0));
    do_times(s, "f");
    INT(s, "close dfd", fs->close(dfd));
}

/* The user.* names of a listxattr result, sorted, into out. */
static void user_names(const char *list, ssize_t len, char *out, size_t outlen)
{
    const char *names[64];
    int n = 0;
    for (ssize_t i = 0; i < len && n < 64; i += (ssize_t)strlen(list + i) + 1)
        if (strncmp(list + i, "user.", 5) == 0)
            names[n++] = list + i;
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strncat(out, names[i], outlen - strlen(out) - 2);
        strcat(out, " ");
    }
}

static void do_listxattr(struct side *s, const char *rel)
{
    char list[4096], names[4096];
    errno = 0;
    ssize_t r = s->fs->listxattr(P(s, rel), list, sizeof list);
    if (r < 0) {
        rec(s, "listxattr %s -> -1 %s", rel, err_name(errno));
        return;
    }
    user_names(list, r, names, sizeof names);
    rec(s, "listxattr %s -> user names: %s", rel, names);
}

static void do_getxattr(struct side *s, const char *rel, const char *name,
                        size_t size)
{
    char *buf = malloc(size + 1);
    errno = 0;
    ssize_t r = s->fs->getxattr(P(s, rel), name, size ? buf : NULL, size);
    if (r < 0) {
        rec(s, "getxattr %s %s size %zu -> -1 %s", rel, name, size, err_name(errno));
    } else {
        char sum[128];
        summarize(buf, size ? (size_t)r : 0, sum, sizeof sum);
        rec(s, "getxattr %s %s size %zu -> %zd %s", rel, name, size, r, sum);
    }
    free(buf);
}

static void xattrs(struct side *s)
{
    const struct fsops *fs = s->fs;

    make_file(s, "f", "f");
    INT(s, "setxattr user.color blue", fs->setxattr(P(s, "f"), "user.color", "blue", 4, 0));
    do_getxattr(s, "f", "user.color", 64);
    do_getxattr(s, "f", "user.color", 0);
    do_getxattr(s, "f", "user.color", 2);
    do_getxattr(s, "f", "user.none", 64);
    INT(s, "setxattr user.color CREATE", fs->setxattr(P(s, "f"), "user.color", "red", 3, XATTR_CREATE));
    INT(s, "setxattr user.shape REPLACE", fs->setxattr(P(s, "f"), "user.shape", "round", 5, XATTR_REPLACE));
    INT(s, "setxattr user.color REPLACE", fs->setxattr(P(s, "f"), "user.color", "green", 5, XATTR_REPLACE));
    do_getxattr(s, "f", "user.color", 64);
    INT(s, "setxattr user.bin binary", fs->setxattr(P(s, "f"), "user.bin", "a\0b\xff", 4, 0));
    do_getxattr(s, "f", "user.bin", 64);
    INT(s, "setxattr user.empty ''", fs->setxattr(P(s, "f"), "user.empty", "", 0, 0));
    do_getxattr(s, "f", "user.empty", 64);
    char big[4000];
    fill_pattern((unsigned char *)big, sizeof big, 3);
    INT(s, "setxattr user.big 4000 bytes", fs->setxattr(P(s, "f"), "user.big", big, sizeof big, 0));
    do_getxattr(s, "f", "user.big", 8192);
    do_listxattr(s, "f");
    errno = 0;
    ssize_t r = fs->listxattr(P(s, "f"), NULL, 0);
    rec(s, "listxattr size 0 -> %s", r > 0 ? "positive" : err_name(errno));
    INT(s, "removexattr user.color", fs->removexattr(P(s, "f"), "user.color"));
    do_getxattr(s, "f", "user.color", 64);
    INT(s, "removexattr user.color again", fs->removexattr(P(s, "f"), "user.color"));
    do_listxattr(s, "f");
    INT(s, "setxattr unknown namespace", fs->setxattr(P(s, "f"), "bogus.x", "v", 1, 0));
    INT(s, "setxattr missing file", fs->setxattr(P(s, "missing"), "user.a", "v", 1, 0));
    do_getxattr(s, "missing", "user.a", 64);
    do_listxattr(s, "missing");
    INT(s, "removexattr missing file", fs->removexattr(P(s, "missing"), "user.a"));
    INT(s, "mkdir d", fs->mkdir(P(s, "d"), 0755));
    INT(s, "setxattr d user.k", fs->setxattr(P(s, "d"), "user.k", "v", 1, 0));
    do_getxattr(s, "d", "user.k", 64);
    do_listxattr(s, "d");
}

static void umasks(struct side *s)
{
    const struct fsops *fs = s->fs;
    int fd, dfd;

    umask(077);
    FD(s, fd, "umask 077: open c1 CREAT 0666", fs->open(P(s, "c1"), O_WRONLY | O_CREAT, 0666));
    quiet_close(s, fd);
    do_stat(s, "c1");
    INT(s, "umask 077: mkdir d1 0777", fs->mkdir(P(s, "d1"), 0777));
    do_stat(s, "d1");
    FD(s, fd, "umask 077: creat c2 0644", fs->creat(P(s, "c2"), 0644));
    quiet_close(s, fd);
    do_stat(s, "c2");
    FD(s, dfd, "open root O_DIRECTORY", fs->open(s->root, O_RDONLY | O_DIRECTORY));
    FD(s, fd, "umask 077: openat c3 CREAT 0666", fs->openat(dfd, "c3", O_WRONLY | O_CREAT, 0666));
    quiet_close(s, fd);
    quiet_close(s, dfd);
    do_stat(s, "c3");
    INT(s, "umask 077: symlink c1 l", fs->symlink("c1", P(s, "l")));
    do_lstat(s, "l");
    umask(027);
    INT(s, "umask 027: mkdir d2 0777", fs->mkdir(P(s, "d2"), 0777));
    do_stat(s, "d2");
    FD(s, fd, "umask 027: open c4 CREAT 0666", fs->open(P(s, "c4"), O_WRONLY | O_CREAT, 0666));
    quiet_close(s, fd);
    do_stat(s, "c4");
    umask(0);
    INT(s, "umask 0: mkdir d3 0777", fs->mkdir(P(s, "d3"), 0777));
    do_stat(s, "d3");
    FD(s, fd, "umask 0: open c5 CREAT 0666", fs->open(P(s, "c5"), O_WRONLY | O_CREAT, 0666));
    quiet_close(s, fd);
    do_stat(s, "c5");
    umask(077);
    INT(s, "umask 077: chmod c5 0777 (umask does not apply)", fs->chmod(P(s, "c5"), 0777));
    do_stat(s, "c5");
    umask(022);
}

static void statfs_calls(struct side *s)
{
    struct statfs sf;
    errno = 0;
    int rc = s->fs->statfs(s->root, &sf);
    rec(s, "statfs root -> %d %s bsize>0 %d namelen>0 %d", rc,
        rc < 0 ? err_name(errno) : "", rc == 0 && sf.f_bsize > 0,
        rc == 0 && sf.f_namelen > 0);
    make_file(s, "f", "f");
    INT(s, "statfs file", s->fs->statfs(P(s, "f"), &sf));
    INT(s, "statfs missing", s->fs->statfs(P(s, "missing"), &sf));
}

const struct fileops_section fileops_sections[] = {
    {"create_open", create_open},
    {"seek_io", seek_io},
    {"sparse_large", sparse_large},
    {"dup", dup_fds},
    {"truncate", truncation},
    {"directories", directories},
    {"rename", renames},
    {"links", links},
    {"symlinks", symlinks},
    {"permissions", permissions},
    {"times", timestamps},
    {"xattrs", xattrs},
    {"umask", umasks},
    {"statfs", statfs_calls},
    {NULL, NULL},
};
