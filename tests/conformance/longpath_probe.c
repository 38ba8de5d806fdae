/*
 * longpath_probe.c - calls with relative paths the kernel accepts (each
 * below PATH_MAX) from a directory so deep that the path joined to it is
 * longer than PATH_MAX, as a program that knows nothing of Danaus:
 * long-paths.sh runs it on a plain ext4 directory, under the preload and
 * through the FUSE door, and compares the transcripts (issue 38 item 2,
 * pjdfstest's NN/03 files).
 *
 *   longpath_probe DIR
 *
 * goes 3,012 bytes below DIR one directory at a time, makes a chain of
 * directories below that with relative paths of up to 3,764 bytes, and
 * prints each call's result or errno name and what the stats saw. The
 * directories may be there already (a union's lower branch holds them).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME 250      /* bytes of each directory's name */
#define DEEP_DIRS 12  /* the cwd: 12 * 251 bytes below DIR */
#define LONG_DIRS 15  /* the relative chain: 15 * 251 - 1 bytes */

static void say(const char *what, int rc)
{
    if (rc < 0)
        printf("%s = -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s = %d\n", what, rc);
}

static void say_stat(const char *what, const char *path, bool follow)
{
    struct stat st;
    int rc = follow ? stat(path, &st) : lstat(path, &st);
    say(what, rc);
    if (rc == 0)
        printf("  type %o mode %o size %lld nlink %lu\n", st.st_mode >> 12,
               st.st_mode & 07777, (long long)st.st_size,
               (unsigned long)st.st_nlink);
}

/* A name of NAME bytes of c. */
static void name_of(char *out, char c)
{
    memset(out, c, NAME);
    out[NAME] = '\0';
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: longpath_probe DIR\n");
        return 2;
    }
    if (chdir(argv[1]) < 0) {
        perror(argv[1]);
        return 2;
    }
    char name[NAME + 1];
    name_of(name, 'd');
    int deep = 0;
    for (int i = 0; i < DEEP_DIRS; i++)
        if ((mkdir(name, 0755) < 0 && errno != EEXIST) || chdir(name) < 0)
            deep = -1;
    say("mkdir and chdir 3012 bytes deep", deep);

    /* p: the chain, made one level more each time with the whole
     * relative path, the joined path growing past PATH_MAX. */
    static char p[PATH_MAX], q[PATH_MAX + NAME + 8],
        r[PATH_MAX + 2 * NAME + 16];
    name_of(name, 'c');
    size_t n = 0;
    int made = 0;
    for (int i = 0; i < LONG_DIRS; i++) {
        n += (size_t)sprintf(p + n, "%s%s", i ? "/" : "", name);
        if (made == 0 && mkdir(p, 0755) < 0 && errno != EEXIST)
            made = -1;
    }
    printf("relative chain of %zu bytes\n", n);
    say("mkdir of each level", made);
    say_stat("stat chain", p, true);

    snprintf(q, sizeof q, "%s/f", p);
    int fd = open(q, O_CREAT | O_EXCL | O_WRONLY, 0640);
    say("open O_CREAT", fd < 0 ? -1 : 0);
    if (fd >= 0) {
        say("write", (int)write(fd, "hello", 5));
        close(fd);
    }
    say("open O_CREAT|O_EXCL again",
        open(q, O_CREAT | O_EXCL | O_WRONLY, 0640) < 0 ? -1 : 0);
    say_stat("stat f", q, true);
    say("chmod f 0600", chmod(q, 0600));
    say("chown f to its owner", chown(q, getuid(), getgid()));
    say("truncate f 3", truncate(q, 3));
    say_stat("stat f", q, true);
    fd = open(q, O_RDONLY);
    say("open f O_RDONLY", fd < 0 ? -1 : 0);
    if (fd >= 0) {
        char buf[16] = "";
        say("read", (int)read(fd, buf, sizeof buf - 1));
        printf("  read \"%s\"\n", buf);
        close(fd);
    }
    snprintf(r, sizeof r, "%s/g", p);
    say("link f g", link(q, r));
    say_stat("stat g", r, true);
    snprintf(r, sizeof r, "%s/s", p);
    say("symlink s -> f", symlink("f", r));
    char target[64] = "";
    ssize_t len = readlink(r, target, sizeof target - 1);
    say("readlink s", (int)len);
    if (len >= 0)
        printf("  target \"%.*s\"\n", (int)len, target);
    say_stat("stat s", r, true);
    say_stat("lstat s", r, false);
    snprintf(q, sizeof q, "%s/g", p);
    snprintf(r, sizeof r, "%s/h", p);
    say("rename g h", rename(q, r));
    say_stat("stat g", q, true);
    say_stat("stat h", r, true);
    say("rename h to a short path", rename(r, "short"));
    say("rename it back", rename("short", r));
    say("unlink h", unlink(r));
    snprintf(r, sizeof r, "%s/s", p);
    say("unlink s", unlink(r));
    snprintf(q, sizeof q, "%s/x", p);
    say("mkdir x", mkdir(q, 0700));
    say_stat("stat x", q, true);
    say("rmdir x", rmdir(q));
    say("rmdir x again", rmdir(q));

    /* An *at call from the deep directory's descriptor, with the cwd
     * elsewhere. */
    int dirfd = open(".", O_RDONLY | O_DIRECTORY);
    say("open . O_DIRECTORY", dirfd < 0 ? -1 : 0);
    say("chdir DIR", chdir(argv[1]));
    snprintf(q, sizeof q, "%s/y", p);
    say("mkdirat deep y", mkdirat(dirfd, q, 0755));
    struct stat st;
    say("fstatat deep y", fstatat(dirfd, q, &st, 0));
    say("unlinkat deep y AT_REMOVEDIR", unlinkat(dirfd, q, AT_REMOVEDIR));
    say("fchdir deep", fchdir(dirfd));
    close(dirfd);

    /* The kernel's rule on one path argument: 4,095 bytes work, 4,096
     * (PATH_MAX with its NUL) get ENAMETOOLONG. */
    name_of(name, 'e');
    snprintf(q, sizeof q, "%s/%s", p, name);
    say("mkdir e", mkdir(q, 0755));
    size_t tail = PATH_MAX - 1 - strlen(q) - 1;
    snprintf(r, sizeof r, "%s/", q);
    memset(r + strlen(r), 'z', tail);
    r[strlen(q) + 1 + tail] = '\0';
    printf("path of %zu bytes\n", strlen(r));
    say("mkdir it", mkdir(r, 0755));
    say("rmdir it", rmdir(r));
    strcat(r, "z");
    printf("path of %zu bytes\n", strlen(r));
    say("mkdir it", mkdir(r, 0755));
    say("open O_CREAT it", open(r, O_CREAT | O_WRONLY, 0644) < 0 ? -1 : 0);
    say("stat it", stat(r, &st));
    say("rmdir e", rmdir(q));

    /* *at calls from a descriptor of the chain's end, whose path from the
     * mount's top is longer than PATH_MAX. */
    int end = open(p, O_RDONLY | O_DIRECTORY);
    say("open chain O_DIRECTORY", end < 0 ? -1 : 0);
    say("mkdirat end z", mkdirat(end, "z", 0700));
    fd = openat(end, "z/f", O_CREAT | O_EXCL | O_WRONLY, 0600);
    say("openat end z/f O_CREAT", fd < 0 ? -1 : 0);
    if (fd >= 0)
        close(fd);
    say("fstatat end z/f", fstatat(end, "z/f", &st, 0));
    say("renameat end z/f z/g", renameat(end, "z/f", end, "z/g"));
    say("fchmodat end z/g", fchmodat(end, "z/g", 0644, 0));
    say("unlinkat end z/g", unlinkat(end, "z/g", 0));
    say("unlinkat end z AT_REMOVEDIR", unlinkat(end, "z", AT_REMOVEDIR));
    if (end >= 0)
        close(end);

    /* Take the chain down again, deepest first. */
    int down = 0;
    snprintf(q, sizeof q, "%s/f", p);
    if (unlink(q) < 0)
        down = -1;
    while (n > 0) {
        if (rmdir(p) < 0)
            down = -1;
        char *slash = strrchr(p, '/');
        n = slash ? (size_t)(slash - p) : 0;
        p[n] = '\0';
    }
    say("unlink f and rmdir each level", down);
    return 0;
}
