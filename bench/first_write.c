/*
 * first_write.c - the copy-up benchmark's probe: for each file named, the
 * time of its first write (open O_WRONLY, one 4 KiB pwrite at offset 0,
 * close), in ms, one line each, then the total. Plain POSIX calls, so one
 * binary measures kernel overlayfs, unionfs-fuse and, under LD_PRELOAD of
 * libdanaus.so, the Danaus union (bench/run-union.sh runs it on each).
 * Every file is looked up (stat) before the clock starts, so neither the
 * preload's connection to danausd nor a first lookup in the directory is
 * counted as copy-up, in any of the systems.
 *
 *   first-write FILE...
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: first-write FILE...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            perror(argv[i]);
            return 1;
        }
    }
    static char block[4096];
    memset(block, 'w', sizeof block);
    double total = 0;
    for (int i = 1; i < argc; i++) {
        double t0 = now_ms();
        int fd = open(argv[i], O_WRONLY);
        if (fd < 0 || pwrite(fd, block, sizeof block, 0) != sizeof block ||
            close(fd) < 0) {
            perror(argv[i]);
            return 1;
        }
        double ms = now_ms() - t0;
        total += ms;
        printf("%s %.3f\n", argv[i], ms);
    }
    printf("total %.3f\n", total);
    return 0;
}
