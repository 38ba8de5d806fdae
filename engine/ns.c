/*
 * ns.c - IPC namespace handles, a container's root and its loopback
 * (ns.h).
 */
#include "ns.h"
#include "dev.h"
#include "fail.h"
#include "hostpath.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
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

#define MAX_LINKS DANAUS_MAX_SYMLINKS

/* Makes the directory a dangling symbolic link at path leads to. */
static int make_link_target(const char *path, int links);

/* mkdir -p inside the container (in its writable branch), after
 * pivot_root: a component that is a symbolic link to a missing directory
 * gets that directory made where the link leads, inside the container. */
static int make_dirs_inside(const char *path, int links)
{
    char buf[STATE_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p && *p != '/')
            continue;
        char end = *p;
        *p = '\0';
        struct stat st;
        if (mkdir(buf, 0755) < 0 &&
            (errno != EEXIST ||
             (stat(buf, &st) < 0 && make_link_target(buf, links) < 0)))
            return -1;
        if (!end)
            return 0;
        *p = end;
    }
}

static int make_link_target(const char *path, int links)
{
    char target[STATE_PATH_MAX], where[2 * STATE_PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0)
        return -1;
    if (links >= MAX_LINKS) {
        errno = ELOOP;
        return -1;
    }
    target[n] = '\0';
    if (target[0] == '/') {
        snprintf(where, sizeof where, "%s", target);
    } else {
        int dir = (int)(strrchr(path, '/') - path);
        snprintf(where, sizeof where, "%.*s/%s", dir, path, target);
    }
    return make_dirs_inside(where, links + 1);
}

/* A bind's mount point inside the container: a directory, or a file (an
 * empty one where it has none) for a file's bind. */
static int make_target(const char *path, int is_file)
{
    if (!is_file)
        return make_dirs_inside(path, 0);
    if (access(path, F_OK) == 0)
        return 0;
    char dir[STATE_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    if (dir[0] && make_dirs_inside(dir, 0) < 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* A detached copy of the bind's host tree, with the bind's flags: taken
 * while the host's root is still this process's. -1 (fail.h). */
static int take_tree(const struct ns_bind *b, int *is_dir, int userns)
{
    int src = hostpath_open(b->host);
    struct stat st;
    if (src < 0 || fstat(src, &st) < 0)
        return src < 0 ? -1 : fail_errno("cannot bind %s", b->host);
    *is_dir = S_ISDIR(st.st_mode);
    int tree = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
                                      AT_EMPTY_PATH | AT_RECURSIVE);
    close(src);
    if (tree < 0)
        return fail_errno("cannot bind %s", b->host);
    /* No setuid program or device node of the host's works through it. */
    struct mount_attr attr = {
        .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
                    (b->readonly ? MOUNT_ATTR_RDONLY : 0) |
                    (b->idmap ? MOUNT_ATTR_IDMAP : 0),
        .userns_fd = b->idmap ? (uint64_t)userns : 0};
    if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
                      sizeof attr) < 0) {
        close(tree);
        return fail_errno("cannot set the flags of %s's bind", b->host);
    }
    return tree;
}

static int place_tree(int tree, int is_dir, const struct ns_bind *b)
{
    if (make_target(b->inside, !is_dir) < 0) {
        if (b->optional && (errno == EROFS || errno == ENOENT)) {
            close(tree);
            return 0;
        }
        return fail_errno("cannot make %s inside the container", b->inside);
    }
    if (move_mount(tree, "", AT_FDCWD, b->inside,
                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_SYMLINKS) < 0)
        return fail_errno("cannot bind %s on %s", b->host, b->inside);
    return 0;
}

/* The parts of /proc that reach past the container (the kernel's tunables,
 * its memory, keys and timers) are read-only or hidden, as runc does. */
static const char *const proc_read_only[] = {
    "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"};
static const char *const masked[] = {
    "/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug",
    "/proc/latency_stats", "/proc/acpi", "/proc/scsi", "/sys/firmware"};

#define KERNEL_FS_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)

static int read_only_in_place(const char *path)
{
    if (access(path, F_OK) < 0)
        return 0;
    if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0 ||
        mount(NULL, path, NULL,
              MS_BIND | MS_REMOUNT | MS_RDONLY | KERNEL_FS_FLAGS, NULL) < 0)
        return fail_errno("cannot make %s read-only", path);
    return 0;
}

static int mask(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return 0;
    int rc = S_ISDIR(st.st_mode)
                 ? mount("tmpfs", path, "tmpfs", MS_RDONLY | KERNEL_FS_FLAGS,
                         "size=0")
                 : mount("/dev/null", path, NULL, MS_BIND, NULL);
    return rc < 0 ? fail_errno("cannot hide %s", path) : 0;
}

static int mount_kernel_fs(void)
{
    if (make_dirs("/proc", 0555) < 0 ||
        mount("proc", "/proc", "proc", KERNEL_FS_FLAGS, NULL) < 0)
        return fail_errno("cannot mount /proc in the container");
    if (make_dirs("/sys", 0555) < 0 ||
        mount("sysfs", "/sys", "sysfs", MS_RDONLY | KERNEL_FS_FLAGS, NULL) < 0)
        return fail_errno("cannot mount /sys in the container");
    for (size_t i = 0; i < sizeof proc_read_only / sizeof *proc_read_only; i++)
        if (read_only_in_place(proc_read_only[i]) < 0)
            return -1;
    for (size_t i = 0; i < sizeof masked / sizeof *masked; i++)
        if (mask(masked[i]) < 0)
            return -1;
    return 0;
}

const char *const ns_scratch_dirs[NS_SCRATCH_DIRS] = {"/tmp", "/var/tmp",
                                                      "/run"};

/* A read-only root keeps writable scratch directories, tmpfs charged to
 * the container's memory, as podman's --read-only-tmpfs does. */
static int mount_scratch(unsigned root)
{
    for (int i = 0; i < NS_SCRATCH_DIRS; i++) {
        const char *dir = ns_scratch_dirs[i];
        char options[64];
        snprintf(options, sizeof options, "mode=%s,uid=%u,gid=%u",
                 strcmp(dir, "/run") == 0 ? "755" : "1777", root, root);
        if (make_dirs_inside(dir, 0) < 0 ||
            mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0)
            return fail_errno("cannot mount a tmpfs at %s in the container",
                              dir);
    }
    return 0;
}

/* Remounts "/" nodev (and read-only), keeping its other per-mount flags
 * (a bind remount replaces them all). */
static int root_flags(int read_only)
{
    struct statvfs sv;
    if (statvfs("/", &sv) < 0)
        return -1;
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_NODEV;
    flags |= read_only || sv.f_flag & ST_RDONLY ? MS_RDONLY : 0;
    flags |= sv.f_flag & ST_NOSUID ? MS_NOSUID : 0;
    flags |= sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0;
    return mount(NULL, "/", NULL, flags, NULL);
}

/* ns_enter_root; with_kernel 0: no /dev, /proc or /sys. */
static int enter_root(const char *root, const struct ns_bind *binds,
                      int nbinds, int read_only, unsigned root_id,
                      int idmap_userns, int with_kernel)
{
    /* Nothing we mount from here on may propagate back to the host. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return fail_errno("cannot make the mounts private");
    /* What the container gets of the host is taken now; after pivot_root
     * every path is the container's, so an image's symbolic link can only
     * lead somewhere inside it. */
    int trees[nbinds + 1], is_dir[nbinds + 1], devices[DEV_COUNT];
    for (int i = 0; i < nbinds; i++)
        if ((trees[i] = take_tree(&binds[i], &is_dir[i], idmap_userns)) < 0)
            return -1;
    if (with_kernel && dev_take(devices) < 0)
        return -1;
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
    if (with_kernel && (dev_mount(devices, root_id) < 0 ||
                        mount_kernel_fs() < 0 ||
                        (read_only && mount_scratch(root_id) < 0)))
        return -1;
    for (int i = 0; i < nbinds; i++)
        if (place_tree(trees[i], is_dir[i], &binds[i]) < 0)
            return -1;
    /* Last: the mount points above are made in the root. */
    if (root_flags(read_only) < 0)
        return fail_errno("cannot set the container's root's flags");
    return 0;
}

int ns_enter_root(const char *root, const struct ns_bind *binds, int nbinds,
                  int read_only, unsigned root_id, int idmap_userns)
{
    return enter_root(root, binds, nbinds, read_only, root_id, idmap_userns,
                      1);
}

int ns_enter_root_for_copy(const char *root, const struct ns_bind *binds,
                           int nbinds, int idmap_userns)
{
    return enter_root(root, binds, nbinds, 0, 0, idmap_userns, 0);
}

int ns_network_up(void)
{
    /* The namespace belongs to the host's user namespace, where the
     * container's root holds no CAP_NET_BIND_SERVICE: its ports are all
     * its users', as docker makes them. */
    int fd = open("/proc/sys/net/ipv4/ip_unprivileged_port_start",
                  O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) {
        if (fd >= 0)
            close(fd);
        return fail_errno("cannot open the container's low ports");
    }
    close(fd);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr = {.ifr_name = "lo"};
    int rc = s < 0 ? -1 : ioctl(s, SIOCGIFFLAGS, &ifr);
    if (rc == 0) {
        ifr.ifr_flags |= IFF_UP;
        rc = ioctl(s, SIOCSIFFLAGS, &ifr);
    }
    int err = errno;
    if (s >= 0)
        close(s);
    errno = err;
    return rc < 0 ? fail_errno("cannot bring up the container's loopback")
                  : 0;
}
