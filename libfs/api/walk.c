/*
 * walk.c - danaus_ftw and danaus_nftw: file tree walks over the
 * danaus_* calls, with glibc's semantics (io/ftw.c), because glibc's own
 * walk opens and stats through its internal calls, which no interposer
 * sees.
 *
 * What the callback observes is glibc's: the order of calls, the paths
 * (the start as given, trailing slashes stripped, then "/name" appended),
 * struct FTW base and level, the typeflags (nftw's FTW_SL, FTW_SLN, FTW_DP
 * folded to FTW_F, FTW_NS, FTW_D for ftw), FTW_PHYS, FTW_MOUNT, FTW_DEPTH,
 * FTW_CHDIR (the callback runs in the directory holding the entry) and
 * FTW_ACTIONRETVAL, and without FTW_PHYS each directory visited once. One
 * difference: a directory's entries are read whole when it is reached, so
 * the walk holds one descriptor at a time whatever nopenfd allows.
 *
 * FTW_CHDIR moves the Danaus cwd (cwd.h) as fchdir would, and the kernel's
 * cwd only to reach the parent of a start on a mount point; both are put
 * back at the end.
 */
#include "libfs/cwd.h"
#include "libfs/export.h"
#include "libfs/fdtable.h"
#include "libfs/mounts.h"
#include "libfs/resolve.h"
#include "libfs/service.h"
#include "libfs/sys.h"

#include <danaus/danaus.h>
#include <danaus/wire.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NFTW_FLAGS (FTW_PHYS | FTW_MOUNT | FTW_CHDIR | FTW_DEPTH | FTW_ACTIONRETVAL)

struct walk {
    int (*nftw_fn)(const char *, const struct stat *, int, struct FTW *);
    int (*ftw_fn)(const char *, const struct stat *, int);
    int flags;
    dev_t dev;    /* of the start, for FTW_MOUNT */
    void *known;  /* tsearch tree of the directories seen (struct dev_ino) */
    char *path;   /* what the callback gets */
    size_t cap;
    struct FTW ftw;
};

struct dev_ino {
    dev_t dev;
    ino_t ino;
};

/* A directory's entries, read whole: each is its d_type byte, then its
 * name and NUL. */
struct names {
    char *buf;
    size_t len, cap;
};

static int report(struct walk *w, const struct stat *st, int flag)
{
    if (w->nftw_fn)
        return w->nftw_fn(w->path, st, flag, &w->ftw);
    /* ftw has no FTW_SL, FTW_DP or FTW_SLN: they are FTW_F, FTW_D and
     * FTW_NS there. */
    switch (flag) {
    case FTW_SL:
        flag = FTW_F;
        break;
    case FTW_DP:
        flag = FTW_D;
        break;
    case FTW_SLN:
        flag = FTW_NS;
        break;
    }
    return w->ftw_fn(w->path, st, flag);
}

static int dev_ino_cmp(const void *a, const void *b)
{
    const struct dev_ino *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static bool seen(struct walk *w, const struct stat *st)
{
    struct dev_ino key = {st->st_dev, st->st_ino};
    return tfind(&key, &w->known, dev_ino_cmp) != NULL;
}

static int remember(struct walk *w, const struct stat *st)
{
    struct dev_ino *key = malloc(sizeof *key);
    if (!key)
        return -1;
    key->dev = st->st_dev;
    key->ino = st->st_ino;
    if (!tsearch(key, &w->known, dev_ino_cmp)) {
        free(key);
        return -1;
    }
    return 0;
}

/* Room in w->path for n bytes. 0 or -1 with errno ENOMEM. */
static int reserve(struct walk *w, size_t n)
{
    if (n <= w->cap)
        return 0;
    char *grown = realloc(w->path, 2 * n);
    if (!grown)
        return -1;
    w->path = grown;
    w->cap = 2 * n;
    return 0;
}

/* The name the walk's own calls use: relative to the Danaus cwd under
 * FTW_CHDIR (which is then the entry's directory), else the whole path. */
static const char *call_name(const struct walk *w)
{
    if (!(w->flags & FTW_CHDIR))
        return w->path;
    const char *name = w->path + w->ftw.base;
    return name[0] ? name : ".";
}

static int read_names(DIR *dir, struct names *out)
{
    int saved = errno;
    errno = 0;
    struct dirent *e;
    while ((e = danaus_readdir(dir)) != NULL) {
        size_t n = strlen(e->d_name);
        if (out->len + n + 2 > out->cap) {
            size_t more = 2 * (out->len + n + 2);
            char *grown = realloc(out->buf, more);
            if (!grown)
                return -1;
            out->buf = grown;
            out->cap = more;
        }
        out->buf[out->len] = (char)e->d_type;
        memcpy(out->buf + out->len + 1, e->d_name, n + 1);
        out->len += n + 2;
    }
    if (errno)
        return -1;
    errno = saved;
    return 0;
}

static int walk_dir(struct walk *w, const struct stat *st,
                    const char *parent_abs);

/* One entry of the directory whose path ends at w->ftw.base. */
static int process_entry(struct walk *w, const char *name, int d_type,
                         const char *dir_abs)
{
    if (name[0] == '.' &&
        (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
        return 0;
    size_t n = strlen(name);
    if (reserve(w, (size_t)w->ftw.base + n + 2) < 0)
        return -1;
    memcpy(w->path + w->ftw.base, name, n + 1);

    const char *sname = call_name(w);
    struct stat st;
    int flag = FTW_F, result = 0;
    int rc = w->flags & FTW_PHYS ? danaus_lstat(sname, &st)
                                 : danaus_stat(sname, &st);
    if (rc < 0) {
        int err = errno;
        /* glibc trusts d_type DT_LNK without an lstat, and then hands the
         * callback a stat buffer it never filled; this lstat fills it with
         * the link's own attributes (which FTW_MOUNT then compares). */
        bool is_link = danaus_lstat(sname, &st) == 0 && S_ISLNK(st.st_mode);
        if (!is_link)
            memset(&st, 0, sizeof st);
        errno = err;
        if (err != EACCES && err != ENOENT)
            result = -1;
        else if (w->flags & FTW_PHYS)
            flag = FTW_NS;
        else if (d_type == DT_LNK || is_link)
            flag = FTW_SLN;
        else
            flag = FTW_NS;
    } else if (S_ISDIR(st.st_mode)) {
        flag = FTW_D;
    } else if (S_ISLNK(st.st_mode)) {
        flag = FTW_SL;
    }

    if (result == 0 && (flag == FTW_NS || !(w->flags & FTW_MOUNT) ||
                        st.st_dev == w->dev)) {
        if (flag != FTW_D)
            result = report(w, &st, flag);
        else if ((w->flags & FTW_PHYS) ||
                 (!seen(w, &st) && (result = remember(w, &st)) == 0))
            result = walk_dir(w, &st, dir_abs);
    }
    if ((w->flags & FTW_ACTIONRETVAL) && result == FTW_SKIP_SUBTREE)
        result = 0;
    return result;
}

/* The directory at w->path: reported (before or after its entries), its
 * entries walked. parent_abs is where FTW_CHDIR returns to (NULL for the
 * start). */
static int walk_dir(struct walk *w, const struct stat *st,
                    const char *parent_abs)
{
    DIR *dir = danaus_opendir(call_name(w));
    if (!dir)
        return errno == EACCES ? report(w, st, FTW_DNR) : -1;

    struct names names = {0};
    char *abs = NULL;
    int result = 0;
    if (!(w->flags & FTW_DEPTH))
        result = report(w, st, FTW_D);
    if (result == 0 && (w->flags & FTW_CHDIR)) {
        /* fchdir: the path the directory was opened with. */
        abs = malloc(DANAUS_PATH_MAX);
        if (!abs || fdtable_path(danaus_dirfd(dir), abs, DANAUS_PATH_MAX) < 0)
            result = -1;
        else
            cwd_set(abs);
    }
    if (result == 0 && read_names(dir, &names) < 0)
        result = -1;
    int saved = errno;
    danaus_closedir(dir);
    errno = saved;
    if (result != 0)
        goto out;

    int previous_base = w->ftw.base;
    size_t end = strlen(w->path);
    if (reserve(w, end + 2) < 0) {
        result = -1;
        goto out;
    }
    w->ftw.level++;
    if (w->path[end - 1] != '/')
        w->path[end++] = '/';
    w->path[end] = '\0';
    w->ftw.base = (int)end;

    for (size_t at = 0; at < names.len && result == 0;) {
        const char *name = names.buf + at + 1;
        result = process_entry(w, name, (unsigned char)names.buf[at], abs);
        at += strlen(name) + 2;
    }
    if ((w->flags & FTW_ACTIONRETVAL) && result == FTW_SKIP_SIBLINGS)
        result = 0;

    w->path[w->ftw.base - 1] = '\0';
    w->ftw.level--;
    w->ftw.base = previous_base;

    if (result == 0 && (w->flags & FTW_DEPTH))
        result = report(w, st, FTW_DP);
    if (parent_abs && (w->flags & FTW_CHDIR) &&
        (result == 0 || ((w->flags & FTW_ACTIONRETVAL) && result != -1 &&
                         result != FTW_STOP)))
        cwd_set(parent_abs);
out:
    saved = errno;
    free(names.buf);
    free(abs);
    errno = saved;
    return result;
}

/* chdir for the start's parent: a Danaus directory becomes the Danaus cwd;
 * any other goes to the kernel, clearing the Danaus cwd. *kernel_moved
 * tells the caller to put the kernel's cwd back. */
static int enter_parent(const char *dir, bool *kernel_moved)
{
    const struct mount_table *mounts = service_mounts();
    struct resolved_path *where = malloc(sizeof *where);
    if (!where)
        return -1;
    int rc;
    if (mounts && path_resolve(mounts, AT_FDCWD, dir, where) == 0) {
        struct stat st;
        rc = danaus_stat(dir, &st);
        if (rc == 0 && !S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            rc = -1;
        }
        /* The cwd is kept below PATH_MAX (cwd.h). */
        if (rc == 0 && strlen(where->abs) >= DANAUS_PATH_MAX) {
            errno = ENAMETOOLONG;
            rc = -1;
        }
        if (rc == 0)
            cwd_set(where->abs);
    } else {
        rc = (int)syscall(SYS_chdir, dir);
        if (rc == 0) {
            *kernel_moved = true;
            cwd_set(NULL);
        }
    }
    free(where);
    return rc;
}

static int walk(const char *dir, struct walk *w)
{
    if (dir[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
    size_t len = strlen(dir);
    w->cap = 2 * len > PATH_MAX ? 2 * len : PATH_MAX;
    w->path = malloc(w->cap);
    if (!w->path)
        return -1;
    memcpy(w->path, dir, len + 1);
    char *cp = w->path + len;
    while (cp > w->path + 1 && cp[-1] == '/')
        cp--;
    *cp = '\0';
    while (cp > w->path && cp[-1] != '/')
        cp--;
    w->ftw.base = (int)(cp - w->path);
    w->ftw.level = 0;
    w->known = NULL;

    /* FTW_CHDIR: remember both cwds, then move to the start's parent. */
    char *saved_cwd = NULL;
    int saved_kernel = -1, had_danaus_cwd = 0, result = 0;
    bool kernel_moved = false;
    if (w->flags & FTW_CHDIR) {
        saved_cwd = malloc(DANAUS_PATH_MAX);
        saved_kernel = sys_open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (!saved_cwd || saved_kernel < 0 ||
            (had_danaus_cwd = cwd_get(saved_cwd, DANAUS_PATH_MAX)) < 0) {
            result = -1;
            goto out;
        }
        if (w->ftw.base == 1) {
            result = enter_parent("/", &kernel_moved);
        } else if (w->ftw.base > 1) {
            char c = w->path[w->ftw.base - 1];
            w->path[w->ftw.base - 1] = '\0';
            result = enter_parent(w->path, &kernel_moved);
            w->path[w->ftw.base - 1] = c;
        }
    }

    if (result == 0) {
        const char *name = call_name(w);
        struct stat st;
        int rc = w->flags & FTW_PHYS ? danaus_lstat(name, &st)
                                     : danaus_stat(name, &st);
        if (rc < 0) {
            if (!(w->flags & FTW_PHYS) && errno == ENOENT &&
                danaus_lstat(name, &st) == 0 && S_ISLNK(st.st_mode))
                result = report(w, &st, FTW_SLN);
            else
                result = -1;
        } else if (S_ISDIR(st.st_mode)) {
            w->dev = st.st_dev;
            if (!(w->flags & FTW_PHYS))
                result = remember(w, &st);
            if (result == 0)
                result = walk_dir(w, &st, NULL);
        } else {
            result = report(w, &st, S_ISLNK(st.st_mode) ? FTW_SL : FTW_F);
        }
        if ((w->flags & FTW_ACTIONRETVAL) &&
            (result == FTW_SKIP_SUBTREE || result == FTW_SKIP_SIBLINGS))
            result = 0;
    }

out:;
    int saved = errno;
    if (w->flags & FTW_CHDIR) {
        if (kernel_moved)
            syscall(SYS_fchdir, saved_kernel);
        if (saved_kernel >= 0)
            sys_close(saved_kernel);
        cwd_set(had_danaus_cwd > 0 ? saved_cwd : NULL);
    }
    free(saved_cwd);
    tdestroy(w->known, free);
    free(w->path);
    errno = saved;
    return result;
}

DANAUS_EXPORT int danaus_nftw(const char *dirpath,
                              int (*fn)(const char *, const struct stat *,
                                        int, struct FTW *),
                              int nopenfd, int flags)
{
    (void)nopenfd; /* one descriptor at a time (see the top) */
    if (flags & ~NFTW_FLAGS) {
        errno = EINVAL;
        return -1;
    }
    struct walk w = {.nftw_fn = fn, .flags = flags};
    return walk(dirpath, &w);
}

DANAUS_EXPORT int danaus_ftw(const char *dirpath,
                             int (*fn)(const char *, const struct stat *, int),
                             int nopenfd)
{
    (void)nopenfd;
    struct walk w = {.ftw_fn = fn};
    return walk(dirpath, &w);
}
