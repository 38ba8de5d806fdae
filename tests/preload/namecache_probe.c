/*
 * namecache_probe.c - a long-lived preloaded process that keeps its name
 * and attribute cache between questions, for name-cache.sh: it reads one
 * command a line from stdin and answers one line on stdout.
 *
 *   stat PATH | lstat PATH   size=N mode=OCTAL nlink=N mtime=S.NS, or
 *                            errno=NAME
 *   seteuid UID              ok, or errno=NAME
 *   open PATH                opens PATH read-write for the two below: ok,
 *                            or errno=NAME
 *   pread OFF                the first 8 bytes of a 4 KiB pread at OFF
 *   pwrite OFF TEXT          writes TEXT at OFF: ok, or errno=NAME
 *   openr PATH               the same, read-only
 *   fstat -                  fstat of that descriptor, as stat's answer
 *   list DIR                 readdir of DIR to its end: entries=N, or
 *                            errno=NAME
 *   walk DIR                 what find does below DIR: lists each
 *                            directory and lstats the directories it
 *                            lists, nothing else: dirs=N, or errno=NAME
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void print_stat(int rc, const struct stat *st);

static void answer_stat(const char *path, int follow)
{
    struct stat st;
    print_stat(follow ? stat(path, &st) : lstat(path, &st), &st);
}

static int fd = -1;

static void answer_list(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        printf("errno=%s\n", strerrorname_np(errno));
        return;
    }
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    printf("entries=%d\n", n);
}

/* Directories below path, each listed and lstat'ed; -1 on an error. */
static int walk(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while (n >= 0 && (e = readdir(d))) {
        if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
            strcmp(e->d_name, "..") == 0)
            continue;
        char sub[4200];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        int below = lstat(sub, &st) == 0 ? walk(sub) : -1;
        n = below < 0 ? -1 : n + 1 + below;
    }
    closedir(d);
    return n;
}

static void answer_walk(const char *path)
{
    int n = walk(path);
    if (n < 0)
        printf("errno=%s\n", strerrorname_np(errno));
    else
        printf("dirs=%d\n", n);
}

static void answer_fstat(void)
{
    struct stat st;
    print_stat(fstat(fd, &st), &st);
}

static void print_stat(int rc, const struct stat *st)
{
    if (rc < 0) {
        printf("errno=%s\n", strerrorname_np(errno));
        return;
    }
    printf("size=%lld mode=%o nlink=%lu mtime=%lld.%09ld\n",
           (long long)st->st_size, (unsigned)(st->st_mode & 07777),
           (unsigned long)st->st_nlink, (long long)st->st_mtim.tv_sec,
           st->st_mtim.tv_nsec);
}

static void answer_rw(const char *cmd, char *arg)
{
    char buf[4096];
    ssize_t n = 0;
    if (strcmp(cmd, "open") == 0 || strcmp(cmd, "openr") == 0) {
        if (fd >= 0)
            close(fd);
        fd = open(arg, cmd[4] ? O_RDONLY : O_RDWR);
        n = fd;
    } else if (strcmp(cmd, "pread") == 0) {
        n = pread(fd, buf, sizeof buf, atol(arg));
        if (n >= 0) {
            printf("%.*s\n", n < 8 ? (int)n : 8, buf);
            return;
        }
    } else {
        char *text = strchr(arg, ' ');
        n = text ? pwrite(fd, text + 1, strlen(text + 1), atol(arg)) : -1;
    }
    if (n < 0)
        printf("errno=%s\n", strerrorname_np(errno));
    else
        printf("ok\n");
}

int main(void)
{
    char line[4200];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *arg = strchr(line, ' ');
        if (!arg) {
            printf("bad command\n");
        } else {
            *arg++ = '\0';
            if (strcmp(line, "stat") == 0 || strcmp(line, "lstat") == 0)
                answer_stat(arg, line[0] == 's');
            else if (strcmp(line, "seteuid") == 0 &&
                     seteuid((uid_t)atoi(arg)) < 0)
                printf("errno=%s\n", strerrorname_np(errno));
            else if (strcmp(line, "seteuid") == 0)
                printf("ok\n");
            else if (strcmp(line, "fstat") == 0)
                answer_fstat();
            else if (strcmp(line, "list") == 0)
                answer_list(arg);
            else if (strcmp(line, "walk") == 0)
                answer_walk(arg);
            else if (strcmp(line, "open") == 0 ||
                     strcmp(line, "openr") == 0 ||
                     strcmp(line, "pread") == 0 || strcmp(line, "pwrite") == 0)
                answer_rw(line, arg);
            else
                printf("bad command\n");
        }
        fflush(stdout);
    }
    return 0;
}
