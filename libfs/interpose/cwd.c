/*
 * cwd.c - the current directory under LD_PRELOAD: chdir, fchdir,
 * getcwd (and its fortified __getcwd_chk) and get_current_dir_name.
 *
 * chdir into a Danaus directory sets the Danaus cwd (cwd.h), and moves the
 * kernel's current directory to the same directory where the FUSE door
 * serves it at the same path (a container's root, a service's FUSE
 * mounts): the calls the preload does not wrap (an AF_UNIX bind, inotify,
 * raw system calls, the static programs it runs) then resolve relative
 * names there too. Where the door does not serve it, the kernel's is left
 * in a directory removed at once, where a relative name finds and creates
 * nothing (ENOENT), rather than in the host directory it was in. A
 * successful chdir or fchdir anywhere else clears the Danaus cwd. While it
 * is set, getcwd reports it.
 */
#include "libfs/cwd.h"
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"
#include "libfs/sys.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FUSE_SUPER_MAGIC 0x65735546

/* Whether the kernel's current directory is the Danaus directory with
 * attributes st: the FUSE door's, reporting the backend's inode. */
static bool kernel_cwd_is(const struct stat *st)
{
    struct statfs fs;
    struct stat here;
    return sys_statfs(".", &fs) == 0 && fs.f_type == FUSE_SUPER_MAGIC &&
           sys_lstat(".", &here) == 0 && here.st_ino == st->st_ino;
}

/* Leaves the kernel's current directory in one made and removed here. */
static void kernel_cwd_nowhere(void)
{
    char dir[64];
    for (int i = 0; i < 8; i++) {
        snprintf(dir, sizeof dir, "/tmp/.danaus-nowhere-%d-%d", (int)getpid(),
                 i);
        if (sys_mkdir(dir, 0700) == 0) {
            sys_chdir(dir);
            sys_rmdir(dir);
            return;
        }
    }
}

/* After the Danaus cwd is set: the kernel's follows it (see above).
 * Keeps errno. */
static void kernel_cwd_follow(void)
{
    char cur[DANAUS_PATH_MAX];
    struct stat st;
    int saved = errno;
    if (cwd_get(cur, sizeof cur) > 0 && danaus_stat(cur, &st) == 0 &&
        (sys_chdir(cur) < 0 || !kernel_cwd_is(&st)))
        kernel_cwd_nowhere();
    errno = saved;
}

DANAUS_EXPORT int chdir(const char *path)
{
    char k[DANAUS_PATH_MAX];
    if (route_path(AT_FDCWD, path)) {
        int rc = danaus_chdir(path);
        if (rc == 0)
            kernel_cwd_follow();
        return rc;
    }
    int rc = REAL(chdir)(route_kernel_path(AT_FDCWD, path, k));
    if (rc == 0 && route_enabled())
        cwd_set(NULL);
    return rc;
}

DANAUS_EXPORT int fchdir(int fd)
{
    if (route_fd(fd)) {
        int rc = danaus_fchdir(fd);
        if (rc == 0)
            kernel_cwd_follow();
        return rc;
    }
    int rc = REAL(fchdir)(fd);
    if (rc == 0 && route_enabled())
        cwd_set(NULL);
    return rc;
}

/* Whether the Danaus cwd is set; keeps errno. */
static bool danaus_cwd_set(void)
{
    char cur[DANAUS_PATH_MAX];
    if (!route_enabled())
        return false;
    int saved = errno;
    bool set = cwd_get(cur, sizeof cur) != 0;
    errno = saved;
    return set;
}

DANAUS_EXPORT char *getcwd(char *buf, size_t size)
{
    if (!danaus_cwd_set())
        return REAL(getcwd)(buf, size);
    return danaus_getcwd(buf, size);
}

void __chk_fail(void) __attribute__((noreturn));
char *__getcwd_chk(char *buf, size_t size, size_t buflen);

/* Fortified getcwd: size may not exceed the buffer's real size, buflen. */
DANAUS_EXPORT char *__getcwd_chk(char *buf, size_t size, size_t buflen)
{
    if (!danaus_cwd_set())
        return REAL(__getcwd_chk)(buf, size, buflen);
    if (size > buflen)
        __chk_fail();
    return danaus_getcwd(buf, size);
}

DANAUS_EXPORT char *get_current_dir_name(void)
{
    if (!danaus_cwd_set())
        return REAL(get_current_dir_name)();
    return danaus_getcwd(NULL, 0);
}
