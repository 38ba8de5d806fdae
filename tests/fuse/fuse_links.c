/*
 * fuse_links.c - a file's hard links, each a node of its own in the FUSE
 * door (fsservice/doors/fuse_nodes.h), agree at once: after link, chmod
 * and unlink through one name, the next lstat through another sees the
 * change, round after round (the kernel caches every name's attributes).
 *
 *   fuse_links DIR ROUNDS
 *
 * Prints each disagreement; exit 0 when there was none.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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
    lstat(a, &st);
    expect(round, "link count of the first name after link", st.st_nlink, 2);
    lstat(b, &st);
    chmod(b, 0600);
    lstat(a, &st);
    expect(round, "mode through the first name after chmod of the second",
           st.st_mode & 07777, 0600);
    link(a, c);
    lstat(b, &st);
    unlink(c);
    lstat(b, &st);
    expect(round, "link count of the second name after unlink of a third",
           st.st_nlink, 2);
    unlink(a);
    unlink(b);
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
