/*
 * dots_probe.c - "." and ".." of a union's listings name what stat names
 * (fsservice/libservice/union/dir.c): for each directory given, the d_ino
 * of its "." is stat(DIR)'s st_ino and that of its ".." is stat(DIR/..)'s.
 * Run under the preload by tests/union/compat.sh, on both backends.
 *
 *   dots_probe DIR...
 *
 * Prints one line per mismatch and a count; exit 0 when all match, 1 when
 * not, 2 on an error.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The d_ino of "." and ".." in dir's listing; -1 when it cannot be read. */
static int dots_of(const char *dir, ino_t *dot, ino_t *dotdot)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    *dot = *dotdot = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") == 0)
            *dot = e->d_ino;
        else if (strcmp(e->d_name, "..") == 0)
            *dotdot = e->d_ino;
    closedir(d);
    return 0;
}

int main(int argc, char **argv)
{
    int wrong = 0;
    for (int i = 1; i < argc; i++) {
        char up[PATH_MAX];
        struct stat self, parent;
        ino_t dot, dotdot;
        snprintf(up, sizeof up, "%s/..", argv[i]);
        if (stat(argv[i], &self) < 0 || stat(up, &parent) < 0 ||
            dots_of(argv[i], &dot, &dotdot) < 0) {
            perror(argv[i]);
            return 2;
        }
        if (dot != self.st_ino || dotdot != parent.st_ino) {
            printf("%s: . %llu (stat %llu), .. %llu (stat %llu)\n", argv[i],
                   (unsigned long long)dot, (unsigned long long)self.st_ino,
                   (unsigned long long)dotdot,
                   (unsigned long long)parent.st_ino);
            wrong++;
        }
    }
    printf("dots: %d of %d directories differ from stat\n", wrong, argc - 1);
    return wrong ? 1 : 0;
}
