/*
 * ceph_backend_test.c - the CephFS libservice (fsservice/backend_ceph.c)
 * through struct ls_ops against a live cluster: contents, errno values,
 * containment of paths inside the instance root, directory listing cookies,
 * xattrs, attributes and per-client permissions.
 *
 *   ceph_backend_test CEPH_CONF
 *
 * Each run works in its own instance root "/danaus-test.PID" of the file
 * system, so runs never see each other's files.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsservice/libservice.h"

static struct cephfs_client *client;
static struct ls_instance *inst;
static const struct ls_ops *ops;
static struct ls_cred root_cred;
static struct ls_cred user_cred; /* uid 1000, gid 1000 */

static struct ls_file *open_as(const struct ls_cred *c, const char *path,
                               int flags, mode_t mode)
{
    struct ls_file *f = NULL;
    int r = ops->open(inst, c, path, flags, mode, &f);
    assert_int_equal(r, 0);
    assert_non_null(f);
    assert_ptr_equal(f->inst, inst);
    return f;
}

static int open_err(const struct ls_cred *c, const char *path, int flags)
{
    struct ls_file *f = NULL;
    int r = ops->open(inst, c, path, flags, 0644, &f);
    if (r == 0)
        ops->close(f);
    return r;
}

static void write_file(const char *path, const char *data)
{
    struct ls_file *f =
        open_as(&root_cred, path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    off_t end;
    size_t n = strlen(data);
    assert_int_equal(ops->pwrite(f, &root_cred, data, n, 0, &end), (ssize_t)n);
    assert_int_equal(end, (off_t)n);
    ops->close(f);
}

/* The whole file as a string (files here are small). */
static void read_file(const char *path, char *buf, size_t size)
{
    struct ls_file *f = open_as(&root_cred, path, O_RDONLY, 0);
    ssize_t n = ops->pread(f, &root_cred, buf, size - 1, 0);
    assert_true(n >= 0);
    buf[n] = '\0';
    ops->close(f);
}

static void test_write_read(void **state)
{
    (void)state;
    struct ls_file *f =
        open_as(&root_cred, "wr", O_CREAT | O_EXCL | O_RDWR, 0644);
    assert_int_equal(f->is_dir, 0);
    off_t end = -1;
    assert_int_equal(ops->pwrite(f, &root_cred, "hello world", 11, 0, &end),
                     11);
    assert_int_equal(end, 11);
    assert_int_equal(ops->pwrite(f, &root_cred, "W", 1, 6, &end), 1);
    assert_int_equal(end, 7);
    /* An empty write changes nothing (Ceph itself would abort on it). */
    assert_int_equal(ops->pwrite(f, &root_cred, "", 0, 3, &end), 0);
    assert_int_equal(ops->pwrite(f, &root_cred, "", 0, -1, &end), 0);
    assert_int_equal(end, 11);
    char buf[32] = {0};
    assert_int_equal(ops->pread(f, &root_cred, buf, sizeof buf, 0), 11);
    assert_string_equal(buf, "hello World");
    assert_int_equal(ops->pread(f, &root_cred, buf, sizeof buf, 11), 0);
    struct danaus_stat st;
    assert_int_equal(ops->fstat(f, &root_cred, &st), 0);
    assert_int_equal(st.size, 11);
    assert_true(S_ISREG(st.mode));
    assert_int_equal(st.mode & 07777, 0644);
    ops->close(f);
    read_file("wr", buf, sizeof buf);
    assert_string_equal(buf, "hello World");

    /* O_TRUNC empties it; a read-only handle cannot write. */
    f = open_as(&root_cred, "wr", O_RDONLY | O_TRUNC, 0);
    assert_int_equal(ops->pwrite(f, &root_cred, "x", 1, 0, &end), -EBADF);
    assert_int_equal(ops->fstat(f, &root_cred, &st), 0);
    assert_int_equal(st.size, 0);
    ops->close(f);
}

static void test_open_errors(void **state)
{
    (void)state;
    write_file("plain", "x");
    assert_int_equal(ops->mkdir(inst, &root_cred, "adir", 0755), 0);
    assert_int_equal(open_err(&root_cred, "plain", O_CREAT | O_EXCL | O_RDWR),
                     -EEXIST);
    assert_int_equal(open_err(&root_cred, "nope", O_RDONLY), -ENOENT);
    assert_int_equal(open_err(&root_cred, "nodir/x", O_CREAT | O_RDWR),
                     -ENOENT);
    assert_int_equal(open_err(&root_cred, "plain/x", O_RDONLY), -ENOTDIR);
    assert_int_equal(open_err(&root_cred, "plain", O_RDONLY | O_DIRECTORY),
                     -ENOTDIR);
    assert_int_equal(open_err(&root_cred, "adir", O_WRONLY), -EISDIR);
    assert_int_equal(open_err(&root_cred, "adir", O_RDWR), -EISDIR);
    assert_int_equal(open_err(&root_cred, "adir", O_CREAT | O_RDWR), -EISDIR);
    struct danaus_stat st;
    assert_int_equal(ops->stat(inst, &root_cred, "plain/", 0, &st), -ENOTDIR);
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(ops->stat(inst, &root_cred, longname, 0, &st),
                     -ENAMETOOLONG);

    struct ls_file *d = open_as(&root_cred, "adir", O_RDONLY | O_DIRECTORY, 0);
    assert_int_equal(d->is_dir, 1);
    char buf[4];
    assert_int_equal(ops->pread(d, &root_cred, buf, sizeof buf, 0), -EISDIR);
    ops->close(d);
}

static void test_mkdir_rmdir(void **state)
{
    (void)state;
    assert_int_equal(ops->mkdir(inst, &root_cred, "md", 0750), 0);
    assert_int_equal(ops->mkdir(inst, &root_cred, "md", 0750), -EEXIST);
    struct danaus_stat st;
    assert_int_equal(ops->stat(inst, &root_cred, "md", 0, &st), 0);
    assert_true(S_ISDIR(st.mode));
    assert_int_equal(st.mode & 07777, 0750);
    write_file("md/x", "x");
    assert_int_equal(ops->rmdir(inst, &root_cred, "md"), -ENOTEMPTY);
    assert_int_equal(ops->unlink(inst, &root_cred, "md"), -EISDIR);
    assert_int_equal(ops->rmdir(inst, &root_cred, "md/x"), -ENOTDIR);
    assert_int_equal(ops->unlink(inst, &root_cred, "md/x"), 0);
    assert_int_equal(ops->unlink(inst, &root_cred, "md/x"), -ENOENT);
    assert_int_equal(ops->rmdir(inst, &root_cred, "md"), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "md", 0, &st), -ENOENT);
    assert_int_equal(ops->rmdir(inst, &root_cred, ""), -EBUSY);
}

static void test_rename(void **state)
{
    (void)state;
    char buf[16];
    write_file("ra", "A");
    write_file("rb", "B");
    assert_int_equal(ops->rename(inst, &root_cred, "ra", "rb", 0), 0);
    read_file("rb", buf, sizeof buf);
    assert_string_equal(buf, "A");
    struct danaus_stat st;
    assert_int_equal(ops->stat(inst, &root_cred, "ra", 0, &st), -ENOENT);
    write_file("rc", "C");
    assert_int_equal(
        ops->rename(inst, &root_cred, "rc", "rb", RENAME_NOREPLACE), -EEXIST);
    assert_int_equal(ops->rename(inst, &root_cred, "missing", "rd", 0),
                     -ENOENT);
    assert_int_equal(ops->mkdir(inst, &root_cred, "rdir", 0755), 0);
    assert_int_equal(ops->rename(inst, &root_cred, "rc", "rdir/rc", 0), 0);
    read_file("rdir/rc", buf, sizeof buf);
    assert_string_equal(buf, "C");
}

static void test_links(void **state)
{
    (void)state;
    char buf[64];
    write_file("lf", "linked");
    assert_int_equal(ops->link(inst, &root_cred, "lf", "lg"), 0);
    struct danaus_stat a, b;
    assert_int_equal(ops->stat(inst, &root_cred, "lf", 0, &a), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "lg", 0, &b), 0);
    assert_int_equal(a.ino, b.ino);
    assert_int_equal(b.nlink, 2);
    assert_int_equal(ops->link(inst, &root_cred, "lf", "lg"), -EEXIST);

    assert_int_equal(ops->symlink(inst, &root_cred, "lf", "ls"), 0);
    assert_int_equal(ops->readlink(inst, &root_cred, "ls", buf, sizeof buf),
                     2);
    assert_memory_equal(buf, "lf", 2);
    assert_int_equal(ops->readlink(inst, &root_cred, "lf", buf, sizeof buf),
                     -EINVAL);
    assert_int_equal(ops->stat(inst, &root_cred, "ls", 0, &b), 0);
    assert_int_equal(b.ino, a.ino);
    assert_int_equal(ops->stat(inst, &root_cred, "ls", AT_SYMLINK_NOFOLLOW,
                               &b), 0);
    assert_true(S_ISLNK(b.mode));
    read_file("ls", buf, sizeof buf);
    assert_string_equal(buf, "linked");
    assert_int_equal(open_err(&root_cred, "ls", O_RDONLY | O_NOFOLLOW),
                     -ELOOP);

    /* A loop of links ends in ELOOP; a dangling one in ENOENT. */
    assert_int_equal(ops->symlink(inst, &root_cred, "loop2", "loop1"), 0);
    assert_int_equal(ops->symlink(inst, &root_cred, "loop1", "loop2"), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "loop1", 0, &b), -ELOOP);
    assert_int_equal(ops->symlink(inst, &root_cred, "nowhere", "dangle"), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "dangle", 0, &b), -ENOENT);
}

static void test_containment(void **state)
{
    (void)state;
    char buf[64];
    struct danaus_stat top, st;
    write_file("top", "inside");
    assert_int_equal(ops->stat(inst, &root_cred, "top", 0, &top), 0);
    /* ".." at the instance root stays there. */
    assert_int_equal(ops->stat(inst, &root_cred, "../../top", 0, &st), 0);
    assert_int_equal(st.ino, top.ino);
    read_file("../../top", buf, sizeof buf);
    assert_string_equal(buf, "inside");

    /* Absolute symlink targets start at the instance root. */
    assert_int_equal(ops->mkdir(inst, &root_cred, "etc", 0755), 0);
    write_file("etc/passwd", "instance passwd");
    assert_int_equal(ops->symlink(inst, &root_cred, "/etc", "abs"), 0);
    read_file("abs/passwd", buf, sizeof buf);
    assert_string_equal(buf, "instance passwd");
    assert_int_equal(ops->symlink(inst, &root_cred, "/../../../top", "up"),
                     0);
    read_file("up", buf, sizeof buf);
    assert_string_equal(buf, "inside");
    /* Relative targets are taken from the link's directory. */
    assert_int_equal(ops->symlink(inst, &root_cred, "../top", "etc/rel"), 0);
    read_file("etc/rel", buf, sizeof buf);
    assert_string_equal(buf, "inside");
    /* Nothing of the file system outside the root is reachable. */
    assert_int_equal(ops->symlink(inst, &root_cred, "/danaus-test-x", "out"),
                     0);
    assert_int_equal(ops->stat(inst, &root_cred, "out", 0, &st), -ENOENT);

    struct danaus_stat root;
    assert_int_equal(ops->stat(inst, &root_cred, "", 0, &root), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "etc/../..", 0, &st), 0);
    assert_int_equal(st.ino, root.ino);
}

/* Lists dir with a small buffer, from cookie start; names in order. */
static int list_dir(const char *dir, off_t start, char names[][16],
                    off_t *cookies, int max)
{
    struct ls_file *d = open_as(&root_cred, dir, O_RDONLY | O_DIRECTORY, 0);
    char buf[200] __attribute__((aligned(8)));
    off_t pos = start;
    int count = 0;
    for (;;) {
        ssize_t n = ops->getdents(d, &root_cred, buf, sizeof buf, &pos);
        assert_true(n >= 0);
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            struct danaus_dirent *e = (struct danaus_dirent *)(buf + off);
            assert_int_equal(e->d_reclen % 8, 0);
            assert_true(e->d_reclen >= offsetof(struct danaus_dirent, d_name) +
                                           strlen(e->d_name) + 1);
            assert_true(count < max);
            snprintf(names[count], 16, "%s", e->d_name);
            cookies[count] = e->d_off;
            count++;
            off += e->d_reclen;
        }
    }
    ops->close(d);
    return count;
}

static void test_getdents(void **state)
{
    (void)state;
    enum { N = 40 };
    assert_int_equal(ops->mkdir(inst, &root_cred, "gd", 0755), 0);
    for (int i = 0; i < N; i++) {
        char p[32];
        snprintf(p, sizeof p, "gd/entry%02d", i);
        write_file(p, "");
    }
    char names[N + 2][16], again[N + 2][16];
    off_t cookies[N + 2], cookies2[N + 2];
    int count = list_dir("gd", 0, names, cookies, N + 2);
    assert_int_equal(count, N + 2);
    int seen[N] = {0}, dot = 0, dotdot = 0;
    for (int i = 0; i < count; i++) {
        int k;
        if (strcmp(names[i], ".") == 0)
            dot++;
        else if (strcmp(names[i], "..") == 0)
            dotdot++;
        else if (sscanf(names[i], "entry%d", &k) == 1 && k >= 0 && k < N)
            seen[k]++;
        else
            fail_msg("unexpected entry %s", names[i]);
    }
    assert_int_equal(dot, 1);
    assert_int_equal(dotdot, 1);
    for (int k = 0; k < N; k++)
        assert_int_equal(seen[k], 1);

    /* A fresh handle resumed from the cookie of entry 10 gives the rest. */
    int rest = list_dir("gd", cookies[10], again, cookies2, N + 2);
    assert_int_equal(rest, count - 11);
    for (int i = 0; i < rest; i++)
        assert_string_equal(again[i], names[11 + i]);

    /* A buffer too small for one record is EINVAL. */
    struct ls_file *d = open_as(&root_cred, "gd", O_RDONLY, 0);
    char tiny[8];
    off_t pos = 0;
    assert_int_equal(ops->getdents(d, &root_cred, tiny, sizeof tiny, &pos),
                     -EINVAL);
    ops->close(d);
}

static void test_xattrs(void **state)
{
    (void)state;
    write_file("xa", "");
    assert_int_equal(ops->setxattr(inst, &root_cred, "xa", "user.color", "red",
                                   3, 0, 0), 0);
    char buf[64];
    assert_int_equal(ops->getxattr(inst, &root_cred, "xa", "user.color", buf,
                                   sizeof buf, 0), 3);
    assert_memory_equal(buf, "red", 3);
    assert_int_equal(ops->getxattr(inst, &root_cred, "xa", "user.color", NULL,
                                   0, 0), 3);
    assert_int_equal(ops->setxattr(inst, &root_cred, "xa", "user.color", "b",
                                   1, XATTR_CREATE, 0), -EEXIST);
    assert_int_equal(ops->setxattr(inst, &root_cred, "xa", "user.none", "b",
                                   1, XATTR_REPLACE, 0), -ENODATA);
    ssize_t n = ops->listxattr(inst, &root_cred, "xa", buf, sizeof buf, 0);
    assert_true(n > 0);
    int found = 0;
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
        found |= strcmp(buf + i, "user.color") == 0;
    assert_true(found);

    struct ls_file *f = open_as(&root_cred, "xa", O_RDONLY, 0);
    assert_int_equal(ops->fsetxattr(f, &root_cred, "user.size", "big", 3, 0),
                     0);
    assert_int_equal(ops->fgetxattr(f, &root_cred, "user.size", buf,
                                    sizeof buf), 3);
    assert_true(ops->flistxattr(f, &root_cred, buf, sizeof buf) > 0);
    assert_int_equal(ops->fremovexattr(f, &root_cred, "user.size"), 0);
    assert_int_equal(ops->fgetxattr(f, &root_cred, "user.size", buf,
                                    sizeof buf), -ENODATA);
    ops->close(f);
    assert_int_equal(ops->removexattr(inst, &root_cred, "xa", "user.color", 0),
                     0);
    assert_int_equal(ops->getxattr(inst, &root_cred, "xa", "user.color", buf,
                                   sizeof buf, 0), -ENODATA);
}

static void test_attributes(void **state)
{
    (void)state;
    struct danaus_stat st;
    write_file("at", "abc");
    assert_int_equal(ops->chmod(inst, &root_cred, "at", 0600, 0), 0);
    assert_int_equal(ops->chown(inst, &root_cred, "at", 1234, 5678, 0), 0);
    struct timespec ts[2] = {{1000000, 5}, {2000000, 7}};
    assert_int_equal(ops->utimens(inst, &root_cred, "at", ts, 0), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "at", 0, &st), 0);
    assert_int_equal(st.mode & 07777, 0600);
    assert_int_equal(st.uid, 1234);
    assert_int_equal(st.gid, 5678);
    assert_int_equal(st.atime_sec, 1000000);
    assert_int_equal(st.atime_nsec, 5);
    assert_int_equal(st.mtime_sec, 2000000);
    assert_int_equal(st.mtime_nsec, 7);
    /* -1 keeps an id; UTIME_OMIT keeps a time. */
    assert_int_equal(ops->chown(inst, &root_cred, "at", (uid_t)-1, 42, 0), 0);
    struct timespec omit[2] = {{0, UTIME_OMIT}, {3000000, 0}};
    assert_int_equal(ops->utimens(inst, &root_cred, "at", omit, 0), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "at", 0, &st), 0);
    assert_int_equal(st.uid, 1234);
    assert_int_equal(st.gid, 42);
    assert_int_equal(st.atime_sec, 1000000);
    assert_int_equal(st.mtime_sec, 3000000);

    struct ls_file *f = open_as(&root_cred, "at", O_RDONLY, 0);
    assert_int_equal(ops->fchmod(f, &root_cred, 0640), 0);
    assert_int_equal(ops->fchown(f, &root_cred, 7, 8), 0);
    assert_int_equal(ops->futimens(f, &root_cred, ts), 0);
    assert_int_equal(ops->fstat(f, &root_cred, &st), 0);
    assert_int_equal(st.mode & 07777, 0640);
    assert_int_equal(st.uid, 7);
    assert_int_equal(st.mtime_sec, 2000000);
    ops->close(f);
}

static void test_truncate(void **state)
{
    (void)state;
    struct danaus_stat st;
    write_file("tr", "0123456789abcdef");
    assert_int_equal(ops->truncate(inst, &root_cred, "tr", 10), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "tr", 0, &st), 0);
    assert_int_equal(st.size, 10);
    struct ls_file *f = open_as(&root_cred, "tr", O_RDWR, 0);
    assert_int_equal(ops->ftruncate(f, &root_cred, 3), 0);
    assert_int_equal(ops->fstat(f, &root_cred, &st), 0);
    assert_int_equal(st.size, 3);
    ops->close(f);
    char buf[32];
    read_file("tr", buf, sizeof buf);
    assert_string_equal(buf, "012");
    f = open_as(&root_cred, "tr", O_RDONLY, 0);
    assert_int_equal(ops->ftruncate(f, &root_cred, 0), -EINVAL);
    ops->close(f);
    assert_int_equal(ops->mkdir(inst, &root_cred, "trdir", 0755), 0);
    assert_int_equal(ops->truncate(inst, &root_cred, "trdir", 0), -EISDIR);
}

static void test_statfs(void **state)
{
    (void)state;
    struct danaus_statfs sf;
    assert_int_equal(ops->statfs(inst, &root_cred, "", &sf), 0);
    assert_int_equal(sf.type, 0x00c36400);
    assert_true(sf.bsize > 0);
    assert_true(sf.blocks > 0);
    assert_true(sf.bavail <= sf.blocks);
    assert_int_equal(ops->statfs(inst, &root_cred, "missing", &sf), -ENOENT);
    struct ls_file *d = open_as(&root_cred, "", O_RDONLY, 0);
    assert_int_equal(ops->fstatfs(d, &root_cred, &sf), 0);
    assert_true(sf.blocks > 0);
    ops->close(d);
}

static void test_append(void **state)
{
    (void)state;
    write_file("ap", "start");
    struct ls_file *a = open_as(&root_cred, "ap", O_WRONLY | O_APPEND, 0);
    struct ls_file *b = open_as(&root_cred, "ap", O_RDWR, 0);
    off_t end = 0;
    assert_int_equal(ops->pwrite(a, &root_cred, "-a", 2, -1, &end), 2);
    assert_int_equal(end, 7);
    /* Appends through another handle land after the first's. */
    assert_int_equal(ops->pwrite(b, &root_cred, "-bb", 3, -1, &end), 3);
    assert_int_equal(end, 10);
    assert_int_equal(ops->pwrite(a, &root_cred, "!", 1, -1, &end), 1);
    assert_int_equal(end, 11);
    /* An explicit offset still writes there. */
    assert_int_equal(ops->pwrite(b, &root_cred, "S", 1, 0, &end), 1);
    assert_int_equal(end, 1);
    ops->close(a);
    ops->close(b);
    char buf[32];
    read_file("ap", buf, sizeof buf);
    assert_string_equal(buf, "Start-a-bb!");
}

static void test_permissions(void **state)
{
    (void)state;
    write_file("rootfile", "secret");
    assert_int_equal(ops->chmod(inst, &root_cred, "rootfile", 0644, 0), 0);
    assert_int_equal(open_err(&user_cred, "rootfile", O_WRONLY), -EACCES);
    assert_int_equal(open_err(&user_cred, "rootfile", O_RDWR | O_TRUNC),
                     -EACCES);
    assert_int_equal(ops->truncate(inst, &user_cred, "rootfile", 0), -EACCES);
    assert_int_equal(ops->chmod(inst, &user_cred, "rootfile", 0666, 0),
                     -EPERM);
    assert_int_equal(ops->access(inst, &user_cred, "rootfile", W_OK, 0),
                     -EACCES);
    assert_int_equal(ops->access(inst, &user_cred, "rootfile", R_OK, 0), 0);
    assert_int_equal(ops->access(inst, &root_cred, "rootfile", W_OK, 0), 0);
    assert_int_equal(ops->access(inst, &root_cred, "rootfile", X_OK, 0),
                     -EACCES);
    struct ls_file *f = open_as(&user_cred, "rootfile", O_RDONLY, 0);
    char buf[16] = {0};
    assert_int_equal(ops->pread(f, &user_cred, buf, sizeof buf, 0), 6);
    assert_string_equal(buf, "secret");
    ops->close(f);

    /* Not in a root-owned 0755 directory, but in a 0777 one. */
    assert_int_equal(open_err(&user_cred, "mine", O_CREAT | O_WRONLY),
                     -EACCES);
    assert_int_equal(ops->mkdir(inst, &root_cred, "pub", 0777), 0);
    assert_int_equal(ops->chmod(inst, &root_cred, "pub", 0777, 0), 0);
    f = open_as(&user_cred, "pub/mine", O_CREAT | O_EXCL | O_WRONLY, 0600);
    off_t end;
    assert_int_equal(ops->pwrite(f, &user_cred, "u", 1, 0, &end), 1);
    struct danaus_stat st;
    assert_int_equal(ops->fstat(f, &user_cred, &st), 0);
    assert_int_equal(st.uid, 1000);
    assert_int_equal(st.gid, 1000);
    ops->close(f);

    /* A 0700 directory of root cannot be searched by uid 1000. */
    assert_int_equal(ops->mkdir(inst, &root_cred, "priv", 0700), 0);
    write_file("priv/f", "x");
    assert_int_equal(ops->stat(inst, &user_cred, "priv/f", 0, &st), -EACCES);
    assert_int_equal(open_err(&user_cred, "priv", O_RDONLY), -EACCES);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CEPH_CONF\n", argv[0]);
        return 2;
    }
    char err[256];
    struct cephfs_client_options o = {.conf_path = argv[1]};
    client = cephfs_client_new(&o, err, sizeof err);
    if (client == NULL) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    char root[64];
    snprintf(root, sizeof root, "/danaus-test.%d", (int)getpid());
    inst = cephfs_instance_new(client, root, err, sizeof err);
    if (inst == NULL) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    ops = inst->ops;
    root_cred = (struct ls_cred){.uid = 0, .gid = 0};
    user_cred = (struct ls_cred){.uid = 1000, .gid = 1000};
    if (cephfs_cred_init(client, &root_cred) < 0 ||
        cephfs_cred_init(client, &user_cred) < 0) {
        fprintf(stderr, "cephfs_cred_init failed\n");
        return 1;
    }

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_read),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_mkdir_rmdir),
        cmocka_unit_test(test_rename),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_containment),
        cmocka_unit_test(test_getdents),
        cmocka_unit_test(test_xattrs),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_truncate),
        cmocka_unit_test(test_statfs),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_permissions),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    cephfs_cred_release(&user_cred);
    cephfs_cred_release(&root_cred);
    ops->destroy(inst);
    cephfs_client_free(client);
    return failed;
}
