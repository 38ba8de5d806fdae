/*
 * hrc_reader.c - reads 4 KiB pages of a file at random, uniformly over
 * its first PAGES pages, READS times: a working set of known size for
 * hrc.sh, through whichever door the caller runs it by (preloaded, or
 * plain through the FUSE mount).
 *
 *   hrc_reader FILE PAGES READS SEED
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: hrc_reader FILE PAGES READS SEED\n");
        return 2;
    }
    uint64_t pages = strtoull(argv[2], NULL, 10);
    uint64_t reads = strtoull(argv[3], NULL, 10);
    uint64_t x = strtoull(argv[4], NULL, 10) | 1;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0 || pages == 0) {
        perror(argv[1]);
        return 1;
    }
    char buf[4096];
    for (uint64_t i = 0; i < reads; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        off_t off = (off_t)(x % pages) * (off_t)sizeof buf;
        if (pread(fd, buf, sizeof buf, off) != (ssize_t)sizeof buf) {
            perror("pread");
            return 1;
        }
    }
    close(fd);
    return 0;
}
