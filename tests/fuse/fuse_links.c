/*
 * fuse_links.c - a file's hard links, each a node of its own in the FUSE
 * door (fsservice/doors/fuse_nodes.h), agree at once: after link, chmod,
 * unlink and rename through one name, the next lstat through another
 * sees the change, and a read through another name the bytes a write put
 * there, round after round (the kernel caches every name's attributes
 * and pages).
 *
 *   fuse_links DIR ROUNDS
 *
 * Prints each disagreement; exit 0 when there was none.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int wrong;

static void expect(int round, const char *what, long got, long want)
{
    if (got == want)
        return;
    printf("round %d: %s: %ld, expected %ld\n", round, what, got, want);
    wrong++;
}

/* A call the round depends on: its failure ends the run (exit 2). */
static void must(int rc, const char *what, const char *path)
{
    if (rc == 0)
        return;
    fprintf(stderr, "%s %s: ", what, path);
    perror(NULL);
    exit(2);
}

static void write_through(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0 || pwrite(fd, text, strlen(text), 0) < 0 || close(fd) < 0) {
        perror(path);
        exit(2);
    }
}

/* How many bytes of path read as "old" or "new!". */
static long read_through(const char *path)
{
    char buf[16];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf);
    close(fd);
    if (n == 3 && memcmp(buf, "old", 3) == 0)
        return 3;
    return n == 4 && memcmp(buf, "new!", 4) == 0 ? 4 : -1;
}

static void one_round(const char *dir, int round)
{
    char a[4096], b[4096], c[4096];
    struct stat st;
    snprintf(a, sizeof a, "%s/a%d", dir, round);
    snprintf(b, sizeof b, "%s/b%d", dir, round);
    snprintf(c, sizeof c, "%s/c%d", dir, round);
    int fd = open(a, O_CREAT | O_WRONLY, 0644);
    if (fd < 0 || close(fd) < 0 || lstat(a, &st) < 0 || link(a, b) < 0) {
        perror(a);
        exit(2);
    }
    must(lstat(a, &st), "lstat", a);
    expect(round, "link count of the first name after link", st.st_nlink, 2);
    must(lstat(b, &st), "lstat", b);
    must(chmod(b, 0600), "chmod", b);
    must(lstat(a, &st), "lstat", a);
    expect(round, "mode through the first name after chmod of the second",
           st.st_mode & 07777, 0600);
    must(link(a, c), "link", c);
    must(lstat(b, &st), "lstat", b);
    must(unlink(c), "unlink", c);
    must(lstat(b, &st), "lstat", b);
    expect(round, "link count of the second name after unlink of a third",
           st.st_nlink, 2);
    must(chmod(a, 0644), "chmod", a);
    struct stat moved;
    char a2[4096];
    snprintf(a2, sizeof a2, "%s/m%d", dir, round);
    must(lstat(b, &st), "lstat", b);
    must(rename(a, a2), "rename", a);
    must(lstat(b, &st), "lstat", b);
    must(lstat(a2, &moved), "lstat", a2);
    expect(round, "ctime (ns) of the second name after a rename of the first",
           st.st_ctim.tv_nsec, moved.st_ctim.tv_nsec);
    must(rename(a2, a), "rename", a2);
    write_through(a, "old");
    expect(round, "bytes read through the second name", read_through(b), 3);
    write_through(a, "new!");
    expect(round, "bytes read through the second name after a write",
           read_through(b), 4);
    must(unlink(a), "unlink", a);
    must(unlink(b), "unlink", b);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fuse_links DIR ROUNDS\n");
        return 2;
    }
    int rounds = atoi(argv[2]);
    for (int i = 0; i < rounds; i++)
        one_round(argv[1], i);
    printf("%d disagreements in %d rounds\n", wrong, rounds);
    return wrong != 0;
}
