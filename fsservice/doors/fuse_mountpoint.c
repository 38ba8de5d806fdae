/*
 * fuse_mountpoint.c - stale FUSE mounts, their devices, and detaching
 * them (fuse_mountpoint.h).
 */
#include "fuse_mountpoint.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* statfs, which the kernel always asks the service: a stat may be
 * answered from attributes the kernel still caches. */
bool fuse_mountpoint_stale(const char *mp)
{
    struct statfs st;
    return statfs(mp, &st) < 0 && errno == ENOTCONN;
}

/* mountinfo's path field, its octal escapes (\040 for a space) undone in
 * place. */
static void unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
            s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
            *out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
                            (s[3] - '0'));
            s += 3;
        } else {
            *out++ = *s;
        }
    }
    *out = '\0';
}

unsigned long fuse_mountpoint_dev(const char *mp)
{
    /* mountinfo names mount points resolved: the directory mp is in is
     * resolved here, not mp itself, whose lookup would ask the mount. */
    char dir[PATH_MAX], real[PATH_MAX], want[PATH_MAX];
    const char *slash = strrchr(mp, '/');
    if (!slash || (size_t)(slash - mp) >= sizeof dir)
        return 0;
    memcpy(dir, mp, (size_t)(slash - mp));
    dir[slash - mp] = '\0';
    if (!realpath(dir[0] ? dir : "/", real) ||
        (size_t)snprintf(want, sizeof want, "%s/%s",
                         strcmp(real, "/") == 0 ? "" : real,
                         slash + 1) >= sizeof want)
        return 0;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return 0;
    char line[2 * PATH_MAX + 256], point[PATH_MAX];
    unsigned major, minor;
    unsigned long dev = 0;
    /* "ID PARENT MAJOR:MINOR ROOT POINT ...": the last line for mp is the
     * mount on top. */
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &major, &minor,
                   point) == 3) {
            unescape(point);
            if (strcmp(point, want) == 0)
                dev = (unsigned long)makedev(major, minor);
        }
    fclose(f);
    return dev;
}

int fuse_mountpoint_detach(const char *mp)
{
    if (geteuid() == 0)
        return umount2(mp, MNT_DETACH);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("fusermount3", "fusermount3", "-u", "-z", "-q", mp,
               (char *)NULL);
        _exit(127);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
