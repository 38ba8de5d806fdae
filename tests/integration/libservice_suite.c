/*
 * libservice_suite.c - backend-agnostic conformance suite over struct ls_ops.
 *
 * Runs the same file operations against any libservice instance and checks
 * contents and errno values, so every backend (and shims such as the union)
 * is held to one behaviour: the one Linux gives for the same calls.
 *
 *   libservice_suite local DIR     the local-directory backend rooted at DIR
 *
 * A backend is a row of backend_modes[]: how to make its instance and its
 * client credential from the arguments. All work happens in a fresh
 * directory "suite.PID" under the instance root, removed at the end, so a
 * long-lived root can be reused.
 */
#include <dirent.h>
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

#include "fsservice/libservice/local/local.h"

/* ---- backends ---- */

struct backend_mode {
    const char *name;
    const char *usage; /* the arguments after the mode name */
    int nargs;
    /* Make the instance from args[0..nargs-1]; NULL with err on failure. */
    struct ls_instance *(*make)(char **args, char *err, size_t errlen);
    /* Fill the credential of a root client. 0 or -errno. */
    int (*root_cred)(struct ls_cred *cred);
};

static struct ls_instance *make_local(char **args, char *err, size_t errlen)
{
    if (mkdir(args[0], 0755) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "mkdir %s: %s", args[0], strerror(errno));
        return NULL;
    }
    return local_instance_new(args[0], err, errlen);
}

static int plain_root_cred(struct ls_cred *cred)
{
    memset(cred, 0, sizeof *cred);
    return 0;
}

static const struct backend_mode backend_modes[] = {
    {"local", "DIR", 1, make_local, plain_root_cred},
};

/* ---- the suite ---- */

static struct ls_instance *inst;
static const struct ls_ops *ops;
static struct ls_cred cred;
static char base[64]; /* "suite.PID" */

/* base/name in one of a few rotating buffers, so a call can take two. */
static const char *in_base(const char *name)
{
    static char bufs[4][256];
    static int next;
    char *buf = bufs[next++ % 4];
    snprintf(buf, sizeof bufs[0], "%s/%s", base, name);
    return buf;
}

static struct ls_file *open_ok(const char *name, int flags, mode_t mode)
{
    struct ls_file *file = NULL;
    assert_int_equal(ops->open(inst, &cred, in_base(name), flags, mode, &file),
                     0);
    return file;
}

static int open_errno(const char *name, int flags)
{
    struct ls_file *file;
    int rc = ops->open(inst, &cred, in_base(name), flags, 0644, &file);
    if (rc == 0)
        ops->close(file);
    return rc;
}

static void put_file(const char *name, const char *text)
{
    struct ls_file *file = open_ok(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    off_t end;
    assert_int_equal(ops->pwrite(file, &cred, text, strlen(text), 0, &end),
                     (ssize_t)strlen(text));
    ops->close(file);
}

static void expect_file(const char *name, const char *text)
{
    char buf[256];
    struct ls_file *file = open_ok(name, O_RDONLY, 0);
    ssize_t n = ops->pread(file, &cred, buf, sizeof buf, 0);
    ops->close(file);
    assert_int_equal(n, (ssize_t)strlen(text));
    assert_memory_equal(buf, text, (size_t)n);
}

/* Call fn on every entry name of directory path except "." and "..". */
static void for_each_entry(const char *path, void (*fn)(const char *dir,
                                                        const char *name,
                                                        unsigned type))
{
    struct ls_file *dir;
    assert_int_equal(ops->open(inst, &cred, path, O_RDONLY | O_DIRECTORY, 0,
                               &dir),
                     0);
    assert_true(dir->is_dir);
    char buf[512];
    off_t pos = 0;
    ssize_t got;
    while ((got = ops->getdents(dir, &cred, buf, sizeof buf, &pos)) > 0) {
        for (ssize_t at = 0; at < got;) {
            struct danaus_dirent *d = (struct danaus_dirent *)(buf + at);
            if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
                fn(path, d->d_name, d->d_type);
            at += d->d_reclen;
        }
    }
    assert_int_equal(got, 0);
    ops->close(dir);
}

static void remove_entry(const char *dir, const char *name, unsigned type)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (type == DT_DIR) {
        for_each_entry(path, remove_entry);
        assert_int_equal(ops->rmdir(inst, &cred, path), 0);
    } else {
        assert_int_equal(ops->unlink(inst, &cred, path), 0);
    }
}

static int make_base(void **state)
{
    return ops->mkdir(inst, &cred, base, 0755) == 0 ? 0 : -1;
}

static int remove_base(void **state)
{
    for_each_entry(base, remove_entry);
    return ops->rmdir(inst, &cred, base) == 0 ? 0 : -1;
}

static void test_write_read_truncate(void **state)
{
    struct ls_file *file = open_ok("data", O_RDWR | O_CREAT | O_EXCL, 0644);
    assert_false(file->is_dir);
    off_t end;
    assert_int_equal(ops->pwrite(file, &cred, "hello", 5, 0, &end), 5);
    assert_int_equal(end, 5);
    assert_int_equal(ops->pwrite(file, &cred, "HELLO world", 11, 4, &end), 11);
    assert_int_equal(end, 15);

    char buf[64];
    assert_int_equal(ops->pread(file, &cred, buf, sizeof buf, 0), 15);
    assert_memory_equal(buf, "hellHELLO world", 15);
    assert_int_equal(ops->pread(file, &cred, buf, 3, 6), 3);
    assert_memory_equal(buf, "LLO", 3);
    assert_int_equal(ops->pread(file, &cred, buf, sizeof buf, 100), 0);

    assert_int_equal(ops->ftruncate(file, &cred, 4), 0);
    struct danaus_stat st;
    assert_int_equal(ops->fstat(file, &cred, &st), 0);
    assert_int_equal(st.size, 4);
    assert_true(S_ISREG(st.mode));
    assert_int_equal(ops->fsync(file, &cred, 0), 0);
    assert_int_equal(ops->fsync(file, &cred, 1), 0);
    ops->close(file);

    assert_int_equal(ops->truncate(inst, &cred, in_base("data"), 2), 0);
    expect_file("data", "he");
    file = open_ok("data", O_WRONLY | O_TRUNC, 0);
    ops->close(file);
    assert_int_equal(ops->stat(inst, &cred, in_base("data"), 0, &st), 0);
    assert_int_equal(st.size, 0);
}

static void test_append(void **state)
{
    put_file("log", "start;");
    struct ls_file *a = open_ok("log", O_WRONLY | O_APPEND, 0);
    struct ls_file *b = open_ok("log", O_WRONLY | O_APPEND, 0);
    off_t end;
    assert_int_equal(ops->pwrite(a, &cred, "one;", 4, -1, &end), 4);
    assert_int_equal(end, 10);
    assert_int_equal(ops->pwrite(b, &cred, "two;", 4, -1, &end), 4);
    assert_int_equal(end, 14);
    ops->close(a);
    ops->close(b);
    expect_file("log", "start;one;two;");
}

static int seen_mask;

static void mark_seen(const char *dir, const char *name, unsigned type)
{
    if (strcmp(name, "a") == 0 && type == DT_REG)
        seen_mask |= 1;
    else if (strcmp(name, "b") == 0 && type == DT_REG)
        seen_mask |= 2;
    else if (strcmp(name, "sub") == 0 && type == DT_DIR)
        seen_mask |= 4;
    else
        seen_mask |= 8; /* anything else is wrong */
}

static void test_directories(void **state)
{
    assert_int_equal(ops->mkdir(inst, &cred, in_base("d"), 0755), 0);
    put_file("d/a", "1");
    put_file("d/b", "2");
    assert_int_equal(ops->mkdir(inst, &cred, in_base("d/sub"), 0700), 0);

    seen_mask = 0;
    for_each_entry(in_base("d"), mark_seen);
    assert_int_equal(seen_mask, 7);

    struct danaus_stat st;
    assert_int_equal(ops->stat(inst, &cred, in_base("d/sub"), 0, &st), 0);
    assert_true(S_ISDIR(st.mode));
    assert_int_equal(st.mode & 07777, 0700);

    assert_int_equal(ops->rmdir(inst, &cred, in_base("d")), -ENOTEMPTY);
    assert_int_equal(ops->rmdir(inst, &cred, in_base("d/a")), -ENOTDIR);
    assert_int_equal(ops->unlink(inst, &cred, in_base("d/sub")), -EISDIR);
    assert_int_equal(ops->mkdir(inst, &cred, in_base("d/sub"), 0755), -EEXIST);
    assert_int_equal(ops->unlink(inst, &cred, in_base("d/a")), 0);
    assert_int_equal(ops->unlink(inst, &cred, in_base("d/a")), -ENOENT);
    assert_int_equal(ops->rmdir(inst, &cred, in_base("d/sub")), 0);
    assert_int_equal(ops->stat(inst, &cred, in_base("d/sub"), 0, &st),
                     -ENOENT);
}

static void test_open_errors(void **state)
{
    put_file("f", "x");
    assert_int_equal(ops->mkdir(inst, &cred, in_base("dir"), 0755), 0);
    assert_int_equal(open_errno("missing", O_RDONLY), -ENOENT);
    assert_int_equal(open_errno("missing/x", O_RDONLY | O_CREAT), -ENOENT);
    assert_int_equal(open_errno("f", O_WRONLY | O_CREAT | O_EXCL), -EEXIST);
    assert_int_equal(open_errno("f/x", O_RDONLY), -ENOTDIR);
    assert_int_equal(open_errno("f", O_RDONLY | O_DIRECTORY), -ENOTDIR);
    assert_int_equal(open_errno("dir", O_WRONLY), -EISDIR);
    assert_int_equal(open_errno("dir", O_RDWR), -EISDIR);

    struct ls_file *dir = open_ok("dir", O_RDONLY, 0);
    assert_true(dir->is_dir);
    ops->close(dir);
}

static void test_rename(void **state)
{
    put_file("old", "moved");
    put_file("other", "other");
    assert_int_equal(ops->rename(inst, &cred, in_base("old"), in_base("new"),
                                 0),
                     0);
    assert_int_equal(open_errno("old", O_RDONLY), -ENOENT);
    expect_file("new", "moved");

    assert_int_equal(ops->rename(inst, &cred, in_base("new"),
                                 in_base("other"), RENAME_NOREPLACE),
                     -EEXIST);
    assert_int_equal(ops->rename(inst, &cred, in_base("new"),
                                 in_base("other"), 0),
                     0);
    expect_file("other", "moved");
    assert_int_equal(ops->rename(inst, &cred, in_base("missing"),
                                 in_base("x"), 0),
                     -ENOENT);
    assert_int_equal(ops->mkdir(inst, &cred, in_base("dir"), 0755), 0);
    assert_int_equal(ops->rename(inst, &cred, in_base("other"),
                                 in_base("dir"), 0),
                     -EISDIR);
}

static void test_links(void **state)
{
    put_file("target", "via link");
    assert_int_equal(ops->link(inst, &cred, in_base("target"),
                               in_base("hard")),
                     0);
    struct danaus_stat st, lst;
    assert_int_equal(ops->stat(inst, &cred, in_base("hard"), 0, &st), 0);
    assert_int_equal(st.nlink, 2);
    assert_int_equal(ops->link(inst, &cred, in_base("target"),
                               in_base("hard")),
                     -EEXIST);

    assert_int_equal(ops->symlink(inst, &cred, "target", in_base("soft")), 0);
    char buf[64];
    assert_int_equal(ops->readlink(inst, &cred, in_base("soft"), buf,
                                   sizeof buf),
                     6);
    assert_memory_equal(buf, "target", 6);
    assert_int_equal(ops->readlink(inst, &cred, in_base("target"), buf,
                                   sizeof buf),
                     -EINVAL);
    expect_file("soft", "via link");

    assert_int_equal(ops->stat(inst, &cred, in_base("soft"), 0, &st), 0);
    assert_int_equal(ops->stat(inst, &cred, in_base("soft"),
                               AT_SYMLINK_NOFOLLOW, &lst),
                     0);
    assert_true(S_ISREG(st.mode));
    assert_true(S_ISLNK(lst.mode));
    assert_int_equal(lst.size, 6);
    assert_int_equal(open_errno("soft", O_RDONLY | O_NOFOLLOW), -ELOOP);

    assert_int_equal(ops->symlink(inst, &cred, "loop", in_base("loop")), 0);
    assert_int_equal(open_errno("loop", O_RDONLY), -ELOOP);
}

/* The instance root is "/" to every path: ".." stops there and absolute
 * symlinks start there. */
static void test_root_containment(void **state)
{
    struct danaus_stat top, up;
    assert_int_equal(ops->stat(inst, &cred, "", 0, &top), 0);
    assert_int_equal(ops->stat(inst, &cred, "../../..", 0, &up), 0);
    assert_int_equal(top.ino, up.ino);

    put_file("inner", "inside");
    char target[128];
    snprintf(target, sizeof target, "/%s/inner", base);
    assert_int_equal(ops->symlink(inst, &cred, target, in_base("abs")), 0);
    expect_file("abs", "inside");
    snprintf(target, sizeof target, "../../../../%s/inner", base);
    assert_int_equal(ops->symlink(inst, &cred, target, in_base("rel")), 0);
    expect_file("rel", "inside");
}

static void test_attributes(void **state)
{
    put_file("f", "12345");
    const char *f = in_base("f");
    assert_int_equal(ops->chmod(inst, &cred, f, 0604, 0), 0);
    const struct timespec ts[2] = {{1234, 5678}, {98765, 4321}};
    assert_int_equal(ops->utimens(inst, &cred, f, ts, 0), 0);
    assert_int_equal(ops->chown(inst, &cred, f, 123, 456, 0), 0);

    struct danaus_stat st;
    assert_int_equal(ops->stat(inst, &cred, f, 0, &st), 0);
    assert_int_equal(st.mode, S_IFREG | 0604);
    assert_int_equal(st.uid, 123);
    assert_int_equal(st.gid, 456);
    assert_int_equal(st.size, 5);
    assert_int_equal(st.atime_sec, 1234);
    assert_int_equal(st.atime_nsec, 5678);
    assert_int_equal(st.mtime_sec, 98765);
    assert_int_equal(st.mtime_nsec, 4321);

    struct ls_file *file = open_ok("f", O_RDWR, 0);
    assert_int_equal(ops->fchmod(file, &cred, 0640), 0);
    assert_int_equal(ops->fchown(file, &cred, 7, 8), 0);
    const struct timespec fts[2] = {{10, 1}, {20, 2}};
    assert_int_equal(ops->futimens(file, &cred, fts), 0);
    assert_int_equal(ops->fstat(file, &cred, &st), 0);
    assert_int_equal(st.mode & 07777, 0640);
    assert_int_equal(st.uid, 7);
    assert_int_equal(st.mtime_sec, 20);
    assert_int_equal(st.mtime_nsec, 2);
    ops->close(file);

    assert_int_equal(ops->access(inst, &cred, f, R_OK | W_OK, 0), 0);
    assert_int_equal(ops->access(inst, &cred, f, X_OK, 0), -EACCES);
    assert_int_equal(ops->access(inst, &cred, in_base("missing"), F_OK, 0),
                     -ENOENT);
}

static void test_xattrs(void **state)
{
    put_file("x", "");
    const char *x = in_base("x");
    assert_int_equal(ops->setxattr(inst, &cred, x, "user.k", "value", 5,
                                   XATTR_CREATE, 0),
                     0);
    assert_int_equal(ops->setxattr(inst, &cred, x, "user.k", "v", 1,
                                   XATTR_CREATE, 0),
                     -EEXIST);
    assert_int_equal(ops->setxattr(inst, &cred, x, "user.none", "v", 1,
                                   XATTR_REPLACE, 0),
                     -ENODATA);
    char buf[64];
    assert_int_equal(ops->getxattr(inst, &cred, x, "user.k", buf, sizeof buf,
                                   0),
                     5);
    assert_memory_equal(buf, "value", 5);
    assert_int_equal(ops->getxattr(inst, &cred, x, "user.k", buf, 2, 0),
                     -ERANGE);
    assert_int_equal(ops->listxattr(inst, &cred, x, buf, sizeof buf, 0),
                     (ssize_t)sizeof "user.k");
    assert_string_equal(buf, "user.k");

    struct ls_file *file = open_ok("x", O_RDONLY, 0);
    assert_int_equal(ops->fsetxattr(file, &cred, "user.f", "ff", 2, 0), 0);
    assert_int_equal(ops->fgetxattr(file, &cred, "user.f", buf, sizeof buf),
                     2);
    assert_int_equal(ops->flistxattr(file, &cred, NULL, 0),
                     (ssize_t)(sizeof "user.k" + sizeof "user.f"));
    assert_int_equal(ops->fremovexattr(file, &cred, "user.f"), 0);
    ops->close(file);

    assert_int_equal(ops->removexattr(inst, &cred, x, "user.k", 0), 0);
    assert_int_equal(ops->getxattr(inst, &cred, x, "user.k", buf, sizeof buf,
                                   0),
                     -ENODATA);
}

static void test_statfs(void **state)
{
    struct danaus_statfs sf, fsf;
    assert_int_equal(ops->statfs(inst, &cred, "", &sf), 0);
    assert_true(sf.bsize > 0);
    assert_true(sf.blocks > 0);
    assert_true(sf.namelen > 0);
    put_file("s", "");
    struct ls_file *file = open_ok("s", O_RDONLY, 0);
    assert_int_equal(ops->fstatfs(file, &cred, &fsf), 0);
    ops->close(file);
    assert_int_equal(fsf.type, sf.type);
    assert_int_equal(fsf.bsize, sf.bsize);
}

#define SUITE_TEST(fn) cmocka_unit_test_setup_teardown(fn, make_base, remove_base)

static int usage(void)
{
    fprintf(stderr, "usage:\n");
    for (size_t i = 0; i < sizeof backend_modes / sizeof backend_modes[0]; i++)
        fprintf(stderr, "  libservice_suite %s %s\n", backend_modes[i].name,
                backend_modes[i].usage);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    const struct backend_mode *mode = NULL;
    for (size_t i = 0; i < sizeof backend_modes / sizeof backend_modes[0]; i++)
        if (strcmp(argv[1], backend_modes[i].name) == 0)
            mode = &backend_modes[i];
    if (!mode || argc != 2 + mode->nargs)
        return usage();

    umask(0); /* as danausd: modes arrive with the client's umask applied */
    char err[256] = "";
    inst = mode->make(argv + 2, err, sizeof err);
    if (!inst) {
        fprintf(stderr, "libservice_suite: %s\n", err);
        return 1;
    }
    ops = inst->ops;
    if (mode->root_cred(&cred) < 0) {
        fprintf(stderr, "libservice_suite: cannot make a credential\n");
        return 1;
    }
    snprintf(base, sizeof base, "suite.%ld", (long)getpid());

    const struct CMUnitTest tests[] = {
        SUITE_TEST(test_write_read_truncate),
        SUITE_TEST(test_append),
        SUITE_TEST(test_directories),
        SUITE_TEST(test_open_errors),
        SUITE_TEST(test_rename),
        SUITE_TEST(test_links),
        SUITE_TEST(test_root_containment),
        SUITE_TEST(test_attributes),
        SUITE_TEST(test_xattrs),
        SUITE_TEST(test_statfs),
    };
    int failed = cmocka_run_group_tests_name(mode->name, tests, NULL, NULL);
    ops->destroy(inst);
    return failed ? 1 : 0;
}
