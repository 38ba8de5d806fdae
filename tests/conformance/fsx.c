/*
 * fsx.c - a long random sequence of file operations checked against a
 * model of the file kept in memory, in the manner of fsx (issue 17).
 *
 *   fsx FILE OPS SEED
 *
 * Operations: write, read, ftruncate (shorter and longer), fallocate
 * (mode 0: extend), mmap reads and MAP_SHARED mmap writes (msync'ed), and
 * an occasional close and reopen. Every read, and the whole file at the
 * end, must equal the model. Run under the preload on a Danaus mount,
 * data goes through the service and maps through the FUSE door; run
 * without it, everything goes through the FUSE door. On a mismatch it
 * prints the seed, the last operations and the first differing byte, and
 * exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SIZE (256 * 1024)
#define MAX_LEN (64 * 1024)
#define HISTORY 16

static unsigned char model[MAX_SIZE], buf[MAX_SIZE];
static off_t size;
static const char *path;
static unsigned long seed;
static char history[HISTORY][96];
static long nops;

/* Remembers operation `what` at offset a, length b (for the report). */
static void note(const char *what, long a, long b)
{
    snprintf(history[nops % HISTORY], sizeof history[0], "%s %ld+%ld", what,
             a, b);
}

static void fail(const char *what)
{
    fprintf(stderr, "fsx %s: %s (seed %lu, op %ld, size %ld)\n", path, what,
            seed, nops, (long)size);
    long first = nops >= HISTORY ? nops - HISTORY + 1 : 0;
    for (long i = first; i <= nops; i++)
        fprintf(stderr, "  op %ld: %s\n", i, history[i % HISTORY]);
    exit(1);
}

static void check_errno(int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "fsx: %s: %s\n", what, strerror(errno));
        fail("system call failed");
    }
}

static void compare(const unsigned char *got, off_t off, size_t len,
                    const char *how)
{
    for (size_t i = 0; i < len; i++)
        if (got[i] != model[off + i]) {
            fprintf(stderr, "fsx: %s: byte %ld is 0x%02x, model 0x%02x\n",
                    how, (long)(off + i), got[i], model[off + i]);
            fail("data differs from the model");
        }
}

static off_t rand_below(off_t n)
{
    return n > 0 ? (off_t)(random() % n) : 0;
}

static void op_write(int fd)
{
    off_t off = rand_below(MAX_SIZE - 1);
    size_t len = 1 + (size_t)rand_below(MAX_LEN);
    if (off + (off_t)len > MAX_SIZE)
        len = (size_t)(MAX_SIZE - off);
    note("write", off, (long)len);
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)random();
    ssize_t n = pwrite(fd, buf, len, off);
    check_errno((int)n, "pwrite");
    if ((size_t)n != len)
        fail("short write");
    memcpy(model + off, buf, len);
    if (off + (off_t)len > size)
        size = off + (off_t)len;
}

static void op_read(int fd)
{
    off_t off = rand_below(size + 1);
    size_t len = (size_t)rand_below(MAX_LEN);
    note("read", off, (long)len);
    ssize_t n = pread(fd, buf, len, off);
    check_errno((int)n, "pread");
    size_t want = off + (off_t)len > size ? (size_t)(size - off) : len;
    if ((size_t)n != want)
        fail("read returned a different count than the model's size allows");
    compare(buf, off, want, "read");
}

static void op_truncate(int fd)
{
    off_t len = rand_below(MAX_SIZE + 1);
    note("ftruncate", len, 0);
    check_errno(ftruncate(fd, len), "ftruncate");
    if (len > size)
        memset(model + size, 0, (size_t)(len - size));
    else
        memset(model + len, 0, (size_t)(size - len));
    size = len;
}

static void op_fallocate(int fd)
{
    off_t off = rand_below(MAX_SIZE - 1);
    off_t len = 1 + rand_below(MAX_SIZE - off);
    note("fallocate", off, len);
    check_errno(fallocate(fd, 0, off, len), "fallocate");
    if (off + len > size)
        size = off + len; /* the model is zero beyond size */
}

/* A map of [off, off + len) of the file, page aligned; the caller keeps
 * within size. */
static unsigned char *map(int fd, off_t off, size_t len, int prot,
                          off_t *start)
{
    long page = sysconf(_SC_PAGESIZE);
    *start = off - off % page;
    void *p = mmap(NULL, len + (size_t)(off - *start), prot, MAP_SHARED, fd,
                   *start);
    if (p == MAP_FAILED)
        check_errno(-1, "mmap");
    return p;
}

static void op_mapread(int fd)
{
    if (size == 0)
        return;
    off_t off = rand_below(size), start;
    size_t len = 1 + (size_t)rand_below(size - off < MAX_LEN ? size - off
                                                             : MAX_LEN);
    note("mapread", off, (long)len);
    unsigned char *p = map(fd, off, len, PROT_READ, &start);
    compare(p + (off - start), off, len, "mapread");
    check_errno(munmap(p, len + (size_t)(off - start)), "munmap");
}

static void op_mapwrite(int fd)
{
    off_t off = rand_below(MAX_SIZE - 1), start;
    size_t len = 1 + (size_t)rand_below(MAX_LEN);
    if (off + (off_t)len > MAX_SIZE)
        len = (size_t)(MAX_SIZE - off);
    note("mapwrite", off, (long)len);
    if (off + (off_t)len > size) { /* a map cannot extend the file */
        check_errno(ftruncate(fd, off + (off_t)len), "ftruncate for mapwrite");
        size = off + (off_t)len;
    }
    unsigned char *p = map(fd, off, len, PROT_READ | PROT_WRITE, &start);
    for (size_t i = 0; i < len; i++)
        model[off + i] = p[off - start + i] = (unsigned char)random();
    check_errno(msync(p, len + (size_t)(off - start), MS_SYNC), "msync");
    check_errno(munmap(p, len + (size_t)(off - start)), "munmap");
}

static int reopen(int fd)
{
    note("close and reopen", 0, 0);
    if (fd >= 0)
        check_errno(close(fd), "close");
    fd = open(path, O_RDWR);
    check_errno(fd, "open");
    return fd;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fsx FILE OPS SEED\n");
        return 2;
    }
    path = argv[1];
    long ops = atol(argv[2]);
    seed = strtoul(argv[3], NULL, 10);
    srandom((unsigned)seed);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    check_errno(fd, "create");
    for (nops = 0; nops < ops; nops++) {
        switch (random() % 20) {
        case 0: case 1: case 2: case 3: case 4: case 5: op_write(fd); break;
        case 6: case 7: case 8: case 9: case 10: op_read(fd); break;
        case 11: case 12: op_truncate(fd); break;
        case 13: op_fallocate(fd); break;
        case 14: case 15: op_mapread(fd); break;
        case 16: case 17: op_mapwrite(fd); break;
        default: fd = reopen(fd); break;
        }
    }
    struct stat st;
    check_errno(fstat(fd, &st), "fstat");
    if (st.st_size != size)
        fail("final size differs from the model");
    ssize_t n = pread(fd, buf, (size_t)size, 0);
    if (n != size)
        fail("final read is short");
    compare(buf, 0, (size_t)size, "final read");
    check_errno(close(fd), "close");
    printf("fsx %s: %ld operations, final size %ld, seed %lu: ok\n", path,
           ops, (long)size, seed);
    return 0;
}
