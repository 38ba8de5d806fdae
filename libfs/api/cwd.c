/*
 * cwd.c - danaus_chdir, danaus_fchdir, danaus_getcwd: making a Danaus
 * directory the current one (cwd.h holds it) and reporting it.
 *
 * The current directory is kept as its canonical path, as the kernel's
 * getcwd reports its own: chdir through a symbolic link lands in the
 * link's target. A directory later renamed is not followed (the path is
 * what is kept, not the directory).
 */
#include "libfs/cwd.h"
#include "libfs/export.h"
#include "libfs/fdtable.h"
#include "libfs/mounts.h"
#include "libfs/service.h"
#include "libfs/usermem.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Makes abs, a canonical path whose attributes are st, the Danaus cwd if it
 * is a directory the caller may search. */
static int enter(const char *abs, const struct stat *st)
{
    if (!S_ISDIR(st->st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    if (danaus_access(abs, X_OK) < 0)
        return -1;
    cwd_set(abs);
    return 0;
}

DANAUS_EXPORT int danaus_chdir(const char *path)
{
    char abs[PATH_MAX];
    struct stat st;
    const char *rel;
    const struct service *svc = service_get();
    if (!svc)
        return -1;
    if (!usermem_string(path, DANAUS_PATH_MAX)) {
        errno = EFAULT;
        return -1;
    }
    if (!danaus_realpath(path, abs))
        return -1;
    if (mount_table_match(&svc->mounts, abs, &rel) < 0 ||
        danaus_stat(abs, &st) < 0)
        return -1;
    return enter(abs, &st);
}

DANAUS_EXPORT int danaus_fchdir(int fd)
{
    char abs[PATH_MAX];
    struct stat st;
    if (fdtable_path(fd, abs, sizeof abs) < 0 || danaus_fstat(fd, &st) < 0)
        return -1;
    return enter(abs, &st);
}

/* As glibc's getcwd: buf NULL allocates (size bytes, or what the path
 * needs when size is 0); otherwise size 0 is EINVAL and too small ERANGE. */
DANAUS_EXPORT char *danaus_getcwd(char *buf, size_t size)
{
    char cur[PATH_MAX];
    int rc = cwd_get(cur, sizeof cur);
    if (rc <= 0) {
        if (rc == 0)
            errno = EXDEV;
        return NULL;
    }
    size_t need = strlen(cur) + 1;
    if (buf && size == 0) {
        errno = EINVAL;
        return NULL;
    }
    if (size != 0 && size < need) {
        errno = ERANGE;
        return NULL;
    }
    if (!buf) {
        buf = malloc(size ? size : need);
        if (!buf)
            return NULL;
    } else if (!usermem_range(buf, need)) {
        errno = EFAULT;
        return NULL;
    }
    return memcpy(buf, cur, need);
}
