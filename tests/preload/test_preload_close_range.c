/*
 * test_preload_close_range.c - close_range and closefrom close Danaus
 * descriptors too: afterwards, kernel descriptors that reuse the numbers
 * are the kernel's. Prints a transcript that must be the same on a plain
 * directory and on a Danaus mount.
 *
 *   test_preload_close_range DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int open_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd >= 0 && write(fd, text, strlen(text)) < 0)
        perror("write");
    return fd;
}

/* Reads back what a kernel file holds through a number that was a
 * Danaus descriptor before. */
static void reuse(int expect_fd, const char *label)
{
    int k = open("/proc/self/comm", O_RDONLY);
    char buf[64] = "";
    ssize_t n = read(k, buf, sizeof buf - 1);
    printf("%s: kernel open reuses %s, read %s\n", label,
           k == expect_fd ? "the number" : "another number",
           n > 0 ? "its contents" : "nothing");
    close(k);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    int a = open_file(argv[1], "a", "aaa");
    int b = open_file(argv[1], "b", "bbb");
    int c = open_file(argv[1], "c", "ccc");
    printf("opened: %d\n", a >= 0 && b >= 0 && c >= 0);

    printf("close_range(b, b): %d\n", close_range((unsigned)b, (unsigned)b, 0));
    printf("b closed: %d\n", fcntl(b, F_GETFD) == -1);
    reuse(b, "after close_range");

    int rc = close_range((unsigned)a, (unsigned)a, CLOSE_RANGE_CLOEXEC);
    int flags = fcntl(a, F_GETFD);
    printf("close_range cloexec: %d, a open: %d, a cloexec: %d\n", rc,
           flags != -1, flags != -1 && (flags & FD_CLOEXEC) != 0);
    char buf[8] = "";
    printf("a still reads: %zd\n", pread(a, buf, 3, 0));

    closefrom(a);
    printf("a, c closed: %d %d\n", fcntl(a, F_GETFD) == -1,
           fcntl(c, F_GETFD) == -1);
    reuse(a, "after closefrom");
    return 0;
}
