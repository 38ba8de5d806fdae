/*
 * test_union.c - unit tests of the union libservice (fsservice/libservice/union/)
 * over three local-backend branches: precedence, OCI whiteouts and opaque
 * directories, copy-up (data, mode, owner, times, xattrs, parents, once
 * under concurrent writers), merged and stable readdir, rename of lower
 * files and directories, rmdir over whiteouts, links and symlinks resolved
 * through the union, the origin st_ino of copies through renames of
 * them and of their directories. Runs as root (one test acts as uid 1000).
 *
 * Each test gets a fresh host directory T with T/up (writable), T/l1 and
 * T/l2 (read-only, l1 above l2), filled through the host before the union
 * is made, and checked through the host afterwards (the branch format).
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
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsservice/libservice/local/local.h"
#include "fsservice/libservice/union/union.h"

struct fixture {
    char top[64];
    struct ls_instance *branch[3];
    struct ls_instance *u;
    const struct ls_ops *ops;
};

static const struct ls_cred root_cred = {.uid = 0, .gid = 0};
static const struct ls_cred user_cred = {.uid = 1000, .gid = 1000};

static const char *host(struct fixture *f, const char *rel)
{
    static char buf[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", f->top, rel);
    return buf[i];
}

static void host_file(struct fixture *f, const char *rel, const char *text)
{
    int fd = open(host(f, rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void host_dir(struct fixture *f, const char *rel)
{
    assert_int_equal(mkdir(host(f, rel), 0755), 0);
}

static int host_exists(struct fixture *f, const char *rel)
{
    struct stat st;
    return lstat(host(f, rel), &st) == 0;
}

/* The lower branches every test starts from. */
static void fill(struct fixture *f)
{
    host_dir(f, "up");
    host_dir(f, "l1");
    host_dir(f, "l2");
    host_file(f, "l1/both", "from l1");
    host_file(f, "l2/both", "from l2");
    host_file(f, "l2/only2", "only in l2");
    host_file(f, "l2/gone", "whited out by l1");
    host_file(f, "l1/.wh.gone", "");
    host_dir(f, "l1/d");
    host_dir(f, "l2/d");
    host_file(f, "l1/d/a", "a1");
    host_file(f, "l2/d/a", "a2");
    host_file(f, "l2/d/b", "b2");
    host_dir(f, "l1/opq");
    host_file(f, "l1/opq/.wh..wh..opq", "");
    host_file(f, "l1/opq/mine", "mine");
    host_dir(f, "l2/opq");
    host_file(f, "l2/opq/hidden", "hidden");
    host_dir(f, "l2/deep");
    host_dir(f, "l2/deep/er");
    host_file(f, "l2/deep/er/f", "deep file");
    assert_int_equal(symlink("deep/er", host(f, "l1/link")), 0);
}

/* A lower-only directory only its owner may search, for the listings test:
 * made with the branches, before the union exists (they must not change
 * under it). */
static void fill_closed(struct fixture *f)
{
    host_dir(f, "l2/closed");
    host_file(f, "l2/closed/inside", "x");
    assert_int_equal(chmod(host(f, "l2/closed"), 0700), 0);
}

/* A directory in both lower branches, the lower one's readable by its
 * owner alone, for the kept listings' permission test. */
static void fill_private(struct fixture *f)
{
    host_dir(f, "l1/p");
    host_dir(f, "l2/p");
    host_file(f, "l2/p/secret", "x");
    assert_int_equal(chmod(host(f, "l2/p"), 0700), 0);
}

static int make_fixture(void **state, void (*extra)(struct fixture *))
{
    struct fixture *f = calloc(1, sizeof *f);
    strcpy(f->top, "/tmp/danaus-union-test-XXXXXX");
    if (!mkdtemp(f->top))
        return -1;
    fill(f);
    if (extra)
        extra(f);
    const char *names[3] = {"up", "l1", "l2"};
    struct union_branch br[3] = {0};
    char err[256];
    for (int i = 0; i < 3; i++) {
        f->branch[i] = local_instance_new(host(f, names[i]), err, sizeof err);
        if (!f->branch[i])
            return -1;
        br[i].inst = f->branch[i];
        br[i].writable = i == 0;
    }
    f->u = union_instance_new(br, 3, &root_cred, err, sizeof err);
    if (!f->u)
        return -1;
    f->ops = f->u->ops;
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return make_fixture(state, NULL);
}

static int setup_closed(void **state)
{
    return make_fixture(state, fill_closed);
}

static int setup_private(void **state)
{
    return make_fixture(state, fill_private);
}

/* Siblings whose names start alike (deep/er and deep/er64), for the walks
 * a lookup shares with the one before. */
static void fill_siblings(struct fixture *f)
{
    host_dir(f, "l2/deep/er64");
    host_file(f, "l2/deep/er64/x", "x in er64");
    host_file(f, "l2/deep/y", "y in deep");
}

static int setup_siblings(void **state)
{
    return make_fixture(state, fill_siblings);
}

/* Directories another user may or may not change: w in the top branch
 * (root's, 0755) over a world-writable w in l1, so the union's w is the
 * top's; ow and lw in l2 alone, world-writable and not. */
static void fill_writable(struct fixture *f)
{
    host_dir(f, "up/w");
    host_dir(f, "l1/w");
    host_file(f, "l1/w/f", "f");
    host_dir(f, "l2/ow");
    host_file(f, "l2/ow/g", "g");
    host_dir(f, "l2/lw");
    host_file(f, "l2/lw/g", "g");
    assert_int_equal(chmod(host(f, "up/w"), 0755), 0);
    assert_int_equal(chmod(host(f, "l1/w"), 0777), 0);
    assert_int_equal(chmod(host(f, "l2/ow"), 0777), 0);
    assert_int_equal(chmod(host(f, "l2/lw"), 0755), 0);
}

static int setup_writable(void **state)
{
    return make_fixture(state, fill_writable);
}

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw)
{
    return remove(path);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    /* The local branches switch the calling thread's identity: a test's
     * last call as another user leaves this thread unable to remove
     * root's files, so one call as root first. */
    struct danaus_stat st;
    f->ops->stat(f->u, &root_cred, "", 0, &st);
    f->ops->destroy(f->u);
    for (int i = 0; i < 3; i++)
        f->branch[i]->ops->destroy(f->branch[i]);
    nftw(f->top, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* The whole (small) file through the union, or "-errno". */
static const char *readf(struct fixture *f, const char *path)
{
    static char buf[256];
    struct ls_file *file;
    int rc = f->ops->open(f->u, &root_cred, path, O_RDONLY, 0, &file);
    if (rc < 0) {
        snprintf(buf, sizeof buf, "%d", rc);
        return buf;
    }
    ssize_t n = f->ops->pread(file, &root_cred, buf, sizeof buf - 1, 0);
    f->ops->close(file);
    buf[n < 0 ? 0 : n] = '\0';
    return buf;
}

static void writef(struct fixture *f, const char *path, int flags,
                   const char *text)
{
    struct ls_file *file;
    assert_int_equal(f->ops->open(f->u, &root_cred, path, O_WRONLY | flags,
                                  0644, &file), 0);
    off_t off = (flags & O_APPEND) ? -1 : 0;
    assert_int_equal(f->ops->pwrite(file, &root_cred, text, strlen(text),
                                    off, NULL), (ssize_t)strlen(text));
    f->ops->close(file);
}

/* The sorted names an open union directory lists from its start,
 * space-separated, "." and ".." left out; each name must appear once. */
static const char *list_open(struct fixture *f, struct ls_file *dir)
{
    static char out[1024];
    char buf[4096];
    char *names[64];
    int n = 0;
    off_t pos = 0;
    ssize_t got;
    while ((got = f->ops->getdents(dir, &root_cred, buf, sizeof buf, &pos)) >
           0) {
        for (ssize_t at = 0; at < got;) {
            struct danaus_dirent *d = (struct danaus_dirent *)(buf + at);
            at += d->d_reclen;
            if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
                names[n++] = strdup(d->d_name);
        }
    }
    assert_int_equal(got, 0);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i > 0)
            assert_string_not_equal(names[i], names[i - 1]);
        strcat(out, i ? " " : "");
        strcat(out, names[i]);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    return out;
}

/* The same of the directory at path, opened for it. */
static const char *list(struct fixture *f, const char *path)
{
    struct ls_file *dir;
    assert_int_equal(f->ops->open(f->u, &root_cred, path,
                                  O_RDONLY | O_DIRECTORY, 0, &dir), 0);
    const char *out = list_open(f, dir);
    f->ops->close(dir);
    return out;
}

static void test_precedence_and_whiteouts(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(readf(f, "both"), "from l1");
    assert_string_equal(readf(f, "only2"), "only in l2");
    assert_string_equal(readf(f, "gone"), "-2");
    assert_string_equal(readf(f, ".wh.gone"), "-2");
    assert_string_equal(readf(f, "d/a"), "a1");
    assert_string_equal(readf(f, "d/b"), "b2");
    assert_string_equal(readf(f, "opq/hidden"), "-2");
    assert_string_equal(list(f, ""), "both d deep link only2 opq");
    assert_string_equal(list(f, "d"), "a b");
    assert_string_equal(list(f, "opq"), "mine");
    host_file(f, "up/both", "from up");
    assert_string_equal(readf(f, "both"), "from up");
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "opq/hidden", 0, &st),
                     -ENOENT);
}

static void test_copyup_keeps_attributes(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(chmod(host(f, "l2/deep/er/f"), 0640), 0);
    assert_int_equal(chown(host(f, "l2/deep/er/f"), 1234, 5678), 0);
    assert_int_equal(chmod(host(f, "l2/deep/er"), 0711), 0);
    assert_int_equal(setxattr(host(f, "l2/deep/er/f"), "user.tag", "v", 1, 0),
                     0);
    struct timespec ts[2] = {{.tv_sec = 1000000, .tv_nsec = 5},
                             {.tv_sec = 2000000, .tv_nsec = 7}};
    assert_int_equal(utimensat(AT_FDCWD, host(f, "l2/deep/er/f"), ts, 0), 0);

    writef(f, "deep/er/f", O_APPEND, "+more");
    assert_string_equal(readf(f, "deep/er/f"), "deep file+more");
    struct stat st;
    assert_int_equal(stat(host(f, "up/deep/er/f"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_int_equal(st.st_uid, 1234);
    assert_int_equal(st.st_gid, 5678);
    assert_int_equal(stat(host(f, "up/deep/er"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0711);
    char v[8];
    assert_int_equal(getxattr(host(f, "up/deep/er/f"), "user.tag", v, sizeof v),
                     1);
    /* The lower branch is untouched. */
    int fd = open(host(f, "l2/deep/er/f"), O_RDONLY);
    char buf[64] = {0};
    assert_true(read(fd, buf, sizeof buf) > 0);
    close(fd);
    assert_string_equal(buf, "deep file");

    /* chmod copies up too and keeps the times it had. */
    assert_int_equal(f->ops->chmod(f->u, &root_cred, "d/b", 0600, 0), 0);
    assert_int_equal(stat(host(f, "up/d/b"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_string_equal(readf(f, "d/b"), "b2");
    struct danaus_stat ds;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "d/b", 0, &ds), 0);
    assert_int_equal(ds.mode & 07777, 0600);

    /* O_TRUNC and truncate copy no more than they keep. */
    writef(f, "only2", O_TRUNC, "new");
    assert_string_equal(readf(f, "only2"), "new");
    assert_int_equal(f->ops->truncate(f->u, &root_cred, "d/a", 1), 0);
    assert_string_equal(readf(f, "d/a"), "a");
}

static void test_copyup_refused_leaves_nothing(void **state)
{
    struct fixture *f = *state;
    struct ls_file *file;
    assert_int_equal(f->ops->open(f->u, &user_cred, "only2", O_WRONLY, 0,
                                  &file), -EACCES);
    assert_int_equal(f->ops->chmod(f->u, &user_cred, "only2", 0777, 0),
                     -EPERM);
    assert_false(host_exists(f, "up/only2"));
}

struct racer {
    struct fixture *f;
    int i;
};

#define RACERS_MAX 8

/* Runs fn in n threads (up to RACERS_MAX), each given its racer; every
 * one must answer NULL. */
static void race(struct fixture *f, void *(*fn)(void *), int n)
{
    pthread_t t[RACERS_MAX];
    struct racer r[RACERS_MAX];
    for (int i = 0; i < n; i++) {
        r[i] = (struct racer){.f = f, .i = i};
        pthread_create(&t[i], NULL, fn, &r[i]);
    }
    for (int i = 0; i < n; i++) {
        void *res;
        pthread_join(t[i], &res);
        assert_null(res);
    }
}

static void *append_line(void *arg)
{
    struct racer *r = arg;
    char line[16];
    snprintf(line, sizeof line, "\n%d", r->i);
    struct ls_file *file;
    if (r->f->ops->open(r->f->u, &root_cred, "d/b", O_WRONLY | O_APPEND, 0,
                        &file) < 0)
        return (void *)1;
    ssize_t n = r->f->ops->pwrite(file, &root_cred, line, strlen(line), -1,
                                  NULL);
    r->f->ops->close(file);
    return n == (ssize_t)strlen(line) ? NULL : (void *)1;
}

/* Two copies would each take some writers' lines and one would replace
 * the other: every line must survive. */
static void test_concurrent_first_writers_copy_once(void **state)
{
    struct fixture *f = *state;
    enum { N = RACERS_MAX };
    race(f, append_line, N);
    const char *text = readf(f, "d/b");
    assert_int_equal(strncmp(text, "b2", 2), 0);
    for (int i = 0; i < N; i++) {
        char line[16];
        snprintf(line, sizeof line, "\n%d", i);
        assert_non_null(strstr(text, line));
    }
    assert_int_equal(strlen(text), 2 + 2 * N);
}

/* Readers sharing the layers at once, each seeing what the branches
 * hold: listings, lstats and absences as they fill the layers, and
 * directories opened later, one of them fstat'ed (run under TSan too). */
static void *read_layers(void *arg)
{
    struct racer *r = arg;
    for (int k = 0; k < 200; k++) {
        struct danaus_stat st;
        struct ls_file *d;
        char buf[4096];
        off_t pos = 0;
        if (r->f->ops->stat(r->f->u, &root_cred, "d/b", 0, &st) != 0 ||
            st.size != 2 ||
            r->f->ops->stat(r->f->u, &root_cred, "d/absent", 0, &st) !=
                -ENOENT ||
            r->f->ops->open(r->f->u, &root_cred, "deep/er",
                            O_RDONLY | O_DIRECTORY, 0, &d) != 0)
            return (void *)1;
        ssize_t got = r->f->ops->getdents(d, &root_cred, buf, sizeof buf,
                                          &pos);
        int fstat_rc = (k + r->i) % 7 == 0
                           ? r->f->ops->fstat(d, &root_cred, &st)
                           : 0;
        r->f->ops->close(d);
        /* ".", ".." and "f": three records. */
        int records = 0;
        for (ssize_t at = 0; at < got; records++)
            at += ((const struct danaus_dirent *)(buf + at))->d_reclen;
        if (records != 3 || fstat_rc != 0)
            return (void *)1;
    }
    return NULL;
}

static void test_layers_read_at_once(void **state)
{
    race(*state, read_layers, 6);
}

/* Lower branches answer "is NAME here?" from listings of their
 * directories (fsservice/libservice/union/branch_listing.c): the answers are the branches' own,
 * also for names a listing does not hold and for clients that may not
 * search the directory. */
static void test_lower_listings_answer_as_branches(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    /* Listed once by the first lookup, then answered from the listing. */
    assert_int_equal(f->ops->stat(f->u, &root_cred, "d/nothere", 0, &st),
                     -ENOENT);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "d/b", 0, &st), 0);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "gone", 0, &st), -ENOENT);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "only2", 0, &st), 0);
    /* A client without search permission on a lower-only directory gets
     * EACCES from the branch, not a listing's ENOENT, nor the attributes
     * kept from root's stat there. */
    assert_int_equal(f->ops->stat(f->u, &root_cred, "closed/absent", 0, &st),
                     -ENOENT);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "closed/inside", 0, &st),
                     0);
    assert_int_equal(f->ops->stat(f->u, &user_cred, "closed/absent", 0, &st),
                     -EACCES);
    assert_int_equal(f->ops->stat(f->u, &user_cred, "closed/inside", 0, &st),
                     -EACCES);
    /* Unlinking a file of the top branch whose name no lower branch holds
     * leaves no whiteout; one a lower branch holds leaves one. */
    writef(f, "d/fresh", O_CREAT, "new");
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "d/fresh"), 0);
    assert_false(host_exists(f, "up/d/.wh.fresh"));
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "only2"), 0);
    assert_true(host_exists(f, "up/.wh.only2"));
    assert_int_equal(f->ops->stat(f->u, &root_cred, "only2", 0, &st), -ENOENT);
}

/* A merged listing reads each branch's directory whole, and keeps what a
 * read-only branch held as that directory's listing: a later lookup there
 * asks no branch again. Seen by changing the branch behind the union's
 * back, which a union never has to serve (its lower branches never
 * change): the name added after the listing stays unseen. */
static void test_merged_listing_answers_lookups(void **state)
{
    struct fixture *f = *state;
    struct ls_file *dir;
    assert_int_equal(f->ops->open(f->u, &root_cred, "d",
                                  O_RDONLY | O_DIRECTORY, 0, &dir), 0);
    assert_string_equal(list_open(f, dir), "a b");
    f->ops->close(dir);
    host_file(f, "l2/d/late", "added under the union");
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "d/late", 0, &st),
                     -ENOENT);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "d/b", 0, &st), 0);
    /* Nor does the next listing read the branch again. */
    assert_string_equal(list(f, "d"), "a b");
}

/* A read-only branch's names' attributes, once a stat answered them, are
 * answered again from the branch's layer without asking the branch: seen
 * by changing one behind the union's back, which its lower branches never
 * have. */
static void test_lower_attributes_kept(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "d/b", 0, &st), 0);
    assert_int_equal(st.size, 2);
    host_file(f, "l2/d/b", "longer");
    assert_int_equal(f->ops->stat(f->u, &root_cred, "d/b", 0, &st), 0);
    assert_int_equal(st.size, 2);
}

/* A directory of a read-only branch whose listing is kept is opened in
 * the branch only when something needs it: still refused to a client the
 * branch refuses, and answering fstat, xattrs and listings as one open
 * there. */
static void test_directories_opened_later(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(list(f, "closed"), "inside");
    struct ls_file *d;
    assert_int_equal(f->ops->open(f->u, &user_cred, "closed",
                                  O_RDONLY | O_DIRECTORY, 0, &d), -EACCES);
    assert_int_equal(f->ops->open(f->u, &root_cred, "closed",
                                  O_RDONLY | O_DIRECTORY, 0, &d), 0);
    struct danaus_stat st, by_path;
    assert_int_equal(f->ops->fstat(d, &root_cred, &st), 0);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "closed", 0, &by_path), 0);
    assert_int_equal(st.ino, by_path.ino);
    assert_int_equal(st.mode, by_path.mode);
    assert_true(d->has_attrs);
    assert_int_equal(d->attrs.ino, by_path.ino);
    char value[16];
    assert_int_equal(f->ops->fgetxattr(d, &root_cred, "user.none", value,
                                       sizeof value), -ENODATA);
    assert_string_equal(list_open(f, d), "inside");
    f->ops->close(d);
}

/* A read-only branch's kept listing goes into a merge only for a client
 * that may read the directory there, as the branch's own open would:
 * listed by root first, the directory that l1 lets anyone read and l2
 * does not still fails for another user. */
static void test_kept_listings_answer_only_readers(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(list(f, "p"), "secret");
    struct ls_file *dir;
    assert_int_equal(f->ops->open(f->u, &user_cred, "p",
                                  O_RDONLY | O_DIRECTORY, 0, &dir), 0);
    char buf[4096];
    off_t pos = 0;
    assert_int_equal(f->ops->getdents(dir, &user_cred, buf, sizeof buf, &pos),
                     -EACCES);
    f->ops->close(dir);
}

/* Who may remove or add a name is decided by the directory the union
 * shows, its topmost copy: as the kernel's overlayfs does. */
static void test_parent_topmost_copy_decides(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(f->ops->unlink(f->u, &user_cred, "w/f"), -EACCES);
    assert_int_equal(f->ops->mkdir(f->u, &user_cred, "w/new", 0755), -EACCES);
    assert_int_equal(f->ops->rename(f->u, &user_cred, "w/f", "ow/f", 0),
                     -EACCES);
    assert_string_equal(readf(f, "w/f"), "f");
    assert_int_equal(f->ops->unlink(f->u, &user_cred, "lw/g"), -EACCES);
    assert_false(host_exists(f, "up/lw"));
    assert_int_equal(f->ops->unlink(f->u, &user_cred, "ow/g"), 0);
    assert_true(host_exists(f, "up/ow/.wh.g"));
    assert_string_equal(readf(f, "ow/g"), "-2");
    assert_int_equal(f->ops->mkdir(f->u, &user_cred, "ow/new", 0755), 0);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "w/f"), 0);
    assert_true(host_exists(f, "up/w/.wh.f"));
}

static void test_unlink_rmdir_whiteouts(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "d/a"), 0);
    assert_string_equal(readf(f, "d/a"), "-2");
    assert_true(host_exists(f, "up/d/.wh.a"));
    assert_string_equal(list(f, "d"), "b");
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "d"), -ENOTEMPTY);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "d/b"), 0);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "d/b"), -ENOENT);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "d"), 0);
    assert_true(host_exists(f, "up/.wh.d"));
    assert_false(host_exists(f, "up/d"));
    assert_string_equal(list(f, ""), "both deep link only2 opq");
    /* Recreated: opaque, so the old lower entries stay deleted. */
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "d", 0755), 0);
    assert_false(host_exists(f, "up/.wh.d"));
    assert_true(host_exists(f, "up/d/.wh..wh..opq"));
    assert_string_equal(list(f, "d"), "");
    writef(f, "d/a", O_CREAT, "new a");
    assert_string_equal(readf(f, "d/a"), "new a");
    assert_string_equal(list(f, "d"), "a");
    /* A file recreated over its whiteout. */
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "both"), 0);
    assert_string_equal(readf(f, "both"), "-2");
    writef(f, "both", O_CREAT | O_EXCL, "again");
    assert_string_equal(readf(f, "both"), "again");
    assert_false(host_exists(f, "up/.wh.both"));
    /* Errors as Linux gives them. */
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "only2"), -ENOTDIR);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "deep"), -EISDIR);
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "deep", 0755), -EEXIST);
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, ".wh.x", 0755),
                     -ENOENT);
}

/* Names in directories no lower branch merges into (made in the union,
 * or opaque) are the top branch's alone: unlink and rmdir act on them
 * there at once (names.c), and must still answer as Linux does and leave
 * the union's view as if it had looked them up first. */
static void test_names_in_top_only_dirs(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "new", 0755), 0);
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "new/sub", 0755), 0);
    writef(f, "new/f", O_CREAT, "f");
    writef(f, "new/sub/x", O_CREAT, "x");
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "new/sub"), -EISDIR);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "new/none"), -ENOENT);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "new/f/"), -ENOTDIR);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "new/.wh.f"), -ENOENT);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "new/f"), -ENOTDIR);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "new/sub"), -ENOTEMPTY);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "new/none"), -ENOENT);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "new/f"), 0);
    assert_false(host_exists(f, "up/new/f"));
    assert_false(host_exists(f, "up/new/.wh.f"));
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "new/sub/x"), 0);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "new/sub/"), 0);
    assert_false(host_exists(f, "up/new/sub"));
    /* A directory holding only whiteouts and its opaque marker is empty
     * to the union, though not to the top branch's rmdir. */
    host_dir(f, "up/new/opq");
    host_file(f, "up/new/opq/.wh..wh..opq", "");
    host_file(f, "up/new/opq/.wh.gone", "");
    assert_string_equal(list(f, "new"), "opq");
    assert_string_equal(list(f, "new/opq"), "");
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "new/opq"), 0);
    assert_false(host_exists(f, "up/new/opq"));
    assert_string_equal(list(f, "new"), "");

    /* O_CREAT | O_EXCL: made there at once, EEXIST for whatever is
     * there, a link not followed; a reserved name is none of the
     * union's; in a merged directory a lower name still counts. */
    const int excl = O_CREAT | O_EXCL | O_WRONLY;
    struct ls_file *file;
    assert_int_equal(f->ops->open(f->u, &root_cred, "new/e", excl, 0644,
                                  &file), 0);
    f->ops->close(file);
    assert_true(host_exists(f, "up/new/e"));
    assert_int_equal(f->ops->open(f->u, &root_cred, "new/e", excl, 0644,
                                  &file), -EEXIST);
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "new/dir", 0755), 0);
    assert_int_equal(f->ops->open(f->u, &root_cred, "new/dir", excl, 0644,
                                  &file), -EEXIST);
    assert_int_equal(f->ops->symlink(f->u, &root_cred, "../only2", "new/l"),
                     0);
    assert_int_equal(f->ops->open(f->u, &root_cred, "new/l", excl, 0644,
                                  &file), -EEXIST);
    assert_int_equal(f->ops->open(f->u, &root_cred, "new/.wh.z", excl, 0644,
                                  &file), -ENOENT);
    assert_false(host_exists(f, "up/new/.wh.z"));
    assert_int_equal(f->ops->open(f->u, &root_cred, "d/a", excl, 0644,
                                  &file), -EEXIST);
    /* A trailing slash: what the top branch's open says of it. */
    assert_int_equal(f->ops->open(f->u, &root_cred, "new/t/", excl, 0644,
                                  &file), -EISDIR);
}

/* Through way, a name that does not exist yet: unlink and rmdir find
 * nothing, an exclusive create makes it at up_rel (once: EEXIST after),
 * and unlink removes it again. */
static void make_and_remove_through(struct fixture *f, const char *way,
                                    const char *up_rel)
{
    const int excl = O_CREAT | O_EXCL | O_WRONLY;
    struct ls_file *file;
    assert_int_equal(f->ops->unlink(f->u, &root_cred, way), -ENOENT);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, way), -ENOENT);
    assert_int_equal(f->ops->open(f->u, &root_cred, way, excl, 0644, &file),
                     0);
    f->ops->close(file);
    assert_true(host_exists(f, up_rel));
    assert_int_equal(f->ops->open(f->u, &root_cred, way, excl, 0644, &file),
                     -EEXIST);
    assert_int_equal(f->ops->unlink(f->u, &root_cred, way), 0);
    assert_false(host_exists(f, up_rel));
}

/* A caller's path aims at files outside the union through the fast ways
 * of names.c and file.c (unlink, rmdir and an exclusive create in a
 * directory only the top branch has): through "..", a relative link
 * climbing past the root and an absolute one. Each lands inside the
 * union, whose root is the top of every climb, and the files beside the
 * branches stay as they were: at the root (a merged directory), and
 * ending in the top-only directory itself, where the fast ways are taken,
 * beside whose name in the branch lies a bait of the same relative name. */
static void test_top_only_ways_stay_inside(void **state)
{
    struct fixture *f = *state;
    host_file(f, "victim", "outside");
    host_dir(f, "victim_dir");
    host_dir(f, "new");
    host_file(f, "new/bait", "outside");
    host_dir(f, "new/bait_dir");
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "new", 0755), 0);
    assert_int_equal(f->ops->symlink(f->u, &root_cred, "../../../..",
                                     "new/up"), 0);
    assert_int_equal(f->ops->symlink(f->u, &root_cred, "/", "new/root"), 0);
    const char *at_root[] = {"new/../../../victim", "new/up/victim",
                             "new/root/../victim"};
    const char *in_new[] = {"new/../../../new/bait", "new/up/new/bait",
                            "new/root/new/bait"};
    for (size_t i = 0; i < 3; i++) {
        make_and_remove_through(f, at_root[i], "up/victim");
        make_and_remove_through(f, in_new[i], "up/new/bait");
    }
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "new/up/victim_dir"),
                     -ENOENT);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "new/up/new/bait_dir"),
                     -ENOENT);
    assert_string_equal(readf(f, "new/up/new/../../victim"), "-2");
    assert_true(host_exists(f, "victim"));
    assert_true(host_exists(f, "victim_dir"));
    assert_true(host_exists(f, "new/bait"));
    assert_true(host_exists(f, "new/bait_dir"));
    assert_string_equal(readf(f, "new/up/only2"), "only in l2");
}

/* A thread's lookups in one directory reuse the walk to it (lookup.c's
 * memo); each change below must make the next lookup walk again, or it
 * answers from the directory as it was. */
static void test_walks_remembered_see_changes(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    /* Removed and made again, opaque: the lower file is gone. */
    assert_string_equal(readf(f, "deep/er/f"), "deep file");
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "deep/er/f"), 0);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "deep/er"), 0);
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "deep/er", 0755), 0);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "deep/er/f", 0, &st),
                     -ENOENT);
    writef(f, "deep/er/f", O_CREAT, "upper f");
    assert_string_equal(readf(f, "deep/er/f"), "upper f");
    /* A user's walk, then its directory closed to the user. */
    assert_int_equal(f->ops->stat(f->u, &user_cred, "d/b", 0, &st), 0);
    assert_int_equal(f->ops->chmod(f->u, &root_cred, "d", 0700, 0), 0);
    assert_int_equal(f->ops->stat(f->u, &user_cred, "d/b", 0, &st), -EACCES);
    /* Closed again through a symbolic link to it: the walk through the
     * directory the link leads to goes. */
    assert_int_equal(f->ops->chmod(f->u, &root_cred, "d", 0755, 0), 0);
    assert_int_equal(f->ops->symlink(f->u, &root_cred, "d", "to_d"), 0);
    assert_int_equal(f->ops->stat(f->u, &user_cred, "d/b", 0, &st), 0);
    assert_int_equal(f->ops->chmod(f->u, &root_cred, "to_d", 0700, 0), 0);
    assert_int_equal(f->ops->stat(f->u, &user_cred, "d/b", 0, &st), -EACCES);
    /* Another caller does not borrow the walk of the one before. */
    assert_int_equal(f->ops->stat(f->u, &root_cred, "d/b", 0, &st), 0);
    assert_int_equal(f->ops->stat(f->u, &user_cred, "d/a", 0, &st), -EACCES);
    /* A lower-only directory copied up by a file made in it: the walk
     * there must now merge the top branch, or the new name is missed. */
    assert_int_equal(f->ops->stat(f->u, &root_cred, "opq/mine", 0, &st), 0);
    writef(f, "opq/new", O_CREAT, "new");
    assert_int_equal(f->ops->stat(f->u, &root_cred, "opq/new", 0, &st), 0);
    /* A directory's mode changed through a handle (opened first: the open's
     * own walk would take the thread's memo). */
    struct ls_file *dir;
    assert_int_equal(f->ops->open(f->u, &root_cred, "opq",
                                  O_RDONLY | O_DIRECTORY, 0, &dir), 0);
    assert_int_equal(f->ops->stat(f->u, &user_cred, "opq/mine", 0, &st), 0);
    assert_int_equal(f->ops->fchmod(dir, &root_cred, 0700), 0);
    f->ops->close(dir);
    assert_int_equal(f->ops->stat(f->u, &user_cred, "opq/mine", 0, &st),
                     -EACCES);
}

/* A walk down a tree looks up one directory's names, then a sibling's:
 * the shared parents come from the walk before, and nothing else does. */
static void test_walks_shared_by_siblings(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat st;
    assert_string_equal(readf(f, "deep/er64/x"), "x in er64");
    assert_string_equal(readf(f, "deep/er/f"), "deep file");
    assert_string_equal(readf(f, "deep/er64/x"), "x in er64");
    assert_string_equal(readf(f, "deep/y"), "y in deep");
    assert_string_equal(readf(f, "deep/er/f"), "deep file");
    assert_int_equal(f->ops->stat(f->u, &root_cred, "deep/er/x", 0, &st),
                     -ENOENT);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "deep/er64/f", 0, &st),
                     -ENOENT);
    assert_string_equal(readf(f, "d/a"), "a1");
    assert_string_equal(readf(f, "deep/er/f"), "deep file");
}

/* An open directory lists what it holds at each start: names made and
 * removed since the open, a branch that joined it since (a copy-up), and
 * nothing once it is removed. */
static void test_listing_of_an_open_directory(void **state)
{
    struct fixture *f = *state;
    struct ls_file *dir;
    assert_int_equal(f->ops->open(f->u, &root_cred, "d",
                                  O_RDONLY | O_DIRECTORY, 0, &dir), 0);
    assert_string_equal(list_open(f, dir), "a b");
    writef(f, "d/c", O_CREAT, "c"); /* copies d up: the top branch joins */
    assert_string_equal(list_open(f, dir), "a b c");
    f->ops->close(dir);
    assert_int_equal(f->ops->open(f->u, &root_cred, "d",
                                  O_RDONLY | O_DIRECTORY, 0, &dir), 0);
    assert_string_equal(list_open(f, dir), "a b c");
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "d/b"), 0);
    writef(f, "d/e", O_CREAT, "e");
    assert_string_equal(list_open(f, dir), "a c e");
    f->ops->close(dir);
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "empty", 0755), 0);
    assert_int_equal(f->ops->open(f->u, &root_cred, "empty",
                                  O_RDONLY | O_DIRECTORY, 0, &dir), 0);
    writef(f, "empty/x", O_CREAT, "x");
    assert_string_equal(list_open(f, dir), "x");
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "empty/x"), 0);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "empty"), 0);
    assert_string_equal(list_open(f, dir), "");
    f->ops->close(dir);
}

static void test_readdir_stable(void **state)
{
    struct fixture *f = *state;
    struct ls_file *dir;
    assert_int_equal(f->ops->open(f->u, &root_cred, "", O_RDONLY, 0, &dir),
                     0);
    char buf[32]; /* one record per call */
    off_t pos = 0;
    int seen = 0, count = 0;
    ssize_t got;
    while ((got = f->ops->getdents(dir, &root_cred, buf, sizeof buf, &pos)) >
           0) {
        struct danaus_dirent *d = (struct danaus_dirent *)buf;
        assert_int_equal(d->d_reclen, got);
        count++;
        if (strcmp(d->d_name, "only2") == 0 || strcmp(d->d_name, "both") == 0)
            seen++;
        assert_string_not_equal(d->d_name, "newfile");
        if (count == 3) {
            writef(f, "newfile", O_CREAT, "x");
            assert_int_equal(f->ops->unlink(f->u, &root_cred, "both"), 0);
        }
    }
    assert_int_equal(got, 0);
    assert_int_equal(seen, 2);
    assert_int_equal(count, 8); /* . .. both d deep link only2 opq */
    pos = 0; /* a rewind sees the changes */
    int newfile = 0, both = 0;
    while (f->ops->getdents(dir, &root_cred, buf, sizeof buf, &pos) > 0) {
        struct danaus_dirent *d = (struct danaus_dirent *)buf;
        newfile += strcmp(d->d_name, "newfile") == 0;
        both += strcmp(d->d_name, "both") == 0;
    }
    assert_int_equal(newfile, 1);
    assert_int_equal(both, 0);
    f->ops->close(dir);
    assert_string_equal(list(f, ""), "d deep link newfile only2 opq");
}

static void test_rename(void **state)
{
    struct fixture *f = *state;
    /* A lower file. */
    assert_int_equal(f->ops->rename(f->u, &root_cred, "only2", "moved", 0),
                     0);
    assert_string_equal(readf(f, "moved"), "only in l2");
    assert_string_equal(readf(f, "only2"), "-2");
    /* A directory merged from two lower branches, with a subdirectory. */
    assert_int_equal(f->ops->rename(f->u, &root_cred, "d", "d2", 0), 0);
    assert_string_equal(readf(f, "d2/a"), "a1");
    assert_string_equal(readf(f, "d2/b"), "b2");
    assert_string_equal(readf(f, "d/a"), "-2");
    assert_int_equal(f->ops->rename(f->u, &root_cred, "deep", "d2/deep", 0),
                     0);
    assert_string_equal(readf(f, "d2/deep/er/f"), "deep file");
    assert_string_equal(list(f, ""), "both d2 link moved opq");
    /* Over an existing lower directory that is empty through the union. */
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "opq/mine"), 0);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "d2", "opq", 0), 0);
    assert_string_equal(list(f, "opq"), "a b deep");
    assert_string_equal(readf(f, "opq/hidden"), "-2");
    /* Linux's errors. */
    assert_int_equal(f->ops->rename(f->u, &root_cred, "both", "opq", 0),
                     -EISDIR);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "opq", "both", 0),
                     -ENOTDIR);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "opq", "opq/deep/x", 0),
                     -EINVAL);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "nothing", "x", 0),
                     -ENOENT);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "moved", "both",
                                    RENAME_NOREPLACE), -EEXIST);
}

static void test_links(void **state)
{
    struct fixture *f = *state;
    /* A lower symlink to a lower directory reaches a file copied up since. */
    assert_string_equal(readf(f, "link/f"), "deep file");
    writef(f, "deep/er/f", O_TRUNC, "changed");
    assert_string_equal(readf(f, "link/f"), "changed");
    char target[64];
    assert_int_equal(f->ops->readlink(f->u, &root_cred, "link", target,
                                      sizeof target), 7);
    assert_int_equal(f->ops->readlink(f->u, &root_cred, "both", target,
                                      sizeof target), -EINVAL);
    assert_int_equal(f->ops->symlink(f->u, &root_cred, "/d/b", "abs"), 0);
    assert_string_equal(readf(f, "abs"), "b2");
    /* A stat that follows a top branch's link reaches a lower file; one
     * whose target is nowhere is ENOENT, the link itself still there. */
    struct danaus_stat ls;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "abs", 0, &ls), 0);
    assert_true(S_ISREG(ls.mode));
    assert_int_equal(ls.size, 2);
    assert_int_equal(f->ops->symlink(f->u, &root_cred, "/nowhere", "dangling"),
                     0);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "dangling", 0, &ls),
                     -ENOENT);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "dangling",
                                  AT_SYMLINK_NOFOLLOW, &ls), 0);
    assert_true(S_ISLNK(ls.mode));
    assert_int_equal(f->ops->symlink(f->u, &root_cred, "x", "both"), -EEXIST);
    /* A hard link to a lower file copies it up; both names share it. */
    assert_int_equal(f->ops->link(f->u, &root_cred, "d/a", "hard"), 0);
    writef(f, "hard", O_TRUNC, "via hard");
    assert_string_equal(readf(f, "d/a"), "via hard");
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "hard", 0, &st), 0);
    assert_int_equal(st.nlink, 2);
    assert_int_equal(f->ops->link(f->u, &root_cred, "d", "dl"), -EPERM);
    struct danaus_statfs sf;
    assert_int_equal(f->ops->statfs(f->u, &root_cred, "d", &sf), 0);
    assert_true(sf.bsize > 0);
}

static uint64_t host_ino(struct fixture *f, const char *rel)
{
    struct stat st;
    assert_int_equal(lstat(host(f, rel), &st), 0);
    return st.st_ino;
}

static uint64_t union_ino(struct fixture *f, const char *path)
{
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &root_cred, path,
                                  AT_SYMLINK_NOFOLLOW, &st), 0);
    return st.ino;
}

/* A copy keeps its origin's st_ino wherever it goes, also in directories
 * whose stats the union answered before they held a copy: it remembers
 * which directories hold none, and must not be fooled by a copy moved into
 * one, nor by a directory with copies renamed to such a directory's path. */
static void test_origin_survives_moves(void **state)
{
    struct fixture *f = *state;
    uint64_t only2 = host_ino(f, "l2/only2"), both = host_ino(f, "l1/both");
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "t", 0755), 0);
    writef(f, "t/own", O_CREAT, "own");
    assert_int_equal(union_ino(f, "t/own"), host_ino(f, "up/t/own"));
    assert_int_equal(f->ops->rename(f->u, &root_cred, "both", "t/both", 0),
                     0);
    assert_int_equal(union_ino(f, "t/both"), both);
    assert_int_equal(union_ino(f, "t/own"), host_ino(f, "up/t/own"));

    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "new", 0755), 0);
    writef(f, "new/x", O_CREAT, "x");
    assert_int_equal(union_ino(f, "new/x"), host_ino(f, "up/new/x"));
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "new/x"), 0);
    assert_int_equal(f->ops->rmdir(f->u, &root_cred, "new"), 0);
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "m", 0755), 0);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "only2", "m/only2", 0),
                     0);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "m", "new", 0), 0);
    assert_int_equal(union_ino(f, "new/only2"), only2);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "t", "new/t", 0), 0);
    assert_int_equal(union_ino(f, "new/t/both"), both);
}

/* What an open of path found, against union_fstat of the open file:
 * the same attributes, so that the client's first fstat needs no call. */
static void open_answers_as_fstat(struct fixture *f, const char *path,
                                  int flags)
{
    struct ls_file *file;
    assert_int_equal(f->ops->open(f->u, &root_cred, path, flags, 0, &file),
                     0);
    struct danaus_stat st;
    assert_int_equal(f->ops->fstat(file, &root_cred, &st), 0);
    if (!file->has_attrs)
        fail_msg("%s: the open found no attributes", path);
    assert_int_equal(file->ino, st.ino);
    assert_int_equal(file->attrs.ino, st.ino);
    assert_int_equal(file->attrs.dev, st.dev);
    assert_int_equal(file->attrs.mode, st.mode);
    assert_int_equal(file->attrs.nlink, st.nlink);
    assert_int_equal(file->attrs.size, st.size);
    assert_int_equal(file->attrs.mtime_sec, st.mtime_sec);
    f->ops->close(file);
}

/* An open answers the attributes of what it opened in every branch: the
 * top branch's own files and directories, a copied-up directory (its
 * origin's st_ino), a lower branch's file; not a partial copy, whose
 * blocks change as it is merged. */
static void test_open_answers_attributes(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "t", 0755), 0);
    writef(f, "t/own", O_CREAT, "own");
    writef(f, "d/new", O_CREAT, "new"); /* copies d up */
    open_answers_as_fstat(f, "t/own", O_RDONLY);
    open_answers_as_fstat(f, "t", O_RDONLY | O_DIRECTORY);
    open_answers_as_fstat(f, "d", O_RDONLY | O_DIRECTORY);
    assert_int_equal(union_ino(f, "d"), host_ino(f, "l1/d"));
    open_answers_as_fstat(f, "only2", O_RDONLY);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "both", "t/both", 0),
                     0);
    struct ls_file *file;
    assert_int_equal(
        f->ops->open(f->u, &root_cred, "t/both", O_RDONLY, 0, &file), 0);
    assert_false(file->has_attrs);
    f->ops->close(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_precedence_and_whiteouts, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copyup_keeps_attributes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copyup_refused_leaves_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_concurrent_first_writers_copy_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layers_read_at_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_lower_listings_answer_as_branches,
                                        setup_closed, teardown),
        cmocka_unit_test_setup_teardown(test_parent_topmost_copy_decides,
                                        setup_writable, teardown),
        cmocka_unit_test_setup_teardown(test_unlink_rmdir_whiteouts, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_names_in_top_only_dirs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_top_only_ways_stay_inside, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_walks_shared_by_siblings,
                                        setup_siblings, teardown),
        cmocka_unit_test_setup_teardown(test_walks_remembered_see_changes,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_lower_attributes_kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_directories_opened_later,
                                        setup_closed, teardown),
        cmocka_unit_test_setup_teardown(test_kept_listings_answer_only_readers,
                                        setup_private, teardown),
        cmocka_unit_test_setup_teardown(test_merged_listing_answers_lookups,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_listing_of_an_open_directory,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_readdir_stable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_answers_attributes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_origin_survives_moves, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
