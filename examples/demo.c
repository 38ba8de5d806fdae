/*
 * demo.c - a program using Danaus through the danaus_* API: the "main job"
 * that deploy/demo.sh runs against a danausd on the local backend.
 *
 *   danaus-demo MOUNTPOINT
 *
 * It builds a small tree under MOUNTPOINT, reads every file back and checks
 * it, lists the tree with sizes and modes, and times a few calls. The
 * service is found through DANAUS_SERVICE (and DANAUS_RUNDIR).
 */
#include <danaus/danaus.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAILED: %s (%s)\n", what, strerror(errno));
        failures++;
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void write_file(const char *path, const char *text)
{
    int fd = danaus_open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, path);
    ssize_t n = danaus_write(fd, text, strlen(text));
    check(n == (ssize_t)strlen(text), "write");
    check(danaus_close(fd) == 0, "close");
}

static void read_back(const char *path, const char *text)
{
    char buf[256] = {0};
    int fd = danaus_open(path, O_RDONLY);
    check(fd >= 0, path);
    ssize_t n = danaus_read(fd, buf, sizeof buf - 1);
    check(n == (ssize_t)strlen(text) && strcmp(buf, text) == 0, path);
    danaus_close(fd);
}

static void list(const char *dir)
{
    DIR *d = danaus_opendir(dir);
    check(d != NULL, dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = danaus_readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check(danaus_lstat(path, &st) == 0, path);
        printf("  %-28s %c%04o %6lld bytes\n", path,
               S_ISDIR(st.st_mode) ? 'd' : '-', st.st_mode & 07777,
               (long long)st.st_size);
    }
    danaus_closedir(d);
}

/* One timed operation: a file and a block to work on. */
struct op_arg {
    const char *path;
    int fd;
    char block[4096];
};

static void op_stat(struct op_arg *a)
{
    struct stat st;
    danaus_stat(a->path, &st);
}

static void op_pread(struct op_arg *a)
{
    danaus_pread(a->fd, a->block, sizeof a->block, 0);
}

static void op_pwrite(struct op_arg *a)
{
    danaus_pwrite(a->fd, a->block, sizeof a->block, 0);
}

/* Mean microseconds of n calls of op. */
static double mean_us(int n, void (*op)(struct op_arg *), struct op_arg *a)
{
    double t0 = now_us();
    for (int i = 0; i < n; i++)
        op(a);
    return (now_us() - t0) / n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: danaus-demo MOUNTPOINT\n");
        return 2;
    }
    const char *mnt = argv[1];
    char dir[4096], a[4200], b[4200], sub[4200];
    snprintf(dir, sizeof dir, "%s/demo-%d", mnt, (int)getpid());
    snprintf(a, sizeof a, "%s/hello.txt", dir);
    snprintf(sub, sizeof sub, "%s/notes", dir);
    snprintf(b, sizeof b, "%s/notes/todo.txt", dir);

    if (danaus_mkdir(dir, 0755) < 0) {
        fprintf(stderr, "danaus-demo: cannot reach %s through Danaus: %s\n",
                dir, strerror(errno));
        return 1;
    }
    check(danaus_mkdir(sub, 0700) == 0, sub);
    write_file(a, "hello from a Danaus client\n");
    write_file(b, "1. own the container storage stack\n");
    read_back(a, "hello from a Danaus client\n");
    read_back(b, "1. own the container storage stack\n");
    printf("%s:\n", dir);
    list(dir);
    list(sub);

    struct op_arg op = {.path = a, .fd = danaus_open(a, O_RDWR)};
    check(op.fd >= 0, a);
    printf("through the service, mean of 10000 calls:\n");
    printf("  stat          %7.2f us\n", mean_us(10000, op_stat, &op));
    printf("  pread  4 KiB  %7.2f us\n", mean_us(10000, op_pread, &op));
    printf("  pwrite 4 KiB  %7.2f us\n", mean_us(10000, op_pwrite, &op));
    danaus_close(op.fd);

    check(danaus_unlink(a) == 0 && danaus_unlink(b) == 0, "unlink");
    check(danaus_rmdir(sub) == 0 && danaus_rmdir(dir) == 0, "rmdir");
    printf(failures ? "demo FAILED\n" : "demo ok\n");
    return failures ? 1 : 0;
}
