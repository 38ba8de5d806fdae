/*
 * test_dispatch.c - request validation in the service: descriptors written
 * by a hostile client get a clear error and touch nothing else.
 *
 * Drives dispatch() directly over real client areas and a local-directory
 * instance in a temporary directory; the bytes a client would write into
 * its slot buffer are written here by hand.
 */
#include "fsservice/core/service.h"
#include "fsservice/libservice/local/local.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>
#include <urcu.h>

#define SLOT_BUF 16384

static struct service svc;
static struct client *alice, *mallory;
static int alice_slot, mallory_slot;
static char top[PATH_MAX], root[PATH_MAX + 8], other[PATH_MAX + 8];

static int setup(void **state)
{
    snprintf(top, sizeof top, "/tmp/danaus-dispatch-XXXXXX");
    assert_non_null(mkdtemp(top));
    snprintf(root, sizeof root, "%s/root", top);
    assert_int_equal(mkdir(root, 0755), 0);

    struct ipc_geometry g = {.nqueues = 1, .ncells = 8, .nslots = 4,
                             .slot_buf = SLOT_BUF};
    assert_int_equal(client_registry_init(&svc.clients, &g, 8), 0);
    fstable_init(&svc.fs);
    hrc_init(&svc.hrc);
    char err[256];
    struct ls_instance *inst = local_instance_new(root, err, sizeof err);
    assert_non_null(inst);
    assert_int_equal(fstable_add(&svc.fs, "/mnt/t", inst), 0);
    /* Mount 1: another container's root, in mallory's view only. */
    snprintf(other, sizeof other, "%s/other", top);
    assert_int_equal(mkdir(other, 0755), 0);
    inst = local_instance_new(other, err, sizeof err);
    assert_non_null(inst);
    assert_int_equal(fstable_add(&svc.fs, "/mnt/u", inst), 1);

    struct ls_cred cred = {.uid = 0, .gid = 0};
    alice = client_new(&svc.clients, getpid(), &cred);
    mallory = client_new(&svc.clients, getpid(), &cred);
    client_view_add(alice, 0);
    client_view_add(mallory, 1);
    alice_slot = slot_assign(&svc.clients, alice);
    mallory_slot = slot_assign(&svc.clients, mallory);
    assert_true(alice_slot >= 0 && mallory_slot >= 0);
    return 0;
}

static int teardown(void **state)
{
    client_detach(&svc.clients, alice);
    client_detach(&svc.clients, mallory);
    rcu_barrier();
    client_registry_free(&svc.clients);
    fstable_destroy(&svc.fs);
    hrc_free(&svc.hrc);
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf %s", top);
    return system(cmd);
}

static unsigned char *buf_of(int slot)
{
    return ipc_slot(&alice->area, (uint32_t)slot)->buf;
}

/* A descriptor for alice with the given strings packed at buffer start. */
static struct danaus_desc desc(uint32_t call, const char *s1, const char *s2)
{
    struct danaus_desc d = {.call = call, .slot = (uint32_t)alice_slot};
    unsigned char *b = buf_of(alice_slot);
    size_t n = 0;
    if (s1) {
        memcpy(b, s1, strlen(s1) + 1);
        n = strlen(s1) + 1;
    }
    if (s2) {
        memcpy(b + n, s2, strlen(s2) + 1);
        n += strlen(s2) + 1;
    }
    d.buf_len = (uint32_t)n;
    return d;
}

static int64_t run(struct client *c, struct danaus_desc d)
{
    return dispatch(&svc, c, d.slot, d.seq, &d);
}

static int64_t open_path(const char *path, int flags)
{
    struct danaus_desc d = desc(DANAUS_CALL_OPEN, path, NULL);
    d.arg[0] = flags;
    d.arg[1] = 0644;
    return run(alice, d);
}

static void unknown_calls_get_enosys(void **state)
{
    uint32_t calls[] = {DANAUS_CALL_NONE, DANAUS_CALL_COUNT, 999,
                        UINT32_MAX};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        assert_int_equal(run(alice, desc(calls[i], "x", NULL)), -ENOSYS);
}

static void buffer_references_outside_the_slot_get_einval(void **state)
{
    struct danaus_desc d = desc(DANAUS_CALL_STAT, "", NULL);
    struct {
        uint32_t off, len;
    } bad[] = {{SLOT_BUF + 1, 0}, {SLOT_BUF - 1, 2}, {0, SLOT_BUF + 1},
               {1, UINT32_MAX}, {UINT32_MAX, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d.buf_off = bad[i].off;
        d.buf_len = bad[i].len;
        assert_int_equal(run(alice, d), -EINVAL);
    }
}

static void strings_must_end_inside_the_reference(void **state)
{
    struct danaus_desc d = desc(DANAUS_CALL_MKDIR, "abc", NULL);
    d.buf_len = 3; /* the NUL is just outside */
    assert_int_equal(run(alice, d), -EINVAL);
    /* A path longer than PATH_MAX without a NUL. */
    memset(buf_of(alice_slot), 'a', SLOT_BUF);
    d.buf_len = SLOT_BUF;
    assert_int_equal(run(alice, d), -ENAMETOOLONG);
    /* Two-string calls need both strings. */
    d = desc(DANAUS_CALL_RENAME, "a", NULL);
    assert_int_equal(run(alice, d), -EINVAL);
    struct stat st;
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/abc", root);
    assert_int_equal(stat(p, &st), -1);
}

/* A flag the wire does not define is refused before anything runs; a
 * flush carried with the call is made and said in the slot. */
static void request_flags(void **state)
{
    struct danaus_desc d = desc(DANAUS_CALL_MKDIR, "flagged", NULL);
    struct ipc_slot *s = ipc_slot(&alice->area, (uint32_t)alice_slot);
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/flagged", root);
    struct stat st;
    d.seq = 7;
    s->flushed = 0;
    for (uint32_t bit = 1; bit; bit <<= 1) {
        if (bit & DANAUS_DESC_FLAGS)
            continue;
        d.flags = bit | DANAUS_DESC_FLUSH;
        assert_int_equal(run(alice, d), -EINVAL);
    }
    assert_int_equal(s->flushed, 0);
    assert_int_equal(stat(p, &st), -1);
    d.flags = DANAUS_DESC_FLUSH;
    assert_int_equal(run(alice, d), 0);
    assert_int_equal(s->flushed, 7);
    assert_int_equal(stat(p, &st), 0);
}

/* Mount 1 exists but is not in alice's view: it does not exist for her. */
static void unknown_or_foreign_mount_gets_einval(void **state)
{
    struct danaus_desc d = desc(DANAUS_CALL_MKDIR, "dir", NULL);
    d.mount = 1;
    assert_int_equal(run(alice, d), -EINVAL);
    d.mount = 2;
    assert_int_equal(run(alice, d), -EINVAL);
    d.mount = UINT32_MAX;
    assert_int_equal(run(alice, d), -EINVAL);
    struct stat st;
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/dir", other);
    assert_int_equal(stat(p, &st), -1);
    /* mallory's own mount works for her; alice's does not. Her request
     * bytes are in her own area. */
    memcpy(ipc_slot(&mallory->area, (uint32_t)mallory_slot)->buf, "dir", 4);
    d.slot = (uint32_t)mallory_slot;
    d.mount = 1;
    assert_int_equal(run(mallory, d), 0);
    assert_int_equal(stat(p, &st), 0);
    d.mount = 0;
    assert_int_equal(run(mallory, d), -EINVAL);
}

/* A CLOSE of a batch: the listed handles and its own close; a handle not
 * open (another client's, a closed one, a forged one) is EBADF without
 * sparing the others; a count past the batch, or past the bytes sent, is
 * EINVAL and closes nothing. */
static void close_of_a_batch(void **state)
{
    int64_t h[4];
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "b%d", i);
        h[i] = open_path(name, O_CREAT | O_RDONLY);
        assert_true(h[i] > 0);
    }
    struct danaus_desc c = desc(DANAUS_CALL_CLOSE, NULL, NULL);
    c.handle = (uint64_t)h[0];
    c.arg[0] = DANAUS_CLOSE_BATCH;
    c.buf_len = DANAUS_CLOSE_BATCH * sizeof(uint64_t);
    assert_int_equal(run(alice, c), -EINVAL);
    c.arg[0] = 2;
    c.buf_len = sizeof(uint64_t);
    assert_int_equal(run(alice, c), -EINVAL);
    c.arg[0] = INT64_MIN;
    assert_int_equal(run(alice, c), -EINVAL);

    /* mallory's own handle, in her table only. */
    memcpy(ipc_slot(&mallory->area, (uint32_t)mallory_slot)->buf, "x", 2);
    struct danaus_desc o = {.call = DANAUS_CALL_OPEN,
                            .slot = (uint32_t)mallory_slot, .mount = 1,
                            .buf_len = 2, .arg = {O_CREAT | O_RDONLY, 0644}};
    int64_t theirs = run(mallory, o);
    assert_true(theirs > 0);

    uint64_t list[] = {(uint64_t)h[1], (uint64_t)theirs, (uint64_t)h[2],
                       DANAUS_HANDLE(999, 1)};
    memcpy(buf_of(alice_slot), list, sizeof list);
    c.arg[0] = 4;
    c.buf_len = sizeof list;
    assert_int_equal(run(alice, c), -EBADF);
    struct danaus_desc r = desc(DANAUS_CALL_GETFL, NULL, NULL);
    for (int i = 0; i < 3; i++) {
        r.handle = (uint64_t)h[i];
        assert_int_equal(run(alice, r), -EBADF);
    }
    r.handle = (uint64_t)h[3];
    assert_int_equal(run(alice, r), O_RDONLY);
    struct danaus_desc m = {.call = DANAUS_CALL_GETFL,
                            .slot = (uint32_t)mallory_slot, .mount = 1,
                            .handle = (uint64_t)theirs};
    assert_int_equal(run(mallory, m), O_RDONLY);
    /* Only the listed ones: no own handle. */
    memcpy(buf_of(alice_slot), &h[3], sizeof h[3]);
    c = desc(DANAUS_CALL_CLOSE, NULL, NULL);
    c.arg[0] = 1;
    c.buf_len = sizeof h[3];
    assert_int_equal(run(alice, c), 0);
    r.handle = (uint64_t)h[3];
    assert_int_equal(run(alice, r), -EBADF);
}

/* The handle names its instance: a mount field that disagrees is refused
 * (the FUSE door's hook once ran one backend's fstat on another's file). */
static void handle_with_another_mount_gets_ebadf(void **state)
{
    int64_t h = open_path("hm", O_CREAT | O_RDWR);
    assert_true(h > 0);
    struct danaus_desc d = desc(DANAUS_CALL_PWRITE, NULL, NULL);
    memcpy(buf_of(alice_slot), "xy", 2);
    d.buf_len = 2;
    d.handle = (uint64_t)h;
    for (uint32_t m = 1; m < 4; m++) {
        d.mount = m;
        assert_int_equal(run(alice, d), -EBADF);
    }
    d.mount = UINT32_MAX;
    assert_int_equal(run(alice, d), -EBADF);
    d.mount = 0;
    assert_int_equal(run(alice, d), 2);
    struct danaus_desc c = desc(DANAUS_CALL_CLOSE, NULL, NULL);
    c.handle = (uint64_t)h;
    assert_int_equal(run(alice, c), 0);
}

static void bad_handles_get_ebadf(void **state)
{
    int64_t h = open_path("f", O_CREAT | O_RDWR);
    assert_true(h > 0);
    struct danaus_desc d = desc(DANAUS_CALL_READ, NULL, NULL);
    d.arg[0] = 16;
    uint64_t forged[] = {0, (uint64_t)h + 1, (uint64_t)h ^ (1ull << 40),
                         DANAUS_HANDLE(4000, 1), UINT64_MAX};
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        d.handle = forged[i];
        assert_int_equal(run(alice, d), -EBADF);
    }
    /* Another client's handle is not valid for mallory. */
    d.handle = (uint64_t)h;
    d.slot = (uint32_t)mallory_slot;
    assert_int_equal(run(mallory, d), -EBADF);
    /* Closed: the handle is stale, and closing twice fails too. */
    struct danaus_desc c = desc(DANAUS_CALL_CLOSE, NULL, NULL);
    c.handle = (uint64_t)h;
    assert_int_equal(run(alice, c), 0);
    assert_int_equal(run(alice, c), -EBADF);
    d.slot = (uint32_t)alice_slot;
    assert_int_equal(run(alice, d), -EBADF);
}

static void bad_arguments_get_einval(void **state)
{
    assert_int_equal(open_path("g", O_CREAT | O_RDWR | 0x20000000),
                     -EINVAL);
    assert_int_equal(open_path("g", O_ACCMODE), -EINVAL);
    int64_t h = open_path("g", O_CREAT | O_RDWR);
    assert_true(h > 0);
    struct danaus_desc d = desc(DANAUS_CALL_READ, NULL, NULL);
    d.handle = (uint64_t)h;
    d.arg[0] = SLOT_BUF + 1;
    assert_int_equal(run(alice, d), -EINVAL);
    d.arg[0] = -1;
    assert_int_equal(run(alice, d), -EINVAL);
    d.call = DANAUS_CALL_PREAD;
    d.arg[0] = 4;
    d.arg[1] = -5;
    assert_int_equal(run(alice, d), -EINVAL);
    d.call = DANAUS_CALL_LSEEK;
    d.arg[0] = 0;
    d.arg[1] = 77;
    assert_int_equal(run(alice, d), -EINVAL);
    struct danaus_desc u = desc(DANAUS_CALL_UTIMENS, "g", NULL);
    u.arg[1] = 1000000000;
    assert_int_equal(run(alice, u), -EINVAL);
}

static void paths_cannot_leave_the_instance(void **state)
{
    int64_t h = open_path("../../../escape", O_CREAT | O_WRONLY);
    assert_true(h > 0);
    char inside[2 * PATH_MAX], outside[2 * PATH_MAX];
    snprintf(inside, sizeof inside, "%s/escape", root);
    snprintf(outside, sizeof outside, "%s/escape", top);
    struct stat st;
    assert_int_equal(stat(inside, &st), 0);
    assert_int_equal(stat(outside, &st), -1);
    /* A symlink to an absolute host path resolves inside the instance. */
    assert_int_equal(run(alice, desc(DANAUS_CALL_SYMLINK, "/etc", "hostetc")), 0);
    assert_int_equal(open_path("hostetc/passwd", O_RDONLY), -ENOENT);
}

static void data_round_trip_and_offset(void **state)
{
    int64_t h = open_path("data", O_CREAT | O_RDWR | O_TRUNC);
    assert_true(h > 0);
    struct danaus_desc w = desc(DANAUS_CALL_WRITE, NULL, NULL);
    w.handle = (uint64_t)h;
    memcpy(buf_of(alice_slot), "hello world", 11);
    w.buf_len = 11;
    assert_int_equal(run(alice, w), 11);

    struct danaus_desc seek = desc(DANAUS_CALL_LSEEK, NULL, NULL);
    seek.handle = (uint64_t)h;
    seek.arg[0] = 6;
    seek.arg[1] = SEEK_SET;
    assert_int_equal(run(alice, seek), 6);
    /* The offset the seek moved is the read's. */
    struct danaus_desc r = desc(DANAUS_CALL_READ, NULL, NULL);
    r.handle = (uint64_t)h;
    r.arg[0] = 100;
    assert_int_equal(run(alice, r), 5);
    assert_memory_equal(buf_of(alice_slot), "world", 5);
    /* An open that says it saw a regular file reads the same bytes, and
     * the open file's flags are the open's alone. */
    int64_t seen = open_path("data", O_RDONLY | DANAUS_OPEN_SEEN_REGULAR);
    assert_true(seen > 0);
    struct danaus_desc fl = desc(DANAUS_CALL_GETFL, NULL, NULL);
    fl.handle = (uint64_t)seen;
    assert_int_equal(run(alice, fl), O_RDONLY);
    r.handle = (uint64_t)seen;
    assert_int_equal(run(alice, r), 11);
    assert_memory_equal(buf_of(alice_slot), "hello world", 11);
    /* Reading through a write-only open file is EBADF, as in the kernel. */
    int64_t wo = open_path("data", O_WRONLY);
    r.handle = (uint64_t)wo;
    assert_int_equal(run(alice, r), -EBADF);
}

/* O_PATH: a handle for fstat and friends only, as Linux's O_PATH. */
static void path_only_opens_refuse_io(void **state)
{
    assert_int_equal(run(alice, desc(DANAUS_CALL_MKDIR, "pdir", NULL)), 0);
    int64_t h = open_path("pdir", O_PATH | O_DIRECTORY | O_RDWR | O_TRUNC);
    assert_true(h > 0); /* other flags are ignored, as Linux ignores them */
    struct danaus_desc st = desc(DANAUS_CALL_STAT, "", NULL);
    st.handle = (uint64_t)h;
    assert_int_equal(run(alice, st), 0);
    assert_true(S_ISDIR(((struct danaus_stat *)buf_of(alice_slot))->mode));
    struct danaus_desc rd = desc(DANAUS_CALL_GETDENTS, NULL, NULL);
    rd.handle = (uint64_t)h;
    rd.arg[0] = 4096;
    assert_int_equal(run(alice, rd), -EBADF);
    struct danaus_desc ch = desc(DANAUS_CALL_CHMOD, "", NULL);
    ch.handle = (uint64_t)h;
    ch.arg[0] = 0700;
    assert_int_equal(run(alice, ch), -EBADF);
    struct danaus_desc fl = desc(DANAUS_CALL_GETFL, NULL, NULL);
    fl.handle = (uint64_t)h;
    assert_int_equal(run(alice, fl) & (O_PATH | O_DIRECTORY),
                     O_PATH | O_DIRECTORY);
    assert_int_equal(open_path("nothere", O_PATH), -ENOENT);
}

/* A listing of ls with attributes asked as want: the number of records
 * with attributes, each checked against lstat of its file in the
 * directory now named dir; "." and ".." never have any, nor
 * (DANAUS_LISTING_ATTRS_DIRS) any but directories. */
static int listed_with_attributes(int64_t h, int want, const char *dir)
{
    struct danaus_desc rewind = desc(DANAUS_CALL_LSEEK, NULL, NULL);
    rewind.handle = (uint64_t)h;
    rewind.arg[1] = SEEK_SET;
    assert_int_equal(run(alice, rewind), 0);
    struct danaus_desc rd = desc(DANAUS_CALL_GETDENTS, "ls", NULL);
    rd.handle = (uint64_t)h;
    rd.arg[0] = SLOT_BUF;
    rd.arg[1] = want;
    int64_t n = run(alice, rd);
    assert_true(n > 0 && (uint64_t)n <= DANAUS_DIRENT_PLUS_ROOM(SLOT_BUF));
    const unsigned char *b = buf_of(alice_slot);
    const struct danaus_stat *attrs =
        (const void *)(b + DANAUS_DIRENT_ATTRS_AT(n));
    int records = 0, seen = 0;
    for (int64_t at = 0; at < n; records++)
        at += ((const struct danaus_dirent *)(b + at))->d_reclen;
    const unsigned char *no_xattrs = (const void *)(attrs + records);
    for (int64_t at = 0; at < n; attrs++, no_xattrs++) {
        const struct danaus_dirent *d = (const void *)(b + at);
        char path[2 * PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, d->d_name);
        struct stat st;
        assert_int_equal(lstat(path, &st), 0);
        bool dots = strcmp(d->d_name, ".") == 0 ||
                    strcmp(d->d_name, "..") == 0;
        if (dots || (want == DANAUS_LISTING_ATTRS_DIRS &&
                     !S_ISDIR(st.st_mode))) {
            assert_int_equal(attrs->ino, 0);
        } else {
            assert_int_equal(attrs->ino, st.st_ino);
            assert_int_equal(attrs->mode, st.st_mode);
            seen++;
        }
        /* "one" has a user xattr, the others none. */
        if (want == DANAUS_LISTING_ATTRS_XATTRS)
            assert_int_equal(*no_xattrs,
                             !dots && strcmp(d->d_name, "one") != 0);
        at += d->d_reclen;
    }
    return seen;
}

/* A listing with attributes: each record's as STAT of dir/name (no
 * attributes for "." and ".."), or directories' alone, the records cut to
 * fit beside them; a flag other than those, or no directory path, is
 * EINVAL. */
static void listing_with_attributes(void **state)
{
    assert_int_equal(run(alice, desc(DANAUS_CALL_MKDIR, "ls", NULL)), 0);
    assert_true(open_path("ls/one", O_CREAT | O_WRONLY) > 0);
    assert_int_equal(run(alice, desc(DANAUS_CALL_SYMLINK, "one", "ls/two")),
                     0);
    assert_int_equal(run(alice, desc(DANAUS_CALL_MKDIR, "ls/three", NULL)),
                     0);
    int64_t h = open_path("ls", O_RDONLY | O_DIRECTORY);
    assert_true(h > 0);
    struct danaus_desc rd = desc(DANAUS_CALL_GETDENTS, NULL, NULL);
    rd.handle = (uint64_t)h;
    rd.arg[0] = SLOT_BUF;
    rd.arg[1] = 4;
    assert_int_equal(run(alice, rd), -EINVAL);
    rd.arg[1] = DANAUS_LISTING_ATTRS_ALL;
    memset(buf_of(alice_slot), 'x', SLOT_BUF);
    rd.buf_len = SLOT_BUF;
    assert_int_equal(run(alice, rd), -ENAMETOOLONG);

    assert_int_equal(listed_with_attributes(h, DANAUS_LISTING_ATTRS_ALL, "ls"),
                     3);
    assert_int_equal(
        listed_with_attributes(h, DANAUS_LISTING_ATTRS_DIRS, "ls"), 1);
    char one[2 * PATH_MAX];
    snprintf(one, sizeof one, "%s/ls/one", root);
    assert_int_equal(setxattr(one, "user.mark", "x", 1, 0), 0);
    assert_int_equal(
        listed_with_attributes(h, DANAUS_LISTING_ATTRS_XATTRS, "ls"), 3);
    /* The names are looked up in the open directory, as fstatat on its
     * descriptor would, though the path the client still sends (ls) no
     * longer leads there. */
    assert_int_equal(run(alice, desc(DANAUS_CALL_RENAME, "ls", "moved")), 0);
    assert_int_equal(
        listed_with_attributes(h, DANAUS_LISTING_ATTRS_ALL, "moved"), 3);
}

/* A doorbell is a claim: it is served only if the client it names owns
 * the slot and posted that sequence there, and only once. */
static void doorbells_are_checked_against_the_area(void **state)
{
    (void)state;
    struct danaus_desc out;
    struct ipc_slot *s = ipc_slot(&alice->area, (uint32_t)alice_slot);
    uint32_t a = alice->index, m = mallory->index, slot = (uint32_t)alice_slot;
    struct ipc_bell bad[] = {
        {IPC_MAX_CLIENTS, slot, 1}, {UINT32_MAX, slot, 1},
        {a + m + 7, slot, 1},  /* nobody there */
        {a, slot, 1},          /* nothing posted yet */
        {a, 3, 0},             /* a slot alice does not own */
        {a, UINT32_MAX, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_null(client_request_begin(&svc.clients, bad[i], &out));

    struct danaus_desc d = {.call = DANAUS_CALL_STAT, .mount = 0};
    ipc_post(s, &d, 1);
    /* The wrong sequence, or mallory's index on alice's slot number. */
    assert_null(client_request_begin(&svc.clients,
                                     (struct ipc_bell){a, slot, 2}, &out));
    assert_null(client_request_begin(
        &svc.clients, (struct ipc_bell){m, (uint32_t)mallory_slot, 1}, &out));
    struct client *c = client_request_begin(&svc.clients,
                                            (struct ipc_bell){a, slot, 1},
                                            &out);
    assert_ptr_equal(c, alice);
    assert_int_equal(out.call, DANAUS_CALL_STAT);
    /* Rung again: already served. */
    assert_null(client_request_begin(&svc.clients,
                                     (struct ipc_bell){a, slot, 1}, &out));
    /* Posted again before its answer: not taken while 1 runs, taken once
     * it has ended. */
    d.call = DANAUS_CALL_LSEEK;
    ipc_post(s, &d, 2);
    assert_null(client_request_begin(&svc.clients,
                                     (struct ipc_bell){a, slot, 2}, &out));
    client_request_end(c, slot);
    client_put(c);
    c = client_request_begin(&svc.clients, (struct ipc_bell){a, slot, 2},
                             &out);
    assert_ptr_equal(c, alice);
    assert_int_equal(out.call, DANAUS_CALL_LSEEK);
    client_request_end(c, slot);
    client_put(c);
}

static int64_t close_handle(int64_t h)
{
    struct danaus_desc c = desc(DANAUS_CALL_CLOSE, NULL, NULL);
    c.handle = (uint64_t)h;
    return run(alice, c);
}

/* A read-only instance (run --read-only) takes no change: EROFS, whatever
 * the call, and O_CREAT creates nothing but still opens what exists. */
static void read_only_instance_refuses_changes(void **state)
{
    int64_t h = open_path("kept", O_CREAT | O_WRONLY);
    assert_true(h > 0);
    rcu_read_lock();
    struct ls_instance *inst = fstable_get(&svc.fs, 0);
    rcu_read_unlock();
    inst->read_only = true;

    assert_int_equal(run(alice, desc(DANAUS_CALL_MKDIR, "dir", NULL)), -EROFS);
    assert_int_equal(run(alice, desc(DANAUS_CALL_UNLINK, "kept", NULL)),
                     -EROFS);
    assert_int_equal(
        run(alice, desc(DANAUS_CALL_RENAME, "kept", "moved")), -EROFS);
    struct danaus_desc ch = desc(DANAUS_CALL_CHMOD, "kept", NULL);
    ch.arg[0] = 0600;
    assert_int_equal(run(alice, ch), -EROFS);
    /* Through a handle opened before, too. */
    struct danaus_desc w = desc(DANAUS_CALL_WRITE, NULL, NULL);
    w.handle = (uint64_t)h;
    memcpy(buf_of(alice_slot), "x", 1);
    w.buf_len = 1;
    assert_int_equal(run(alice, w), -EROFS);

    assert_int_equal(open_path("kept", O_WRONLY), -EROFS);
    assert_int_equal(open_path("kept", O_RDONLY | O_TRUNC), -EROFS);
    assert_int_equal(open_path("absent", O_CREAT | O_RDONLY), -EROFS);
    assert_int_equal(open_path("kept", O_CREAT | O_EXCL | O_RDONLY), -EEXIST);
    int64_t r = open_path("kept", O_CREAT | O_RDONLY);
    assert_true(r > 0);

    struct danaus_desc sf = desc(DANAUS_CALL_STATFS, "", NULL);
    assert_int_equal(run(alice, sf), 0);
    const struct danaus_statfs *out = (const void *)buf_of(alice_slot);
    assert_true(out->flags & ST_RDONLY);

    inst->read_only = false;
    assert_int_equal(run(alice, desc(DANAUS_CALL_MKDIR, "dir", NULL)), 0);
    assert_int_equal(close_handle(h), 0);
    assert_int_equal(close_handle(r), 0);
}

int main(void)
{
    rcu_register_thread();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unknown_calls_get_enosys),
        cmocka_unit_test(buffer_references_outside_the_slot_get_einval),
        cmocka_unit_test(strings_must_end_inside_the_reference),
        cmocka_unit_test(request_flags),
        cmocka_unit_test(unknown_or_foreign_mount_gets_einval),
        cmocka_unit_test(handle_with_another_mount_gets_ebadf),
        cmocka_unit_test(bad_handles_get_ebadf),
        cmocka_unit_test(bad_arguments_get_einval),
        cmocka_unit_test(paths_cannot_leave_the_instance),
        cmocka_unit_test(data_round_trip_and_offset),
        cmocka_unit_test(close_of_a_batch),
        cmocka_unit_test(listing_with_attributes),
        cmocka_unit_test(path_only_opens_refuse_io),
        cmocka_unit_test(doorbells_are_checked_against_the_area),
        cmocka_unit_test(read_only_instance_refuses_changes),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    rcu_unregister_thread();
    return rc;
}
