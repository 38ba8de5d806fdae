/*
 * test_preload_path_suite.c - the path, metadata, xattr and cwd calls of
 * libc, run in one directory, printing one line per step (result, errno
 * name, the fields users rely on) with the directory's own name replaced
 * by ROOT. tests/preload/test_preload_path.c runs it on a plain directory
 * and under LD_PRELOAD on a Danaus mount and compares the transcripts.
 *
 *   test_preload_path_suite ROOT OUTSIDE      the suite
 *   test_preload_path_suite --user ROOT       the checks as uid 1000
 *   test_preload_path_suite --mkdir DIR       makes DIR, mode 0755
 *
 * ROOT is an empty directory; OUTSIDE one on another file system (renames
 * and links into it fail with EXDEV either way). Files are created through
 * danaus_open when the preloaded library has it and ROOT is Danaus's, so
 * the suite does not depend on the open/read/write interposers.
 *
 * Built without _FILE_OFFSET_BITS=64, so that stat, statfs and friends are
 * called by their own names, and the 64 twins by theirs.
 */
#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

int __xstat(int ver, const char *path, struct stat *buf);

static const char *root;
static size_t root_len;

/* The service's open and close, when preloaded with a service named
 * (NULL otherwise). */
static int (*d_open)(const char *, int, ...);
static int (*d_close)(int);

/* One transcript line: the step, its result and errno, then details. */
static void line(const char *step, long rc, const char *fmt, ...)
{
    int saved = errno;
    printf("%-28s %3ld %-8s", step, rc, rc < 0 ? strerrorname_np(saved) : "-");
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        putchar(' ');
        vprintf(fmt, ap);
        va_end(ap);
    }
    putchar('\n');
    errno = saved;
}

/* s with ROOT in place of the root directory's own path. */
static const char *shown(const char *s)
{
    static char buf[PATH_MAX + 8];
    if (s && strncmp(s, root, root_len) == 0)
        snprintf(buf, sizeof buf, "ROOT%s", s + root_len);
    else
        snprintf(buf, sizeof buf, "%s", s ? s : "(null)");
    return buf;
}

static char *at(const char *rel)
{
    static char bufs[4][PATH_MAX];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, PATH_MAX, "%s/%s", root, rel);
    return b;
}

/* A descriptor on path: the service's when it is Danaus's. */
static int open_any(const char *path, int flags, mode_t mode, int *danaus)
{
    *danaus = 0;
    if (d_open) {
        int fd = d_open(path, flags, mode);
        if (fd >= 0 || errno != EXDEV) {
            *danaus = 1;
            return fd;
        }
    }
    return open(path, flags, mode);
}

static void close_any(int fd, int danaus)
{
    if (danaus)
        d_close(fd);
    else
        close(fd);
}

static int make_file(const char *rel, const char *text)
{
    int danaus;
    int fd = open_any(at(rel), O_CREAT | O_WRONLY | O_TRUNC, 0644, &danaus);
    if (fd < 0)
        return -1;
    /* write through the same side as the open. */
    ssize_t (*d_write)(int, const void *, size_t) =
        danaus ? (ssize_t(*)(int, const void *, size_t))dlsym(
                     RTLD_DEFAULT, "danaus_write")
               : write;
    ssize_t n = d_write(fd, text, strlen(text));
    close_any(fd, danaus);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void show_stat(const char *step, int rc, const struct stat *st)
{
    if (rc < 0) {
        line(step, rc, NULL);
        return;
    }
    /* A directory's link count depends on the file system: left out. */
    if (S_ISDIR(st->st_mode))
        line(step, rc, "dir mode=%04o uid=%u gid=%u", st->st_mode & 07777,
             st->st_uid, st->st_gid);
    else
        line(step, rc, "%s mode=%04o size=%lld nlink=%lu uid=%u gid=%u",
             S_ISREG(st->st_mode) ? "reg" : S_ISLNK(st->st_mode) ? "lnk" : "?",
             st->st_mode & 07777, (long long)st->st_size,
             (unsigned long)st->st_nlink, st->st_uid, st->st_gid);
}

static void stats(void)
{
    struct stat st;
    struct stat64 st64;
    struct statx sx;
    int dfd, danaus, fd, fdan;

    show_stat("stat d", stat(at("d"), &st), &st);
    show_stat("stat d/f", stat(at("d/f"), &st), &st);
    show_stat("lstat d/f", lstat(at("d/f"), &st), &st);
    show_stat("stat64 d/f", stat64(at("d/f"), &st64), (struct stat *)&st64);
    show_stat("__xstat d/f", __xstat(1, at("d/f"), &st), &st);
    line("__xstat bad version", __xstat(7, at("d/f"), &st), NULL);
    show_stat("stat missing", stat(at("missing"), &st), &st);
    show_stat("stat d/f/x", stat(at("d/f/x"), &st), &st);
    /* A trailing slash: a file is not a directory, a link is followed. */
    show_stat("stat d/f/", stat(at("d/f/"), &st), &st);
    line("symlink d dl", symlink("d", at("dl")), NULL);
    show_stat("lstat dl/", lstat(at("dl/"), &st), &st);
    show_stat("lstat dl", lstat(at("dl"), &st), &st);
    line("unlink dl", unlink(at("dl")), NULL);

    dfd = open_any(at("d"), O_RDONLY | O_DIRECTORY, 0, &danaus);
    fd = open_any(at("d/f"), O_RDONLY, 0, &fdan);
    show_stat("fstat f", fstat(fd, &st), &st);
    show_stat("fstat64 f", fstat64(fd, &st64), (struct stat *)&st64);
    show_stat("fstatat d f", fstatat(dfd, "f", &st, 0), &st);
    show_stat("fstatat64 d f", fstatat64(dfd, "f", &st64, 0),
              (struct stat *)&st64);
    show_stat("lstat64 d/f", lstat64(at("d/f"), &st64), (struct stat *)&st64);
    show_stat("fstatat f '' EMPTY", fstatat(fd, "", &st, AT_EMPTY_PATH), &st);
    show_stat("fstatat d nope", fstatat(dfd, "nope", &st, 0), &st);
    int rc = statx(dfd, "f", 0, STATX_BASIC_STATS, &sx);
    line("statx d f", rc, "basic=%d size=%llu mode=%04o", rc == 0 &&
         (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS,
         (unsigned long long)sx.stx_size, sx.stx_mode & 07777);
    rc = statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, &sx);
    line("statx f EMPTY", rc, "size=%llu", (unsigned long long)sx.stx_size);

    line("access d/f R", access(at("d/f"), R_OK), NULL);
    line("access d/f X", access(at("d/f"), X_OK), NULL);
    line("access missing", access(at("missing"), F_OK), NULL);
    line("faccessat d f W EACCESS", faccessat(dfd, "f", W_OK, AT_EACCESS),
         NULL);
    line("faccessat bad flag", faccessat(dfd, "f", W_OK, 0x8000), NULL);
    line("euidaccess d/f", euidaccess(at("d/f"), R_OK), NULL);
    line("eaccess d", eaccess(at("d"), X_OK), NULL);

    struct statfs sf;
    struct statvfs sv;
    rc = statfs(at("d"), &sf);
    line("statfs d", rc, "namelen>0=%d", rc == 0 && sf.f_namelen > 0);
    rc = fstatfs(fd, &sf);
    line("fstatfs f", rc, "bsize>0=%d", rc == 0 && sf.f_bsize > 0);
    rc = statvfs(at("d"), &sv);
    line("statvfs d", rc, "namemax>0=%d", rc == 0 && sv.f_namemax > 0);
    rc = fstatvfs(fd, &sv);
    line("fstatvfs f", rc, "bsize>0=%d", rc == 0 && sv.f_bsize > 0);
    line("statfs missing", statfs(at("missing"), &sf), NULL);
    struct statfs64 sf64;
    struct statvfs64 sv64;
    rc = statfs64(at("d"), &sf64);
    line("statfs64 d", rc, "namelen>0=%d", rc == 0 && sf64.f_namelen > 0);
    rc = fstatvfs64(fd, &sv64);
    line("fstatvfs64 f", rc, "bsize>0=%d", rc == 0 && sv64.f_bsize > 0);
    close_any(fd, fdan);
    close_any(dfd, danaus);
}

static void names(const char *outside)
{
    char out[PATH_MAX], buf[PATH_MAX];
    struct stat st;
    int dfd, danaus;

    line("rename d/f d/g", rename(at("d/f"), at("d/g")), NULL);
    line("rename missing", rename(at("missing"), at("d/x")), NULL);
    snprintf(out, sizeof out, "%s/moved", outside);
    line("rename out of mount", rename(at("d/g"), out), NULL);
    line("link out of mount", link(at("d/g"), out), NULL);
    make_file("d/other", "123456789");
    line("renameat2 NOREPLACE",
         renameat2(AT_FDCWD, at("d/other"), AT_FDCWD, at("d/g"),
                   RENAME_NOREPLACE), NULL);
    make_file("d/x1", "1");
    make_file("d/x2", "22");
    line("renameat2 EXCHANGE x1 x2",
         renameat2(AT_FDCWD, at("d/x1"), AT_FDCWD, at("d/x2"),
                   RENAME_EXCHANGE), NULL);
    show_stat("stat x1 exchanged", stat(at("d/x1"), &st), &st);
    line("unlink x1", unlink(at("d/x1")), NULL);
    line("unlink x2", unlink(at("d/x2")), NULL);
    line("rename d/other d/g", rename(at("d/other"), at("d/g")), NULL);
    show_stat("stat d/g replaced", stat(at("d/g"), &st), &st);
    make_file("d/other", "12345");
    dfd = open_any(at("d"), O_RDONLY | O_DIRECTORY, 0, &danaus);
    line("renameat d other2", renameat(dfd, "other", dfd, "other2"), NULL);
    line("link d/g d/h", link(at("d/g"), at("d/h")), NULL);
    show_stat("stat d/g linked", stat(at("d/g"), &st), &st);
    line("link exists", link(at("d/g"), at("d/h")), NULL);
    line("linkat d h h2", linkat(dfd, "h", dfd, "h2", 0), NULL);

    line("symlink g d/s", symlink("g", at("d/s")), NULL);
    line("symlinkat d ld", symlinkat("d", AT_FDCWD, at("ld")), NULL);
    line("symlink exists", symlink("g", at("d/s")), NULL);
    ssize_t n = readlink(at("d/s"), buf, sizeof buf);
    line("readlink d/s", n, "'%.*s'", n > 0 ? (int)n : 0, buf);
    n = readlinkat(dfd, "s", buf, 1);
    line("readlinkat d s 1", n, "'%.*s'", n > 0 ? (int)n : 0, buf);
    line("readlink not a link", readlink(at("d/g"), buf, sizeof buf), NULL);
    show_stat("lstat d/s", lstat(at("d/s"), &st), &st);
    show_stat("stat d/s", stat(at("d/s"), &st), &st);
    line("linkat FOLLOW s s2",
         linkat(dfd, "s", dfd, "s2", AT_SYMLINK_FOLLOW), NULL);
    show_stat("lstat d/s2", lstat(at("d/s2"), &st), &st);
    line("linkat s s3 (no follow)", linkat(dfd, "s", dfd, "s3", 0), NULL);
    show_stat("lstat d/s3", lstat(at("d/s3"), &st), &st);

    line("symlink loop a", symlink("b", at("a")), NULL);
    line("symlink loop b", symlink("a", at("b")), NULL);
    show_stat("stat loop", stat(at("a"), &st), &st);
    char *r = realpath(at("a"), out);
    line("realpath loop", r ? 0 : -1, NULL);
    r = realpath(at("d/s"), out);
    line("realpath d/s", r ? 0 : -1, "%s", shown(r));
    r = realpath(at("ld/../d/./s"), NULL);
    line("realpath ld/../d/./s", r ? 0 : -1, "%s", shown(r));
    free(r);
    r = realpath(at("ld/g/x"), out);
    line("realpath ld/g/x", r ? 0 : -1, NULL);
    r = realpath(at("ld/nope"), out);
    line("realpath ld/nope", r ? 0 : -1, NULL);
    r = canonicalize_file_name(at("ld//s"));
    line("canonicalize ld//s", r ? 0 : -1, "%s", shown(r));
    free(r);

    line("mkdir d", mkdir(at("d"), 0755), NULL);
    line("mkdir missing/x", mkdir(at("missing/x"), 0755), NULL);
    line("mkdirat d e", mkdirat(dfd, "e", 0700), NULL);
    show_stat("stat d/e", stat(at("d/e"), &st), &st);
    line("rmdir d (not empty)", rmdir(at("d")), NULL);
    line("rmdir d/g (file)", rmdir(at("d/g")), NULL);
    line("unlink d/e (dir)", unlink(at("d/e")), NULL);
    line("unlinkat d e REMOVEDIR", unlinkat(dfd, "e", AT_REMOVEDIR), NULL);
    line("unlinkat d h2", unlinkat(dfd, "h2", 0), NULL);
    line("unlink d/h", unlink(at("d/h")), NULL);
    line("unlink missing", unlink(at("missing")), NULL);
    line("rmdir missing", rmdir(at("missing")), NULL);
    close_any(dfd, danaus);
}

static void attributes(void)
{
    struct stat st;
    int fd, danaus;

    line("chmod d/g 600", chmod(at("d/g"), 0600), NULL);
    show_stat("stat d/g", stat(at("d/g"), &st), &st);
    fd = open_any(at("d/g"), O_RDWR, 0, &danaus);
    line("fchmod g 640", fchmod(fd, 0640), NULL);
    line("fchmodat g 604",
         fchmodat(AT_FDCWD, at("d/g"), 0604, 0), NULL);
    show_stat("stat d/g", stat(at("d/g"), &st), &st);
    line("chown d/g 1000:1000", chown(at("d/g"), 1000, 1000), NULL);
    show_stat("stat d/g", stat(at("d/g"), &st), &st);
    line("fchown g -1:0", fchown(fd, (uid_t)-1, 0), NULL);
    line("lchown d/s 1000:-1", lchown(at("d/s"), 1000, (gid_t)-1), NULL);
    show_stat("lstat d/s", lstat(at("d/s"), &st), &st);
    line("fchownat g EMPTY 0:0", fchownat(fd, "", 0, 0, AT_EMPTY_PATH), NULL);
    show_stat("stat d/g", stat(at("d/g"), &st), &st);
    line("chown missing", chown(at("missing"), 0, 0), NULL);

    struct timespec ts[2] = {{1000, 0}, {2000, 500}};
    line("utimensat d/g", utimensat(AT_FDCWD, at("d/g"), ts, 0), NULL);
    stat(at("d/g"), &st);
    line("times", 0, "a=%ld.%ld m=%ld.%ld", st.st_atim.tv_sec,
         st.st_atim.tv_nsec, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    struct timespec omit[2] = {{0, UTIME_OMIT}, {3000, 0}};
    line("futimens g omit atime", futimens(fd, omit), NULL);
    stat(at("d/g"), &st);
    line("times", 0, "a=%ld m=%ld", st.st_atim.tv_sec, st.st_mtim.tv_sec);
    struct timeval tv[2] = {{4000, 1}, {5000, 2}};
    line("utimes d/g", utimes(at("d/g"), tv), NULL);
    stat(at("d/g"), &st);
    line("times", 0, "a=%ld.%ld m=%ld.%ld", st.st_atim.tv_sec,
         st.st_atim.tv_nsec, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    struct timeval bad[2] = {{1, 1000000}, {1, 0}};
    line("utimes bad usec", utimes(at("d/g"), bad), NULL);
    line("futimes g", futimes(fd, tv), NULL);
    line("futimesat g NULL path", futimesat(fd, NULL, tv), NULL);
    line("lutimes d/s", lutimes(at("d/s"), tv), NULL);
    lstat(at("d/s"), &st);
    line("link times", 0, "m=%ld", st.st_mtim.tv_sec);
    struct utimbuf ub = {6000, 7000};
    line("utime d/g", utime(at("d/g"), &ub), NULL);
    stat(at("d/g"), &st);
    line("times", 0, "a=%ld m=%ld", st.st_atim.tv_sec, st.st_mtim.tv_sec);
    line("utimensat missing", utimensat(AT_FDCWD, at("missing"), ts, 0),
         NULL);

    char val[64], list[256];
    line("setxattr user.a", setxattr(at("d/g"), "user.a", "va", 2, 0), NULL);
    line("setxattr CREATE exists",
         setxattr(at("d/g"), "user.a", "vb", 2, XATTR_CREATE), NULL);
    ssize_t n = getxattr(at("d/g"), "user.a", val, sizeof val);
    line("getxattr user.a", n, "'%.*s'", n > 0 ? (int)n : 0, val);
    line("getxattr size", getxattr(at("d/g"), "user.a", NULL, 0), NULL);
    line("getxattr small", getxattr(at("d/g"), "user.a", val, 1), NULL);
    line("getxattr missing", getxattr(at("d/g"), "user.no", val, 64), NULL);
    line("fsetxattr user.b", fsetxattr(fd, "user.b", "x", 1, 0), NULL);
    n = fgetxattr(fd, "user.b", val, sizeof val);
    line("fgetxattr user.b", n, "'%.*s'", n > 0 ? (int)n : 0, val);
    n = listxattr(at("d/g"), list, sizeof list);
    int has_a = 0, has_b = 0;
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(list + i) + 1) {
        has_a |= strcmp(list + i, "user.a") == 0;
        has_b |= strcmp(list + i, "user.b") == 0;
    }
    line("listxattr", n < 0 ? -1 : 0, "a=%d b=%d", has_a, has_b);
    line("flistxattr size>0", flistxattr(fd, NULL, 0) > 0, NULL);
    line("llistxattr d/g", llistxattr(at("d/g"), list, sizeof list) > 0,
         NULL);
    n = lgetxattr(at("d/g"), "user.a", val, sizeof val);
    line("lgetxattr user.a", n, NULL);
    line("lsetxattr on link", lsetxattr(at("d/s"), "user.c", "v", 1, 0),
         NULL);
    line("removexattr user.a", removexattr(at("d/g"), "user.a"), NULL);
    line("removexattr again", removexattr(at("d/g"), "user.a"), NULL);
    line("fremovexattr user.b", fremovexattr(fd, "user.b"), NULL);
    line("lremovexattr d/g", lremovexattr(at("d/g"), "user.b"), NULL);
    close_any(fd, danaus);
}

static void cwd(void)
{
    char buf[PATH_MAX];
    struct stat st;
    int dfd, danaus;

    line("chdir d", chdir(at("d")), NULL);
    char *c = getcwd(buf, sizeof buf);
    line("getcwd", c ? 0 : -1, "%s", shown(c));
    show_stat("stat g (relative)", stat("g", &st), &st);
    show_stat("stat ./s (relative)", stat("./s", &st), &st);
    line("mkdir sub (relative)", mkdir("sub", 0755), NULL);
    line("chdir sub", chdir("sub"), NULL);
    c = getcwd(NULL, 0);
    line("getcwd NULL 0", c ? 0 : -1, "%s", shown(c));
    free(c);
    c = get_current_dir_name();
    line("get_current_dir_name", c ? 0 : -1, "%s", shown(c));
    free(c);
    line("getcwd too small", getcwd(buf, 2) ? 0 : -1, NULL);
    line("getcwd size 0", getcwd(buf, 0) ? 0 : -1, NULL);
    line("chdir ..", chdir(".."), NULL);
    line("rmdir sub (relative)", rmdir("sub"), NULL);
    char *r = realpath("s", buf);
    line("realpath s (relative)", r ? 0 : -1, "%s", shown(r));
    line("chdir g (file)", chdir("g"), NULL);
    line("chdir missing", chdir("missing"), NULL);
    line("chdir ../ld (link)", chdir("../ld"), NULL);
    c = getcwd(buf, sizeof buf);
    line("getcwd", c ? 0 : -1, "%s", shown(c));
    line("chdir ..", chdir(".."), NULL);
    c = getcwd(buf, sizeof buf);
    line("getcwd", c ? 0 : -1, "%s", shown(c));
    dfd = open_any(at("d"), O_RDONLY | O_DIRECTORY, 0, &danaus);
    line("chdir /", chdir("/"), NULL);
    c = getcwd(buf, sizeof buf);
    line("getcwd", c ? 0 : -1, "%s", shown(c));
    line("fchdir d", fchdir(dfd), NULL);
    c = getcwd(buf, sizeof buf);
    line("getcwd", c ? 0 : -1, "%s", shown(c));
    show_stat("stat g (relative)", stat("g", &st), &st);
    close_any(dfd, danaus);
    line("chdir /", chdir("/"), NULL);
}

/* The shell's cd and pwd go through chdir and getcwd. */
static void shell(void)
{
    char cmd[PATH_MAX * 2], out[PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "sh -c 'cd %s/ld && pwd && pwd -P && cd .. && pwd -P' 2>&1",
             root);
    FILE *p = popen(cmd, "r");
    while (p && fgets(out, sizeof out, p)) {
        out[strcspn(out, "\n")] = '\0';
        line("sh cd/pwd", 0, "%s", shown(out));
    }
    line("sh exit", p ? pclose(p) : -1, NULL);
}

/* From a cwd on the mount, relative paths that lead out of it reach the
 * kernel as the paths they name, whichever family takes them: open, creat,
 * fopen, truncate, opendir, scandir, nftw, stat, unlink. */
static int walked;
static int walk_count(const char *p, const struct stat *st, int type,
                      struct FTW *f)
{
    walked++;
    return 0;
}

static void escape(const char *outside)
{
    char rel[PATH_MAX] = "", file[PATH_MAX];
    for (const char *c = root; *c; c++)
        if (*c == '/')
            strcat(rel, "../");
    strcat(rel, outside + 1);
    snprintf(file, sizeof file, "%s/escaped", rel);
    /* The kernel's own cwd, which a Danaus cwd leaves where it was, is
     * deeper than root: "../" counted from it would not land at "/". */
    char deep[PATH_MAX];
    snprintf(deep, sizeof deep, "%s/deep", outside);
    for (int i = 0; i < 16; i++) {
        mkdir(deep, 0755);
        strcat(deep, "/d");
    }
    mkdir(deep, 0755);
    line("chdir deep kernel dir", chdir(deep), NULL);
    line("chdir root", chdir(root), NULL);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    line("open out of mount (relative)", fd < 0 ? -1 : 0, NULL);
    line("write", fd < 0 ? -1 : write(fd, "abc", 3), NULL);
    if (fd >= 0)
        close(fd);
    FILE *f = fopen(file, "r");
    char got[8] = "";
    line("fopen out of mount", f && fgets(got, sizeof got, f) ? 0 : -1, "%s",
         got);
    if (f)
        f = freopen(file, "r", f);
    line("freopen out of mount", f && fgets(got, sizeof got, f) ? 0 : -1, "%s",
         got);
    if (f)
        fclose(f);
    line("truncate out of mount", truncate(file, 1), NULL);
    struct stat st = {0};
    int rc = stat(file, &st);
    line("stat out of mount", rc, "size %lld", (long long)st.st_size);
    DIR *d = opendir(rel);
    int seen = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        seen += strcmp(e->d_name, "escaped") == 0;
    line("opendir out of mount", d ? 0 : -1, "escaped seen %d", seen);
    if (d)
        closedir(d);
    struct dirent **names = NULL;
    int n = scandir(rel, &names, NULL, alphasort);
    line("scandir out of mount", n, NULL);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    walked = 0;
    rc = nftw(rel, walk_count, 4, FTW_PHYS);
    line("nftw out of mount", rc, "walked %d", walked);
    fd = creat(file, 0600);
    line("creat out of mount", fd < 0 ? -1 : 0, NULL);
    if (fd >= 0)
        close(fd);
    line("unlink out of mount", unlink(file), NULL);
    line("chdir /", chdir("/"), NULL);
}

/* The execl family builds argv (and execle's envp) from its arguments; the
 * new program starts in the Danaus cwd: "cat g" reads d/g. execle's
 * environment is ours (which names the service and the preload) plus X. */
static void exec_lists(void)
{
    static const char script[] =
        "cat g >/dev/null && echo \"$0 $1 in d, X=${X-unset}\"";
    size_t n = 0;
    while (environ[n])
        n++;
    char *envp[n + 2];
    memcpy(envp, environ, n * sizeof *envp);
    envp[n] = (char *)"X=le";
    envp[n + 1] = NULL;
    fflush(stdout);
    for (int kind = 0; kind < 3; kind++) {
        pid_t pid = fork();
        if (pid == 0) {
            if (chdir(at("d")) < 0)
                _exit(126);
            if (kind == 0)
                execl("/bin/sh", "sh", "-c", script, "execl", "one", NULL);
            else if (kind == 1)
                execlp("sh", "sh", "-c", script, "execlp", "two", NULL);
            else
                execle("/bin/sh", "sh", "-c", script, "execle", "three", NULL,
                       envp);
            _exit(127);
        }
        int status = -1;
        waitpid(pid, &status, 0);
        line("exec list exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
             NULL);
    }
}

/* As uid 1000 (a process of its own: its own client of the service). */
static int user_checks(void)
{
    struct stat st;
    line("user stat d/priv/x", stat(at("d/priv/x"), &st), NULL);
    line("user access d/g W", access(at("d/g"), W_OK), NULL);
    line("user mkdir d/u", mkdir(at("d/u"), 0755), NULL);
    line("user unlink d/g", unlink(at("d/g")), NULL);
    line("user chmod d/g", chmod(at("d/g"), 0777), NULL);
    line("user chdir d/priv", chdir(at("d/priv")), NULL);
    return 0;
}

/* Each umask call is seen by the next create: from this thread, from
 * another, and not from a vfork child, whose umask is its own although
 * its memory is this process's. */
static void *set_umask(void *mask)
{
    umask((mode_t)(uintptr_t)mask);
    return NULL;
}

static void create_shown(const char *step, const char *rel)
{
    int danaus;
    int fd = open_any(at(rel), O_CREAT | O_WRONLY, 0666, &danaus);
    if (fd >= 0)
        close_any(fd, danaus);
    struct stat st;
    int rc = fd < 0 ? -1 : lstat(at(rel), &st);
    show_stat(step, rc, &st);
}

static void umasks(void)
{
    mode_t old = umask(077);
    create_shown("umask 077, create u1 0666", "u1");
    line("umask 077, mkdir u2 0777", mkdir(at("u2"), 0777), NULL);
    struct stat st;
    show_stat("stat u2", lstat(at("u2"), &st), &st);
    umask(0);
    create_shown("umask 0, create u3 0666", "u3");
    pthread_t t;
    if (pthread_create(&t, NULL, set_umask, (void *)(uintptr_t)027) == 0)
        pthread_join(t, NULL);
    create_shown("another thread's 027, u4", "u4");
    umask(0);
    pid_t pid = vfork();
    if (pid == 0) {
        umask(077);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    create_shown("a vfork child's 077, u5", "u5");
    umask(old);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (getenv("DANAUS_SERVICE")) {
        d_open = (int (*)(const char *, int, ...))dlsym(RTLD_DEFAULT,
                                                        "danaus_open");
        d_close = (int (*)(int))dlsym(RTLD_DEFAULT, "danaus_close");
    }
    if (argc == 3 && strcmp(argv[1], "--mkdir") == 0)
        return mkdir(argv[2], 0755) == 0 && chmod(argv[2], 0755) == 0 ? 0 : 1;
    if (argc == 3 && strcmp(argv[1], "--user") == 0) {
        root = argv[2];
        root_len = strlen(root);
        return user_checks();
    }
    if (argc != 3) {
        fprintf(stderr, "usage: %s ROOT OUTSIDE | --user ROOT\n", argv[0]);
        return 2;
    }
    root = argv[1];
    root_len = strlen(root);
    line("mkdir d 0750", mkdir(at("d"), 0750), NULL);
    line("make d/f", make_file("d/f", "hello"), NULL);
    stats();
    names(argv[2]);
    attributes();
    line("mkdir d/priv 0700", mkdir(at("d/priv"), 0700), NULL);
    line("chmod d/g 644", chmod(at("d/g"), 0644), NULL);
    line("chown d/g 0:0", chown(at("d/g"), 0, 0), NULL);
    line("chmod d 755", chmod(at("d"), 0755), NULL);
    cwd();
    shell();
    exec_lists();
    umasks();
    escape(argv[2]);
    return 0;
}
