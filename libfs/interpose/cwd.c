/*
 * cwd.c - the current directory under LD_PRELOAD: chdir, fchdir,
 * getcwd (and its fortified __getcwd_chk) and get_current_dir_name.
 *
 * chdir into a Danaus directory sets the Danaus cwd (cwd.h); the kernel's
 * own current directory stays where it was. A successful chdir or fchdir
 * anywhere else clears the Danaus cwd. While it is set, getcwd reports it.
 */
#include "libfs/cwd.h"
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/route.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

DANAUS_EXPORT int chdir(const char *path)
{
    char k[DANAUS_PATH_MAX];
    if (route_path(AT_FDCWD, path))
        return danaus_chdir(path);
    int rc = REAL(chdir)(route_kernel_path(AT_FDCWD, path, k));
    if (rc == 0 && route_enabled())
        cwd_set(NULL);
    return rc;
}

DANAUS_EXPORT int fchdir(int fd)
{
    if (route_fd(fd))
        return danaus_fchdir(fd);
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
