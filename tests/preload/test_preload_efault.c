/*
 * test_preload_efault.c - calls given pointers the kernel cannot reach
 * (NULL, (char *)-1, an unmapped page) fail with EFAULT, as the kernel
 * answers, and never crash: as paths in each family of path calls that
 * glibc hands to the kernel unread, and as output buffers of calls on files
 * in DIR. (glibc's own opendir, fopen and realpath read the path first and
 * crash on their own.) Prints a transcript that must
 * be the same on a plain directory and on a Danaus mount.
 *
 *   test_preload_efault DIR
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

static void report(const char *what, const char *ptr, long rc)
{
    printf("%s(%s): %s\n", what, ptr, rc < 0 ? strerrorname_np(errno) : "ok");
}

/* Every path call with path p (named name). */
static void paths(const char *p, const char *name, const char *dir)
{
    char file[4096], buf[64];
    snprintf(file, sizeof file, "%s/file", dir);
    struct stat st;
    struct statx stx;
    struct statfs sfs;
    report("open", name, open(p, O_RDONLY));
    report("open O_CREAT", name, open(p, O_CREAT | O_WRONLY, 0644));
    report("openat", name, openat(AT_FDCWD, p, O_RDONLY));
    report("creat", name, creat(p, 0644));
    report("stat", name, stat(p, &st));
    report("lstat", name, lstat(p, &st));
    report("fstatat", name, fstatat(AT_FDCWD, p, &st, 0));
    report("statx", name, statx(AT_FDCWD, p, 0, STATX_BASIC_STATS, &stx));
    report("statfs", name, statfs(p, &sfs));
    report("access", name, access(p, F_OK));
    report("faccessat", name, faccessat(AT_FDCWD, p, F_OK, 0));
    report("unlink", name, unlink(p));
    report("unlinkat", name, unlinkat(AT_FDCWD, p, 0));
    report("mkdir", name, mkdir(p, 0755));
    report("rmdir", name, rmdir(p));
    report("rename from", name, rename(p, file));
    report("rename to", name, rename(file, p));
    report("link from", name, link(p, file));
    report("link to", name, link(file, p));
    report("symlink target", name, symlink(p, file));
    report("symlink name", name, symlink(file, p));
    report("readlink", name, readlink(p, buf, sizeof buf));
    report("chmod", name, chmod(p, 0644));
    report("chown", name, chown(p, 0, 0));
    report("lchown", name, lchown(p, 0, 0));
    report("truncate", name, truncate(p, 0));
    report("utimes", name, utimes(p, NULL));
    report("chdir", name, chdir(p));
    report("getxattr", name, getxattr(p, "user.x", buf, sizeof buf));
    report("setxattr", name, setxattr(p, "user.x", "v", 1, 0));
    report("listxattr", name, listxattr(p, buf, sizeof buf));
    report("removexattr", name, removexattr(p, "user.x"));
}

/* Calls on dir/file and dir/link that write into buffer b. */
static void buffers(char *b, const char *name, const char *dir)
{
    char file[4096], link[4096];
    snprintf(file, sizeof file, "%s/file", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    int fd = open(file, O_RDONLY);
    report("stat buf", name, stat(file, (struct stat *)b));
    report("fstat buf", name, fstat(fd, (struct stat *)b));
    report("statx buf", name,
           statx(AT_FDCWD, file, 0, STATX_BASIC_STATS, (struct statx *)b));
    report("statfs buf", name, statfs(file, (struct statfs *)b));
    report("read buf", name, read(fd, b, 16));
    report("pread buf", name, pread(fd, b, 16, 0));
    report("readlink buf", name, readlink(link, b, 16));
    report("getxattr buf", name, getxattr(file, "user.x", b, 16));
    report("listxattr buf", name, listxattr(file, b, 16));
    close(fd);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    report("getdents64 buf", name, getdents64(dfd, b, 4096));
    close(dfd);
    char here[4096];
    if (getcwd(here, sizeof here) && chdir(dir) == 0) {
        report("getcwd buf", name, getcwd(b, 4096) ? 0 : -1);
        if (chdir(here) < 0)
            perror("chdir back");
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char file[4096], link[4096];
    snprintf(file, sizeof file, "%s/file", argv[1]);
    snprintf(link, sizeof link, "%s/link", argv[1]);
    int fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "contents of file", 16) != 16 || close(fd) < 0 ||
        symlink("file", link) < 0 || setxattr(file, "user.x", "v", 1, 0) < 0) {
        perror("setup");
        return 1;
    }
    char *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (gone == MAP_FAILED || munmap(gone, 4096) < 0)
        return 1;
    /* volatile: the compiler must not see the calls' nonnull arguments. */
    char *volatile bad[] = {NULL, (char *)-1, gone};
    const char *names[] = {"NULL", "-1", "unmapped"};
    for (int i = 0; i < 3; i++)
        paths(bad[i], names[i], argv[1]);
    for (int i = 1; i < 3; i++)
        buffers(bad[i], names[i], argv[1]);
    return 0;
}
