/*
 * umask.c - reading the process's umask without changing it.
 *
 * umask(2) can only be read by setting it, and setting it even briefly
 * would let another thread's create use the wrong mask. Linux (since 4.7)
 * shows it as the "Umask:" line of /proc/self/status, which is read here
 * on every create; creates are rare next to reads and writes.
 */
#include "umask.h"
#include "sys.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static mode_t current_umask(void)
{
    char buf[4096];
    int fd = sys_open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = sys_read(fd, buf, sizeof buf - 1);
        sys_close(fd);
        if (n > 0) {
            buf[n] = '\0';
            char *line = strstr(buf, "\nUmask:");
            if (line)
                return (mode_t)strtoul(line + 7, NULL, 8) & 0777;
        }
    }
    /* No /proc: the racy way is all that is left. */
    mode_t mask = umask(022);
    umask(mask);
    return mask;
}

mode_t umask_apply(mode_t mode)
{
    return mode & ~current_umask();
}
