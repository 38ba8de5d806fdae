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

static const char *const devices[] = {"null",   "zero",    "full",
                                      "random", "urandom", "tty"};

static const char *const links[][2] = {
    {"fd", "/proc/self/fd"},       {"stdin", "/proc/self/fd/0"},
    {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
    {"ptmx", "pts/ptmx"},
};

static int bind_device(const char *dev, const char *name)
{
    char host[64], target[STATE_PATH_MAX];
    snprintf(host, sizeof host, "/dev/%s", name);
    snprintf(target, sizeof target, "%.4000s/%s", dev, name);
    int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return fail_errno("cannot make %s", target);
    close(fd);
    if (mount(host, target, NULL, MS_BIND, NULL) < 0)
        return fail_errno("cannot bind %s in the container", host);
    return 0;
}

static int mount_in(const char *dev, const char *name, const char *type,
                    unsigned long flags, const char *options)
{
    char target[STATE_PATH_MAX];
    snprintf(target, sizeof target, "%.4000s/%s", dev, name);
    if (mkdir(target, 0755) < 0 ||
        mount(type, target, type, flags, options) < 0)
        return fail_errno("cannot mount %s at /dev/%s in the container", type,
                          name);
    return 0;
}

int dev_mount(const char *root)
{
    char dev[STATE_PATH_MAX];
    snprintf(dev, sizeof dev, "%.4000s/dev", root);
    if (make_dirs(dev, 0755) < 0 ||
        mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_STRICTATIME,
              "mode=755,size=65536k") < 0)
        return fail_errno("cannot mount /dev in the container");
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        if (bind_device(dev, devices[i]) < 0)
            return -1;
    if (mount_in(dev, "pts", "devpts", MS_NOSUID | MS_NOEXEC,
                 "newinstance,ptmxmode=0666,mode=0620,gid=5") < 0 ||
        mount_in(dev, "shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                 "mode=1777,size=65536k") < 0)
        return -1;
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        char path[STATE_PATH_MAX];
        snprintf(path, sizeof path, "%.4000s/%s", dev, links[i][0]);
        if (symlink(links[i][1], path) < 0)
            return fail_errno("cannot make /dev/%s in the container",
                              links[i][0]);
    }
    return 0;
}
