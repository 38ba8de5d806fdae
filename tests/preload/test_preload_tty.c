/*
 * test_preload_tty.c - a Danaus file is not a terminal, and says so as a
 * regular file does: isatty 0 and tcgetattr -1, both with ENOTTY. Prints a
 * transcript that must be the same on a plain directory and on a Danaus
 * mount.
 *
 *   test_preload_tty DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/not-a-tty", argv[1]);
    int fd = open(path, O_CREAT | O_RDWR, 0644);
    errno = 0;
    int r = isatty(fd);
    printf("isatty: %d %s\n", r, strerror(errno));
    struct termios t;
    errno = 0;
    r = tcgetattr(fd, &t);
    printf("tcgetattr: %d %s\n", r, strerror(errno));
    return 0;
}
