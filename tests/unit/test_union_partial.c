/*
 * test_union_partial.c - unit tests of partial copy-up in the union
 * libservice (fsservice/libservice/union/partial.c) over local-backend
 * branches: the first write leaves a sparse upper file and a hidden
 * record, reads merge both files, metadata changes copy no data,
 * truncates (O_TRUNC under an open descriptor too) and appends,
 * sequential writes kept as one range, a writer without CAP_SYS_ADMIN, a
 * new union over the same branches reading the same bytes, renames and hard links of a partial copy, the merge at the
 * extent bound and through union_copyup_whole, a record too big for the
 * top branch (the data copied instead), stat across the states, st_ino
 * and d_ino kept from the lower entry through every state (origin.c).
 * Runs as root (the record is a trusted.* xattr).
 *
 * Each test gets a fresh T/up (writable) over T/low holding "big", a
 * 1 MiB file of known bytes; every check compares with a model buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

#define BIG (1 << 20)
#define RECORD "trusted.danaus.copyup"

struct fixture {
    char top[64];
    struct ls_instance *branch[2];
    struct ls_instance *u;
    const struct ls_ops *ops;
    unsigned char model[20 * BIG];
    size_t size;
};

static const struct ls_cred root_cred = {.uid = 0, .gid = 0};
static const struct ls_cred user_cred = {.uid = 1000, .gid = 1000};

static const char *host(struct fixture *f, const char *rel)
{
    static char buf[4][4200];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", f->top, rel);
    return buf[i];
}

static int make_union(struct fixture *f)
{
    const char *names[2] = {"up", "low"};
    struct union_branch br[2] = {0};
    char err[256];
    for (int i = 0; i < 2; i++) {
        f->branch[i] = local_instance_new(host(f, names[i]), err, sizeof err);
        if (!f->branch[i])
            return -1;
        br[i].inst = f->branch[i];
        br[i].writable = i == 0;
    }
    f->u = union_instance_new(br, 2, &root_cred, err, sizeof err);
    f->ops = f->u ? f->u->ops : NULL;
    return f->u ? 0 : -1;
}

static void drop_union(struct fixture *f)
{
    f->ops->destroy(f->u);
    for (int i = 0; i < 2; i++)
        f->branch[i]->ops->destroy(f->branch[i]);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    strcpy(f->top, "/tmp/danaus-partial-test-XXXXXX");
    if (!f || !mkdtemp(f->top) || mkdir(host(f, "up"), 0755) < 0 ||
        mkdir(host(f, "low"), 0755) < 0)
        return -1;
    for (size_t i = 0; i < BIG; i++)
        f->model[i] = (unsigned char)(i * 7 + i / 4096);
    f->size = BIG;
    int fd = open(host(f, "low/big"), O_WRONLY | O_CREAT, 0644);
    if (fd < 0 || write(fd, f->model, BIG) != BIG || close(fd) < 0)
        return -1;
    *state = f;
    return make_union(f);
}

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    drop_union(f);
    nftw(f->top, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

static struct ls_file *open_u(struct fixture *f, const char *path, int flags)
{
    struct ls_file *file;
    assert_int_equal(f->ops->open(f->u, &root_cred, path, flags, 0644, &file),
                     0);
    return file;
}

/* Writes through the union and into the model. */
static void write_at(struct fixture *f, const char *path, size_t off,
                     size_t len, unsigned char seed)
{
    unsigned char *buf = malloc(len);
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)(seed + i);
    struct ls_file *file = open_u(f, path, O_WRONLY);
    assert_int_equal(f->ops->pwrite(file, &root_cred, buf, len, (off_t)off,
                                    NULL), (ssize_t)len);
    f->ops->close(file);
    if (off > f->size)
        memset(f->model + f->size, 0, off - f->size);
    memcpy(f->model + off, buf, len);
    if (off + len > f->size)
        f->size = off + len;
    free(buf);
}

/* The union file equals the model, read in odd-sized pieces. */
static void check(struct fixture *f, const char *path)
{
    struct ls_file *file = open_u(f, path, O_RDONLY);
    struct danaus_stat st;
    assert_int_equal(f->ops->fstat(file, &root_cred, &st), 0);
    assert_int_equal(st.size, f->size);
    unsigned char *buf = malloc(f->size + 1);
    size_t got = 0;
    for (;;) {
        ssize_t n = f->ops->pread(file, &root_cred, buf + got, 77777,
                                  (off_t)got);
        assert_true(n >= 0);
        if (n == 0)
            break;
        got += (size_t)n;
        assert_true(got <= f->size);
    }
    f->ops->close(file);
    assert_int_equal(got, f->size);
    assert_memory_equal(buf, f->model, f->size);
    free(buf);
}

static int has_record(struct fixture *f, const char *rel)
{
    /* The local backend leaves this thread with the identity of the last
     * client it served: a call as root gives back CAP_SYS_ADMIN, which
     * trusted.* xattrs need. */
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "", 0, &st), 0);
    return lgetxattr(host(f, rel), RECORD, NULL, 0) >= 0;
}

static struct stat host_stat(struct fixture *f, const char *rel)
{
    struct stat st;
    assert_int_equal(lstat(host(f, rel), &st), 0);
    return st;
}

static void test_first_write_is_partial(void **state)
{
    struct fixture *f = *state;
    write_at(f, "big", 100000, 4096, 1);
    assert_true(has_record(f, "up/big"));
    /* The write's 128 KiB granules, not 1 MiB. */
    assert_true(host_stat(f, "up/big").st_blocks <= 2 * 128 * 2);
    check(f, "big");
    /* The record is the union's: clients neither see nor change it. */
    char list[256];
    ssize_t n = f->ops->listxattr(f->u, &root_cred, "big", list, sizeof list,
                                  0);
    assert_true(n >= 0);
    for (ssize_t at = 0; at < n; at += (ssize_t)strlen(list + at) + 1)
        assert_string_not_equal(list + at, RECORD);
    char v[8];
    assert_int_equal(f->ops->getxattr(f->u, &root_cred, "big", RECORD, v,
                                      sizeof v, 0), -ENODATA);
    assert_int_equal(f->ops->setxattr(f->u, &root_cred, "big", RECORD, "x",
                                      1, 0, 0), -EPERM);
    assert_int_equal(f->ops->removexattr(f->u, &root_cred, "big", RECORD, 0),
                     -EPERM);
    assert_true(has_record(f, "up/big"));
}

static void test_metadata_changes_copy_no_data(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat before, after;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "big", 0, &before), 0);
    assert_int_equal(f->ops->chmod(f->u, &root_cred, "big", 0600, 0), 0);
    assert_int_equal(f->ops->chown(f->u, &root_cred, "big", 12, 34, 0), 0);
    assert_int_equal(f->ops->setxattr(f->u, &root_cred, "big", "user.k", "v",
                                      1, 0, 0), 0);
    assert_true(has_record(f, "up/big"));
    assert_int_equal(f->ops->stat(f->u, &root_cred, "big", 0, &after), 0);
    assert_int_equal(after.mode & 07777, 0600);
    assert_int_equal(after.uid, 12);
    assert_int_equal(after.size, BIG);
    assert_int_equal(after.mtime_sec, before.mtime_sec);
    assert_int_equal(after.mtime_nsec, before.mtime_nsec);
    assert_int_equal(after.blocks, before.blocks); /* the lower file's */
    const struct timespec ts[2] = {{.tv_sec = 5}, {.tv_sec = 7}};
    assert_int_equal(f->ops->utimens(f->u, &root_cred, "big", ts, 0), 0);
    check(f, "big");
}

static void test_truncate_and_extend(void **state)
{
    struct fixture *f = *state;
    write_at(f, "big", 500000, 100, 2); /* above: [384 KiB, 512 KiB) */
    /* Into the copied range, then out again: the cut lower bytes read as
     * zeros, never as the old data. */
    assert_int_equal(f->ops->truncate(f->u, &root_cred, "big", 500050), 0);
    struct ls_file *file = open_u(f, "big", O_RDWR);
    assert_int_equal(f->ops->ftruncate(file, &root_cred, 800000), 0);
    f->ops->close(file);
    memset(f->model + 500050, 0, 800000 - 500050);
    f->size = 800000;
    check(f, "big");
    assert_true(has_record(f, "up/big"));
    /* Below every copied range: only lower bytes are cut. */
    assert_int_equal(f->ops->truncate(f->u, &root_cred, "big", 3000), 0);
    assert_int_equal(f->ops->truncate(f->u, &root_cred, "big", 9000), 0);
    memset(f->model + 3000, 0, 6000);
    f->size = 9000;
    check(f, "big");
    assert_true(has_record(f, "up/big"));
    /* Nothing below is left: an ordinary file again. */
    assert_int_equal(f->ops->truncate(f->u, &root_cred, "big", 0), 0);
    assert_false(has_record(f, "up/big"));
    f->size = 0;
    check(f, "big");
}

static void test_append(void **state)
{
    struct fixture *f = *state;
    struct ls_file *file = open_u(f, "big", O_WRONLY | O_APPEND);
    off_t end;
    assert_int_equal(f->ops->pwrite(file, &root_cred, "tail", 4, -1, &end),
                     4);
    f->ops->close(file);
    assert_int_equal(end, BIG + 4);
    memcpy(f->model + BIG, "tail", 4);
    f->size = BIG + 4;
    assert_true(has_record(f, "up/big"));
    check(f, "big");
}

/* O_TRUNC cuts the upper file in the backend: a descriptor already open
 * on the partial copy must not read the old lower bytes afterwards. */
static void test_open_truncate_while_open(void **state)
{
    struct fixture *f = *state;
    write_at(f, "big", 0, 10, 12); /* partial, with one range */
    struct ls_file *reader = open_u(f, "big", O_RDONLY);
    struct ls_file *file = open_u(f, "big", O_RDWR | O_TRUNC);
    assert_int_equal(f->ops->ftruncate(file, &root_cred, 100000), 0);
    f->ops->close(file);
    unsigned char buf[100], zeros[100] = {0};
    assert_int_equal(f->ops->pread(reader, &root_cred, buf, 100, 50000), 100);
    assert_memory_equal(buf, zeros, 100);
    f->ops->close(reader);
    memset(f->model, 0, 100000);
    f->size = 100000;
    check(f, "big");
    assert_false(has_record(f, "up/big"));
}

static void test_new_union_reads_the_record(void **state)
{
    struct fixture *f = *state;
    write_at(f, "big", 0, 10, 3);
    write_at(f, "big", 700000, 20000, 4);
    drop_union(f);
    assert_int_equal(make_union(f), 0);
    check(f, "big");
    write_at(f, "big", 5, 10, 5);
    check(f, "big");
}

/* Small sequential writes grow one copied range (by granules), not one
 * range per write. */
static void test_sequential_writes_one_range(void **state)
{
    struct fixture *f = *state;
    for (int i = 0; i < 64; i++)
        write_at(f, "big", (size_t)i * 4096, 4096, (unsigned char)i);
    check(f, "big");
    assert_true(has_record(f, "up/big"));
    /* magic and branch, lower_len and count, one extent, the origin */
    assert_int_equal(lgetxattr(host(f, "up/big"), RECORD, NULL, 0),
                     8 + 16 + 16 + (ssize_t)strlen("big"));
}

static void test_rename_and_links(void **state)
{
    struct fixture *f = *state;
    write_at(f, "big", 1000, 10, 6);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "big", "moved", 0), 0);
    assert_int_equal(f->ops->link(f->u, &root_cred, "moved", "hard"), 0);
    write_at(f, "hard", 2000, 10, 7);
    check(f, "moved");
    check(f, "hard");
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &root_cred, "big", 0, &st), -ENOENT);
    /* A lower file linked before any write: both names, one partial copy. */
    assert_int_equal(f->ops->unlink(f->u, &root_cred, "moved"), 0);
    check(f, "hard");
}

static void test_merge_at_the_bound(void **state)
{
    struct fixture *f = *state;
    struct danaus_stat before, after;
    /* A 17 MiB lower file, written one byte every 256 KiB: each write
     * adds a granule apart from the others, until the bound. */
    drop_union(f);
    f->size = 17 * BIG;
    for (size_t i = BIG; i < f->size; i++)
        f->model[i] = (unsigned char)(i * 13);
    int fd = open(host(f, "low/big"), O_WRONLY);
    assert_int_equal(write(fd, f->model, f->size), (ssize_t)f->size);
    close(fd);
    assert_int_equal(make_union(f), 0);
    write_at(f, "big", 0, 1, 8);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "big", 0, &before), 0);
    int writes = 1;
    for (; writes < 100 && has_record(f, "up/big"); writes++)
        write_at(f, "big", (size_t)writes << 18, 1, (unsigned char)writes);
    assert_int_equal(writes, 65); /* the 65th granule passed the bound */
    assert_false(has_record(f, "up/big"));
    assert_true(host_stat(f, "up/big").st_blocks >= 17 * BIG / 512);
    assert_int_equal(f->ops->stat(f->u, &root_cred, "big", 0, &after), 0);
    assert_int_equal(after.ino, before.ino);
    check(f, "big");
    /* The upper file alone holds it now. */
    drop_union(f);
    assert_int_equal(rename(host(f, "low/big"), host(f, "low/gone")), 0);
    assert_int_equal(make_union(f), 0);
    check(f, "big");
}

/* A client without CAP_SYS_ADMIN writes and reads a partial copy: the
 * record is kept by the union's own identity, through the client's file. */
static void test_unprivileged_writer(void **state)
{
    struct fixture *f = *state;
    drop_union(f);
    assert_int_equal(chown(host(f, "low/big"), 1000, 1000), 0);
    assert_int_equal(make_union(f), 0);
    struct ls_file *file;
    assert_int_equal(f->ops->open(f->u, &user_cred, "big", O_RDWR, 0, &file),
                     0);
    assert_int_equal(f->ops->pwrite(file, &user_cred, "user", 4, 300000,
                                    NULL), 4);
    memcpy(f->model + 300000, "user", 4);
    char buf[8];
    assert_int_equal(f->ops->pread(file, &user_cred, buf, 8, 299998), 8);
    assert_memory_equal(buf, f->model + 299998, 8);
    f->ops->close(file);
    assert_true(has_record(f, "up/big"));
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &user_cred, "big", 0, &st), 0);
    assert_int_equal(st.uid, 1000);
    check(f, "big");
}

/* A record that the top branch cannot hold (ext4 keeps a file's xattrs in
 * one 4 KiB block; this origin path alone is 4018 bytes): the copy-up copies
 * the data instead. */
static void test_no_room_for_the_record(void **state)
{
    struct fixture *f = *state;
    drop_union(f);
    char rel[4096] = "low", path[4096] = "";
    char name[251];
    memset(name, 'd', 250);
    name[250] = '\0';
    for (int i = 0; i < 16; i++) {
        strcat(rel, "/");
        strcat(rel, name);
        assert_int_equal(mkdir(host(f, rel), 0755), 0);
        strcat(path, i ? "/" : "");
        strcat(path, name);
    }
    strcat(rel, "/f");
    strcat(path, "/f");
    int fd = open(host(f, rel), O_WRONLY | O_CREAT, 0644);
    assert_int_equal(write(fd, f->model, BIG), BIG);
    close(fd);
    assert_int_equal(make_union(f), 0);
    write_at(f, path, 4096, 10, 11);
    check(f, path);
    memcpy(rel, "up/", 3); /* the same path in the top branch */
    memmove(rel + 3, rel + 4, strlen(rel + 4) + 1);
    assert_false(has_record(f, rel));
    assert_true(host_stat(f, rel).st_blocks >= BIG / 512);
}

static void test_copyup_whole(void **state)
{
    struct fixture *f = *state;
    write_at(f, "big", 4096, 4096, 9);
    assert_int_equal(union_copyup_whole(f->u, &root_cred, "big"), 0);
    assert_false(has_record(f, "up/big"));
    int fd = open(host(f, "up/big"), O_RDONLY);
    assert_true(fd >= 0);
    unsigned char *buf = malloc(BIG);
    assert_int_equal(read(fd, buf, BIG), BIG);
    close(fd);
    assert_memory_equal(buf, f->model, BIG);
    free(buf);
}

/* st_ino of name as the union's stat reports it, and (below) as its
 * merged listing of dir reports it in d_ino. */
static uint64_t ino_of(struct fixture *f, const char *path)
{
    struct danaus_stat st;
    assert_int_equal(f->ops->stat(f->u, &root_cred, path, AT_SYMLINK_NOFOLLOW,
                                  &st), 0);
    return st.ino;
}

static uint64_t d_ino_of(struct fixture *f, const char *dir, const char *name)
{
    struct ls_file *d = open_u(f, dir, O_RDONLY | O_DIRECTORY);
    char buf[4096] __attribute__((aligned(8)));
    off_t pos = 0;
    ssize_t got;
    uint64_t ino = 0;
    while ((got = f->ops->getdents(d, &root_cred, buf, sizeof buf, &pos)) > 0)
        for (ssize_t at = 0; at < got;) {
            struct danaus_dirent *e = (struct danaus_dirent *)(buf + at);
            at += e->d_reclen;
            if (strcmp(e->d_name, name) == 0)
                ino = e->d_ino;
        }
    f->ops->close(d);
    assert_int_not_equal(ino, 0);
    return ino;
}

/* stat, fstat and d_ino of path all give ino. */
static void assert_ino(struct fixture *f, const char *dir, const char *name,
                       uint64_t ino)
{
    char path[256];
    snprintf(path, sizeof path, "%s%s%s", dir, dir[0] ? "/" : "", name);
    assert_int_equal(ino_of(f, path), ino);
    assert_int_equal(d_ino_of(f, dir, name), ino);
    struct ls_file *file = open_u(f, path, O_RDONLY);
    struct danaus_stat st;
    assert_int_equal(f->ops->fstat(file, &root_cred, &st), 0);
    f->ops->close(file);
    assert_int_equal(st.ino, ino);
}

/* A file keeps its st_ino (the lower file's) from before its first write,
 * through the partial states and the merge, under a new name and a hard
 * link, and in a new union over the same branches. */
static void test_file_keeps_st_ino(void **state)
{
    struct fixture *f = *state;
    uint64_t ino = ino_of(f, "big");
    assert_int_equal(ino, host_stat(f, "low/big").st_ino);
    assert_ino(f, "", "big", ino);
    write_at(f, "big", 4096, 100, 1);
    assert_true(has_record(f, "up/big"));
    assert_int_not_equal(host_stat(f, "up/big").st_ino, ino);
    assert_ino(f, "", "big", ino);
    write_at(f, "big", 500000, 100, 2);
    assert_ino(f, "", "big", ino);
    assert_int_equal(union_copyup_whole(f->u, &root_cred, "big"), 0);
    assert_false(has_record(f, "up/big"));
    assert_ino(f, "", "big", ino);
    assert_int_equal(f->ops->link(f->u, &root_cred, "big", "linked"), 0);
    assert_ino(f, "", "linked", ino);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "big", "moved", 0), 0);
    assert_ino(f, "", "moved", ino);
    /* Into directories that held no copy: their listings show it too. */
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "a", 0755), 0);
    assert_int_equal(f->ops->mkdir(f->u, &root_cred, "b", 0755), 0);
    assert_int_equal(f->ops->link(f->u, &root_cred, "moved", "a/l"), 0);
    assert_ino(f, "a", "l", ino);
    assert_int_equal(f->ops->rename(f->u, &root_cred, "a/l", "b/r", 0), 0);
    assert_ino(f, "b", "r", ino);
    drop_union(f);
    assert_int_equal(make_union(f), 0);
    assert_ino(f, "", "moved", ino);
    check(f, "moved");
    /* The union's own xattr is neither shown nor changed. */
    char list[256];
    ssize_t n = f->ops->listxattr(f->u, &root_cred, "moved", list,
                                  sizeof list, 0);
    for (ssize_t at = 0; at < n; at += (ssize_t)strlen(list + at) + 1)
        assert_null(strstr(list + at, "danaus"));
    assert_int_equal(f->ops->getxattr(f->u, &root_cred, "moved",
                                      "trusted.danaus.origin", list,
                                      sizeof list, 0), -ENODATA);
    assert_int_equal(f->ops->removexattr(f->u, &root_cred, "moved",
                                         "trusted.danaus.origin", 0), -EPERM);
}

/* Metadata-only copy-ups of a file, a symbolic link and a directory keep
 * st_ino; so do "." and ".." in the directory's listings. */
static void test_metadata_copyup_keeps_st_ino(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(mkdir(host(f, "low/dir"), 0755), 0);
    assert_int_equal(mkdir(host(f, "low/dir/sub"), 0755), 0);
    assert_int_equal(symlink("big", host(f, "low/sl")), 0);
    uint64_t file = ino_of(f, "big"), dir = ino_of(f, "dir");
    uint64_t sub = ino_of(f, "dir/sub"), sl = ino_of(f, "sl");
    /* Before any copy-up ".." of dir/sub is as the read-only branch lists
     * it; under a parent the top branch has of its own (not a copy) it is
     * the top's number, not the lower branch's "..". */
    assert_int_equal(d_ino_of(f, "dir/sub", ".."), dir);
    assert_int_equal(mkdir(host(f, "up/own"), 0755), 0);
    assert_int_equal(mkdir(host(f, "low/own"), 0755), 0);
    assert_int_equal(mkdir(host(f, "low/own/below"), 0755), 0);
    assert_int_equal(d_ino_of(f, "own/below", ".."),
                     host_stat(f, "up/own").st_ino);
    assert_int_equal(f->ops->chmod(f->u, &root_cred, "big", 0600, 0), 0);
    assert_int_equal(f->ops->chown(f->u, &root_cred, "sl", 7, 7,
                                   AT_SYMLINK_NOFOLLOW), 0);
    assert_int_equal(f->ops->chmod(f->u, &root_cred, "dir/sub", 0700, 0), 0);
    assert_int_not_equal(host_stat(f, "up/dir").st_ino, dir);
    assert_ino(f, "", "big", file);
    assert_ino(f, "", "dir", dir);
    assert_ino(f, "dir", "sub", sub);
    assert_int_equal(ino_of(f, "sl"), sl);
    assert_int_equal(d_ino_of(f, "", "sl"), sl);
    assert_int_equal(d_ino_of(f, "dir", "."), dir);
    assert_int_equal(d_ino_of(f, "dir/sub", "."), sub);
    assert_int_equal(d_ino_of(f, "dir/sub", ".."), dir);
    assert_int_equal(d_ino_of(f, "dir", ".."), ino_of(f, ""));
    /* A file made in the copied directory has its own number. */
    f->ops->close(open_u(f, "dir/new", O_WRONLY | O_CREAT));
    ino_t fresh = host_stat(f, "up/dir/new").st_ino;
    assert_int_equal(ino_of(f, "dir/new"), fresh);
    assert_int_equal(d_ino_of(f, "dir", "new"), fresh);
}

/* A lower file with two names: a copy of one is a distinct file from the
 * other name, so the two report distinct numbers. */
static void test_lower_hard_links_stay_distinct(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(link(host(f, "low/big"), host(f, "low/other")), 0);
    write_at(f, "big", 0, 10, 4);
    assert_int_not_equal(ino_of(f, "big"), ino_of(f, "other"));
    assert_int_not_equal(d_ino_of(f, "", "big"), d_ino_of(f, "", "other"));
    assert_int_equal(ino_of(f, "other"), host_stat(f, "low/other").st_ino);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_first_write_is_partial, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metadata_changes_copy_no_data,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate_and_extend, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_append, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_truncate_while_open, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_new_union_reads_the_record, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sequential_writes_one_range,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename_and_links, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_merge_at_the_bound, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unprivileged_writer, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_no_room_for_the_record, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copyup_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_keeps_st_ino, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metadata_copyup_keeps_st_ino,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_lower_hard_links_stay_distinct,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
