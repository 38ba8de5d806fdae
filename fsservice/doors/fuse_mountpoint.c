/*
 * fuse_mountpoint.c - stale FUSE mounts, and detaching them
 * (fuse_mountpoint.h).
 */
#include "fuse_mountpoint.h"

#include <errno.h>
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
