/*
 * ceph_backend_test.c - the CephFS libservice
 * (fsservice/libservice/ceph/ceph.c) through struct ls_ops against a live cluster: contents, errno values,
 * containment of paths inside the instance root, directory listing cookies,
 * xattrs, attributes and per-client permissions.
 *
 *   ceph_backend_test CEPH_CONF
 *
 * Each run works in its own instance root "/danaus-test.PID" of the file
 * system, so runs never see each other's files. The client gets an admin
 * socket of its own (a copy of CEPH_CONF names it), through which the test
 * reads the client's inode references to find leaks.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsservice/libservice/ceph/cephfs.h"

static struct cephfs_client *client;
static struct ls_instance *inst;
static const struct ls_ops *ops;
static struct ls_cred root_cred;
static struct ls_cred user_cred; /* uid 1000, gid 1000 */
static char conf_copy[64], admin_socket[64];
static long refs_at_start; /* the client's inode references before any test */

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

/*
 * A directory larger than one buffer, read to its end the way a client
 * does: each call resumes from the cookie the last one left, and the call
 * after the last entry returns 0 (end), not an error. Half of the entries
 * are then removed and the listing must end cleanly again.
 */
static int count_to_end(const char *dir)
{
    struct ls_file *d = open_as(&root_cred, dir, O_RDONLY | O_DIRECTORY, 0);
    static char buf[32768] __attribute__((aligned(8)));
    off_t pos = 0;
    int count = 0;
    ssize_t n;
    while ((n = ops->getdents(d, &root_cred, buf, sizeof buf, &pos)) > 0)
        for (ssize_t off = 0; off < n;
             off += ((struct danaus_dirent *)(buf + off))->d_reclen)
            count++;
    assert_int_equal(n, 0);
    /* Asked again at the end, it is still the end. */
    assert_int_equal(ops->getdents(d, &root_cred, buf, sizeof buf, &pos), 0);
    ops->close(d);
    return count;
}

static void test_getdents_large(void **state)
{
    (void)state;
    enum { N = 800 };
    char p[64];
    assert_int_equal(ops->mkdir(inst, &root_cred, "big", 0755), 0);
    for (int i = 0; i < N; i++) {
        snprintf(p, sizeof p, "big/entry-with-a-rather-long-name-%04d", i);
        ops->close(open_as(&root_cred, p, O_CREAT | O_WRONLY, 0644));
    }
    assert_int_equal(count_to_end("big"), N + 2);
    for (int i = 0; i < N; i += 2) {
        snprintf(p, sizeof p, "big/entry-with-a-rather-long-name-%04d", i);
        assert_int_equal(ops->unlink(inst, &root_cred, p), 0);
    }
    assert_int_equal(count_to_end("big"), N / 2 + 2);
}

/*
 * rename(2) between two names of one file does nothing and succeeds. Ceph's
 * client, given such a rename, dropped both names from its cache: the next
 * lookups and renames of them failed with ENOENT.
 */
static void test_rename_same_file(void **state)
{
    (void)state;
    char buf[16];
    struct danaus_stat st;
    write_file("same", "S");
    assert_int_equal(ops->rename(inst, &root_cred, "same", "same", 0), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "same", 0, &st), 0);
    assert_int_equal(ops->mkdir(inst, &root_cred, "samedir", 0755), 0);
    assert_int_equal(ops->rename(inst, &root_cred, "same", "samedir/s", 0), 0);
    read_file("samedir/s", buf, sizeof buf);
    assert_string_equal(buf, "S");

    assert_int_equal(ops->link(inst, &root_cred, "samedir/s", "hl"), 0);
    assert_int_equal(ops->rename(inst, &root_cred, "samedir/s", "hl", 0), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "samedir/s", 0, &st), 0);
    assert_int_equal(st.nlink, 2);
    assert_int_equal(ops->stat(inst, &root_cred, "hl", 0, &st), 0);
    assert_int_equal(ops->rename(inst, &root_cred, "hl", "samedir/s",
                                 RENAME_NOREPLACE), -EEXIST);
    assert_int_equal(ops->rename(inst, &root_cred, "missing", "missing", 0),
                     -ENOENT);
}

/* open(O_CREAT) through a dangling symlink creates the link's target, as
 * Linux does; O_EXCL and O_NOFOLLOW do not follow the link. */
static void test_create_through_symlink(void **state)
{
    (void)state;
    struct danaus_stat st;
    char buf[16];
    assert_int_equal(ops->mkdir(inst, &root_cred, "cs", 0755), 0);
    assert_int_equal(ops->symlink(inst, &root_cred, "nowhere", "cs/dang"), 0);
    assert_int_equal(open_err(&root_cred, "cs/dang", O_CREAT | O_EXCL | O_RDWR),
                     -EEXIST);
    assert_int_equal(
        open_err(&root_cred, "cs/dang", O_CREAT | O_NOFOLLOW | O_RDWR), -ELOOP);
    assert_int_equal(ops->stat(inst, &root_cred, "cs/nowhere", 0, &st),
                     -ENOENT);
    struct ls_file *f = open_as(&root_cred, "cs/dang", O_CREAT | O_WRONLY, 0600);
    off_t end;
    assert_int_equal(ops->pwrite(f, &root_cred, "T", 1, 0, &end), 1);
    ops->close(f);
    assert_int_equal(ops->stat(inst, &root_cred, "cs/nowhere", 0, &st), 0);
    assert_true(S_ISREG(st.mode));
    assert_int_equal(st.mode & 07777, 0600);
    read_file("cs/dang", buf, sizeof buf);
    assert_string_equal(buf, "T");
    /* Through a chain of links, and an absolute one from the instance root. */
    assert_int_equal(ops->symlink(inst, &root_cred, "/cs/far", "cs/abs"), 0);
    assert_int_equal(ops->symlink(inst, &root_cred, "abs", "cs/chain"), 0);
    ops->close(open_as(&root_cred, "cs/chain", O_CREAT | O_WRONLY, 0644));
    assert_int_equal(ops->stat(inst, &root_cred, "cs/far", 0, &st), 0);
    /* The target's directory must exist; a target with a trailing slash
     * asks for a directory. */
    assert_int_equal(ops->symlink(inst, &root_cred, "nodir/x", "cs/deep"), 0);
    assert_int_equal(open_err(&root_cred, "cs/deep", O_CREAT | O_RDWR),
                     -ENOENT);
    assert_int_equal(ops->symlink(inst, &root_cred, "dir/", "cs/todir"), 0);
    assert_int_equal(open_err(&root_cred, "cs/todir", O_CREAT | O_RDWR),
                     -EISDIR);
}

/* A trailing slash on the last component says "directory", as on Linux. */
static void test_trailing_slash(void **state)
{
    (void)state;
    struct danaus_stat st;
    assert_int_equal(ops->mkdir(inst, &root_cred, "ts", 0755), 0);
    write_file("ts/f", "f");
    assert_int_equal(ops->mkdir(inst, &root_cred, "ts/d/", 0755), 0);
    assert_int_equal(ops->symlink(inst, &root_cred, "d", "ts/ld"), 0);
    assert_int_equal(ops->unlink(inst, &root_cred, "ts/f/"), -ENOTDIR);
    assert_int_equal(ops->unlink(inst, &root_cred, "ts/d/"), -EISDIR);
    assert_int_equal(ops->unlink(inst, &root_cred, "ts/ld/"), -ENOTDIR);
    assert_int_equal(ops->unlink(inst, &root_cred, "ts/missing/"), -ENOENT);
    assert_int_equal(ops->stat(inst, &root_cred, "ts/f", 0, &st), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "ts/ld", AT_SYMLINK_NOFOLLOW,
                               &st), 0);

    assert_int_equal(ops->rename(inst, &root_cred, "ts/f", "ts/g/", 0),
                     -ENOTDIR);
    assert_int_equal(ops->rename(inst, &root_cred, "ts/f/", "ts/g", 0),
                     -ENOTDIR);
    assert_int_equal(ops->rename(inst, &root_cred, "ts/f", "ts/d/", 0),
                     -ENOTDIR);
    assert_int_equal(ops->stat(inst, &root_cred, "ts/f", 0, &st), 0);
    assert_int_equal(ops->rename(inst, &root_cred, "ts/d/", "ts/e/", 0), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "ts/e", 0, &st), 0);

    assert_int_equal(ops->link(inst, &root_cred, "ts/f", "ts/h/"), -ENOENT);
    assert_int_equal(ops->link(inst, &root_cred, "ts/f", "ts/e/"), -EEXIST);
    assert_int_equal(ops->symlink(inst, &root_cred, "t", "ts/s/"), -ENOENT);
    assert_int_equal(ops->symlink(inst, &root_cred, "t", "ts/f/"), -EEXIST);
    assert_int_equal(ops->stat(inst, &root_cred, "ts/h", 0, &st), -ENOENT);
    assert_int_equal(ops->stat(inst, &root_cred, "ts/s", AT_SYMLINK_NOFOLLOW,
                               &st), -ENOENT);
    assert_int_equal(ops->rmdir(inst, &root_cred, "ts/e/"), 0);
}

/* "." and ".." need search permission on the directory they leave. */
static void test_dots_need_search(void **state)
{
    (void)state;
    struct danaus_stat st;
    assert_int_equal(ops->mkdir(inst, &root_cred, "shut", 0700), 0);
    assert_int_equal(ops->mkdir(inst, &root_cred, "shut/in", 0755), 0);
    assert_int_equal(ops->mkdir(inst, &root_cred, "open", 0755), 0);
    assert_int_equal(ops->stat(inst, &user_cred, "shut/.", 0, &st), -EACCES);
    assert_int_equal(ops->stat(inst, &user_cred, "shut/..", 0, &st), -EACCES);
    assert_int_equal(ops->stat(inst, &user_cred, "shut/../open", 0, &st),
                     -EACCES);
    assert_int_equal(ops->stat(inst, &user_cred, "open/../open/.", 0, &st), 0);
    assert_int_equal(ops->stat(inst, &root_cred, "shut/./in/..", 0, &st), 0);
}

/* The sum of ll_ref over the client's inodes, from its admin socket's
 * dump_cache (Ceph's protocol: the command and a NUL; the answer's length
 * as 4 bytes in network order, then the answer). */
static long inode_refs(void)
{
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", admin_socket);
    assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof a), 0);
    const char cmd[] = "{\"prefix\": \"dump_cache\"}";
    assert_int_equal(write(s, cmd, sizeof cmd), (ssize_t)sizeof cmd);
    uint32_t len_be;
    assert_int_equal(recv(s, &len_be, sizeof len_be, MSG_WAITALL), 4);
    size_t len = ntohl(len_be);
    char *json = malloc(len + 1);
    assert_non_null(json);
    assert_int_equal(recv(s, json, len, MSG_WAITALL), (ssize_t)len);
    json[len] = '\0';
    close(s);
    long sum = 0;
    int inodes = 0;
    for (const char *p = json; (p = strstr(p, "\"ll_ref\": ")) != NULL;
         inodes++) {
        p += strlen("\"ll_ref\": ");
        sum += strtol(p, NULL, 10);
    }
    free(json);
    assert_true(inodes > 0);
    return sum;
}

/*
 * Every path walk and open gives back each inode reference it takes, on
 * success and on every error: after the tests before this one (it runs
 * last) and after a workload of both, the client's references are what they
 * were when the instance was made.
 */
static void test_no_inode_leaks(void **state)
{
    (void)state;
    struct danaus_stat st;
    char buf[64];
    assert_int_equal(ops->mkdir(inst, &root_cred, "lk", 0755), 0);
    assert_int_equal(ops->mkdir(inst, &root_cred, "lk/d", 0755), 0);
    assert_int_equal(ops->mkdir(inst, &root_cred, "lk/shut", 0700), 0);
    write_file("lk/d/f", "data");
    assert_int_equal(ops->symlink(inst, &root_cred, "d/f", "lk/s"), 0);
    assert_int_equal(ops->symlink(inst, &root_cred, "/lk/d", "lk/abs"), 0);
    assert_int_equal(ops->symlink(inst, &root_cred, "loop", "lk/loop"), 0);
    assert_int_equal(ops->symlink(inst, &root_cred, "new", "lk/dang"), 0);
    assert_int_equal(inode_refs(), refs_at_start);

    for (int i = 0; i < 20; i++) {
        struct ls_file *f = open_as(&root_cred, "lk/abs/../s", O_RDWR, 0);
        assert_int_equal(ops->fstat(f, &root_cred, &st), 0);
        ops->close(f);
        ops->close(open_as(&root_cred, "lk/d", O_RDONLY | O_DIRECTORY, 0));
        ops->close(open_as(&root_cred, "lk/dang", O_CREAT | O_WRONLY, 0644));
        ops->close(open_as(&root_cred, "lk/d/f", O_CREAT | O_RDWR, 0644));
        assert_int_equal(ops->stat(inst, &root_cred, "lk/s", 0, &st), 0);
        assert_int_equal(ops->stat(inst, &root_cred, "lk/loop", 0, &st),
                         -ELOOP);
        assert_int_equal(ops->stat(inst, &root_cred, "lk/d/f/x", 0, &st),
                         -ENOTDIR);
        assert_int_equal(ops->stat(inst, &root_cred, "lk/d/no/x", 0, &st),
                         -ENOENT);
        assert_int_equal(ops->stat(inst, &user_cred, "lk/shut/..", 0, &st),
                         -EACCES);
        assert_int_equal(open_err(&root_cred, "lk/s", O_RDONLY | O_NOFOLLOW),
                         -ELOOP);
        assert_int_equal(open_err(&root_cred, "lk/d", O_WRONLY), -EISDIR);
        assert_int_equal(open_err(&root_cred, "lk/d/f", O_CREAT | O_EXCL |
                                                            O_WRONLY),
                         -EEXIST);
        assert_int_equal(open_err(&root_cred, "lk/d/f/", O_CREAT | O_WRONLY),
                         -EISDIR);
        assert_int_equal(open_err(&user_cred, "lk/d/f", O_WRONLY), -EACCES);
        assert_int_equal(ops->readlink(inst, &root_cred, "lk/s", buf,
                                       sizeof buf), 3);
        assert_int_equal(ops->access(inst, &root_cred, "lk/s", R_OK, 0), 0);
        assert_int_equal(ops->chmod(inst, &root_cred, "lk/s", 0644, 0), 0);
        assert_int_equal(ops->truncate(inst, &root_cred, "lk/d", 0), -EISDIR);
        assert_int_equal(ops->getxattr(inst, &root_cred, "lk/s", "user.no",
                                       buf, sizeof buf, 0), -ENODATA);
        assert_int_equal(ops->link(inst, &root_cred, "lk/d/f", "lk/h"), 0);
        assert_int_equal(ops->link(inst, &root_cred, "lk/d/f", "lk/h"),
                         -EEXIST);
        assert_int_equal(ops->link(inst, &root_cred, "lk/d/f", "lk/h/"),
                         -EEXIST);
        assert_int_equal(ops->rename(inst, &root_cred, "lk/h", "lk/d/f", 0),
                         0);
        assert_int_equal(ops->rename(inst, &root_cred, "lk/h", "lk/d/g",
                                     RENAME_NOREPLACE), 0);
        assert_int_equal(ops->rename(inst, &root_cred, "lk/d/g", "lk/d/f",
                                     RENAME_NOREPLACE), -EEXIST);
        assert_int_equal(ops->rename(inst, &root_cred, "lk/d/g", "lk/d/",
                                     0), -ENOTDIR);
        assert_int_equal(ops->rename(inst, &root_cred, "lk/d/g", "lk/d/.",
                                     0), -EBUSY);
        assert_int_equal(ops->rename(inst, &root_cred, "lk/d/g/", "lk/x", 0),
                         -ENOTDIR);
        assert_int_equal(ops->unlink(inst, &root_cred, "lk/d/g/"), -ENOTDIR);
        assert_int_equal(ops->unlink(inst, &root_cred, "lk/d/g"), 0);
        assert_int_equal(ops->unlink(inst, &root_cred, "lk/new"), 0);
        assert_int_equal(ops->mkdir(inst, &root_cred, "lk/d/f", 0755),
                         -EEXIST);
        assert_int_equal(ops->rmdir(inst, &root_cred, "lk/d"), -ENOTEMPTY);
        assert_int_equal(ops->symlink(inst, &root_cred, "t", "lk/s"),
                         -EEXIST);
    }
    assert_int_equal(inode_refs(), refs_at_start);
}

/* A copy of conf that gives this client an admin socket of its own. */
static int write_conf_copy(const char *conf)
{
    snprintf(conf_copy, sizeof conf_copy, "/tmp/danaus-ceph-test.%d.conf",
             (int)getpid());
    snprintf(admin_socket, sizeof admin_socket,
             "/tmp/danaus-ceph-test.%d.asok", (int)getpid());
    FILE *in = fopen(conf, "r"), *out = fopen(conf_copy, "w");
    if (in == NULL || out == NULL)
        return -1;
    int c;
    while ((c = getc(in)) != EOF)
        putc(c, out);
    fprintf(out, "\n[client]\nadmin socket = %s\n", admin_socket);
    fclose(in);
    return fclose(out) == 0 ? 0 : -1;
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
    if (write_conf_copy(argv[1]) < 0) {
        fprintf(stderr, "cannot copy %s to %s\n", argv[1], conf_copy);
        return 1;
    }
    struct cephfs_client_options o = {.conf_path = conf_copy};
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
        cmocka_unit_test(test_getdents_large),
        cmocka_unit_test(test_xattrs),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_truncate),
        cmocka_unit_test(test_statfs),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_permissions),
        cmocka_unit_test(test_rename_same_file),
        cmocka_unit_test(test_create_through_symlink),
        cmocka_unit_test(test_trailing_slash),
        cmocka_unit_test(test_dots_need_search),
        cmocka_unit_test(test_no_inode_leaks),
    };
    refs_at_start = inode_refs();
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    cephfs_cred_release(&user_cred);
    cephfs_cred_release(&root_cred);
    ops->destroy(inst);
    cephfs_client_free(client);
    unlink(conf_copy);
    return failed;
}
