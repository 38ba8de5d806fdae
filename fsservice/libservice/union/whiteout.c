/*
 * whiteout.c - whiteouts and opaque directories, in the OCI image
 * layer format, so an unpacked image layer serves as a read-only branch as
 * it is and a writable branch packs back into a layer:
 *   DIR/.wh.NAME       NAME is deleted: lower branches' DIR/NAME is hidden
 *   DIR/.wh..wh..opq   DIR is opaque: lower branches' DIR is not merged
 * Every name starting with ".wh." is reserved: it never shows through the
 * union and cannot be looked up or created there. Copy-up temporaries use
 * the reserved prefix too (".wh..wh.copyup.N"), so they never show either.
 *
 * Whiteouts and markers are written with the copy-up identity: the client
 * was already checked for the right to change the directory.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#define WH_PREFIX ".wh."
#define WH_PREFIX_LEN 4
#define OPAQUE_MARKER ".wh..wh..opq"

int union_is_reserved_name(const char *name)
{
    return strncmp(name, WH_PREFIX, WH_PREFIX_LEN) == 0;
}

int union_path_has_reserved(const char *path)
{
    return union_is_reserved_name(path) || strstr(path, "/" WH_PREFIX);
}

static int whiteout_path(char out[DANAUS_LONG_PATH_MAX], const char *dir,
                         const char *name)
{
    char wname[WH_PREFIX_LEN + 256];
    size_t nl = strlen(name);
    if (nl > 255 - WH_PREFIX_LEN)
        return -ENAMETOOLONG;
    memcpy(wname, WH_PREFIX, WH_PREFIX_LEN);
    memcpy(wname + WH_PREFIX_LEN, name, nl + 1);
    return union_join(out, dir, wname);
}

/* 1 if the entry exists in branch b, 0 if not, or -errno. */
static int exists(struct union_instance *u, const struct ls_cred *cred, int b,
                  const char *path)
{
    struct ls_instance *in = union_branch_inst(u, b);
    struct danaus_stat st;
    int rc = in->ops->stat(in, cred, path, AT_SYMLINK_NOFOLLOW, &st);
    if (rc == -ENOENT || rc == -ENOTDIR || rc == -ENAMETOOLONG)
        return 0;
    return rc < 0 ? rc : 1;
}

int union_whiteout_exists(struct union_instance *u, const struct ls_cred *cred,
                          int b, const char *dir, const char *name)
{
    char path[DANAUS_LONG_PATH_MAX];
    if (whiteout_path(path, dir, name) < 0)
        return 0; /* too long a name to have a whiteout */
    const char *wname = strrchr(path, '/');
    wname = wname ? wname + 1 : path;
    int listed = union_branch_has(u, cred, b, dir, wname);
    return listed >= 0 ? listed : exists(u, cred, b, path);
}

int union_is_opaque(struct union_instance *u, const struct ls_cred *cred,
                    int b, const char *dir)
{
    char path[DANAUS_LONG_PATH_MAX];
    if (union_join(path, dir, OPAQUE_MARKER) < 0)
        return 0;
    int listed = union_branch_has(u, cred, b, dir, OPAQUE_MARKER);
    return listed >= 0 ? listed : exists(u, cred, b, path);
}

/* An empty file with no permissions, as OCI layers carry them. */
/* An empty file of mode 0 at path in the top branch: made in one call
 * (mknod of a regular file), or, where something is there already,
 * opened with O_TRUNC as before, which empties an old marker and refuses
 * what is not a file. */
static int create_marker(struct union_instance *u, const char *path)
{
    struct ls_instance *top = union_branch_inst(u, 0);
    int rc = top->ops->mknod(top, &u->copyup_cred, path, S_IFREG, 0);
    if (rc != -EEXIST)
        return rc;
    struct ls_file *f;
    rc = top->ops->open(top, &u->copyup_cred, path,
                        O_WRONLY | O_CREAT | O_TRUNC, 0, &f);
    if (rc < 0)
        return rc;
    top->ops->close(f);
    return 0;
}

int union_whiteout_create(struct union_instance *u, const char *dir,
                          const char *name)
{
    char path[DANAUS_LONG_PATH_MAX];
    int rc = whiteout_path(path, dir, name);
    return rc < 0 ? rc : create_marker(u, path);
}

int union_whiteout_remove(struct union_instance *u, const char *dir,
                          const char *name)
{
    char path[DANAUS_LONG_PATH_MAX];
    if (whiteout_path(path, dir, name) < 0)
        return 0;
    struct ls_instance *top = union_branch_inst(u, 0);
    int rc = top->ops->unlink(top, &u->copyup_cred, path);
    if (rc == -ENOENT || rc == -ENOTDIR)
        return 0;
    return rc < 0 ? rc : 1;
}

int union_opaque_mark(struct union_instance *u, const char *dir)
{
    char path[DANAUS_LONG_PATH_MAX];
    int rc = union_join(path, dir, OPAQUE_MARKER);
    return rc < 0 ? rc : create_marker(u, path);
}

int union_whiteouts_clear(struct union_instance *u, const char *dir)
{
    struct ls_instance *top = union_branch_inst(u, 0);
    struct ls_file *f;
    int rc = top->ops->open(top, &u->copyup_cred, dir,
                            O_RDONLY | O_DIRECTORY, 0, &f);
    if (rc < 0)
        return rc;
    char *buf = malloc(65536);
    if (!buf) {
        top->ops->close(f);
        return -ENOMEM;
    }
    /* Removing entries while reading the directory may skip some; read it
     * again until a pass finds no marker left. */
    int removed;
    do {
        removed = 0;
        off_t pos = 0;
        ssize_t got;
        while ((got = top->ops->getdents(f, &u->copyup_cred, buf, 65536,
                                         &pos)) > 0) {
            for (ssize_t at = 0; at < got;) {
                struct danaus_dirent *d = (struct danaus_dirent *)(buf + at);
                at += d->d_reclen;
                if (!union_is_reserved_name(d->d_name))
                    continue;
                char path[DANAUS_LONG_PATH_MAX];
                rc = union_join(path, dir, d->d_name);
                if (rc == 0)
                    rc = top->ops->unlink(top, &u->copyup_cred, path);
                if (rc < 0)
                    goto out;
                removed = 1;
            }
        }
        rc = (int)got;
    } while (rc == 0 && removed);
out:
    free(buf);
    top->ops->close(f);
    return rc;
}
