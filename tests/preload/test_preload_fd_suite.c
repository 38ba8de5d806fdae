/*
 * test_preload_fd_suite.c - the descriptor-and-data calls an application
 * makes, as a program that knows nothing of Danaus.
 *
 *   test_preload_fd_suite transcript DIR KDIR
 *       runs the suite in DIR (KDIR: a kernel directory for the other side
 *       of sendfile and copy_file_range) and prints a transcript: results,
 *       errno names and contents, never descriptor numbers. The driver
 *       (test_preload_fd.c) runs it on a plain directory without the
 *       preload and on a Danaus mount under LD_PRELOAD and compares.
 *   test_preload_fd_suite danaus DIR KDIR
 *       checks what only a Danaus directory shows (placeholders, mmap,
 *       record locks); exit 0 when all hold.
 *   test_preload_fd_suite overflow DIR
 *       a fortified read asking for more than its buffer: must abort.
 *
 * It is built twice, plain and with -D_FORTIFY_SOURCE=2 -O2, so both the
 * plain and the fortified (__open_2, __read_chk, ...) entries are run. On a
 * Danaus directory it uses only calls of the descriptor family.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *dir, *kdir;

/* Non-constant flags and sizes, so a fortified build calls __open_2 and
 * __read_chk rather than resolving the checks at compile time. */
static volatile int rdonly = O_RDONLY, rdwr = O_RDWR;
static volatile size_t five = 5;

static char *at(const char *base, const char *name)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", base, name);
    return p;
}

/* One transcript line: what the call returned and, on failure, errno. */
static void say(const char *what, long rc)
{
    if (rc < 0)
        printf("%s = -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s = %ld\n", what, rc);
}

/* posix_* calls return the error number. */
static void say_err(const char *what, int err)
{
    printf("%s = %s\n", what, err ? strerrorname_np(err) : "0");
}

static void say_bytes(const char *what, const char *buf, ssize_t n)
{
    printf("%s = %zd \"", what, n);
    for (ssize_t i = 0; i < n; i++)
        printf(buf[i] >= 32 && buf[i] < 127 ? "%c" : "\\%o",
               (unsigned char)buf[i]);
    printf("\"\n");
}

static void say_read(const char *what, int fd, size_t n)
{
    char buf[256];
    ssize_t got = read(fd, buf, n < sizeof buf ? n : sizeof buf);
    if (got < 0)
        say(what, -1);
    else
        say_bytes(what, buf, got);
}

static void say_pread(const char *what, int fd, size_t n, off_t off)
{
    char buf[256];
    ssize_t got = pread(fd, buf, n < sizeof buf ? n : sizeof buf, off);
    if (got < 0)
        say(what, -1);
    else
        say_bytes(what, buf, got);
}

static void say_file(const char *what, const char *path)
{
    int fd = open(path, rdonly);
    char buf[256];
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf);
    if (n < 0)
        say(what, -1);
    else
        say_bytes(what, buf, n);
    if (fd >= 0)
        close(fd);
}

static int make(const char *path, const char *text)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0 && write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        return -1;
    return fd;
}

static void basics(void)
{
    char *f = at(dir, "f");
    int fd = open(f, O_RDWR | O_CREAT | O_TRUNC, 0644);
    say("open create", fd < 0 ? -1 : 0);
    say("write", write(fd, "hello world\n", 12));
    say("lseek cur", lseek(fd, 0, SEEK_CUR));
    say("lseek set", lseek(fd, 0, SEEK_SET));
    say_read("read 5", fd, five);
    say_pread("pread 5@6", fd, 5, 6);
    say("lseek cur after pread", lseek(fd, 0, SEEK_CUR));
    say("lseek -1", lseek(fd, -1, SEEK_SET));
    say("lseek whence 99", lseek(fd, 0, 99));
    say("pread at -1", pread(fd, (char[4]){0}, 4, -1));
    say("pwrite X@100", pwrite(fd, "X", 1, 100));
    say("lseek end", lseek(fd, 0, SEEK_END));
    say_pread("pread 4@50 (hole)", fd, 4, 50);
    say("lseek set", lseek(fd, 0, SEEK_SET));
    struct iovec wv[] = {{(char *)"ab", 2}, {(char *)"cde", 3}};
    say("writev", writev(fd, wv, 2));
    char a[3], b[4];
    struct iovec rv[] = {{a, 3}, {b, 4}};
    say("preadv@0", preadv(fd, rv, 2, 0));
    say_bytes("  iov0", a, 3);
    say_bytes("  iov1", b, 4);
    say("pwritev@200", pwritev(fd, wv, 2, 200));
    say("lseek set 1", lseek(fd, 1, SEEK_SET));
    say("preadv2 -1", preadv2(fd, rv, 2, -1, 0));
    say_bytes("  iov0", a, 3);
    say("lseek cur after preadv2", lseek(fd, 0, SEEK_CUR));
    say("pwritev2@300", pwritev2(fd, wv, 2, 300, 0));
    say("readv", readv(fd, rv, 2));
    say("ftruncate 3", ftruncate(fd, 3));
    say("lseek end", lseek(fd, 0, SEEK_END));
    say("truncate 10", truncate(f, 10));
    say("lseek end", lseek(fd, 0, SEEK_END));
    say("fsync", fsync(fd));
    say("fdatasync", fdatasync(fd));
    say("lseek set 3", lseek(fd, 3, SEEK_SET));
    int avail = -1;
    say("ioctl FIONREAD", ioctl(fd, FIONREAD, &avail));
    printf("  avail = %d\n", avail);
    say("ioctl TCGETS", ioctl(fd, TCGETS, (char[64]){0}));
    say("fallocate 0..4096", fallocate(fd, 0, 0, 4096));
    say("lseek end", lseek(fd, 0, SEEK_END));
    say_err("posix_fallocate 5000+100", posix_fallocate(fd, 5000, 100));
    say("lseek end", lseek(fd, 0, SEEK_END));
    say_err("posix_fallocate -1", posix_fallocate(fd, -1, 10));
    say("fallocate len 0", fallocate(fd, 0, 0, 0));
    say_err("posix_fadvise seq", posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL));
    say_err("posix_fadvise 99", posix_fadvise(fd, 0, 0, 99));
    say("close", close(fd));
    say("close again", close(fd));
    say("read closed", read(fd, a, 1));
    say("write closed", write(fd, "x", 1));
    say("lseek closed", lseek(fd, 0, SEEK_SET));
    say("fsync closed", fsync(fd));
    say_err("posix_fadvise closed", posix_fadvise(fd, 0, 0, 0));
    say("dup closed", dup(fd));

    fd = open(f, rdonly);
    say("open rdonly (fortified when built so)", fd < 0 ? -1 : 0);
    char buf[16];
    say("read chk", read(fd, buf, five));
    say_bytes("  got", buf, 5);
    say("pread chk", pread(fd, buf, five, 1));
    say("write rdonly", write(fd, "x", 1));
    say_err("posix_fallocate rdonly", posix_fallocate(fd, 0, 1));
    close(fd);
    fd = open(f, O_WRONLY);
    say("read wronly", read(fd, buf, 1));
    close(fd);
    say("open missing", open(at(dir, "missing"), O_RDONLY));
    say("open excl existing", open(f, O_RDWR | O_CREAT | O_EXCL, 0600));
    say("truncate missing", truncate(at(dir, "missing"), 0));

    fd = open(dir, O_RDONLY | O_DIRECTORY);
    say("open dir", fd < 0 ? -1 : 0);
    say("read dir", read(fd, buf, 1));
    say("ioctl FIONREAD dir", ioctl(fd, FIONREAD, &avail));
    int g = openat(fd, "f", rdwr);
    say("openat dirfd", g < 0 ? -1 : 0);
    say_read("  read", g, 4);
    close(g);
    close(fd);

    fd = creat(at(dir, "c"), 0600);
    say("creat", fd < 0 ? -1 : 0);
    say("write", write(fd, "made", 4));
    say("read wronly", read(fd, buf, 1));
    close(fd);
    say_file("c", at(dir, "c"));
}

/* The exit code of child pid, once it ends; -1 when a signal ended it. */
static int exit_code(pid_t pid)
{
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Where fd's offset is, asked by a program exec'ed with it. */
static void tell_after_exec(const char *what, int fd)
{
    char arg[16];
    snprintf(arg, sizeof arg, "%d", fd);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "fd_suite", "tell", arg, (char *)NULL);
        _exit(127);
    }
    say(what, exit_code(pid));
}

/* Where a forked child's read leaves the offset of fd (at 0 first), as
 * its parent sees it. */
static void child_reads(const char *what, int fd)
{
    lseek(fd, 0, SEEK_SET);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char b[2];
        _exit(read(fd, b, 2) == 2 ? 0 : 1);
    }
    say("child read 2", exit_code(pid));
    say(what, lseek(fd, 0, SEEK_CUR));
}

/* An offset moved by a child, by another descriptor of the open file
 * (also once that is closed), or before an exec, is seen where it went;
 * each case on a file opened for it. */
static void offsets_shared(void)
{
    int fd = make(at(dir, "o1"), "abcdef");
    child_reads("lseek cur after a child's read", fd);
    close(fd);
    fd = make(at(dir, "o2"), "abcdef");
    lseek(fd, 0, SEEK_SET);
    int d = dup(fd);
    say_read("read dup 3", d, 3);
    close(d);
    say("lseek cur after the dup's read and close", lseek(fd, 0, SEEK_CUR));
    close(fd);
    fd = make(at(dir, "o3"), "abcdef");
    lseek(fd, 2, SEEK_SET);
    say_read("read 1", fd, 1);
    say("lseek cur", lseek(fd, 0, SEEK_CUR));
    tell_after_exec("lseek cur in an exec'ed child", fd);
    close(fd);
}

/* The same through descriptors opened read-only, whose reads the library
 * makes at its own copy of the offset while nothing shares it: moved by
 * lseek, by a child's read, through a dup, and read by an exec'ed program
 * after a read in the process that exec'ed it. */
static void read_only_offsets(void)
{
    char *f = at(dir, "ro");
    close(make(f, "0123456789abcdef"));
    int fd = open(f, O_RDONLY);
    say_read("ro read 3", fd, 3);
    say("ro lseek cur", lseek(fd, 0, SEEK_CUR));
    say("ro lseek cur -1", lseek(fd, -1, SEEK_CUR));
    say("ro lseek cur -9", lseek(fd, -9, SEEK_CUR));
    say_read("ro read 2", fd, 2);
    int d = dup(fd);
    say_read("ro read 2 through a dup", d, 2);
    close(d);
    say_read("ro read 2 after the dup", fd, 2);
    close(fd);
    fd = open(f, O_RDONLY);
    say_read("ro read 4", fd, 4);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char b[3];
        _exit(read(fd, b, 3) == 3 && b[0] == '4' ? 0 : 1);
    }
    say("ro child reads 3 from 4", exit_code(pid));
    say_read("ro read 2 after the child", fd, 2);
    close(fd);
    fd = open(f, O_RDONLY);
    say_read("ro read to the end", fd, 100);
    say_read("ro read at the end", fd, 100);
    say("ro lseek set 14", lseek(fd, 14, SEEK_SET));
    say_read("ro read after lseek", fd, 100);
    close(fd);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        int own = open(f, O_RDONLY);
        char b[5], arg[16];
        if (read(own, b, 5) != 5)
            _exit(126);
        snprintf(arg, sizeof arg, "%d", own);
        execl("/proc/self/exe", "fd_suite", "tell", arg, (char *)NULL);
        _exit(127);
    }
    say("ro lseek cur in a program exec'ed after a read of 5",
        exit_code(pid));
}

static void sharing(void)
{
    char *f = at(dir, "s");
    int fd = make(f, "0123456789");
    int d = dup(fd);
    say("dup", d < 0 ? -1 : 0);
    lseek(fd, 0, SEEK_SET);
    say_read("read dup 2", d, 2);
    say("lseek cur orig", lseek(fd, 0, SEEK_CUR));
    say("F_GETFD dup", fcntl(d, F_GETFD));
    close(d);
    int k = open("/dev/null", O_RDONLY);
    say("dup2 onto kernel fd", dup2(fd, k) == k ? 0 : -1);
    say_read("read via dup2", k, 3);
    say("lseek cur orig", lseek(fd, 0, SEEK_CUR));
    say("dup2 same", dup2(fd, fd) == fd ? 0 : -1);
    say("dup3 cloexec", dup3(fd, k, O_CLOEXEC) == k ? 0 : -1);
    say("F_GETFD dup3", fcntl(k, F_GETFD));
    say("dup3 same", dup3(fd, fd, 0));
    say("dup3 bad flags", dup3(fd, k, O_APPEND));
    close(k);
    d = fcntl(fd, F_DUPFD, 50);
    say("F_DUPFD >= 50", d >= 50 ? 0 : -1);
    say_read("read F_DUPFD", d, 1);
    say("F_GETFD", fcntl(d, F_GETFD));
    close(d);
    d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    say("F_DUPFD_CLOEXEC", d >= 0 ? 0 : -1);
    say("F_GETFD", fcntl(d, F_GETFD));
    say("F_SETFD 0", fcntl(d, F_SETFD, 0));
    say("F_GETFD", fcntl(d, F_GETFD));
    close(d);
    say("F_DUPFD -1", fcntl(fd, F_DUPFD, -1));
    say("F_GETFL rdwr", fcntl(fd, F_GETFL));
    say("F_SETFL append", fcntl(fd, F_SETFL, O_APPEND));
    say("F_GETFL", fcntl(fd, F_GETFL));
    lseek(fd, 0, SEEK_SET);
    say("write appends", write(fd, "A", 1));
    say("lseek cur", lseek(fd, 0, SEEK_CUR));
    say("F_SETFL 0", fcntl(fd, F_SETFL, 0));
    lseek(fd, 0, SEEK_SET);
    say("write at 0", write(fd, "Z", 1));
    close(fd);
    say_file("s", f);
    fd = open(f, O_WRONLY | O_APPEND);
    say("F_GETFL wronly append", fcntl(fd, F_GETFL));
    say("write", write(fd, "!", 1));
    say("fcntl bad cmd", fcntl(fd, 12345));
    close(fd);
    say_file("s", f);
}

/* sendfile and copy_file_range with DIR on one side and KDIR on the
 * other, both ways, with and without offset pointers. */
static void copies(void)
{
    char *src = at(dir, "src"), *ksrc = at(kdir, "ksrc");
    int in = make(src, "abcdefghijklmnopqrstuvwxyz");
    int kin = make(ksrc, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    int kout = open(at(kdir, "kout"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    int out = open(at(dir, "out"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    off_t off = 2;
    lseek(in, 1, SEEK_SET);
    say("sendfile dir->kernel @2", sendfile(kout, in, &off, 5));
    printf("  off = %ld, in at %ld, kout at %ld\n", (long)off,
           (long)lseek(in, 0, SEEK_CUR), (long)lseek(kout, 0, SEEK_CUR));
    say("sendfile dir->kernel", sendfile(kout, in, NULL, 4));
    printf("  in at %ld\n", (long)lseek(in, 0, SEEK_CUR));
    lseek(kin, 20, SEEK_SET);
    say("sendfile kernel->dir", sendfile(out, kin, NULL, 100));
    printf("  kin at %ld, out at %ld\n", (long)lseek(kin, 0, SEEK_CUR),
           (long)lseek(out, 0, SEEK_CUR));
    off = 0;
    say("sendfile kernel->dir @0", sendfile(out, kin, &off, 3));
    printf("  off = %ld, kin at %ld\n", (long)off,
           (long)lseek(kin, 0, SEEK_CUR));
    say("sendfile dir->dir", sendfile(out, in, NULL, 2));
    say("sendfile past end", sendfile(kout, in, &(off_t){1000}, 5));
    int wo = open(src, O_WRONLY);
    say("sendfile from wronly", sendfile(kout, wo, NULL, 1));
    close(wo);

    off_t oi = 3, oo = 1;
    say("copy_file_range dir->kernel", copy_file_range(in, &oi, kout, &oo, 4, 0));
    printf("  oi = %ld, oo = %ld, in at %ld, kout at %ld\n", (long)oi,
           (long)oo, (long)lseek(in, 0, SEEK_CUR),
           (long)lseek(kout, 0, SEEK_CUR));
    lseek(kin, 0, SEEK_SET);
    lseek(out, 0, SEEK_SET);
    say("copy_file_range kernel->dir", copy_file_range(kin, NULL, out, NULL, 6, 0));
    printf("  kin at %ld, out at %ld\n", (long)lseek(kin, 0, SEEK_CUR),
           (long)lseek(out, 0, SEEK_CUR));
    say("copy_file_range flags", copy_file_range(kin, NULL, out, NULL, 1, 1));
    say("copy_file_range from dir fd", copy_file_range(
        open(dir, O_RDONLY | O_DIRECTORY), NULL, kout, NULL, 1, 0));
    close(in);
    close(kin);
    close(kout);
    close(out);
    say_file("kout", at(kdir, "kout"));
    say_file("out", at(dir, "out"));

    /* Larger than any bounce or slot buffer, both ways. */
    enum { BIG = 3 * 1024 * 1024 + 17 };
    char *big = malloc(BIG), *back = malloc(BIG);
    for (int i = 0; i < BIG; i++)
        big[i] = (char)(i * 7 + i / 4096);
    int fd = open(at(dir, "big"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    say("write big", write(fd, big, BIG));
    int kfd = open(at(kdir, "kbig"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    off = 0;
    say("sendfile big dir->kernel", sendfile(kfd, fd, &off, BIG));
    say("pread big kernel", pread(kfd, back, BIG, 0));
    say("same bytes", memcmp(big, back, BIG) == 0 ? 0 : -1);
    say("ftruncate", ftruncate(fd, 0));
    say("lseek set", lseek(fd, 0, SEEK_SET));
    oi = 0;
    say("copy_file_range big kernel->dir", copy_file_range(kfd, &oi, fd, NULL, BIG, 0));
    memset(back, 0, BIG);
    say("pread big dir", pread(fd, back, BIG, 0));
    say("same bytes", memcmp(big, back, BIG) == 0 ? 0 : -1);
    close(fd);
    close(kfd);
    free(big);
    free(back);
}

/* A read at the end of a file (which Danaus may answer without asking)
 * sees what was written after it, by another descriptor, by another
 * process and by a truncate that grew the file, and from where an lseek
 * or a child that shares the offset moved it. */
static void reads_at_the_end(void)
{
    char *f = at(dir, "end");
    close(make(f, "abc"));
    int w = open(f, O_WRONLY | O_APPEND);
    int fd = open(f, O_RDONLY);
    say_read("end: read to the end", fd, 100);
    say_read("end: read at the end", fd, 100);
    say("end: append 2 through another descriptor", write(w, "de", 2));
    say_read("end: read after the append", fd, 100);
    say_read("end: read at the new end", fd, 100);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int c = open(f, O_WRONLY | O_APPEND);
        _exit(c >= 0 && write(c, "fg", 2) == 2 ? 0 : 1);
    }
    say("end: a child appends 2", exit_code(pid));
    say_read("end: read after the child's append", fd, 100);
    say("end: extend by ftruncate to 9", ftruncate(w, 9));
    say_read("end: read after the truncate", fd, 100);
    say("end: lseek set 1", lseek(fd, 1, SEEK_SET));
    say_read("end: read after lseek", fd, 100);
    say_read("end: read at the end again", fd, 100);
    fflush(stdout);
    pid = fork();
    if (pid == 0)
        _exit(lseek(fd, 0, SEEK_SET) == 0 ? 0 : 1);
    say("end: a child moves the shared offset to 0", exit_code(pid));
    say_read("end: read after the child's lseek", fd, 100);
    close(w);
    close(fd);
}

/* Children that make no call before their exec (a shell's): one that
 * waits past the service's ticket time hands its descriptor on where it
 * was, and so does one whose first act is a vfork, or a failed exec, one
 * after a hundred children that exited at once, and every program
 * spawned; a lock held through a close-on-exec descriptor goes with the
 * exec, however long the new program lives. */
static void children_that_only_exec(void)
{
    char arg[16];
    int fd = make(at(dir, "x1"), "abcdef");
    lseek(fd, 2, SEEK_SET);
    snprintf(arg, sizeof arg, "%d", fd);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        sleep(6);
        execl("/proc/self/exe", "fd_suite", "tell", arg, (char *)NULL);
        _exit(127);
    }
    say("offset told by a program exec'ed 6 s after the fork",
        exit_code(pid));
    /* The child's first act a vfork, whose child execs in its memory. */
    pid = fork();
    if (pid == 0) {
        pid_t grandchild = vfork();
        if (grandchild == 0) {
            execl("/proc/self/exe", "fd_suite", "tell", arg, (char *)NULL);
            _exit(127);
        }
        _exit(exit_code(grandchild));
    }
    say("offset told by a program a new child vfork'ed", exit_code(pid));
    /* An exec that fails, then one that runs (a search along PATH); two
     * spawns one after the other: each program gets the descriptor. */
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        execl(at(dir, "no-such-program"), "none", (char *)NULL);
        execl("/proc/self/exe", "fd_suite", "tell", arg, (char *)NULL);
        _exit(127);
    }
    say("offset told after a failed exec", exit_code(pid));
    /* Children that exit at once, a hundred in a row, leave the next one
     * its descriptors. */
    pid_t exited[100];
    for (int i = 0; i < 100; i++) {
        exited[i] = fork();
        if (exited[i] == 0)
            _exit(0);
    }
    for (int i = 0; i < 100; i++)
        exit_code(exited[i]);
    tell_after_exec("offset told after a hundred children that exited", fd);
    char name[] = "fd_suite", verb[] = "tell";
    char *tell[] = {name, verb, arg, NULL};
    for (int i = 0; i < 2; i++) {
        if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, tell, environ))
            pid = -1;
        say("offset told by a spawned program", exit_code(pid));
    }
    close(fd);
    int lock = open(at(dir, "x2"), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    say("flock", flock(lock, LOCK_EX));
    int p[2];
    if (pipe(p) < 0)
        return;
    snprintf(arg, sizeof arg, "%d", p[1]);
    pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "fd_suite", "hold", arg, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char c;
    say("the exec'ed program runs", read(p[0], &c, 1));
    close(p[0]);
    close(lock);
    int other = open(at(dir, "x2"), O_RDWR);
    say("flock of the file once its locker closed and its child exec'ed",
        flock(other, LOCK_EX | LOCK_NB));
    close(other);
    say("held", exit_code(pid));
}

static int transcript(void)
{
    basics();
    sharing();
    offsets_shared();
    read_only_offsets();
    reads_at_the_end();
    copies();
    children_that_only_exec();
    return 0;
}

static int failures;

static void check(int cond, const char *what)
{
    if (!cond) {
        printf("FAILED: %s (errno %s)\n", what, strerrorname_np(errno));
        failures++;
    }
}

/* Whether the map that holds p names no file in /proc/self/maps. */
static int map_is_anonymous(const void *p)
{
    FILE *maps = fopen("/proc/self/maps", "re");
    char line[4096];
    int anonymous = 0;
    /* The map that holds p: the kernel merges an anonymous map with an
     * anonymous neighbour of the same protection, so it may start
     * before p. */
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char path[4096] = "";
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &start, &end,
                   path) >= 2 &&
            start <= (unsigned long)p && (unsigned long)p < end) {
            anonymous = path[0] == '\0';
            break;
        }
    }
    if (maps)
        fclose(maps);
    return anonymous;
}

/* What only a Danaus directory shows. */
static int danaus_only(void)
{
    char *f = at(dir, "only");
    int fd = make(f, "danaus data");
    check(fd >= 0, "open");

    char link[64], target[256] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    check(n > 0 && strcmp(target, "/dev/null") == 0,
          "the placeholder is /dev/null in the kernel's table");

    char *kpath = at(kdir, "kfile");
    int kfd = make(kpath, "kernel data");
    check(kfd >= 0 && kfd != fd, "a kernel open gets another number");

    errno = 0;
    void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    /* Mapped through the FUSE door (tests/fuse checks it in full), or
     * ENODEV where another test's service holds this mount point. */
    check((p != MAP_FAILED && memcmp(p, "danaus data", 11) == 0) ||
              (p == MAP_FAILED && errno == ENODEV),
          "mmap of a Danaus file: through the FUSE door");
    if (p != MAP_FAILED)
        munmap(p, 4096);
    /* The map's kernel descriptor has fd's access mode: read-only. */
    int rdonly = open(f, O_RDONLY);
    errno = 0;
    p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rdonly, 0);
    check(p == MAP_FAILED && (errno == EACCES || errno == ENODEV),
          "a shared writable map of a read-only descriptor: EACCES");
    close(rdonly);
    /* A small private map is a copy made through the service: the file's
     * bytes, in an anonymous map (no FUSE door needed); writes to it stay
     * in it. */
    p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    check(p != MAP_FAILED && memcmp(p, "danaus data", 11) == 0,
          "a private map holds the file's bytes");
    check(p != MAP_FAILED && map_is_anonymous(p),
          "a small private map is a copy");
    if (p != MAP_FAILED) {
        memcpy(p, "private", 7);
        char back[12] = "";
        check(pread(fd, back, 11, 0) == 11 &&
                  memcmp(back, "danaus data", 11) == 0,
              "a write to a private map leaves the file alone");
        munmap(p, 4096);
    }
    int wronly = open(f, O_WRONLY);
    errno = 0;
    p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, wronly, 0);
    check(p == MAP_FAILED && errno == EACCES,
          "a private map of a write-only descriptor: EACCES");
    close(wronly);
    p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, fd, 0);
    check(p != MAP_FAILED, "anonymous mmap passes through");
    munmap(p, 4096);
    p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, kfd, 0);
    check(p != MAP_FAILED && memcmp(p, "kernel data", 11) == 0,
          "mmap of a kernel file passes through");
    munmap(p, 4096);

    /* Record locks reach the service's lock table (tests/integration/
     * locks.c has the two-process cases). */
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    check(fcntl(fd, F_SETLK, &lk) == 0, "F_SETLK");
    check(fcntl(fd, F_GETLK, &lk) == 0 && lk.l_type == F_UNLCK,
          "F_GETLK: one's own lock does not conflict");
    lk.l_type = F_WRLCK;
    errno = 0;
    check(fcntl(fd, F_OFD_SETLK, &lk) == -1 && errno == EAGAIN,
          "F_OFD_SETLK: an OFD lock conflicts with the process's POSIX lock");
    lk.l_type = F_UNLCK;
    check(fcntl(fd, F_SETLK, &lk) == 0, "F_SETLK unlock");
    char c;
    struct iovec iov = {&c, 1};
    errno = 0;
    check(preadv2(fd, &iov, 1, 0, RWF_HIPRI) == -1 && errno == EOPNOTSUPP,
          "preadv2 with flags: EOPNOTSUPP");
    int bsz;
    errno = 0;
    check(ioctl(fd, FIGETBSZ, &bsz) == -1 && errno == ENOTTY,
          "other ioctls: ENOTTY");
    check(ioctl(fd, FIOCLEX) == 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC,
          "FIOCLEX");
    int on = 1;
    check(ioctl(fd, FIONBIO, &on) == 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK),
          "FIONBIO");

    /* dup2 of a Danaus descriptor onto a kernel one: it becomes Danaus. */
    int k2 = open(kpath, O_RDONLY);
    check(dup2(fd, k2) == k2, "dup2 danaus -> kernel");
    char buf[32] = "";
    check(pread(k2, buf, 11, 0) == 11 && memcmp(buf, "danaus data", 11) == 0,
          "the kernel number reads the Danaus file");
    check(close(k2) == 0, "close it");

    /* dup2 of a kernel descriptor onto a Danaus one: it stops being one. */
    int d = dup(fd);
    check(dup2(kfd, d) == d, "dup2 kernel -> danaus");
    memset(buf, 0, sizeof buf);
    check(pread(d, buf, 11, 0) == 11 && memcmp(buf, "kernel data", 11) == 0,
          "the Danaus number reads the kernel file");
    snprintf(link, sizeof link, "/proc/self/fd/%d", d);
    n = readlink(link, target, sizeof target - 1);
    target[n > 0 ? n : 0] = 0;
    check(strcmp(target, kpath) == 0, "the kernel holds the kernel file there");
    check(close(d) == 0, "close it");

    /* stdout dup2'ed onto a Danaus file and back: printf follows. */
    int saved = dup(1);
    int o = open(at(dir, "stdout"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    fflush(stdout);
    check(dup2(o, 1) == 1 && close(o) == 0, "dup2 onto stdout");
    printf("through stdout\n");
    fflush(stdout);
    check(dup2(saved, 1) == 1 && close(saved) == 0, "stdout back");
    o = open(at(dir, "stdout"), O_RDONLY);
    memset(buf, 0, sizeof buf);
    check(read(o, buf, sizeof buf) == 15 &&
              strcmp(buf, "through stdout\n") == 0,
          "printf reached the Danaus file");
    close(o);

    /* Placeholders are copies of a /dev/null the library keeps at 100 or
     * above; a program that puts its own file at that number keeps it,
     * and the next placeholder is /dev/null all the same. */
    int model = -1;
    for (int i = 100; i < 1024 && model < 0; i++) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", i);
        n = readlink(link, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        if (n > 0 && strcmp(target, "/dev/null") == 0)
            model = i;
    }
    check(model >= 100, "the library keeps its model placeholder high");
    check(dup2(kfd, model) == model, "dup2 of a kernel file onto it");
    int p2 = open(f, O_RDONLY);
    snprintf(link, sizeof link, "/proc/self/fd/%d", p2);
    n = readlink(link, target, sizeof target - 1);
    target[n > 0 ? n : 0] = 0;
    check(p2 >= 0 && strcmp(target, "/dev/null") == 0,
          "the next placeholder is still /dev/null");
    memset(buf, 0, sizeof buf);
    check(pread(p2, buf, 11, 0) == 11 && memcmp(buf, "danaus data", 11) == 0,
          "and its number reads the Danaus file");
    memset(buf, 0, sizeof buf);
    check(pread(model, buf, 11, 0) == 11 &&
              memcmp(buf, "kernel data", 11) == 0,
          "the program's file at the old model's number is left alone");
    close(p2);
    close(model);

    /* Closing a Danaus descriptor frees its number for the kernel. */
    int was = fd;
    check(close(fd) == 0, "close danaus");
    int k3 = open(kpath, O_RDONLY);
    check(k3 == was, "the kernel reuses the number");
    memset(buf, 0, sizeof buf);
    check(read(k3, buf, 11) == 11 && memcmp(buf, "kernel data", 11) == 0,
          "and it reads the kernel file");
    close(k3);
    close(kfd);
    return failures ? 1 : 0;
}

static int overflow(void)
{
    int fd = make(at(dir, "ov"), "0123456789");
    char small[4];
    volatile size_t ask = 8;
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, small, ask); /* __read_chk: must not return */
    printf("read returned %zd\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 3) {
        dir = argv[2];
        kdir = argc >= 4 ? argv[3] : argv[2];
        if (strcmp(argv[1], "transcript") == 0 && argc == 4)
            return transcript();
        if (strcmp(argv[1], "danaus") == 0 && argc == 4)
            return danaus_only();
        if (strcmp(argv[1], "overflow") == 0)
            return overflow();
        if (strcmp(argv[1], "tell") == 0)
            return (int)lseek(atoi(argv[2]), 0, SEEK_CUR);
        /* Says it runs on the descriptor named, then lives on a while. */
        if (strcmp(argv[1], "hold") == 0) {
            if (write(atoi(argv[2]), "x", 1) != 1)
                return 1;
            sleep(2);
            return 0;
        }
    }
    fprintf(stderr, "usage: %s transcript|danaus DIR KDIR | overflow DIR\n",
            argv[0]);
    return 2;
}
