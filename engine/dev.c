/*
 * dev.c - the container's /dev (dev.h).
 */
#include "dev.h"
#include "fail.h"
#include "state.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const devices[DEV_COUNT] = {"null",   "zero",    "full",
                                               "random", "urandom", "tty"};

static const char *const links[][2] = {
    {"fd", "/proc/self/fd"},       {"stdin", "/proc/self/fd/0"},
    {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
    {"ptmx", "pts/ptmx"},
};

int dev_take(int trees[DEV_COUNT])
{
    for (int i = 0; i < DEV_COUNT; i++) {
        char host[64];
        snprintf(host, sizeof host, "/dev/%s", devices[i]);
        trees[i] = open_tree(AT_FDCWD, host, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
        if (trees[i] < 0)
            return fail_errno("cannot take %s for the container", host);
    }
    return 0;
}

static int place_device(int tree, const char *name)
{
    char target[64];
    snprintf(target, sizeof target, "/dev/%s", name);
    int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return fail_errno("cannot make %s", target);
    close(fd);
    if (move_mount(tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0)
        return fail_errno("cannot bind the host's %s in the container",
                          target);
    return 0;
}

static int mount_in(const char *name, const char *type, unsigned long flags,
                    const char *options)
{
    char target[64];
    snprintf(target, sizeof target, "/dev/%s", name);
    if (mkdir(target, 0755) < 0 ||
        mount(type, target, type, flags, options) < 0)
        return fail_errno("cannot mount %s at %s in the container", type,
                          target);
    return 0;
}

int dev_mount(const int trees[DEV_COUNT], unsigned root)
{
    /* nodev: a node made here (or planted) opens nothing; the devices
     * bound below are mounts of their own and keep the host's flags. */
    char dev_options[64], pts_options[96];
    snprintf(dev_options, sizeof dev_options,
             "mode=755,size=65536k,uid=%u,gid=%u", root, root);
    /* The tty group, 5, is the container's: root + 5 on the host. */
    snprintf(pts_options, sizeof pts_options,
             "newinstance,ptmxmode=0666,mode=0620,gid=%u", root + 5);
    if (make_dirs("/dev", 0755) < 0 ||
        mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC |
                                            MS_STRICTATIME,
              dev_options) < 0)
        return fail_errno("cannot mount /dev in the container");
    for (int i = 0; i < DEV_COUNT; i++)
        if (place_device(trees[i], devices[i]) < 0)
            return -1;
    if (mount_in("pts", "devpts", MS_NOSUID | MS_NOEXEC, pts_options) < 0 ||
        mount_in("shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                 "mode=1777,size=65536k") < 0)
        return -1;
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        char path[64];
        snprintf(path, sizeof path, "/dev/%s", links[i][0]);
        if (symlink(links[i][1], path) < 0)
            return fail_errno("cannot make %s in the container", path);
    }
    return 0;
}
