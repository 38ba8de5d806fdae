/*
 * namecache_probe.c - a long-lived preloaded process that keeps its name
 * and attribute cache between questions, for name-cache.sh: it reads one
 * command a line from stdin and answers one line on stdout.
 *
 *   stat PATH | lstat PATH   size=N mode=OCTAL nlink=N mtime=S.NS, or
 *                            errno=NAME
 *   seteuid UID              ok, or errno=NAME
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void answer_stat(const char *path, int follow)
{
    struct stat st;
    if ((follow ? stat(path, &st) : lstat(path, &st)) < 0) {
        printf("errno=%s\n", strerrorname_np(errno));
        return;
    }
    printf("size=%lld mode=%o nlink=%lu mtime=%lld.%09ld\n",
           (long long)st.st_size, (unsigned)(st.st_mode & 07777),
           (unsigned long)st.st_nlink, (long long)st.st_mtim.tv_sec,
           st.st_mtim.tv_nsec);
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
            else
                printf("bad command\n");
        }
        fflush(stdout);
    }
    return 0;
}
