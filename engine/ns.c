/*
 * ns.c - IPC namespace handles and a container's root (ns.h).
 */
#include "ns.h"
#include "dev.h"
#include "fail.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

int ns_ipc_create(const char *handle)
{
    if (unshare(CLONE_NEWIPC) < 0)
        return fail_errno("cannot create an IPC namespace");
    int fd = open(handle, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail_errno("cannot create %s", handle);
    close(fd);
    if (mount("/proc/self/ns/ipc", handle, NULL, MS_BIND, NULL) < 0) {
        int err = errno;
        unlink(handle);
        errno = err;
        return fail_errno("cannot pin the IPC namespace at %s", handle);
    }
    return 0;
}

int ns_ipc_enter(const char *handle)
{
    int fd = open(handle, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail_errno("cannot open IPC namespace %s", handle);
    int rc = setns(fd, CLONE_NEWIPC);
    int err = errno;
    close(fd);
    errno = err;
    return rc < 0 ? fail_errno("cannot join IPC namespace %s", handle) : 0;
}

int ns_ipc_pinned(const char *handle)
{
    /* A pinned handle is an nsfs file: another file system than the
     * directory holding it. */
    char dir[STATE_PATH_MAX];
    struct stat h, d;
    snprintf(dir, sizeof dir, "%s", handle);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    return stat(handle, &h) == 0 && stat(dir, &d) == 0 && h.st_dev != d.st_dev;
}

void ns_ipc_release(const char *handle)
{
    umount2(handle, MNT_DETACH);
    unlink(handle);
}

/* mkdir -p for a path inside the container (in its writable branch). */
static int make_target(const char *path, int is_file)
{
    if (is_file) {
        char dir[STATE_PATH_MAX];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        if (make_dirs(dir, 0755) < 0)
            return -1;
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
        close(fd);
        return 0;
    }
    return make_dirs(path, 0755);
}

static int bind_inside(const char *root, const struct ns_bind *b)
{
    char target[STATE_PATH_MAX];
    struct stat st;
    snprintf(target, sizeof target, "%s%s", root, b->inside);
    if (stat(b->host, &st) < 0)
        return fail_errno("cannot bind %s", b->host);
    if (make_target(target, !S_ISDIR(st.st_mode)) < 0)
        return fail_errno("cannot make %s inside the container", b->inside);
    if (mount(b->host, target, NULL, MS_BIND | MS_REC, NULL) < 0)
        return fail_errno("cannot bind %s on %s", b->host, b->inside);
    if (b->readonly &&
        mount(NULL, target, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0)
        return fail_errno("cannot make %s read-only", b->inside);
    return 0;
}

/* Makes the mount at "/" read-only in this namespace, keeping its other
 * per-mount flags (a bind remount replaces them all). */
static int root_read_only(void)
{
    struct statvfs sv;
    if (statvfs("/", &sv) < 0)
        return -1;
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
    flags |= sv.f_flag & ST_NOSUID ? MS_NOSUID : 0;
    flags |= sv.f_flag & ST_NODEV ? MS_NODEV : 0;
    flags |= sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0;
    return mount(NULL, "/", NULL, flags, NULL);
}

int ns_enter_root(const char *root, const struct ns_bind *binds, int nbinds,
                  int read_only)
{
    /* Nothing we mount from here on may propagate back to the host. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return fail_errno("cannot make the mounts private");
    for (int i = 0; i < nbinds; i++)
        if (bind_inside(root, &binds[i]) < 0)
            return -1;
    if (dev_mount(root) < 0)
        return -1;
    char proc[STATE_PATH_MAX];
    snprintf(proc, sizeof proc, "%s/proc", root);
    if (make_dirs(proc, 0555) < 0 ||
        mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              NULL) < 0)
        return fail_errno("cannot mount /proc in the container");
    /* pivot_root(".", ".") stacks the old root on top of the new one; the
     * detach below then uncovers the new root (pivot_root(2), NOTES). */
    if (chdir(root) < 0)
        return fail_errno("cannot enter %s", root);
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        return fail_errno("pivot_root into %s", root);
    if (umount2(".", MNT_DETACH) < 0)
        return fail_errno("cannot detach the host's root");
    if (chdir("/") < 0)
        return fail_errno("chdir /");
    /* Last: the mount points above are made in the root. */
    if (read_only && root_read_only() < 0)
        return fail_errno("cannot make the container's root read-only");
    return 0;
}
