/*
 * test_fuse_mmap.c - mmap of a Danaus file through the preload, which maps
 * it through the FUSE door (libfs/interpose/fd.c). Run preloaded by
 * fuse-door.sh:
 *
 *   test_fuse_mmap FILE
 *
 * Writes FILE through the preload (8 KiB of 'a'), then checks: a MAP_SHARED
 * read map and a MAP_PRIVATE one show those bytes; a MAP_SHARED write plus
 * msync ("mapped!" at offset 100) is read back by pread through the
 * preload; a pwrite through the preload ("pwrite" at 200) is seen in the
 * live shared map at once; MAP_PRIVATE writes stay private. Leaves the file
 * for the script to read through the FUSE door. Prints each failure, exits
 * 1 if any.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE 8192

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL: %s\n", what);
        failures++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_fuse_mmap FILE\n");
        return 2;
    }
    static char buf[SIZE];
    memset(buf, 'a', sizeof buf);
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || pwrite(fd, buf, SIZE, 0) != SIZE) {
        perror(argv[1]);
        return 1;
    }

    char *ro = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
    check(ro != MAP_FAILED, "MAP_SHARED read map");
    if (ro != MAP_FAILED) {
        check(memcmp(ro, buf, SIZE) == 0, "shared map shows the file");
        munmap(ro, SIZE);
    }

    char *priv = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    check(priv != MAP_FAILED, "MAP_PRIVATE map");

    char *rw = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    check(rw != MAP_FAILED, "MAP_SHARED write map");
    if (rw == MAP_FAILED || priv == MAP_FAILED)
        return 1;
    check(memcmp(priv, buf, SIZE) == 0, "private map shows the file");
    memcpy(priv + 300, "private", 7);

    memcpy(rw + 100, "mapped!", 7);
    check(msync(rw, SIZE, MS_SYNC) == 0, "msync");
    char got[8] = {0};
    check(pread(fd, got, 7, 100) == 7 && memcmp(got, "mapped!", 7) == 0,
          "pread through the preload sees the msync'ed write");

    check(pwrite(fd, "pwrite", 6, 200) == 6, "pwrite through the preload");
    check(memcmp(rw + 200, "pwrite", 6) == 0,
          "the shared map sees a pwrite through the preload at once");

    check(pread(fd, got, 7, 300) == 7 && memcmp(got, "aaaaaaa", 7) == 0,
          "a private map's write stays private");

    int wo = open(argv[1], O_WRONLY);
    errno = 0;
    check(wo >= 0 && mmap(NULL, SIZE, PROT_READ, MAP_SHARED, wo, 0) ==
                         MAP_FAILED && errno == EACCES,
          "a write-only descriptor cannot be mapped (EACCES)");
    close(wo);

    munmap(rw, SIZE);
    munmap(priv, SIZE);
    close(fd);
    return failures ? 1 : 0;
}
