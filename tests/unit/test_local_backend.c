/*
 * test_local_backend.c - unit tests of the local-directory backend
 * (fsservice/libservice/local/local.c): containment in the instance root, errno
 * values, getdents cookies, atomic appends, per-client credentials and
 * xattrs. Runs as root (credential tests switch to uid 1000).
 *
 * Each test gets a fresh host directory T with T/root as the instance root
 * and T/secret beside it, which no path may reach.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsservice/libservice/local/local.h"

struct fixture {
    int fds_before; /* open fds before the instance: none may leak */
    char top[64];   /* T */
    char root[80];  /* T/root */
    struct ls_instance *inst;
    const struct ls_ops *ops;
};

static const struct ls_cred root_cred = {.uid = 0, .gid = 0};
static const struct ls_cred user_cred = {.uid = 1000, .gid = 1000};

static void write_host_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static int count_open_fds(void)
{
    DIR *dir = opendir("/proc/self/fd");
    int n = 0;
    while (readdir(dir))
        n++;
    closedir(dir);
    return n;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    f->fds_before = count_open_fds();
    strcpy(f->top, "/tmp/danaus-local-test-XXXXXX");
    if (!mkdtemp(f->top))
        return -1;
    snprintf(f->root, sizeof f->root, "%s/root", f->top);
    if (mkdir(f->root, 0777) < 0)
        return -1;
    char secret[128];
    snprintf(secret, sizeof secret, "%s/secret", f->top);
    write_host_file(secret, "outside", 0644);

    char err[256];
    f->inst = local_instance_new(f->root, err, sizeof err);
    if (!f->inst) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    f->ops = f->inst->ops;
    *state = f;
    return 0;
}

/* The instance as a plain mount at /mnt/x sees it: links under the mount
 * point lead back into it. */
#define MOUNT_POINT "/mnt/x"

static int setup_mounted(void **state)
{
    int rc = setup(state);
    if (rc == 0)
        ((struct fixture *)*state)->inst->link_prefix = MOUNT_POINT;
    return rc;
}

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw)
{
    return remove(path);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    /* The backend switches the calling thread's identity (cred.c): a
     * test's last call as another user leaves this thread unable to
     * remove root's files, so one call as root first. */
    struct danaus_stat st;
    f->ops->stat(f->inst, &root_cred, "", 0, &st);
    f->ops->destroy(f->inst);
    nftw(f->top, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    int leaked = count_open_fds() - f->fds_before;
    free(f);
    if (leaked != 0)
        fprintf(stderr, "%d file descriptors leaked\n", leaked);
    return leaked == 0 ? 0 : -1;
}

/* Read a whole (small) file of the instance as cred; -errno on failure. */
static int read_file(struct fixture *f, const struct ls_cred *cred,
                     const char *path, char *buf, size_t size)
{
    struct ls_file *file;
    int rc = f->ops->open(f->inst, cred, path, O_RDONLY, 0, &file);
    if (rc < 0)
        return rc;
    ssize_t n = f->ops->pread(file, cred, buf, size - 1, 0);
    f->ops->close(file);
    if (n < 0)
        return (int)n;
    buf[n] = '\0';
    return 0;
}

static void create_file(struct fixture *f, const struct ls_cred *cred,
                        const char *path, const char *text, mode_t mode)
{
    struct ls_file *file;
    assert_int_equal(f->ops->open(f->inst, cred, path,
                                  O_WRONLY | O_CREAT | O_TRUNC, mode, &file),
                     0);
    off_t end = -1;
    assert_int_equal(f->ops->pwrite(file, cred, text, strlen(text), 0, &end),
                     (ssize_t)strlen(text));
    assert_int_equal(end, (off_t)strlen(text));
    f->ops->close(file);
}

static int open_errno(struct fixture *f, const char *path, int flags)
{
    struct ls_file *file;
    int rc = f->ops->open(f->inst, &root_cred, path, flags, 0644, &file);
    if (rc == 0)
        f->ops->close(file);
    return rc;
}

/* ---- containment ---- */

static void test_dotdot_stays_at_root(void **state)
{
    struct fixture *f = *state;
    create_file(f, &root_cred, "inner", "inside", 0644);
    assert_int_equal(open_errno(f, "../secret", O_RDONLY), -ENOENT);
    assert_int_equal(open_errno(f, "../../../secret", O_RDONLY), -ENOENT);

    char buf[64];
    assert_int_equal(read_file(f, &root_cred, "../../inner", buf, sizeof buf),
                     0);
    assert_string_equal(buf, "inside");

    struct danaus_stat top, up;
    assert_int_equal(f->ops->stat(f->inst, &root_cred, "", 0, &top), 0);
    assert_int_equal(f->ops->stat(f->inst, &root_cred, "..", 0, &up), 0);
    assert_int_equal(top.ino, up.ino);
}

static void test_symlinks_resolve_inside_root(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    char host_secret[128];
    snprintf(host_secret, sizeof host_secret, "%s/secret", f->top);
    create_file(f, &root_cred, "inner", "inside", 0644);
    assert_int_equal(ops->symlink(f->inst, &root_cred, host_secret, "abs"), 0);
    assert_int_equal(ops->symlink(f->inst, &root_cred, f->top, "absdir"), 0);
    assert_int_equal(ops->symlink(f->inst, &root_cred, "../../secret", "rel"),
                     0);
    assert_int_equal(ops->symlink(f->inst, &root_cred, "/inner", "rootabs"),
                     0);
    assert_int_equal(ops->symlink(f->inst, &root_cred, "/", "slash"), 0);
    assert_int_equal(ops->symlink(f->inst, &root_cred, "..", "up"), 0);

    assert_int_equal(open_errno(f, "abs", O_RDONLY), -ENOENT);
    assert_int_equal(open_errno(f, "rel", O_RDONLY), -ENOENT);
    assert_int_equal(open_errno(f, "absdir/secret", O_RDONLY), -ENOENT);
    assert_int_equal(open_errno(f, "slash/../secret", O_RDONLY), -ENOENT);
    assert_int_equal(open_errno(f, "up/secret", O_RDONLY), -ENOENT);
    /* access follows a name inside the root too, or checks the link. */
    assert_int_equal(ops->access(f->inst, &root_cred, "abs", F_OK, 0),
                     -ENOENT);
    assert_int_equal(ops->access(f->inst, &root_cred, "rel", F_OK, 0),
                     -ENOENT);
    assert_int_equal(ops->access(f->inst, &root_cred, "abs", F_OK,
                                 AT_SYMLINK_NOFOLLOW),
                     0);
    assert_int_equal(ops->access(f->inst, &root_cred, "rootabs", R_OK, 0), 0);

    char buf[64];
    assert_int_equal(read_file(f, &root_cred, "rootabs", buf, sizeof buf), 0);
    assert_string_equal(buf, "inside");
    assert_int_equal(read_file(f, &root_cred, "up/up/inner", buf, sizeof buf),
                     0);
    assert_string_equal(buf, "inside");

    /* Name operations through symlinked parents stay inside too. */
    assert_int_equal(ops->unlink(f->inst, &root_cred, "absdir/secret"),
                     -ENOENT);
    assert_int_equal(ops->mkdir(f->inst, &root_cred, "up/made", 0755), 0);
    assert_int_equal(ops->rename(f->inst, &root_cred, "inner", "up/up/moved",
                                 0),
                     0);
    struct stat st;
    char host[160];
    snprintf(host, sizeof host, "%s/made", f->root);
    assert_int_equal(stat(host, &st), 0);
    snprintf(host, sizeof host, "%s/moved", f->root);
    assert_int_equal(stat(host, &st), 0);
    snprintf(host, sizeof host, "%s/made", f->top);
    assert_int_equal(stat(host, &st), -1);
    assert_int_equal(stat(host_secret, &st), 0);

    /* Creating through a dangling absolute symlink creates inside. */
    assert_int_equal(ops->symlink(f->inst, &root_cred, "/created", "dangle"),
                     0);
    create_file(f, &root_cred, "dangle", "x", 0644);
    snprintf(host, sizeof host, "%s/created", f->root);
    assert_int_equal(stat(host, &st), 0);
}

static void test_symlink_loops(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    assert_int_equal(ops->symlink(f->inst, &root_cred, "loop", "loop"), 0);
    assert_int_equal(ops->symlink(f->inst, &root_cred, "b", "a"), 0);
    assert_int_equal(ops->symlink(f->inst, &root_cred, "a", "b"), 0);
    assert_int_equal(open_errno(f, "loop", O_RDONLY), -ELOOP);
    assert_int_equal(open_errno(f, "a", O_RDONLY), -ELOOP);
    assert_int_equal(ops->mkdir(f->inst, &root_cred, "a/x", 0755), -ELOOP);
    struct danaus_stat st;
    assert_int_equal(ops->stat(f->inst, &root_cred, "loop", 0, &st), -ELOOP);
    assert_int_equal(
        ops->stat(f->inst, &root_cred, "loop", AT_SYMLINK_NOFOLLOW, &st), 0);
    assert_true((st.mode & S_IFMT) == S_IFLNK);
    assert_int_equal(open_errno(f, "loop", O_RDONLY | O_NOFOLLOW), -ELOOP);
}

static void test_links_under_mount_point(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    struct ls_instance *in = f->inst;
    create_file(f, &root_cred, "inner", "inside", 0644);
    assert_int_equal(ops->mkdir(in, &root_cred, "d", 0755), 0);
    create_file(f, &root_cred, "d/f", "in d", 0644);
    assert_int_equal(ops->symlink(in, &root_cred, MOUNT_POINT "/inner", "mp"),
                     0);
    assert_int_equal(ops->symlink(in, &root_cred, MOUNT_POINT, "top"), 0);
    assert_int_equal(ops->symlink(in, &root_cred, MOUNT_POINT "//d/", "dl"),
                     0);
    assert_int_equal(ops->symlink(in, &root_cred, MOUNT_POINT "/dl", "dll"),
                     0);
    assert_int_equal(
        ops->symlink(in, &root_cred, MOUNT_POINT "y/inner", "beside"), 0);
    assert_int_equal(
        ops->symlink(in, &root_cred, MOUNT_POINT "/../../secret", "escape"),
        0);

    char buf[64];
    assert_int_equal(read_file(f, &root_cred, "mp", buf, sizeof buf), 0);
    assert_string_equal(buf, "inside");
    assert_int_equal(read_file(f, &root_cred, "top/top/inner", buf,
                               sizeof buf),
                     0);
    assert_string_equal(buf, "inside");
    assert_int_equal(read_file(f, &root_cred, "dll/f", buf, sizeof buf), 0);
    assert_string_equal(buf, "in d");
    /* Elsewhere than under the mount point, still inside the root. */
    assert_int_equal(open_errno(f, "beside", O_RDONLY), -ENOENT);
    assert_int_equal(open_errno(f, "escape", O_RDONLY), -ENOENT);

    /* The last component: followed or not as asked, and a trailing slash
     * follows it. */
    struct danaus_stat st;
    assert_int_equal(ops->stat(in, &root_cred, "dll", AT_SYMLINK_NOFOLLOW,
                               &st),
                     0);
    assert_true((st.mode & S_IFMT) == S_IFLNK);
    assert_int_equal(ops->stat(in, &root_cred, "dll/", AT_SYMLINK_NOFOLLOW,
                               &st),
                     0);
    assert_true((st.mode & S_IFMT) == S_IFDIR);
    assert_int_equal(ops->stat(in, &root_cred, "mp/", 0, &st), -ENOTDIR);
    assert_int_equal(open_errno(f, "mp", O_RDONLY | O_NOFOLLOW), -ELOOP);

    /* Names made and removed through linked parents land in the root. */
    assert_int_equal(ops->mkdir(in, &root_cred, "dll/sub", 0755), 0);
    assert_int_equal(ops->unlink(in, &root_cred, "top/d/f"), 0);
    assert_int_equal(ops->symlink(in, &root_cred, MOUNT_POINT "/made",
                                  "dangle"),
                     0);
    create_file(f, &root_cred, "dangle", "x", 0644);
    struct stat host_st;
    char host[160];
    snprintf(host, sizeof host, "%s/d/sub", f->root);
    assert_int_equal(stat(host, &host_st), 0);
    snprintf(host, sizeof host, "%s/d/f", f->root);
    assert_int_equal(stat(host, &host_st), -1);
    snprintf(host, sizeof host, "%s/made", f->root);
    assert_int_equal(stat(host, &host_st), 0);

    assert_int_equal(ops->symlink(in, &root_cred, MOUNT_POINT "/l2", "l1"),
                     0);
    assert_int_equal(ops->symlink(in, &root_cred, MOUNT_POINT "/l1", "l2"),
                     0);
    assert_int_equal(open_errno(f, "l1", O_RDONLY), -ELOOP);
}

/* ---- errno values ---- */

static void test_errno_values(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    const struct ls_cred *c = &root_cred;
    create_file(f, c, "file", "data", 0644);
    assert_int_equal(ops->mkdir(f->inst, c, "dir", 0755), 0);
    create_file(f, c, "dir/inside", "x", 0644);

    assert_int_equal(open_errno(f, "missing", O_RDONLY), -ENOENT);
    assert_int_equal(open_errno(f, "file", O_CREAT | O_EXCL | O_WRONLY),
                     -EEXIST);
    assert_int_equal(open_errno(f, "dir", O_WRONLY), -EISDIR);
    assert_int_equal(open_errno(f, "file/x", O_RDONLY), -ENOTDIR);
    assert_int_equal(open_errno(f, "file", O_RDONLY | O_DIRECTORY), -ENOTDIR);
    /* O_PATH opens as Linux's does: even without read permission. */
    assert_int_equal(open_errno(f, "file", O_PATH), 0);
    assert_int_equal(open_errno(f, "missing", O_PATH), -ENOENT);

    assert_int_equal(ops->mkdir(f->inst, c, "dir", 0755), -EEXIST);
    assert_int_equal(ops->mkdir(f->inst, c, "", 0755), -EEXIST);
    assert_int_equal(ops->mkdir(f->inst, c, "dir/..", 0755), -EEXIST);
    assert_int_equal(ops->mkdir(f->inst, c, "no/such", 0755), -ENOENT);
    assert_int_equal(ops->rmdir(f->inst, c, "dir"), -ENOTEMPTY);
    assert_int_equal(ops->rmdir(f->inst, c, "file"), -ENOTDIR);
    assert_int_equal(ops->rmdir(f->inst, c, "dir/."), -EINVAL);
    assert_int_equal(ops->rmdir(f->inst, c, "dir/.."), -ENOTEMPTY);
    assert_int_equal(ops->rmdir(f->inst, c, ""), -EBUSY);
    assert_int_equal(ops->rmdir(f->inst, c, "missing/."), -ENOENT);
    assert_int_equal(ops->unlink(f->inst, c, "dir"), -EISDIR);
    assert_int_equal(ops->unlink(f->inst, c, ""), -EISDIR);
    assert_int_equal(ops->unlink(f->inst, c, "missing"), -ENOENT);
    assert_int_equal(ops->unlink(f->inst, c, "file/"), -ENOTDIR);
    assert_int_equal(ops->rename(f->inst, c, "", "x", 0), -EBUSY);
    assert_int_equal(ops->rename(f->inst, c, "dir/.", "x", 0), -EBUSY);
    assert_int_equal(ops->rename(f->inst, c, "file", "dir/.", 0), -EBUSY);
    assert_int_equal(ops->rename(f->inst, c, "file", "dir/inside",
                                 RENAME_NOREPLACE),
                     -EEXIST);
    assert_int_equal(ops->rename(f->inst, c, "file", "dir", 0), -EISDIR);
    assert_int_equal(ops->link(f->inst, c, "dir", "dirlink"), -EPERM);
    assert_int_equal(ops->link(f->inst, c, "dir/.", "dirlink"), -EPERM);
    assert_int_equal(ops->link(f->inst, c, "file", "dir/inside"), -EEXIST);
    assert_int_equal(ops->symlink(f->inst, c, "t", ""), -EEXIST);
    assert_int_equal(ops->symlink(f->inst, c, "t", "file"), -EEXIST);

    char buf[16];
    assert_int_equal(ops->readlink(f->inst, c, "file", buf, sizeof buf),
                     -EINVAL);
    assert_int_equal(ops->readlink(f->inst, c, "", buf, sizeof buf), -EINVAL);
    assert_int_equal(ops->readlink(f->inst, c, "missing", buf, sizeof buf),
                     -ENOENT);
    assert_int_equal(ops->truncate(f->inst, c, "dir", 0), -EISDIR);
    struct danaus_stat st;
    assert_int_equal(ops->stat(f->inst, c, "file", AT_REMOVEDIR, &st),
                     -EINVAL);
    assert_int_equal(ops->chmod(f->inst, c, "file", 0600, AT_EACCESS),
                     -EINVAL);
    assert_int_equal(ops->access(f->inst, c, "missing", F_OK, 0), -ENOENT);
    assert_int_equal(ops->access(f->inst, c, "file", X_OK, 0), -EACCES);

    assert_int_equal(ops->symlink(f->inst, c, "file", "sl"), 0);
    assert_int_equal(ops->chmod(f->inst, c, "sl", 0600, AT_SYMLINK_NOFOLLOW),
                     -EOPNOTSUPP);
    ssize_t n = ops->readlink(f->inst, c, "sl", buf, sizeof buf);
    assert_int_equal(n, 4);
    assert_memory_equal(buf, "file", 4);
}

static void test_stat_times_and_statfs(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    create_file(f, &root_cred, "file", "12345", 0640);
    const struct timespec ts[2] = {{1000, 111}, {2000, 222333}};
    assert_int_equal(ops->utimens(f->inst, &root_cred, "file", ts, 0), 0);
    struct danaus_stat st;
    assert_int_equal(ops->stat(f->inst, &root_cred, "file", 0, &st), 0);
    assert_int_equal(st.size, 5);
    assert_int_equal(st.mode, S_IFREG | 0640);
    assert_int_equal(st.atime_sec, 1000);
    assert_int_equal(st.atime_nsec, 111);
    assert_int_equal(st.mtime_sec, 2000);
    assert_int_equal(st.mtime_nsec, 222333);
    assert_int_equal(st.nlink, 1);

    struct stat host;
    char path[160];
    snprintf(path, sizeof path, "%s/file", f->root);
    assert_int_equal(stat(path, &host), 0);
    assert_int_equal(st.ino, host.st_ino);
    assert_int_equal(st.dev, host.st_dev);

    struct danaus_statfs sf;
    struct statfs hostfs;
    assert_int_equal(statfs(f->root, &hostfs), 0);
    assert_int_equal(ops->statfs(f->inst, &root_cred, "", &sf), 0);
    assert_int_equal(sf.type, (uint64_t)hostfs.f_type);
    assert_int_equal(sf.namelen, (uint64_t)hostfs.f_namelen);
    assert_int_equal(sf.bsize, (uint64_t)hostfs.f_bsize);
}

/* ---- getdents ---- */

#define DIR_FILES 60

/* Read the directory from *pos with an n-byte buffer until the end, marking
 * each name seen in seen[] (index from "fNN"); returns the calls made. */
static int read_dir(struct fixture *f, struct ls_file *dir, size_t n,
                    off_t *pos, int seen[DIR_FILES], int *dots, int max_calls)
{
    char buf[4096];
    int calls = 0;
    while (calls < max_calls) {
        ssize_t got = f->ops->getdents(dir, &root_cred, buf, n, pos);
        assert_true(got >= 0);
        if (got == 0)
            break;
        calls++;
        for (ssize_t at = 0; at < got;) {
            struct danaus_dirent *d = (struct danaus_dirent *)(buf + at);
            assert_true(d->d_reclen > 0 && at + d->d_reclen <= got);
            if (d->d_name[0] == 'f') {
                seen[atoi(d->d_name + 1)]++;
                assert_int_equal(d->d_type, DT_REG);
            } else {
                (*dots)++;
            }
            at += d->d_reclen;
        }
    }
    return calls;
}

static void test_getdents_lists_and_resumes(void **state)
{
    struct fixture *f = *state;
    char name[16];
    for (int i = 0; i < DIR_FILES; i++) {
        snprintf(name, sizeof name, "f%02d", i);
        create_file(f, &root_cred, name, "", 0644);
    }

    struct ls_file *dir;
    assert_int_equal(
        f->ops->open(f->inst, &root_cred, "", O_RDONLY | O_DIRECTORY, 0, &dir),
        0);
    assert_true(dir->is_dir);

    /* A small buffer forces many calls: every entry exactly once. */
    int seen[DIR_FILES] = {0}, dots = 0;
    off_t pos = 0;
    int calls = read_dir(f, dir, 128, &pos, seen, &dots, 1000);
    assert_true(calls > 5);
    for (int i = 0; i < DIR_FILES; i++)
        assert_int_equal(seen[i], 1);
    assert_int_equal(dots, 2);

    /* Cookie 0 starts over; a cookie from one call resumes after it, even
     * on another open of the directory. */
    int first[DIR_FILES] = {0}, rest[DIR_FILES] = {0};
    dots = 0;
    pos = 0;
    assert_int_equal(read_dir(f, dir, 256, &pos, first, &dots, 1), 1);
    assert_true(pos != 0);
    struct ls_file *again;
    assert_int_equal(f->ops->open(f->inst, &root_cred, "", O_RDONLY, 0, &again),
                     0);
    read_dir(f, again, 256, &pos, rest, &dots, 1000);
    for (int i = 0; i < DIR_FILES; i++)
        assert_int_equal(first[i] + rest[i], 1);
    assert_int_equal(dots, 2);

    /* Too small for one record: EINVAL, never half a record. */
    char tiny[8];
    pos = 0;
    assert_int_equal(f->ops->getdents(dir, &root_cred, tiny, sizeof tiny, &pos),
                     -EINVAL);
    f->ops->close(again);
    f->ops->close(dir);
}

/* ---- appends ---- */

static void test_append_from_two_open_files(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    struct ls_file *a, *b;
    assert_int_equal(ops->open(f->inst, &root_cred, "log",
                               O_WRONLY | O_CREAT | O_APPEND, 0644, &a),
                     0);
    /* b is not O_APPEND: off < 0 must append all the same. */
    assert_int_equal(ops->open(f->inst, &root_cred, "log", O_WRONLY, 0, &b),
                     0);
    off_t end = 0;
    assert_int_equal(ops->pwrite(a, &root_cred, "aaaa", 4, -1, &end), 4);
    assert_int_equal(end, 4);
    assert_int_equal(ops->pwrite(b, &root_cred, "bbbbbb", 6, -1, &end), 6);
    assert_int_equal(end, 10);
    assert_int_equal(ops->pwrite(a, &root_cred, "cc", 2, -1, &end), 2);
    assert_int_equal(end, 12);
    ops->close(a);
    ops->close(b);

    char buf[64];
    assert_int_equal(read_file(f, &root_cred, "log", buf, sizeof buf), 0);
    assert_string_equal(buf, "aaaabbbbbbcc");
}

/* ---- credentials ---- */

static void test_create_as_client_owns_file(void **state)
{
    struct fixture *f = *state;
    create_file(f, &user_cred, "mine", "x", 0600);
    assert_int_equal(f->ops->mkdir(f->inst, &user_cred, "mydir", 0700), 0);
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->inst, &root_cred, "mine", 0, &st), 0);
    assert_int_equal(st.uid, 1000);
    assert_int_equal(st.gid, 1000);
    assert_int_equal(f->ops->stat(f->inst, &root_cred, "mydir", 0, &st), 0);
    assert_int_equal(st.uid, 1000);
}

static void test_permissions_enforced_per_client(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    create_file(f, &root_cred, "private", "root only", 0600);
    assert_int_equal(ops->mkdir(f->inst, &root_cred, "closed", 0755), 0);

    char buf[64];
    assert_int_equal(read_file(f, &user_cred, "private", buf, sizeof buf),
                     -EACCES);
    assert_int_equal(ops->access(f->inst, &user_cred, "private", R_OK, 0),
                     -EACCES);
    /* Through a link, the file decides; without following, the link. */
    assert_int_equal(ops->symlink(f->inst, &root_cred, "private", "toprivate"),
                     0);
    assert_int_equal(ops->access(f->inst, &user_cred, "toprivate", R_OK, 0),
                     -EACCES);
    assert_int_equal(ops->access(f->inst, &user_cred, "toprivate", R_OK,
                                 AT_SYMLINK_NOFOLLOW | AT_EACCESS),
                     0);
    assert_int_equal(ops->mkdir(f->inst, &user_cred, "closed/sub", 0755),
                     -EACCES);
    assert_int_equal(ops->chown(f->inst, &user_cred, "private", 1000, 1000, 0),
                     -EPERM);
    assert_int_equal(ops->truncate(f->inst, &user_cred, "private", 0),
                     -EACCES);
    /* Root bypasses, right after the non-root client on the same thread. */
    assert_int_equal(read_file(f, &root_cred, "private", buf, sizeof buf), 0);
    assert_string_equal(buf, "root only");
    assert_int_equal(ops->mkdir(f->inst, &root_cred, "closed/sub", 0755), 0);

    /* Supplementary groups count. */
    create_file(f, &root_cred, "group", "g", 0060);
    assert_int_equal(ops->chown(f->inst, &root_cred, "group", 0, 2000, 0), 0);
    struct ls_cred member = {.uid = 1000, .gid = 1000, .ngroups = 1};
    member.groups[0] = 2000;
    assert_int_equal(read_file(f, &member, "group", buf, sizeof buf), 0);
    assert_int_equal(read_file(f, &user_cred, "group", buf, sizeof buf),
                     -EACCES);

    /* Capabilities beyond the file-system ones are dropped too. */
    create_file(f, &user_cred, "own", "x", 0644);
    assert_int_equal(ops->setxattr(f->inst, &user_cred, "own", "trusted.t",
                                   "v", 1, 0, 0),
                     -EPERM);
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "own", "trusted.t",
                                   "v", 1, 0, 0),
                     0);
}

struct thread_probe {
    struct fixture *f;
    int rc;
    int fsuid;
};

static void *act_as_user(void *arg)
{
    struct thread_probe *p = arg;
    struct danaus_stat st;
    p->rc = p->f->ops->stat(p->f->inst, &user_cred, "", 0, &st);
    /* setfsuid(-1) fails and returns the current fsuid. */
    p->fsuid = (int)syscall(SYS_setfsuid, -1);
    return NULL;
}

static void test_cred_switch_is_per_thread(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->inst, &root_cred, "", 0, &st), 0);
    struct thread_probe probe = {.f = f};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, act_as_user, &probe), 0);
    pthread_join(t, NULL);
    assert_int_equal(probe.rc, 0);
    assert_int_equal(probe.fsuid, 1000);
    assert_int_equal((int)syscall(SYS_setfsuid, -1), 0);
}

/* ---- xattrs ---- */

static void test_user_xattr_round_trip(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    create_file(f, &user_cred, "tagged", "x", 0644);
    assert_int_equal(ops->symlink(f->inst, &user_cred, "tagged", "sl"), 0);

    assert_int_equal(ops->setxattr(f->inst, &user_cred, "sl", "user.color",
                                   "blue", 4, 0, 0),
                     0);
    assert_int_equal(ops->setxattr(f->inst, &user_cred, "tagged",
                                   "user.color", "red", 3, XATTR_CREATE, 0),
                     -EEXIST);
    char value[32];
    assert_int_equal(ops->getxattr(f->inst, &user_cred, "tagged", "user.color",
                                   value, sizeof value, 0),
                     4);
    assert_memory_equal(value, "blue", 4);
    assert_int_equal(ops->getxattr(f->inst, &user_cred, "sl", "user.color",
                                   value, sizeof value, AT_SYMLINK_NOFOLLOW),
                     -ENODATA);
    assert_int_equal(ops->getxattr(f->inst, &user_cred, "tagged", "user.color",
                                   NULL, 0, 0),
                     4);

    char list[128];
    ssize_t n = ops->listxattr(f->inst, &user_cred, "tagged", list,
                               sizeof list, 0);
    assert_int_equal(n, (ssize_t)sizeof "user.color");
    assert_string_equal(list, "user.color");

    struct ls_file *file;
    assert_int_equal(ops->open(f->inst, &user_cred, "tagged", O_RDONLY, 0,
                               &file),
                     0);
    assert_int_equal(ops->fgetxattr(file, &user_cred, "user.color", value,
                                    sizeof value),
                     4);
    assert_int_equal(ops->fsetxattr(file, &user_cred, "user.size", "L", 1, 0),
                     0);
    assert_int_equal(ops->fremovexattr(file, &user_cred, "user.color"), 0);
    assert_int_equal(ops->flistxattr(file, &user_cred, list, sizeof list),
                     (ssize_t)sizeof "user.size");
    ops->close(file);

    assert_int_equal(ops->removexattr(f->inst, &user_cred, "tagged",
                                      "user.size", 0),
                     0);
    assert_int_equal(ops->getxattr(f->inst, &user_cred, "tagged", "user.size",
                                   value, sizeof value, 0),
                     -ENODATA);
}

/* A name's xattrs by path: a link is followed inside the root (or read
 * itself), and what the kernel answers comes back as it does. */
static void test_xattrs_by_name(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    create_file(f, &root_cred, "file", "x", 0644);
    assert_int_equal(ops->symlink(f->inst, &root_cred, "file", "sl"), 0);
    char host[PATH_MAX + 32], host_out[PATH_MAX + 32];
    snprintf(host, sizeof host, "%s/file", f->root);
    assert_int_equal(setxattr(host, "trusted.t", "file's", 6, 0), 0);
    snprintf(host, sizeof host, "%s/sl", f->root);
    assert_int_equal(lsetxattr(host, "trusted.t", "link's", 6, 0), 0);
    /* Outside the root, a file of that name with an xattr of its own. */
    snprintf(host_out, sizeof host_out, "%s/outside", f->top);
    int fd = open(host_out, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(setxattr(host_out, "trusted.t", "host's", 6, 0), 0);
    assert_int_equal(ops->symlink(f->inst, &root_cred, host_out, "abs"), 0);

    char v[32];
    assert_int_equal(ops->getxattr(f->inst, &root_cred, "sl", "trusted.t", v,
                                   sizeof v, 0),
                     6);
    assert_memory_equal(v, "file's", 6);
    assert_int_equal(ops->getxattr(f->inst, &root_cred, "sl", "trusted.t", v,
                                   sizeof v, AT_SYMLINK_NOFOLLOW),
                     6);
    assert_memory_equal(v, "link's", 6);
    assert_int_equal(ops->getxattr(f->inst, &root_cred, "abs", "trusted.t", v,
                                   sizeof v, 0),
                     -ENOENT);
    assert_int_equal(ops->getxattr(f->inst, &root_cred, "abs", "trusted.t", v,
                                   sizeof v, AT_SYMLINK_NOFOLLOW),
                     -ENODATA);
    assert_int_equal(ops->getxattr(f->inst, &root_cred, "file", "trusted.t", v,
                                   2, 0),
                     -ERANGE);
    assert_int_equal(ops->getxattr(f->inst, &root_cred, "file", "trusted.no",
                                   v, sizeof v, 0),
                     -ENODATA);
    assert_int_equal(ops->getxattr(f->inst, &root_cred, "missing",
                                   "trusted.t", v, sizeof v, 0),
                     -ENOENT);
    assert_int_equal(ops->listxattr(f->inst, &root_cred, "abs", v, sizeof v,
                                    0),
                     -ENOENT);
    assert_int_equal(ops->listxattr(f->inst, &root_cred, "sl", NULL, 0,
                                    AT_SYMLINK_NOFOLLOW),
                     (ssize_t)sizeof "trusted.t");
    assert_int_equal(ops->listxattr(f->inst, &root_cred, "sl", v, sizeof v, 0),
                     (ssize_t)sizeof "trusted.t");
    assert_string_equal(v, "trusted.t");
    /* The root itself has no parent: the walk's way. */
    assert_true(ops->listxattr(f->inst, &root_cred, "", NULL, 0,
                               AT_SYMLINK_NOFOLLOW) >= 0);
    unlink(host_out);
}

/* setxattr and removexattr by name (setxattrat, removexattrat): a link
 * followed inside the root or its own xattrs changed, never a host file
 * an absolute link names, and the path calls' errors. */
static void test_xattr_changes_by_name(void **state)
{
    struct fixture *f = *state;
    const struct ls_ops *ops = f->ops;
    create_file(f, &root_cred, "file", "x", 0644);
    assert_int_equal(ops->symlink(f->inst, &root_cred, "file", "sl"), 0);
    char host[PATH_MAX + 32], host_link[PATH_MAX + 32],
        host_out[PATH_MAX + 32];
    snprintf(host, sizeof host, "%s/file", f->root);
    snprintf(host_link, sizeof host_link, "%s/sl", f->root);
    snprintf(host_out, sizeof host_out, "%s/outside", f->top);
    int fd = open(host_out, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(ops->symlink(f->inst, &root_cred, host_out, "abs"), 0);

    char v[32];
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "sl", "trusted.t",
                                   "file's", 6, 0, 0),
                     0);
    assert_int_equal(getxattr(host, "trusted.t", v, sizeof v), 6);
    assert_memory_equal(v, "file's", 6);
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "sl", "trusted.t",
                                   "link's", 6, 0, AT_SYMLINK_NOFOLLOW),
                     0);
    assert_int_equal(lgetxattr(host_link, "trusted.t", v, sizeof v), 6);
    assert_memory_equal(v, "link's", 6);
    assert_int_equal(getxattr(host, "trusted.t", v, sizeof v), 6);
    assert_memory_equal(v, "file's", 6);
    /* An empty value is a value. */
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "file", "trusted.e",
                                   "", 0, 0, 0),
                     0);
    assert_int_equal(getxattr(host, "trusted.e", v, sizeof v), 0);
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "file", "trusted.t",
                                   "again", 5, XATTR_CREATE, 0),
                     -EEXIST);
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "file", "trusted.no",
                                   "x", 1, XATTR_REPLACE, 0),
                     -ENODATA);
    /* Followed, the absolute link leads inside the root, where nothing
     * is; not followed, it is the link that changes. */
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "abs", "trusted.t",
                                   "abs", 3, 0, 0),
                     -ENOENT);
    assert_int_equal(ops->removexattr(f->inst, &root_cred, "abs",
                                      "trusted.t", 0),
                     -ENOENT);
    assert_int_equal(getxattr(host_out, "trusted.t", v, sizeof v), -1);
    assert_int_equal(errno, ENODATA);
    assert_int_equal(ops->removexattr(f->inst, &root_cred, "sl", "trusted.t",
                                      AT_SYMLINK_NOFOLLOW),
                     0);
    assert_int_equal(lgetxattr(host_link, "trusted.t", v, sizeof v), -1);
    assert_int_equal(getxattr(host, "trusted.t", v, sizeof v), 6);
    assert_int_equal(ops->removexattr(f->inst, &root_cred, "sl", "trusted.t",
                                      0),
                     0);
    assert_int_equal(ops->removexattr(f->inst, &root_cred, "sl", "trusted.t",
                                      0),
                     -ENODATA);
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "missing",
                                   "trusted.t", "x", 1, 0, 0),
                     -ENOENT);
    /* The root itself has no parent: the walk's way. */
    assert_int_equal(ops->setxattr(f->inst, &root_cred, "", "trusted.r", "r",
                                   1, 0, 0),
                     0);
    assert_int_equal(getxattr(f->root, "trusted.r", v, sizeof v), 1);
    unlink(host_out);
}

/* ---- the parent handles a thread keeps (dirs.h): each change that could
 * make a kept handle lie is seen by the next call ---- */

static int stat_errno(struct fixture *f, const struct ls_cred *cred,
                      const char *path, struct danaus_stat *st)
{
    return f->ops->stat(f->inst, cred, path, 0, st);
}

static void test_dir_handles_follow_renames(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a", 0755), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a/b", 0755), 0);
    create_file(f, &root_cred, "a/b/f", "old", 0644);
    assert_int_equal(stat_errno(f, &root_cred, "a/b/f", &st), 0);

    assert_int_equal(f->ops->rename(f->inst, &root_cred, "a", "c", 0), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a", 0755), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a/b", 0755), 0);
    assert_int_equal(stat_errno(f, &root_cred, "a/b/f", &st), -ENOENT);
    assert_int_equal(f->ops->unlink(f->inst, &root_cred, "a/b/f"), -ENOENT);
    assert_int_equal(stat_errno(f, &root_cred, "c/b/f", &st), 0);

    /* rmdir, then a new directory of the same name */
    assert_int_equal(f->ops->rmdir(f->inst, &root_cred, "a/b"), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a/b", 0755), 0);
    create_file(f, &root_cred, "a/b/g", "new", 0644);
    struct danaus_stat host;
    char path[160];
    snprintf(path, sizeof path, "%s/a/b/g", f->root);
    struct stat hst;
    assert_int_equal(stat(path, &hst), 0);
    assert_int_equal(stat_errno(f, &root_cred, "a/b/g", &host), 0);
    assert_int_equal(host.ino, (uint64_t)hst.st_ino);
}

/* A removal voids the handles of the directory removed and below it,
 * whatever text named it, and those resolved through a link to it; a
 * handle kept under a text other than plain names may never outlive a
 * removal. Each stat below, of a file the host made in the directory made
 * again, would look in the removed one (ENOENT) through a handle kept. */
static void host_touch(struct fixture *f, const char *rel)
{
    char host[160];
    snprintf(host, sizeof host, "%s/%s", f->root, rel);
    int fd = open(host, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
}

static void test_dir_handles_follow_removals(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a", 0755), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a/b", 0755), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a/c", 0755), 0);
    host_touch(f, "a/c/x");
    assert_int_equal(stat_errno(f, &root_cred, "a/c/x", &st), 0);

    /* Kept as "a//b/", removed as "a/b". */
    host_touch(f, "a/b/f");
    assert_int_equal(stat_errno(f, &root_cred, "a//b/f", &st), 0);
    assert_int_equal(f->ops->unlink(f->inst, &root_cred, "a/b/f"), 0);
    assert_int_equal(f->ops->rmdir(f->inst, &root_cred, "a/b"), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a/b", 0755), 0);
    host_touch(f, "a/b/g");
    assert_int_equal(stat_errno(f, &root_cred, "a//b/g", &st), 0);

    /* Kept as "a/b/", removed as "a//b/". */
    assert_int_equal(stat_errno(f, &root_cred, "a/b/g", &st), 0);
    assert_int_equal(f->ops->unlink(f->inst, &root_cred, "a/b/g"), 0);
    assert_int_equal(f->ops->rmdir(f->inst, &root_cred, "a//b/"), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a/b", 0755), 0);
    host_touch(f, "a/b/h");
    assert_int_equal(stat_errno(f, &root_cred, "a/b/h", &st), 0);

    /* Kept through a link to the directory removed. */
    assert_int_equal(f->ops->symlink(f->inst, &root_cred, "a/b", "l"), 0);
    assert_int_equal(stat_errno(f, &root_cred, "l/h", &st), 0);
    char host[160]; /* removed by the host: no unlink of the service's */
    snprintf(host, sizeof host, "%s/a/b/h", f->root);
    assert_int_equal(unlink(host), 0);
    assert_int_equal(f->ops->rmdir(f->inst, &root_cred, "a/b"), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "a/b", 0755), 0);
    host_touch(f, "a/b/i");
    assert_int_equal(stat_errno(f, &root_cred, "l/i", &st), 0);

    /* A sibling's handle answers on. */
    assert_int_equal(stat_errno(f, &root_cred, "a/c/x", &st), 0);
}

static void test_dir_handles_follow_permissions(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "u", 0777), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &user_cred, "u/mine", 0755), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &user_cred, "u/mine/s", 0755), 0);
    create_file(f, &user_cred, "u/mine/s/f", "x", 0644);
    assert_int_equal(stat_errno(f, &user_cred, "u/mine/s/f", &st), 0);

    /* The owner takes away its own search permission. */
    assert_int_equal(f->ops->chmod(f->inst, &user_cred, "u/mine", 0600, 0),
                     0);
    assert_int_equal(stat_errno(f, &user_cred, "u/mine/s/f", &st), -EACCES);
    assert_int_equal(f->ops->unlink(f->inst, &user_cred, "u/mine/s/f"),
                     -EACCES);
    assert_int_equal(f->ops->chmod(f->inst, &user_cred, "u/mine", 0755, 0),
                     0);
    assert_int_equal(stat_errno(f, &user_cred, "u/mine/s/f", &st), 0);

    /* The same through an open descriptor of the directory. */
    struct ls_file *dir;
    assert_int_equal(f->ops->open(f->inst, &user_cred, "u/mine",
                                  O_RDONLY | O_DIRECTORY, 0, &dir),
                     0);
    assert_int_equal(f->ops->fchmod(dir, &user_cred, 0600), 0);
    assert_int_equal(stat_errno(f, &user_cred, "u/mine/s/f", &st), -EACCES);
    assert_int_equal(f->ops->fchmod(dir, &user_cred, 0755), 0);
    f->ops->close(dir);

    /* Another identity never uses the handles of the first. */
    assert_int_equal(f->ops->chmod(f->inst, &user_cred, "u/mine", 0700, 0),
                     0);
    const struct ls_cred other = {.uid = 1001, .gid = 1001};
    assert_int_equal(stat_errno(f, &user_cred, "u/mine/s/f", &st), 0);
    assert_int_equal(stat_errno(f, &other, "u/mine/s/f", &st), -EACCES);
}

static void test_dir_handles_follow_symlinks(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "one", 0755), 0);
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "two", 0755), 0);
    create_file(f, &root_cred, "one/f", "1", 0644);
    assert_int_equal(f->ops->symlink(f->inst, &root_cred, "one", "l"), 0);
    assert_int_equal(stat_errno(f, &root_cred, "l/f", &st), 0);

    assert_int_equal(f->ops->unlink(f->inst, &root_cred, "l"), 0);
    assert_int_equal(f->ops->symlink(f->inst, &root_cred, "two", "l"), 0);
    assert_int_equal(stat_errno(f, &root_cred, "l/f", &st), -ENOENT);
    create_file(f, &root_cred, "l/g", "2", 0644);
    char buf[8];
    assert_int_equal(read_file(f, &root_cred, "two/g", buf, sizeof buf), 0);
    assert_string_equal(buf, "2");
}

/* A rename holds two parents' handles at once: a walk for the second that
 * lands in the first's slot of the thread's table must not close it
 * under the call. 300 parents make a shared slot all but certain. */
static void test_dir_handles_held_by_rename(void **state)
{
    struct fixture *f = *state;
    char from[32], to[32];
    for (int i = 0; i < 300; i++) {
        snprintf(from, sizeof from, "p%d", i);
        assert_int_equal(f->ops->mkdir(f->inst, &root_cred, from, 0755), 0);
    }
    create_file(f, &root_cred, "p0/f", "x", 0644);
    for (int i = 0; i + 1 < 300; i++) {
        snprintf(from, sizeof from, "p%d/f", i);
        snprintf(to, sizeof to, "p%d/f", i + 1);
        assert_int_equal(f->ops->rename(f->inst, &root_cred, from, to, 0), 0);
    }
    char buf[8];
    assert_int_equal(read_file(f, &root_cred, "p299/f", buf, sizeof buf), 0);
}

/* A directory renamed on the host, outside the service, is seen within
 * the handles' lifetime (dirs.c's LOCAL_DIRS_TTL_MS, 1 s). */
static void test_dir_handles_age_out(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    assert_int_equal(f->ops->mkdir(f->inst, &root_cred, "h", 0755), 0);
    create_file(f, &root_cred, "h/f", "x", 0644);
    assert_int_equal(stat_errno(f, &root_cred, "h/f", &st), 0);
    char from[160], to[160];
    snprintf(from, sizeof from, "%s/h", f->root);
    snprintf(to, sizeof to, "%s/moved", f->root);
    assert_int_equal(rename(from, to), 0);
    assert_int_equal(mkdir(from, 0755), 0);
    usleep(1100 * 1000);
    assert_int_equal(stat_errno(f, &root_cred, "h/f", &st), -ENOENT);
}

int main(void)
{
    umask(0); /* as danausd: client modes arrive with their umask applied */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dotdot_stays_at_root, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_symlinks_resolve_inside_root,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_loops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlinks_resolve_inside_root,
                                        setup_mounted, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_loops, setup_mounted,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_links_under_mount_point,
                                        setup_mounted, teardown),
        cmocka_unit_test_setup_teardown(test_errno_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stat_times_and_statfs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_getdents_lists_and_resumes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_append_from_two_open_files, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_as_client_owns_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_permissions_enforced_per_client,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_cred_switch_is_per_thread, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_xattrs_by_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xattr_changes_by_name, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_user_xattr_round_trip, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_dir_handles_follow_renames, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_dir_handles_follow_removals,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_dir_handles_follow_permissions,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_dir_handles_follow_symlinks,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_dir_handles_follow_symlinks,
                                        setup_mounted, teardown),
        cmocka_unit_test_setup_teardown(test_dir_handles_held_by_rename,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_dir_handles_age_out, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
