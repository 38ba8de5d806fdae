/*
 * fallocate_probe.c - one sequence of fallocate modes on a file, as a
 * program that knows nothing of Danaus: fallocate.sh runs it on a plain
 * ext4 directory, under the preload and through the FUSE door, and
 * compares the transcripts.
 *
 *   fallocate_probe FILE [fuse]
 *
 * prints each call's result or errno name, the file's size, whether its
 * blocks grew or shrank, and what a range reads. With "fuse" it skips the
 * modes the kernel's FUSE client does not forward (collapse, insert).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEEP FALLOC_FL_KEEP_SIZE
#define PUNCH FALLOC_FL_PUNCH_HOLE
#define ZERO FALLOC_FL_ZERO_RANGE

static long blocks_before;

static void say(const char *what, int rc)
{
    if (rc < 0)
        printf("%s = -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s = %d\n", what, rc);
}

/* The size, and how st_blocks moved since the last look (the counts
 * themselves differ between directories of one file system). */
static void say_size(int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        say("fstat", -1);
        return;
    }
    long b = (long)st.st_blocks;
    printf("  size %lld blocks %s\n", (long long)st.st_size,
           b > blocks_before ? "grew" : b < blocks_before ? "shrank" : "same");
    blocks_before = b;
}

/* How many of the n bytes at off read as zeros, and the first byte. */
static void say_range(int fd, off_t off, size_t n)
{
    unsigned char buf[65536];
    ssize_t got = pread(fd, buf, n, off);
    if (got < 0) {
        say("pread", -1);
        return;
    }
    size_t zeros = 0;
    for (ssize_t i = 0; i < got; i++)
        zeros += buf[i] == 0;
    printf("  [%lld,+%zu): %zd read, %zu zeros, first %d\n", (long long)off,
           n, got, zeros, got > 0 ? buf[0] : -1);
}

static int fill(int fd, size_t n)
{
    unsigned char buf[65536];
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)('a' + i % 26);
    return pwrite(fd, buf, n, 0) == (ssize_t)n ? 0 : -1;
}

/* The kernel's answers to bad arguments and descriptors. */
static void refusals(const char *path, int fd)
{
    say("punch without keep-size", fallocate(fd, PUNCH, 0, 4096));
    say("punch|zero", fallocate(fd, PUNCH | ZERO | KEEP, 0, 4096));
    say("collapse|keep-size",
        fallocate(fd, FALLOC_FL_COLLAPSE_RANGE | KEEP, 0, 4096));
    say("unknown bit 0x100", fallocate(fd, 0x100, 0, 4096));
    say("no-hide-stale", fallocate(fd, FALLOC_FL_NO_HIDE_STALE, 0, 4096));
    say("len 0", fallocate(fd, 0, 0, 0));
    say("offset -1", fallocate(fd, 0, -1, 10));
    say("past the largest offset", fallocate(fd, 0, INT64_MAX - 10, 100));
    say("unshare (ext4 has none)",
        fallocate(fd, FALLOC_FL_UNSHARE_RANGE, 0, 4096));
    int ro = open(path, O_RDONLY);
    say("read-only fd", fallocate(ro, 0, 0, 10));
    say("read-only fd, punch", fallocate(ro, PUNCH | KEEP, 0, 10));
    say("read-only fd, bad mode", fallocate(ro, PUNCH, 0, 10));
    say("read-only fd, len 0", fallocate(ro, 0, 0, 0));
    close(ro);
    int ap = open(path, O_WRONLY | O_APPEND);
    say("O_APPEND fd, keep-size", fallocate(ap, KEEP, 0, 10));
    close(ap);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *path = argv[1];
    int fuse = argc > 2 && strcmp(argv[2], "fuse") == 0;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || fill(fd, 65536) < 0 || fsync(fd) < 0)
        return 1;
    say_size(fd);
    say("keep-size 0..1 MiB", fallocate(fd, KEEP, 0, 1 << 20));
    say_size(fd);
    say("punch 4096+8192", fallocate(fd, PUNCH | KEEP, 4096, 8192));
    say_size(fd);
    say_range(fd, 0, 4096);
    say_range(fd, 4096, 8192);
    say_range(fd, 12288, 4096);
    say("punch 100+50 (inside a block)", fallocate(fd, PUNCH | KEEP, 100, 50));
    say_range(fd, 96, 60);
    say("zero 20000+10000", fallocate(fd, ZERO, 20000, 10000));
    say_size(fd);
    say_range(fd, 19996, 10008);
    say("zero past the end, keep-size",
        fallocate(fd, ZERO | KEEP, 65536, 4096));
    say_size(fd);
    say("zero past the end", fallocate(fd, ZERO, 65536, 4096));
    say_size(fd);
    say_range(fd, 65536, 4096);
    say("mode 0 past the end", fallocate(fd, 0, 0, 100000));
    say_size(fd);
    if (!fuse) {
        say("collapse 0+4096", fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0,
                                         4096));
        say_size(fd);
        say_range(fd, 0, 4096);
        say("insert 8192+4096", fallocate(fd, FALLOC_FL_INSERT_RANGE, 8192,
                                          4096));
        say_size(fd);
        say_range(fd, 8192, 8192);
        say("collapse unaligned", fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 100,
                                            4096));
        say("insert past the end", fallocate(fd, FALLOC_FL_INSERT_RANGE,
                                             1 << 20, 4096));
    }
    refusals(path, fd);
    int err = posix_fallocate(fd, 200000, 10);
    printf("posix_fallocate 200000+10 = %s\n", err ? strerrorname_np(err) : "0");
    say_size(fd);
    close(fd);
    return 0;
}
