/*
 * attacks.c - hostile clients against a real danausd (issue 10): each
 * attack runs in a process of its own while checker clients write and read
 * their own files byte for byte. Every attack must fail closed: the
 * attacker gets errors (or nothing), the service stays up, the checkers
 * see no error and no foreign data.
 *
 *   security_attacks DANAUSD [local | ceph CEPH_CONF]
 *
 * DANAUS_FUZZ_SECONDS sets the fuzzer's length (default 30);
 * DANAUS_SECURITY_FILTER runs only the tests matching its pattern.
 */
#include "raw_client.h"
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#define MOUNT_A "/sec-a"
#define MOUNT_B "/sec-b"
#define NOBODY 65534
#define CLIENT_SLOTS 8
#define CLIENT_LOCKS 64
#define CHECK_SECONDS 3
#define HONEST_UID 4242
#define HOG_UID 4243
#define HOG2_UID 4244

static const char *danausd;
static const char *ceph_conf; /* NULL: local backend */

static struct site site;
static struct daemon daemon_;
static char sock[600], host_a[PATH_MAX], host_b[PATH_MAX];

/* ---- the service ---- */

/* A mount line for mount point mp over a fresh directory under the site
 * (local) or CephFS's root; the directory is made world-writable with the
 * sticky bit, so an unprivileged attacker may make files of its own but
 * not touch others'. */
static void mount_line(char *out, size_t cap, const char *mp, char *host,
                       const char *name)
{
    snprintf(host, PATH_MAX, "%s/%s", site.dir, name);
    assert_int_equal(mkdir(host, 01777), 0);
    assert_int_equal(chmod(host, 01777), 0);
    if (ceph_conf)
        snprintf(out, cap, "mount %s ceph /\n", mp);
    else
        snprintf(out, cap, "mount %s local %s\n", mp, host);
}

static pid_t spawn(int (*fn)(void *), void *arg);
static int reap(pid_t pid, int timeout_s);

/* CephFS's root, as the mounts' directory: mode 01777 (see mount_line). */
static int open_ceph_root(void *arg)
{
    (void)arg;
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attach");
    int slot = raw_slot(&r);
    struct danaus_desc d = {.call = DANAUS_CALL_CHMOD,
                            .mount = raw_mount(&r, MOUNT_A)};
    d.arg[0] = 01777;
    CHILD_CHECK(slot >= 0 && raw_call(&r, (uint32_t)slot, &d, "", 1, 10000) ==
                                 0,
                "chmod of CephFS's root");
    return 0;
}

/* start, with exe in danausd's place. */
static void start_exe(const char *tag, const char *extra, const char *exe)
{
    assert_int_equal(site_make(&site, tag), 0);
    assert_int_equal(chmod(site.dir, 0755), 0);
    char a[PATH_MAX + 64], b[PATH_MAX + 64], ceph[PATH_MAX + 64] = "";
    mount_line(a, sizeof a, MOUNT_A, host_a, "a");
    mount_line(b, sizeof b, MOUNT_B, host_b, "b");
    if (ceph_conf)
        snprintf(ceph, sizeof ceph, "ceph_conf %s\n", ceph_conf);
    assert_int_equal(site_write_config(&site,
                                       "fuse off\nclient_slots %d\n%s%s%s%s",
                                       CLIENT_SLOTS, ceph, a, b, extra),
                     0);
    assert_int_equal(daemon_start(&daemon_, exe, &site, "danausd", 30000),
                     0);
    snprintf(sock, sizeof sock, "%s/%s.sock", site.rundir, site.service);
    if (ceph_conf)
        assert_int_equal(reap(spawn(open_ceph_root, NULL), 30), 0);
}

static void start(const char *tag, const char *extra)
{
    start_exe(tag, extra, danausd);
}

/* The FUSE mount of a service start_fuse_exe started. */
static char fuse_mp[PATH_MAX];

/* start_exe, for a service whose one mount (local, over host_a) has its
 * FUSE door, at fuse_mp, open to every user (the door's own checks, and
 * the directory's sticky bit, as mount_line says). */
static void start_fuse_exe(const char *tag, const char *extra,
                           const char *exe)
{
    assert_int_equal(site_make(&site, tag), 0);
    assert_int_equal(chmod(site.dir, 0755), 0);
    char a[PATH_MAX + 64];
    snprintf(fuse_mp, sizeof fuse_mp, "%s/fuse", site.dir);
    mount_line(a, sizeof a, fuse_mp, host_a, "a");
    assert_int_equal(site_write_config(&site,
                                       "fuse_keep 0\nfuse_allow_other on\n"
                                       "%s%s",
                                       a, extra),
                     0);
    assert_int_equal(daemon_start(&daemon_, exe, &site, "danausd", 30000),
                     0);
}

static int stop(void **state)
{
    (void)state;
    if (!site.dir[0])
        return 0; /* the test was skipped before starting a service */
    /* The service must still be up, and stop cleanly. */
    int alive = daemon_.pid && kill(daemon_.pid, 0) == 0;
    int rc = alive && daemon_stop(&daemon_) == 0 ? 0 : -1;
    if (rc < 0) {
        static char log[65536];
        fprintf(stderr, "danausd log:\n%s\n",
                daemon_log_text(&daemon_, log, sizeof log));
    }
    site_remove(&site);
    memset(&site, 0, sizeof site);
    memset(&daemon_, 0, sizeof daemon_);
    return rc;
}

/* ---- processes ---- */

static pid_t spawn(int (*fn)(void *), void *arg)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn(arg));
    return pid;
}

/* The child's exit code, 128 + signal, or -1 after timeout_s (killed). */
static int reap(pid_t pid, int timeout_s)
{
    for (int i = 0; i < timeout_s * 100; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status)
                                     : 128 + WTERMSIG(status);
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static void become(uid_t uid)
{
    CHILD_CHECK(setgroups(0, NULL) == 0, "setgroups: %s", strerror(errno));
    CHILD_CHECK(setgid(uid) == 0, "setgid: %s", strerror(errno));
    CHILD_CHECK(setuid(uid) == 0, "setuid: %s", strerror(errno));
}

static uint64_t seconds_from_now(double s)
{
    return ipc_now_ns() + (uint64_t)(s * 1e9);
}

/* ---- checkers ---- */

struct checker {
    int id;
    uid_t uid;       /* 0: stay root */
    double seconds;
    const char *mp;  /* the mount point as the checker sees it */
};

static void pattern(unsigned char *buf, int id, uint32_t iter)
{
    for (int i = 0; i < 4096; i++)
        buf[i] = (unsigned char)(id * 131 + iter * 7 + i * 13);
}

/* raw_call of a PREAD of 4096 bytes at block * 4096; the answer's bytes
 * are in the slot's buffer. */
static int64_t raw_pread(struct raw *r, uint32_t slot, uint32_t mount,
                         int64_t h, uint32_t block)
{
    struct danaus_desc d = {.call = DANAUS_CALL_PREAD, .mount = mount,
                            .handle = (uint64_t)h};
    d.arg[0] = 4096;
    d.arg[1] = (int64_t)block * 4096;
    return raw_call(r, slot, &d, NULL, 0, 10000);
}

/* Writes, reads back and compares its own file until time is up: 0 when
 * every call succeeded and every byte read was its own. */
static int checker_main(void *arg)
{
    struct checker *c = arg;
    if (c->uid)
        become(c->uid);
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "checker %d: attach", c->id);
    int slot = raw_slot(&r);
    CHILD_CHECK(slot >= 0, "checker %d: slot: %s", c->id, strerror(-slot));
    uint32_t mount = raw_mount(&r, c->mp);
    char name[64];
    snprintf(name, sizeof name, "checker-%d-%d", c->id, (int)getpid());
    int64_t h = raw_open(&r, (uint32_t)slot, mount, name,
                         O_CREAT | O_RDWR | O_TRUNC);
    CHILD_CHECK(h > 0, "checker %d: open: %s", c->id, strerror((int)-h));
    unsigned char want[4096];
    uint64_t end = seconds_from_now(c->seconds);
    for (uint32_t iter = 1; ipc_now_ns() < end; iter++) {
        struct danaus_desc d = {.call = DANAUS_CALL_PWRITE, .mount = mount,
                                .handle = (uint64_t)h};
        d.arg[1] = (iter % 8) * 4096;
        pattern(want, c->id, iter);
        int64_t n = raw_call(&r, (uint32_t)slot, &d, want, 4096, 10000);
        CHILD_CHECK(n == 4096, "checker %d: pwrite %u: %lld", c->id, iter,
                    (long long)n);
        n = raw_pread(&r, (uint32_t)slot, mount, h, iter % 8);
        CHILD_CHECK(n == 4096, "checker %d: pread %u: %lld", c->id, iter,
                    (long long)n);
        CHILD_CHECK(memcmp(ipc_slot(&r.area, (uint32_t)slot)->buf, want,
                           4096) == 0,
                    "checker %d: read other bytes than written", c->id);
        d = (struct danaus_desc){.call = DANAUS_CALL_STAT, .mount = mount};
        n = raw_call(&r, (uint32_t)slot, &d, name, (uint32_t)strlen(name) + 1,
                     10000);
        CHILD_CHECK(n == 0, "checker %d: stat: %lld", c->id, (long long)n);
        struct danaus_stat *st =
            (struct danaus_stat *)ipc_slot(&r.area, (uint32_t)slot)->buf;
        CHILD_CHECK(st->size == 8 * 4096 || st->size <= (int64_t)(iter % 8 + 1)
                                                          * 4096 ||
                        iter >= 8,
                    "checker %d: size %lld", c->id, (long long)st->size);
    }
    raw_detach(&r);
    return 0;
}

/* Runs attack(arg) in one process and n checkers beside it; both must end
 * well. */
static void with_checkers(int (*attack)(void *), void *arg, int n,
                          uid_t checker_uid)
{
    struct checker c[4];
    pid_t pid[4];
    for (int i = 0; i < n; i++) {
        c[i] = (struct checker){i + 1, checker_uid, CHECK_SECONDS, MOUNT_A};
        pid[i] = spawn(checker_main, &c[i]);
    }
    usleep(100000);
    pid_t a = spawn(attack, arg);
    assert_int_equal(reap(a, 120), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(reap(pid[i], 60), 0);
    /* A client that comes afterwards is served too. */
    struct checker late = {9, checker_uid, 0.3, MOUNT_A};
    assert_int_equal(reap(spawn(checker_main, &late), 30), 0);
}

static struct raw attacker_attach(void)
{
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attacker: attach");
    return r;
}

/* Attaches r, takes a slot (returned) and names the mount at path. */
static int attach_with_slot(struct raw *r, const char *path, uint32_t *mount)
{
    CHILD_CHECK(raw_attach(r, sock) == 0, "attach");
    int slot = raw_slot(r);
    CHILD_CHECK(slot >= 0, "slot");
    *mount = raw_mount(r, path);
    return slot;
}

/* Rings b in every queue. */
static void ring_everywhere(struct raw *r, struct ipc_bell b)
{
    for (uint32_t q = 0; q < r->seg.nqueues; q++)
        ipc_ring(&r->seg, ipc_queue(&r->seg, q), b, NULL, NULL);
}

/* ---- forged doorbells: other clients' indices, slots and sequences ---- */

static int forge_bells(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    uint64_t end = seconds_from_now(2);
    for (uint32_t seq = 0; ipc_now_ns() < end; seq++)
        for (uint32_t client = 0; client < 16; client++)
            for (uint32_t slot = 0; slot < CLIENT_SLOTS; slot++)
                if (client != r.index)
                    ring_everywhere(&r, (struct ipc_bell){client, slot,
                                                          seq % 64});
    return 0;
}

static void test_forged_doorbells(void **state)
{
    (void)state;
    start("bells", "");
    with_checkers(forge_bells, NULL, 2, 0);
}

/* ---- forged handles, foreign mount indices ---- */

static int forge_handles(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    CHILD_CHECK(slot >= 0, "slot");
    uint32_t a = raw_mount(&r, MOUNT_A), b = raw_mount(&r, MOUNT_B);
    /* The checkers hold handles with small indices: none is ours. */
    for (uint32_t i = 0; i < 64; i++)
        for (uint32_t gen = 0; gen < 4; gen++) {
            struct danaus_desc d = {.call = DANAUS_CALL_PREAD, .mount = a,
                                    .handle = DANAUS_HANDLE(i, gen)};
            d.arg[0] = 4096;
            int64_t n = raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000);
            CHILD_CHECK(n == -EBADF, "pread of handle %u/%u: %lld", i, gen,
                        (long long)n);
        }
    /* Our own handle under another mount's index (finding 2). */
    char mine[64];
    snprintf(mine, sizeof mine, "attacker-%d", (int)getpid());
    int64_t h = raw_open(&r, (uint32_t)slot, a, mine, O_CREAT | O_RDWR);
    CHILD_CHECK(h > 0, "open: %lld", (long long)h);
    uint32_t wrong[] = {b, b + 1, 4095, UINT32_MAX};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        struct danaus_desc d = {.call = DANAUS_CALL_PWRITE, .mount = wrong[i],
                                .handle = (uint64_t)h};
        int64_t n = raw_call(&r, (uint32_t)slot, &d, "x", 1, 5000);
        CHILD_CHECK(n == -EBADF, "pwrite under mount %u: %lld", wrong[i],
                    (long long)n);
    }
    struct danaus_desc d = {.call = DANAUS_CALL_PWRITE, .mount = a,
                            .handle = (uint64_t)h};
    CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, "x", 1, 5000) == 1,
                "pwrite under its own mount");
    return 0;
}

static void test_forged_handles_and_mounts(void **state)
{
    (void)state;
    start("handles", "");
    with_checkers(forge_handles, NULL, 2, 0);
}

/* ---- queue wedge, header scribble, counter spin ---- */

static int wedge_and_scribble(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    uint64_t end = seconds_from_now(2);
    srand((unsigned)getpid());
    while (ipc_now_ns() < end)
        for (uint32_t q = 0; q < r.seg.nqueues; q++) {
            struct ipc_queue *Q = ipc_queue(&r.seg, q);
            for (uint32_t i = 0; i < r.seg.ncells; i++)
                atomic_store(&Q->cells[i],
                             ((uint64_t)rand() << 32 | (uint32_t)rand()) | 1);
            atomic_fetch_add(&Q->work_seq, 1);
            atomic_store(&Q->sleepers, (uint32_t)rand());
            ipc_futex_wake(&Q->work_seq, 8);
        }
    /* Leave every byte of the shared memory as garbage and go. */
    memset(r.seg.queues, 0xff, r.seg.size);
    return 0;
}

static void test_queue_wedge_and_scribble(void **state)
{
    (void)state;
    start("wedge", "");
    with_checkers(wedge_and_scribble, NULL, 2, 0);
}

/* ---- the slot words the service writes (begun, pos, the answer, the
 * fast lane's watched, a large read's bytes_ready), and client_cpu, the
 * hint it reads ---- */

struct scribbler {
    struct ipc_slot *slot;
    volatile bool stop;
};

static void *scribble_words(void *arg)
{
    struct scribbler *s = arg;
    while (!s->stop) {
        atomic_store(&s->slot->begun, (uint32_t)rand());
        s->slot->pos = ((int64_t)rand() << 32) | rand();
        s->slot->result = -(int64_t)rand();
        atomic_store(&s->slot->server_cpu, (uint32_t)rand());
        /* Set, the attacker's own calls ring no bell and wait for a
         * watcher or the sweep; the service never reads it. */
        atomic_store(&s->slot->watched, (uint32_t)rand() % 2);
        /* A large read's progress: only the attacker's own copies read
         * it. */
        atomic_store(&s->slot->bytes_ready,
                     (uint64_t)rand() << 32 | (uint32_t)rand());
        /* Any cpu, none, or far beyond any: the service moves a long
         * call's thread only to a cpu of its own crew. */
        atomic_store(&s->slot->client_cpu,
                     rand() % 2 ? (uint32_t)rand() : (uint32_t)(rand() % 4));
    }
    return NULL;
}

/* While one thread makes calls that have the service write the slot's
 * begun word, the open file's offset (pos), the answer, the watched word
 * and a read's bytes_ready (reads of 128 KiB come in pieces), another
 * rewrites them with garbage: the service reads none of them, so its
 * calls go on being served (whatever the attacker reads back) and nobody
 * else notices. The writes are long calls (64 KiB), whose thread moves to
 * the cpu client_cpu names: garbage there too. */
static int scribble_service_words(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    CHILD_CHECK(slot >= 0, "attacker: slot");
    uint32_t mount = raw_mount(&r, MOUNT_A);
    int64_t h = raw_open(&r, (uint32_t)slot, mount, "scribbled",
                         O_CREAT | O_RDWR | O_TRUNC);
    CHILD_CHECK(h > 0, "attacker: open: %lld", (long long)h);
    struct scribbler s = {ipc_slot(&r.area, (uint32_t)slot), false};
    pthread_t t;
    CHILD_CHECK(pthread_create(&t, NULL, scribble_words, &s) == 0, "thread");
    uint64_t end = seconds_from_now(2);
    static unsigned char data[64 << 10] = {1};
    long served = 0;
    for (uint32_t i = 0; ipc_now_ns() < end; i++) {
        struct danaus_desc d = {.mount = mount, .handle = (uint64_t)h};
        d.call = i % 3 == 0   ? DANAUS_CALL_WRITE
                 : i % 3 == 1 ? DANAUS_CALL_LSEEK
                              : DANAUS_CALL_READ;
        d.arg[0] = d.call == DANAUS_CALL_READ ? 2 * (int64_t)sizeof data : 0;
        d.arg[1] = SEEK_SET;
        if (raw_call(&r, (uint32_t)slot, &d, data,
                     d.call == DANAUS_CALL_WRITE ? sizeof data : 0,
                     2000) != -ETIMEDOUT)
            served++;
    }
    s.stop = true;
    pthread_join(t, NULL);
    CHILD_CHECK(served > 100, "attacker: only %ld calls answered", served);
    raw_detach(&r);
    return 0;
}

static void test_scribbled_service_words(void **state)
{
    (void)state;
    start("words", "");
    with_checkers(scribble_service_words, NULL, 2, 0);
}

/* ---- a large write's input withheld or misstated (ipc.h's bytes_in) ---- */

#define PIECES_LEN (256u << 10)

/* PWRITEs PIECES_LEN bytes at 0 of a fresh file name, the whole of them in
 * the slot's buffer, while the slot's bytes_in word says claimed bytes for
 * request seq_delta from this one: the service writes what it is told is
 * there, bounded by the request, and waits a bounded time for the rest.
 * want: the answer and the file's size after it. */
static void withhold(struct raw *r, uint32_t slot, uint32_t mount,
                     const char *name, int32_t seq_delta, uint32_t claimed,
                     int64_t want)
{
    static unsigned char data[PIECES_LEN];
    for (uint32_t i = 0; i < PIECES_LEN; i++)
        data[i] = (unsigned char)(i * 7 + 3);
    int64_t h = raw_open(r, slot, mount, name, O_CREAT | O_RDWR | O_TRUNC);
    CHILD_CHECK(h > 0, "attacker: open %s: %lld", name, (long long)h);
    struct danaus_desc d = {.call = DANAUS_CALL_PWRITE, .mount = mount,
                            .handle = (uint64_t)h};
    uint64_t t0 = ipc_now_ns();
    int64_t n = raw_call_claiming(r, slot, &d, data, PIECES_LEN, seq_delta,
                                  claimed, 10000);
    uint64_t ms = (ipc_now_ns() - t0) / 1000000;
    CHILD_CHECK(n == want, "attacker: %s: pwrite answered %lld, not %lld",
                name, (long long)n, (long long)want);
    CHILD_CHECK(ms < 1000, "attacker: %s: the answer took %llu ms", name,
                (unsigned long long)ms);
    d = (struct danaus_desc){.call = DANAUS_CALL_STAT, .mount = mount};
    n = raw_call(r, slot, &d, name, (uint32_t)strlen(name) + 1, 10000);
    CHILD_CHECK(n == 0, "attacker: stat %s: %lld", name, (long long)n);
    const struct danaus_stat *st =
        (const struct danaus_stat *)ipc_slot(&r->area, slot)->buf;
    CHILD_CHECK(st->size == want, "attacker: %s: size %lld, not %lld", name,
                (long long)st->size, (long long)want);
    d = (struct danaus_desc){.call = DANAUS_CALL_PREAD, .mount = mount,
                             .handle = (uint64_t)h};
    d.arg[0] = want;
    n = raw_call(r, slot, &d, NULL, 0, 10000);
    CHILD_CHECK(n == want && memcmp(ipc_slot(&r->area, slot)->buf, data,
                                    (size_t)want) == 0,
                "attacker: %s: other bytes than written", name);
    d = (struct danaus_desc){.call = DANAUS_CALL_CLOSE, .mount = mount,
                             .handle = (uint64_t)h};
    raw_call(r, slot, &d, NULL, 0, 10000);
}

/* A client says less of a large write's input is there than it sent
 * (none past the first piece, or for another request), or more than the
 * request holds: the service writes the first piece after a bounded wait,
 * or the request's own bytes, never more; beside it, others are served as
 * before. Then the same, over and over, while the checkers run. */
static int withhold_input(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    CHILD_CHECK(slot >= 0, "attacker: slot");
    uint32_t mount = raw_mount(&r, MOUNT_A);
    withhold(&r, (uint32_t)slot, mount, "withheld", 0, 0, IPC_INPUT_FIRST);
    withhold(&r, (uint32_t)slot, mount, "stale", -1, PIECES_LEN,
             IPC_INPUT_FIRST);
    withhold(&r, (uint32_t)slot, mount, "overstated", 0, UINT32_MAX,
             PIECES_LEN);
    withhold(&r, (uint32_t)slot, mount, "halfway", 0, PIECES_LEN / 2 + 1,
             PIECES_LEN / 2 + 1);
    uint64_t end = seconds_from_now(2);
    while (ipc_now_ns() < end)
        withhold(&r, (uint32_t)slot, mount, "again", 0, 0, IPC_INPUT_FIRST);
    raw_detach(&r);
    return 0;
}

static void test_withheld_write_input(void **state)
{
    (void)state;
    start("pieces", "");
    with_checkers(withhold_input, NULL, 2, 0);
}

static int spin_counters(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    uint64_t end = seconds_from_now(2);
    while (ipc_now_ns() < end)
        for (uint32_t q = 0; q < r.seg.nqueues; q++) {
            struct ipc_queue *Q = ipc_queue(&r.seg, q);
            atomic_fetch_add(&Q->work_seq, 1);
            atomic_fetch_add(&Q->room_seq, 1);
            ipc_futex_wake(&Q->work_seq, 8);
        }
    return 0;
}

static void test_work_counter_spin(void **state)
{
    (void)state;
    start("spin", "");
    with_checkers(spin_counters, NULL, 2, 0);
}

/* ---- floods: slots, locks, handles, tickets ---- */

/* Sets POSIX write locks on [2i, 2i] of name until one is refused: how
 * many, and the refusal in *err. */
static int lock_until_refused(struct raw *r, uint32_t slot, uint32_t mount,
                              const char *name, int64_t *err)
{
    int64_t h = raw_open(r, slot, mount, name, O_RDWR | O_CREAT);
    if (h <= 0) {
        *err = h;
        return 0;
    }
    int n = 0;
    for (;; n++) {
        struct danaus_desc d = {.call = DANAUS_CALL_LOCK, .mount = mount,
                                .handle = (uint64_t)h};
        d.arg[0] = DANAUS_LOCK_SET;
        d.arg[1] = F_WRLCK;
        d.arg[2] = 2 * n;
        d.arg[3] = 1;
        d.arg[4] = DANAUS_LOCK_POSIX;
        if ((*err = raw_call(r, slot, &d, NULL, 0, 5000)) != 0)
            return n;
    }
}

/* Creates the file name and sets POSIX write locks on [2i, 2i] of it until
 * one is refused, which must be the client's limit: exactly CLIENT_LOCKS,
 * then ENOLCK. Keeps the file open and locked. */
static void take_all_locks(struct raw *r, uint32_t slot, uint32_t mount,
                           const char *name)
{
    int64_t err;
    int n = lock_until_refused(r, slot, mount, name, &err);
    CHILD_CHECK(n == CLIENT_LOCKS && err == -ENOLCK,
                "%s: %d locks, then %lld", name, n, (long long)err);
}

static int flood(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    int slots = 0, slot = -1;
    for (int s; (s = raw_slot(&r)) >= 0; slot = s)
        slots++;
    CHILD_CHECK(slots == CLIENT_SLOTS, "took %d slots", slots);
    CHILD_CHECK(raw_slot(&r) == -EAGAIN, "slot past the limit");
    uint32_t a = raw_mount(&r, MOUNT_A);
    take_all_locks(&r, (uint32_t)slot, a, "flood-locks");
    int64_t h;
    int handles = 0;
    while ((h = raw_open(&r, (uint32_t)slot, a, ".", O_RDONLY)) > 0)
        handles++;
    CHILD_CHECK(h == -EMFILE, "open flood ended with %lld after %d",
                (long long)h, handles);
    CHILD_CHECK(handles >= 16 && handles < 65536, "%d handles", handles);
    struct danaus_door_reply reply;
    int tickets = 0, err;
    while ((err = raw_door(&r, DANAUS_DOOR_TICKET, 0, 0, NULL, 0, &reply)) ==
           0)
        tickets++;
    CHILD_CHECK(err == EAGAIN && tickets >= 1 && tickets <= 64,
                "ticket flood: %d tickets, then %s", tickets, strerror(err));
    /* Hold everything while the checkers run. */
    sleep(CHECK_SECONDS);
    return 0;
}

/* A checker that also needs a slot per thread, its full share of record
 * locks and a ticket: the ones the flooder could not take from it. */
static int share_checker(void *arg)
{
    (void)arg;
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attach");
    int slot = -1;
    for (int i = 0; i < CLIENT_SLOTS; i++)
        CHILD_CHECK((slot = raw_slot(&r)) >= 0, "slot %d", i);
    take_all_locks(&r, (uint32_t)slot, raw_mount(&r, MOUNT_A),
                   "checker-locks");
    struct danaus_door_reply reply;
    CHILD_CHECK(raw_door(&r, DANAUS_DOOR_TICKET, 0, 0, NULL, 0, &reply) == 0,
                "ticket");
    return 0;
}

static void test_floods(void **state)
{
    (void)state;
    char extra[64];
    snprintf(extra, sizeof extra, "client_locks %d\n", CLIENT_LOCKS);
    start("flood", extra);
    pid_t a = spawn(flood, NULL);
    sleep(1);
    struct checker c = {1, 0, CHECK_SECONDS - 1, MOUNT_A};
    pid_t check = spawn(checker_main, &c);
    assert_int_equal(reap(spawn(share_checker, NULL), 30), 0);
    assert_int_equal(reap(check, 60), 0);
    assert_int_equal(reap(a, 60), 0);
}

/* ---- descriptor exhaustion: the door must not spin ---- */

/* Opens files as uid until EMFILE (its own limit, its uid's, or the
 * service's), says so on the pipe, and holds them until killed. */
struct hog {
    int ready;
    uid_t uid;
};

static int hog(void *arg)
{
    const struct hog *a = arg;
    if (a->uid)
        become(a->uid);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed test */
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    uint32_t a_mount = raw_mount(&r, MOUNT_A);
    int64_t h;
    while ((h = raw_open(&r, (uint32_t)slot, a_mount, ".", O_RDONLY)) > 0)
        ;
    CHILD_CHECK(h == -EMFILE || h == -ENFILE, "open flood ended with %lld",
                (long long)h);
    CHILD_CHECK(write(a->ready, "x", 1) == 1, "ready");
    for (;;)
        pause();
}

/* Waits in the backlog while the service is out of descriptors. Once the
 * hogs are gone its hello can still meet the service short of one (their
 * handles close a little later): the door holds it until one is free, so
 * the first attach succeeds. */
static int late_client(void *arg)
{
    (void)arg;
    struct raw r;
    int rc = raw_attach(&r, sock);
    CHILD_CHECK(rc == 0, "late attach: %s", strerror(-rc));
    return 0;
}

/* Seconds danausd's threads have been runnable (on a cpu or waiting for
 * one, from /proc/PID/task/TID/schedstat): a spinning thread adds the
 * whole wall time however loaded the machine is, an idle one nothing. */
static double service_runnable(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)daemon_.pid);
    DIR *dir = opendir(path);
    assert_non_null(dir);
    double total = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.')
            continue;
        char stat[sizeof path + 300];
        snprintf(stat, sizeof stat, "%s/%s/schedstat", path, e->d_name);
        FILE *f = fopen(stat, "r");
        unsigned long long on_cpu, waiting;
        if (f && fscanf(f, "%llu %llu", &on_cpu, &waiting) == 2)
            total += (double)(on_cpu + waiting) / 1e9;
        if (f)
            fclose(f);
    }
    closedir(dir);
    return total;
}

/* Local backend only: the Ceph backend holds no descriptor per open file,
 * so its clients cannot exhaust the service's (the door is the same). */
static void test_descriptor_exhaustion(void **state)
{
    (void)state;
    if (ceph_conf)
        skip();
    start("nofile", "");
    assert_int_equal(chmod(sock, 0666), 0);
    /* A client may hold a quarter of the descriptors and a uid half
     * (root's reserve aside): two uids and root together take them all. */
    enum { HOGS = 5 };
    static const uid_t uids[HOGS] = {HOG_UID, HOG_UID, HOG2_UID, HOG2_UID, 0};
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t hogs[HOGS];
    static struct hog a[HOGS];
    for (int i = 0; i < HOGS; i++) {
        a[i] = (struct hog){ready[1], uids[i]};
        hogs[i] = spawn(hog, &a[i]);
    }
    char byte;
    for (int i = 0; i < HOGS; i++)
        assert_int_equal(read(ready[0], &byte, 1), 1);
    /* The service is out of descriptors: a new client waits in the
     * backlog, and the door does not spin meanwhile (a spinning door is
     * runnable the whole time). */
    pid_t late = spawn(late_client, NULL);
    usleep(200000);
    double before = service_runnable();
    sleep(2);
    double used = service_runnable() - before;
    assert_true(used < 1.0);
    /* (It did wait: the service really was out of descriptors.) */
    assert_int_equal(waitpid(late, NULL, WNOHANG), 0);
    /* Descriptors come back when the hogs go: the waiting client is let
     * in. */
    for (int i = 0; i < HOGS; i++) {
        kill(hogs[i], SIGKILL);
        assert_int_equal(reap(hogs[i], 30), 128 + SIGKILL);
    }
    assert_int_equal(reap(late, 30), 0);
    close(ready[0]);
    close(ready[1]);
}

/* ---- the area grows as threads attach (issue 35, second round) ---- */

/* The size of r's area file, and the bytes it holds in memory. */
static void area_file(const struct raw *r, uint64_t *size, uint64_t *bytes)
{
    struct stat st;
    CHILD_CHECK(fstat(r->area.fd, &st) == 0, "fstat of the area");
    *size = (uint64_t)st.st_size;
    *bytes = (uint64_t)st.st_blocks * 512;
}

/* A client whose area holds memory for the slots it took and no more,
 * which gives a slot's pages back with the slot; then it grows its area
 * itself, scribbles over every byte of it, posts garbage in every slot,
 * owned or not, rings for all of them, and tries to shrink the file under
 * the service. */
static int grow_and_scribble_area(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    const struct ipc_area *a = &r.area;
    uint64_t size, bytes;
    area_file(&r, &size, &bytes);
    CHILD_CHECK(size == a->cache_size, "area of %llu bytes before any slot",
                (unsigned long long)size);
    int s0 = raw_slot(&r), s1 = raw_slot(&r);
    CHILD_CHECK(s0 == 0 && s1 == 1, "slots %d, %d", s0, s1);
    area_file(&r, &size, &bytes);
    CHILD_CHECK(size == a->cache_size + 2 * a->slot_size,
                "area of %llu bytes with two slots",
                (unsigned long long)size);
    /* Slot 1, touched whole, then given back: its memory goes. */
    memset(ipc_slot(a, 1)->buf, 0xab, a->slot_buf);
    uint64_t touched;
    area_file(&r, &size, &touched);
    struct danaus_door_reply reply;
    CHILD_CHECK(raw_door(&r, DANAUS_DOOR_SLOT_PUT, 1, 0, NULL, 0, &reply) ==
                    0,
                "slot put");
    area_file(&r, &size, &bytes);
    CHILD_CHECK(touched - bytes >= a->slot_buf,
                "%llu bytes held after the slot went, %llu before",
                (unsigned long long)bytes, (unsigned long long)touched);
    /* Grown by the client itself, which the seals allow; shrinking is
     * refused. */
    CHILD_CHECK(ftruncate(r.area.fd, (off_t)a->size) == 0, "grow: %s",
                strerror(errno));
    CHILD_CHECK(ftruncate(r.area.fd, (off_t)a->cache_size) < 0 &&
                    errno == EPERM,
                "shrink was not refused");
    CHILD_CHECK(fcntl(r.area.fd, F_ADD_SEALS, F_SEAL_GROW) < 0,
                "sealed the area against growing");
    srand((unsigned)getpid());
    uint64_t end = seconds_from_now(2);
    for (uint32_t seq = 1; ipc_now_ns() < end; seq++) {
        for (uint32_t i = 0; i < a->nslots; i++) {
            struct ipc_slot *sl = ipc_slot(a, i);
            memset(&sl->desc, rand(), sizeof sl->desc);
            atomic_store(&sl->posted, seq);
            ring_everywhere(&r, (struct ipc_bell){r.index, i, seq});
        }
        memset(a->base, rand(), a->size);
    }
    return 0;
}

static void test_area_grows_with_slots(void **state)
{
    (void)state;
    start("area", "");
    with_checkers(grow_and_scribble_area, NULL, 2, 0);
}

/* ---- an answer rewritten while the service still reads it (issue 35,
 * 1): getdents' records ---- */

#define DENTS 1000
#define DENTS_LISTINGS 20 /* races with the zeroer, at least */

struct zeroer {
    /* The first record's, in the slot buffer: of a GETDENTS's answer, and
     * of an OPEN's (wire.h DANAUS_OPEN_LISTING_AT). */
    _Atomic uint16_t *reclen, *open_reclen;
    _Atomic bool stop;
};

static void *zero_reclen(void *arg)
{
    struct zeroer *z = arg;
    while (!atomic_load_explicit(&z->stop, memory_order_relaxed)) {
        atomic_store_explicit(z->reclen, 0, memory_order_relaxed);
        atomic_store_explicit(z->open_reclen, 0, memory_order_relaxed);
    }
    return NULL;
}

/* An OPEN of dir that asks its first records, with their attributes. */
static int64_t open_listing(struct raw *r, int slot, uint32_t mount,
                            const char *dir, int64_t count, int64_t attrs)
{
    struct danaus_desc d = {.call = DANAUS_CALL_OPEN, .mount = mount};
    d.arg[0] = O_RDONLY | O_DIRECTORY;
    d.arg[2] = count;
    d.arg[3] = attrs;
    return raw_call(r, (uint32_t)slot, &d, dir, (uint32_t)strlen(dir) + 1,
                    5000);
}

/* A directory of DENTS entries (about 60 KiB of records), read over and
 * over, through GETDENTS and through opens that list it, while a second
 * thread writes 0 into the first record's d_reclen in the slot buffer the
 * answer lands in: the service must walk only its own copy of the
 * records. Every read is answered, with the whole directory. */
static int zero_dirent_lengths(void *arg)
{
    (void)arg;
    become(NOBODY);
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    CHILD_CHECK(slot >= 0, "attacker: slot");
    uint32_t mount = raw_mount(&r, MOUNT_A);
    char dir[64], name[160];
    snprintf(dir, sizeof dir, "dents-%d", (int)getpid());
    struct danaus_desc d = {.call = DANAUS_CALL_MKDIR, .mount = mount};
    d.arg[0] = 0755;
    CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, dir, (uint32_t)strlen(dir) + 1,
                         10000) == 0,
                "attacker: mkdir %s", dir);
    for (int i = 0; i < DENTS; i++) {
        snprintf(name, sizeof name, "%s/entry-with-a-long-name-%06d", dir, i);
        CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, name,
                             (uint32_t)strlen(name) + 1, 10000) == 0,
                    "attacker: mkdir %s", name);
    }
    int64_t h = raw_open(&r, (uint32_t)slot, mount, dir,
                         O_RDONLY | O_DIRECTORY);
    CHILD_CHECK(h > 0, "attacker: open %s: %lld", dir, (long long)h);
    struct ipc_slot *s = ipc_slot(&r.area, (uint32_t)slot);
    /* An open's listing asked beyond the buffer, or with attributes of no
     * kind, is refused before anything is opened. */
    CHILD_CHECK(open_listing(&r, slot, mount, dir, (int64_t)r.area.slot_buf,
                             0) == -EINVAL &&
                    open_listing(&r, slot, mount, dir, 4096, 7) == -EINVAL &&
                    open_listing(&r, slot, mount, dir, -1, 0) == -EINVAL,
                "attacker: an open's listing out of bounds");
    size_t at = offsetof(struct danaus_dirent, d_reclen);
    struct zeroer z = {(_Atomic uint16_t *)(s->buf + at),
                       (_Atomic uint16_t *)(s->buf + DANAUS_OPEN_LISTING_AT +
                                            at),
                       false};
    pthread_t t;
    CHILD_CHECK(pthread_create(&t, NULL, zero_reclen, &z) == 0, "thread");
    /* At least DENTS_LISTINGS listings, each a race with the zeroer, and
     * for 2 s at least; a service that stalls fails a call's 5 s wait,
     * and one that is only slow on a loaded machine gets up to a minute. */
    uint64_t least = seconds_from_now(2), most = seconds_from_now(60);
    int reads = 0;
    while ((reads < DENTS_LISTINGS || ipc_now_ns() < least) &&
           ipc_now_ns() < most) {
        d = (struct danaus_desc){.call = DANAUS_CALL_LSEEK, .mount = mount,
                                 .handle = (uint64_t)h};
        d.arg[1] = SEEK_SET;
        CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000) == 0,
                    "attacker: rewind");
        int64_t total = 0, n;
        do {
            d = (struct danaus_desc){.call = DANAUS_CALL_GETDENTS,
                                     .mount = mount, .handle = (uint64_t)h};
            d.arg[0] = 128 << 10;
            n = raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000);
            CHILD_CHECK(n >= 0, "attacker: getdents after %d reads: %s",
                        reads, strerror((int)-n));
            total += n;
        } while (n > 0);
        CHILD_CHECK(total > DENTS * 40, "attacker: only %lld bytes listed",
                    (long long)total);
        int64_t listed = open_listing(&r, slot, mount, dir, 32768,
                                      DANAUS_LISTING_ATTRS_ALL);
        uint64_t bytes;
        memcpy(&bytes, s->buf + offsetof(struct danaus_open_out, listed),
               sizeof bytes);
        CHILD_CHECK(listed > 0 && bytes > 4096,
                    "attacker: open listing after %d reads: %s, %llu bytes",
                    reads, strerror((int)-listed), (unsigned long long)bytes);
        /* The rest follows on from where the service's own copy ended. */
        int64_t rest = 0;
        do {
            d = (struct danaus_desc){.call = DANAUS_CALL_GETDENTS,
                                     .mount = mount,
                                     .handle = (uint64_t)listed};
            d.arg[0] = 128 << 10;
            n = raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000);
            rest += n > 0 ? n : 0;
        } while (n > 0);
        CHILD_CHECK(n == 0 && (int64_t)bytes + rest == total,
                    "attacker: an open's listing of %llu bytes and %lld more, "
                    "of %lld", (unsigned long long)bytes, (long long)rest,
                    (long long)total);
        d = (struct danaus_desc){.call = DANAUS_CALL_CLOSE, .mount = mount,
                                 .handle = (uint64_t)listed};
        CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000) == 0,
                    "attacker: close");
        reads++;
    }
    atomic_store(&z.stop, true);
    pthread_join(t, NULL);
    CHILD_CHECK(reads >= DENTS_LISTINGS, "attacker: only %d listings in 60 s",
                reads);
    raw_detach(&r);
    return 0;
}

static void test_getdents_answer_rewritten(void **state)
{
    (void)state;
    start("dents", "owner 65534:65534\n");
    with_checkers(zero_dirent_lengths, NULL, 2, 0);
}

/* ---- the pid file (issue 35, 5) ---- */

/* The Umask line of /proc/PID/status, or -1. */
static int umask_of(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    int mask = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", (unsigned *)&mask) == 1)
            break;
    if (f)
        fclose(f);
    return mask;
}

/* A file (0666) and a directory (0777) for everyone, as a client whose
 * umask is 0 makes them. */
static int make_open_modes(void *arg)
{
    (void)arg;
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attach");
    int slot = raw_slot(&r);
    uint32_t a = raw_mount(&r, MOUNT_A);
    struct danaus_desc d = {.call = DANAUS_CALL_OPEN, .mount = a};
    d.arg[0] = O_CREAT | O_WRONLY;
    d.arg[1] = 0666;
    CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, "open-file", 10, 5000) > 0,
                "create");
    d = (struct danaus_desc){.call = DANAUS_CALL_MKDIR, .mount = a};
    d.arg[0] = 0777;
    CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, "open-dir", 9, 5000) == 0,
                "mkdir");
    return 0;
}

/* Whoever may write the rundir plants <service>.pid.new and
 * <service>.pid as symlinks to files of someone else's (a host file, for
 * a container whose rundir is bound in): the next start of the service
 * (the keeper restarts it after a crash) truncates and writes neither,
 * and its pid file is a file of its own, mode 0644; nor does the
 * service's process umask leave its other files writable by others. */
static void test_pid_file_planted(void **state)
{
    (void)state;
    start("pidfile", "");
    assert_int_equal(daemon_stop(&daemon_), 0);
    char victim[2][PATH_MAX], link[2][PATH_MAX + 64];
    for (int i = 0; i < 2; i++) {
        snprintf(victim[i], sizeof victim[i], "%s/victim-%d", site.dir, i);
        FILE *f = fopen(victim[i], "w");
        assert_non_null(f);
        fputs("precious\n", f);
        fclose(f);
        assert_int_equal(chmod(victim[i], 0600), 0);
        snprintf(link[i], sizeof link[i], "%s/%s.pid%s", site.rundir,
                 site.service, i ? "" : ".new");
        unlink(link[i]);
        assert_int_equal(symlink(victim[i], link[i]), 0);
    }
    assert_int_equal(daemon_start(&daemon_, danausd, &site, "danausd",
                                  30000), 0);
    /* The pid file is written once ready: wait for it to be a file. */
    struct stat st;
    for (int i = 0; i < 500; i++) {
        if (lstat(link[1], &st) == 0 && S_ISREG(st.st_mode))
            break;
        usleep(10000);
    }
    char text[64];
    FILE *f;
    for (int i = 0; i < 2; i++) {
        f = fopen(victim[i], "r");
        assert_non_null(f);
        text[0] = '\0';
        assert_non_null(fgets(text, sizeof text, f));
        fclose(f);
        assert_string_equal(text, "precious\n");
        assert_int_equal(stat(victim[i], &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
    }
    assert_int_equal(lstat(link[1], &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(st.st_uid, 0);
    f = fopen(link[1], "r");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_int_equal(atoi(text), daemon_.pid);
    int mask = umask_of(daemon_.pid);
    assert_true(mask >= 0 && (mask & 022) == 022);
    /* Its clients' modes still reach the kernel unmasked (they come with
     * the client's umask applied). */
    assert_int_equal(reap(spawn(make_open_modes, NULL), 30), 0);
    if (!ceph_conf) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s/open-file", host_a);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0666);
        snprintf(p, sizeof p, "%s/open-dir", host_a);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0777);
    }
}

/* ---- fuzzer: random descriptors, buffers, bells and cells ---- */

static int fuzz(void *arg)
{
    double seconds = *(double *)arg;
    become(NOBODY);
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    CHILD_CHECK(slot >= 0, "slot");
    srand((unsigned)getpid());
    uint64_t end = seconds_from_now(seconds);
    unsigned char junk[512];
    for (uint32_t n = 0; ipc_now_ns() < end; n++) {
        struct danaus_desc d;
        unsigned char *p = (unsigned char *)&d;
        for (size_t i = 0; i < sizeof d; i++)
            p[i] = (unsigned char)rand();
        /* Mostly plausible calls and small numbers, sometimes anything. */
        if (n % 4) {
            d.call = (uint32_t)rand() % (DANAUS_CALL_COUNT + 2);
            d.mount = (uint32_t)rand() % 4;
            d.handle = n % 8 ? DANAUS_HANDLE(rand() % 8, rand() % 3) : d.handle;
            for (int i = 0; i < DANAUS_NARGS; i++)
                d.arg[i] = n % 3 ? rand() % 8192 - 16 : d.arg[i];
        }
        uint32_t len = (uint32_t)rand() % sizeof junk;
        for (uint32_t i = 0; i < len; i++)
            junk[i] = n % 2 ? (unsigned char)("ab/.\0x"[rand() % 6])
                            : (unsigned char)rand();
        int64_t rc = raw_call(&r, (uint32_t)slot, &d, junk, len, 10000);
        CHILD_CHECK(rc != -ETIMEDOUT, "no answer to a fuzzed request");
        d.buf_len = (uint32_t)rand();
        d.buf_off = (uint32_t)rand();
        ipc_post(ipc_slot(&r.area, (uint32_t)slot), &d, r.seq[slot] + 1);
        /* Bells for anyone, and raw words in random cells. */
        ring_everywhere(&r, (struct ipc_bell){(uint32_t)rand() % 32,
                                              (uint32_t)rand() % 16,
                                              (uint32_t)rand() % 4});
        struct ipc_queue *q = ipc_queue(&r.seg, (uint32_t)rand() %
                                                    r.seg.nqueues);
        atomic_store(&q->cells[(uint32_t)rand() % r.seg.ncells],
                     (uint64_t)rand() << 33 | (uint32_t)rand());
        /* Our own next request must not be confused by what we posted. */
        r.seq[slot]++;
    }
    return 0;
}

static void test_fuzzer(void **state)
{
    (void)state;
    const char *env = getenv("DANAUS_FUZZ_SECONDS");
    double seconds = env ? atof(env) : 30;
    start("fuzz", "owner 65534:65534\n");
    struct checker c[2];
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        c[i] = (struct checker){i + 1, 0, seconds + 1, MOUNT_A};
        pid[i] = spawn(checker_main, &c[i]);
    }
    assert_int_equal(reap(spawn(fuzz, &seconds), (int)seconds + 60), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(reap(pid[i], 60), 0);
}

/* ---- two uids: a root client and the unprivileged owner ---- */

/* Names of their own per service: on Ceph every test's mounts share
 * CephFS's root. */
static char root_file[96], nobody_file[96];

static int root_client(void *arg)
{
    (void)arg;
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attach");
    int slot = raw_slot(&r);
    uint32_t a = raw_mount(&r, MOUNT_A);
    int64_t h = raw_open(&r, (uint32_t)slot, a, root_file,
                         O_CREAT | O_RDWR | O_TRUNC);
    CHILD_CHECK(h > 0, "open");
    struct danaus_desc d = {.call = DANAUS_CALL_PWRITE, .mount = a,
                            .handle = (uint64_t)h};
    CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, "secret", 6, 5000) == 6,
                "pwrite");
    sleep(CHECK_SECONDS); /* holds the handle and its slot meanwhile */
    return 0;
}

static int owner_attacker(void *arg)
{
    (void)arg;
    become(NOBODY);
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    uint32_t a = raw_mount(&r, MOUNT_A);
    /* Through its own requests: the file is root's, mode 0600. */
    int64_t h = raw_open(&r, (uint32_t)slot, a, root_file, O_RDONLY);
    CHILD_CHECK(h == -EACCES, "open of root's file: %lld", (long long)h);
    /* Through root's handles: they are not in its table. */
    for (uint32_t i = 0; i < 16; i++) {
        struct danaus_desc d = {.call = DANAUS_CALL_PREAD, .mount = a,
                                .handle = DANAUS_HANDLE(i, 1)};
        d.arg[0] = 6;
        int64_t n = raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000);
        CHILD_CHECK(n == -EBADF, "pread of handle %u: %lld", i, (long long)n);
    }
    /* Through root's slots: bells naming root's client only make the
     * service look at what root posted itself. */
    uint64_t end = seconds_from_now(1);
    for (uint32_t seq = 0; ipc_now_ns() < end; seq++)
        for (uint32_t c = 0; c < 8; c++)
            if (c != r.index)
                ring_everywhere(&r, (struct ipc_bell){c, 0, seq % 16});
    /* And it can set up a setuid file only as itself. */
    h = raw_open(&r, (uint32_t)slot, a, nobody_file, O_CREAT | O_RDWR);
    CHILD_CHECK(h > 0, "open own file: %lld", (long long)h);
    struct danaus_desc d = {.call = DANAUS_CALL_CHMOD, .mount = a,
                            .handle = (uint64_t)h};
    d.arg[0] = 04755;
    raw_call(&r, (uint32_t)slot, &d, "", 1, 5000);
    return 0;
}

/* ---- the read cache, scribbled by its owner (ipc.h: cache.c) ---- */

#define SECRET_BLOCKS 4

struct secret {
    char name[64]; /* relative to MOUNT_A */
};

static void secret_bytes(unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)((i * 29 + 101) ^ 0xa5);
}

static void own_bytes(unsigned char *b, size_t n, uint32_t block)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 3 + block * 77 + 1);
}

static int64_t raw_write_file(struct raw *r, uint32_t slot, uint32_t mount,
                              const char *name, int mode_bits, bool secret)
{
    int64_t h = raw_open(r, slot, mount, name, O_CREAT | O_WRONLY | O_TRUNC);
    if (h <= 0)
        return h;
    unsigned char b[4096];
    for (uint32_t k = 0; k < SECRET_BLOCKS; k++) {
        if (secret)
            secret_bytes(b, sizeof b);
        else
            own_bytes(b, sizeof b, k);
        struct danaus_desc d = {.call = DANAUS_CALL_PWRITE, .mount = mount,
                                .handle = (uint64_t)h};
        d.arg[1] = (int64_t)k * 4096;
        if (raw_call(r, slot, &d, b, sizeof b, 10000) != 4096)
            return -EIO;
    }
    struct danaus_desc d = {.call = DANAUS_CALL_CHMOD, .mount = mount,
                            .handle = (uint64_t)h};
    d.arg[0] = mode_bits;
    if (raw_call(r, slot, &d, "", 1, 10000) != 0)
        return -EIO;
    d = (struct danaus_desc){.call = DANAUS_CALL_CLOSE, .mount = mount,
                             .handle = (uint64_t)h};
    raw_call(r, slot, &d, NULL, 0, 10000);
    return raw_open(r, slot, mount, name, O_RDONLY);
}

/* Root's client: a file only it may read, read over and over and kept in
 * its cache as libdanaus keeps what it reads, every byte checked. */
static int secret_owner(void *arg)
{
    const struct secret *s = arg;
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "owner: attach");
    int slot = raw_slot(&r);
    uint32_t mount = raw_mount(&r, MOUNT_A);
    int64_t h = raw_write_file(&r, (uint32_t)slot, mount, s->name, 0600, true);
    CHILD_CHECK(h > 0, "owner: secret file: %lld", (long long)h);
    unsigned char want[4096], got[4096];
    secret_bytes(want, sizeof want);
    uint32_t hits = 0;
    uint64_t end = seconds_from_now(CHECK_SECONDS);
    for (uint32_t i = 0; ipc_now_ns() < end; i++) {
        CHILD_CHECK(raw_pread(&r, (uint32_t)slot, mount, h,
                              i % SECRET_BLOCKS) == 4096,
                    "owner: pread");
        const struct ipc_slot *sl = ipc_slot(&r.area, (uint32_t)slot);
        CHILD_CHECK(memcmp(sl->buf, want, sizeof want) == 0,
                    "owner: read other bytes than its own");
        ipc_cache_keep(&r.area, (uint64_t)h, sl->cache_gen, sl->buf, 4096,
                       4096, (uint64_t)(i % SECRET_BLOCKS) * 4096);
        if (ipc_cache_read(&r.area, (uint64_t)h, got, sizeof got,
                           (uint64_t)(i % SECRET_BLOCKS) * 4096) == 4096) {
            CHILD_CHECK(memcmp(got, want, sizeof want) == 0,
                        "owner: its cache holds other bytes");
            hits++;
        }
    }
    CHILD_CHECK(hits > 0, "owner: no cache hit");
    raw_detach(&r);
    return 0;
}

static void scribble(struct raw *r)
{
    struct ipc_area *a = &r->area;
    if (!a->cache_blocks)
        return;
    for (uint32_t i = 0; i < IPC_CACHE_HANDLES; i += 1 + (uint32_t)rand() % 7)
        atomic_store(&a->cache_gens[i], (uint32_t)rand());
    unsigned char *heads = (unsigned char *)a->cache_heads;
    size_t nheads = (size_t)a->cache_blocks * sizeof *a->cache_heads;
    for (size_t i = 0; i < nheads; i++)
        heads[i] = (unsigned char)rand();
    memset(a->cache_data, rand(), (size_t)a->cache_blocks * IPC_CACHE_BLOCK);
}

/* nobody's client: may not open the secret; reads its own file with
 * PREADs, which make the service write generations into its area, while
 * it writes garbage over everything the cache holds, closes and reopens
 * (the service zeroes a closed handle's generation there), and leaves
 * garbage behind. Its own reads stay its own bytes, and no byte of the
 * secret ever reaches its memory. */
static int cache_scribbler(void *arg)
{
    const struct secret *s = arg;
    become(NOBODY);
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    uint32_t mount = raw_mount(&r, MOUNT_A);
    CHILD_CHECK(slot >= 0, "attacker: slot");
    CHILD_CHECK(raw_open(&r, (uint32_t)slot, mount, s->name, O_RDONLY) ==
                    -EACCES,
                "attacker: opened the secret");
    char mine[64];
    snprintf(mine, sizeof mine, "scribbler-%d", (int)getpid());
    int64_t h = raw_write_file(&r, (uint32_t)slot, mount, mine, 0644, false);
    CHILD_CHECK(h > 0, "attacker: own file: %lld", (long long)h);
    srand((unsigned)getpid());
    unsigned char want[4096];
    uint32_t generations = 0;
    uint64_t end = seconds_from_now(2);
    for (uint32_t i = 0; ipc_now_ns() < end; i++) {
        uint32_t block = i % SECRET_BLOCKS;
        CHILD_CHECK(raw_pread(&r, (uint32_t)slot, mount, h, block) == 4096,
                    "attacker: pread of its own file");
        generations += ipc_slot(&r.area, (uint32_t)slot)->cache_gen != 0;
        own_bytes(want, sizeof want, block);
        CHILD_CHECK(memcmp(ipc_slot(&r.area, (uint32_t)slot)->buf, want,
                           sizeof want) == 0,
                    "attacker: its own read came back wrong");
        scribble(&r);
        if (i % 16 == 15) {
            struct danaus_desc d = {.call = DANAUS_CALL_CLOSE, .mount = mount,
                                    .handle = (uint64_t)h};
            raw_call(&r, (uint32_t)slot, &d, NULL, 0, 10000);
            h = raw_open(&r, (uint32_t)slot, mount, mine, O_RDONLY);
            CHILD_CHECK(h > 0, "attacker: reopen: %lld", (long long)h);
        }
    }
    /* The service kept handing it generations, writing them into the area
     * it scribbled on. */
    CHILD_CHECK(generations > 0, "attacker: no generation");
    unsigned char secret[64];
    secret_bytes(secret, sizeof secret);
    struct stat st;
    CHILD_CHECK(fstat(r.area.fd, &st) == 0, "attacker: fstat of its area");
    CHILD_CHECK(memmem(r.area.base, (size_t)st.st_size, secret,
                       sizeof secret) == NULL,
                "attacker: the secret is in its memory");
    scribble(&r);
    return 0;
}

static void test_read_cache_scribbled(void **state)
{
    (void)state;
    start("cache", "owner 65534:65534\n");
    static struct secret s;
    snprintf(s.name, sizeof s.name, "secret-%d", (int)getpid());
    pid_t owner = spawn(secret_owner, &s);
    usleep(300000);
    with_checkers(cache_scribbler, &s, 2, 0);
    assert_int_equal(reap(owner, 60), 0);
}

/* ---- write-back pages: forged in the attacker's own area ---- */

/* The pages a client keeps back are its own memory, which the service
 * reads when it flushes them (ipc.h): the attacker writes pages naming
 * handles it does not have (every index, with generations a handle could
 * carry), a handle it holds read-only (a file it may read, not write),
 * offsets past what a file can hold, lengths past a page, and a thread
 * flips every word of every page while the service takes them; it asks
 * for flushes over and over, and leaves forged pages behind at its exit.
 * Its own file gets its own bytes through its own writable handle; the
 * read-only file and root's secret keep theirs; the service stays up and
 * the checkers see nothing wrong. */
struct forged {
    struct raw r;
    uint32_t first; /* flip_pages leaves the pages before it alone */
    _Atomic bool stop;
};

static void forge_page(const struct ipc_area *a, uint32_t i, uint64_t handle,
                       uint64_t off, uint32_t len, unsigned char c)
{
    struct ipc_dirty_page *p = &a->dirty_heads[i];
    p->handle = handle;
    p->off = off;
    p->len = len;
    p->seq = (uint64_t)rand();
    memset(a->dirty_data + (uint64_t)i * IPC_CACHE_BLOCK, c, IPC_CACHE_BLOCK);
    atomic_store(&p->state, IPC_DIRTY_COMMITTED);
}

static void *flip_pages(void *arg)
{
    struct forged *f = arg;
    const struct ipc_area *a = &f->r.area;
    while (!atomic_load(&f->stop)) {
        uint32_t i = f->first + (uint32_t)rand() % (a->dirty_pages - f->first);
        unsigned char *head = (unsigned char *)&a->dirty_heads[i];
        head[(size_t)rand() % sizeof a->dirty_heads[i]] ^=
            (unsigned char)(1u << (rand() % 8));
        if (rand() % 4 == 0)
            atomic_store(&a->dirty_heads[i].state,
                         (uint32_t)(rand() % 2 ? IPC_DIRTY_COMMITTED
                                               : rand()));
    }
    return NULL;
}

/* Attaches as nobody into f, which must have write-back pages: the slot
 * of its calls, and in *mount the index of the mount at path. */
static int forger_attach(struct forged *f, const char *path, uint32_t *mount)
{
    become(NOBODY);
    f->r = attacker_attach();
    CHILD_CHECK(f->r.area.dirty_pages > 0, "attacker: no write-back pages");
    int slot = raw_slot(&f->r);
    CHILD_CHECK(slot >= 0, "attacker: slot");
    *mount = raw_mount(&f->r, path);
    return slot;
}

static int write_back_forger(void *arg)
{
    const struct secret *s = arg;
    static struct forged f;
    uint32_t mount;
    int slot = forger_attach(&f, MOUNT_A, &mount);
    const struct ipc_area *a = &f.r.area;
    char mine[64], shown[80];
    snprintf(mine, sizeof mine, "forger-%d", (int)getpid());
    snprintf(shown, sizeof shown, "%s-shown", s->name);
    int64_t own = raw_open(&f.r, (uint32_t)slot, mount, mine,
                           O_CREAT | O_RDWR | O_TRUNC);
    int64_t ro = raw_open(&f.r, (uint32_t)slot, mount, shown, O_RDONLY);
    CHILD_CHECK(own > 0 && ro > 0, "attacker: opens: %lld %lld",
                (long long)own, (long long)ro);
    CHILD_CHECK(raw_open(&f.r, (uint32_t)slot, mount, shown, O_RDWR) ==
                    -EACCES,
                "attacker: opened the read-only file for writing");
    srand((unsigned)getpid());
    struct danaus_desc flush = {.call = DANAUS_CALL_FLUSH, .mount = mount};
    /* Its own page through its own handle, the only one that lands. */
    forge_page(a, 0, (uint64_t)own, 0, 4096, 'm');
    CHILD_CHECK(raw_call(&f.r, (uint32_t)slot, &flush, NULL, 0, 10000) == 0,
                "attacker: flush of its own page");
    /* Forged heads, one flush each round. */
    for (uint32_t round = 0; round < 64; round++) {
        uint32_t n = a->dirty_pages < 64 ? a->dirty_pages : 64;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t handle;
            switch (i % 4) {
            case 0: /* another index, any generation */
                handle = DANAUS_HANDLE(rand() % 64, rand() % 4 + 1);
                break;
            case 1:
                handle = (uint64_t)ro;
                break;
            default:
                handle = (uint64_t)rand() << 32 | (uint64_t)rand();
                break;
            }
            uint64_t off = i % 3 == 0 ? UINT64_MAX - (uint64_t)(rand() % 8192)
                         : i % 3 == 1 ? (uint64_t)INT64_MAX - 100
                                      : (uint64_t)(rand() % 4) * 4096;
            uint32_t len = i % 5 == 0 ? UINT32_MAX : (uint32_t)rand() % 8192;
            forge_page(a, i, handle, off, len, 'x');
        }
        /* Its own handle, a length past the page the service copies. */
        forge_page(a, 0, (uint64_t)own, (uint64_t)(round % 4) * 4096,
                   4097 + (uint32_t)rand() % 4096, 'x');
        CHILD_CHECK(raw_call(&f.r, (uint32_t)slot, &flush, NULL, 0, 10000) ==
                        0,
                    "attacker: flush of forged pages");
    }
    /* Every word flipped while the service takes them. */
    pthread_t flipper;
    pthread_create(&flipper, NULL, flip_pages, &f);
    uint64_t end = seconds_from_now(2);
    while (ipc_now_ns() < end) {
        for (uint32_t i = 0; i < a->dirty_pages; i++)
            forge_page(a, i, (uint64_t)(i % 2 ? ro : own),
                       (uint64_t)(rand() % 8) * 4096, 4096, 'y');
        int64_t rc = raw_call(&f.r, (uint32_t)slot, &flush, NULL, 0, 10000);
        CHILD_CHECK(rc == 0, "attacker: flush while flipping: %lld",
                    (long long)rc);
    }
    atomic_store(&f.stop, true);
    pthread_join(flipper, NULL);
    /* Left behind: the service flushes them when it sees the client go. */
    for (uint32_t i = 0; i < a->dirty_pages; i++)
        forge_page(a, i, i % 2 ? (uint64_t)ro : DANAUS_HANDLE(i, 1),
                   UINT64_MAX - 1, 4096, 'z');
    return 0;
}

/* Root's files: the secret (0600) and one anyone may read (0644). */
static int write_back_victim(void *arg)
{
    const struct secret *s = arg;
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "victim: attach");
    int slot = raw_slot(&r);
    uint32_t mount = raw_mount(&r, MOUNT_A);
    char shown[80];
    snprintf(shown, sizeof shown, "%s-shown", s->name);
    CHILD_CHECK(raw_write_file(&r, (uint32_t)slot, mount, s->name, 0600,
                               true) > 0 &&
                    raw_write_file(&r, (uint32_t)slot, mount, shown, 0644,
                                   true) > 0,
                "victim: files");
    raw_detach(&r);
    return 0;
}

/* Root's client reads both files back: the secret's bytes, and no more. */
static int secret_intact(void *arg)
{
    const struct secret *s = arg;
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "reader: attach");
    int slot = raw_slot(&r);
    uint32_t mount = raw_mount(&r, MOUNT_A);
    char shown[80];
    snprintf(shown, sizeof shown, "%s-shown", s->name);
    const char *names[] = {s->name, shown};
    unsigned char want[4096];
    secret_bytes(want, sizeof want);
    for (int f = 0; f < 2; f++) {
        int64_t h = raw_open(&r, (uint32_t)slot, mount, names[f], O_RDONLY);
        CHILD_CHECK(h > 0, "reader: open %s", names[f]);
        for (uint32_t k = 0; k <= SECRET_BLOCKS; k++) {
            int64_t n = raw_pread(&r, (uint32_t)slot, mount, h, k);
            CHILD_CHECK(n == (k < SECRET_BLOCKS ? 4096 : 0),
                        "reader: %s block %u: %lld", names[f], k,
                        (long long)n);
            CHILD_CHECK(n == 0 || memcmp(ipc_slot(&r.area, (uint32_t)slot)->buf,
                                         want, 4096) == 0,
                        "reader: %s block %u changed", names[f], k);
        }
    }
    raw_detach(&r);
    return 0;
}

static void test_write_back_forged(void **state)
{
    (void)state;
    start("writeback", "owner 65534:65534\n");
    static struct secret s;
    snprintf(s.name, sizeof s.name, "wb-secret-%d", (int)getpid());
    assert_int_equal(reap(spawn(write_back_victim, &s), 30), 0);
    with_checkers(write_back_forger, &s, 2, 0);
    assert_int_equal(reap(spawn(secret_intact, &s), 30), 0);
    if (ceph_conf)
        return;
    /* Its own file holds its own bytes (wherever its flipped offsets put
     * them: that is its right), and none of the service's memory. */
    DIR *d = opendir(host_a);
    assert_non_null(d);
    struct dirent *e;
    int forgers = 0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "forger-", 7) != 0)
            continue;
        forgers++;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", host_a, e->d_name);
        static unsigned char b[16 * 4096];
        int fd = open(path, O_RDONLY);
        ssize_t n = pread(fd, b, sizeof b, 0);
        assert_true(n >= 4096);
        for (ssize_t k = 0; k < n; k++)
            if (b[k] != 0 && b[k] != 'm' && b[k] != 'x' && b[k] != 'y')
                fail_msg("byte %zd of its file is %#x", k, b[k]);
        close(fd);
    }
    closedir(d);
    assert_int_equal(forgers, 1);
}

/* ---- write-back pages forged for the next service ---- */

/* A dead service's keeper hands the next one each client's area and the
 * files it keeps writes of, and the next one writes their pages before it
 * lets anyone in (core/kept.h). root's client has a file kept; the
 * attacker (nobody) has one of its own kept and a handle read-only on
 * root's other file, and knows the number of root's handle (handles are
 * numbered per client). Its pages name each of those, random handles,
 * offsets past what a file can hold and lengths past a page, and a thread
 * flips the words of half of them while danausd is killed and the next
 * one takes them.
 * Its one good page lands in its own file, and nothing else anywhere:
 * root's files keep their bytes, and the next service runs. */
static uint64_t kept_victim_handle;

static int64_t small_pwrite(struct raw *r, int slot, uint32_t mount,
                            int64_t h, unsigned char c)
{
    unsigned char b[4096];
    memset(b, c, sizeof b);
    struct danaus_desc d = {.call = DANAUS_CALL_PWRITE, .mount = mount,
                            .handle = (uint64_t)h};
    return raw_call(r, (uint32_t)slot, &d, b, sizeof b, 10000);
}

/* root's client: a file whose writes it may keep, then waits for the
 * word to stop. */
static int kept_victim(void *arg)
{
    int *fds = arg; /* handle (write end), stop (read end) */
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "victim: attach");
    int slot = raw_slot(&r);
    uint32_t mount = raw_mount(&r, fuse_mp);
    int64_t h = raw_open(&r, (uint32_t)slot, mount, "kept-victim",
                         O_CREAT | O_RDWR | O_TRUNC);
    CHILD_CHECK(h > 0 && small_pwrite(&r, slot, mount, h, 'V') == 4096,
                "victim: its file");
    CHILD_CHECK(ipc_cache_gen(&r.area, (uint64_t)h) & IPC_GEN_WRITES_BACK,
                "victim: its writes are not kept");
    uint64_t hv = (uint64_t)h;
    CHILD_CHECK(write(fds[0], &hv, sizeof hv) == sizeof hv, "victim: tell");
    char c;
    CHILD_CHECK(read(fds[1], &c, 1) == 1, "victim: wait");
    return 0;
}

static int kept_forger(void *arg)
{
    int *fds = arg; /* ready (write end), stop (read end) */
    static struct forged f;
    uint32_t mount;
    int slot = forger_attach(&f, fuse_mp, &mount);
    const struct ipc_area *a = &f.r.area;
    CHILD_CHECK(a->dirty_pages > 1, "attacker: one write-back page");
    int64_t ro = raw_open(&f.r, (uint32_t)slot, mount, "kept-shown",
                          O_RDONLY);
    int64_t own = raw_open(&f.r, (uint32_t)slot, mount, "kept-forger",
                           O_CREAT | O_RDWR | O_TRUNC);
    CHILD_CHECK(own > 0 && ro > 0 &&
                    small_pwrite(&f.r, slot, mount, own, 'm') == 4096,
                "attacker: opens and first write");
    CHILD_CHECK(ipc_cache_gen(a, (uint64_t)own) & IPC_GEN_WRITES_BACK,
                "attacker: its writes are not kept");
    srand((unsigned)getpid());
    for (uint32_t i = 1; i < a->dirty_pages; i++) {
        uint64_t handle = (uint64_t)own, off = 0;
        uint32_t len = 4096;
        switch (i % 5) {
        case 0:
            handle = kept_victim_handle;
            break;
        case 1:
            handle = (uint64_t)ro;
            break;
        case 2:
            handle = (uint64_t)rand() << 32 | (uint64_t)rand();
            break;
        case 3:
            off = i % 2 ? UINT64_MAX - (uint64_t)(rand() % 8192)
                        : (uint64_t)INT64_MAX - 100;
            break;
        default:
            len = i % 2 ? 4097 + (uint32_t)rand() % 4096 : UINT32_MAX;
            break;
        }
        forge_page(a, i, handle, off, len, 'x');
    }
    forge_page(a, 0, (uint64_t)own, 4096, 4096, 'm');
    /* The first half stays as forged, for the next service to take as
     * such; the second is flipped under it. */
    f.first = a->dirty_pages / 2;
    pthread_t flipper;
    pthread_create(&flipper, NULL, flip_pages, &f);
    CHILD_CHECK(write(fds[0], "r", 1) == 1, "attacker: ready");
    char c;
    CHILD_CHECK(read(fds[1], &c, 1) == 1, "attacker: wait");
    atomic_store(&f.stop, true);
    pthread_join(flipper, NULL);
    return 0;
}

/* The host's file name holds n bytes, each one of allowed. */
static void host_file_is(const char *name, ssize_t n, const char *allowed)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", host_a, name);
    static unsigned char b[64 * 4096];
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t got = pread(fd, b, sizeof b, 0);
    close(fd);
    assert_int_equal(got, n);
    for (ssize_t k = 0; k < got; k++)
        if (!strchr(allowed, b[k]) || !b[k])
            fail_msg("%s: byte %zd is %#x", name, k, b[k]);
}

static void test_write_back_forged_over_restart(void **state)
{
    (void)state;
    /* Ceph's files keep no writes back (docs/cache.md). */
    if (ceph_conf)
        skip();
    start_fuse_exe("wbkept", "fuse_keep 30\nowner 65534:65534\n", danausd);
    snprintf(sock, sizeof sock, "%s/%s.sock", site.rundir, site.service);
    char shown[PATH_MAX + 64];
    snprintf(shown, sizeof shown, "%s/kept-shown", host_a);
    int fd = open(shown, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    static unsigned char s[2 * 4096];
    memset(s, 'S', sizeof s);
    assert_int_equal(write(fd, s, sizeof s), sizeof s);
    close(fd);
    int hv[2], vstop[2], ready[2], fstop[2];
    assert_int_equal(pipe(hv), 0);
    assert_int_equal(pipe(vstop), 0);
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(fstop), 0);
    int vfds[2] = {hv[1], vstop[0]}, ffds[2] = {ready[1], fstop[0]};
    pid_t victim = spawn(kept_victim, vfds);
    assert_int_equal(read(hv[0], &kept_victim_handle, 8), 8);
    pid_t forger = spawn(kept_forger, ffds);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    daemon_kill(&daemon_);
    assert_int_equal(daemon_start(&daemon_, danausd, &site, "danausd-2",
                                  30000),
                     0);
    assert_int_equal(write(vstop[1], "s", 1), 1);
    assert_int_equal(write(fstop[1], "s", 1), 1);
    assert_int_equal(reap(victim, 30), 0);
    assert_int_equal(reap(forger, 30), 0);
    host_file_is("kept-victim", 4096, "V");
    host_file_is("kept-shown", 2 * 4096, "S");
    /* Its own pages: the good one at 4096, and wherever flipped words put
     * its bytes inside its own file, but no byte of anyone else's. */
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/kept-forger", host_a);
    static unsigned char b[64 * 4096];
    fd = open(path, O_RDONLY);
    ssize_t n = pread(fd, b, sizeof b, 0);
    close(fd);
    assert_true(n >= 2 * 4096);
    for (ssize_t k = 0; k < n; k++)
        if (b[k] != 0 && b[k] != 'm' && b[k] != 'x')
            fail_msg("byte %zd of its file is %#x", k, b[k]);
    for (int k = 4096; k < 2 * 4096; k++)
        assert_int_equal(b[k], 'm');
    int *pipes[] = {hv, vstop, ready, fstop};
    for (int p = 0; p < 4; p++) {
        close(pipes[p][0]);
        close(pipes[p][1]);
    }
}

/* ---- the announcement page: read-only to every client ---- */

/* nobody's client tries every way to write the page the service bumps
 * for everyone's name caches (ipc.h): a writable shared mapping, making
 * a read-only one writable, write(2), a writable descriptor of its own
 * from /proc, truncation, removing the seals. All fail; a private copy
 * it scribbles on is its own; and the service goes on announcing (a
 * change of the attacker's own bumps names in what it sees). */
static int forge_announcements(void *arg)
{
    (void)arg;
    become(NOBODY);
    struct raw r = attacker_attach();
    int fd = r.announce_fd;
    CHILD_CHECK(fd >= 0, "attacker: no announcement page");
    size_t size = (sizeof(struct ipc_announce) + 4095) & ~(size_t)4095;
    CHILD_CHECK(mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
                    MAP_FAILED,
                "attacker: mapped the page writable");
    const struct ipc_announce *page;
    CHILD_CHECK(ipc_announce_map(fd, &page) == 0, "attacker: read mapping");
    CHILD_CHECK(mprotect((void *)page, size, PROT_READ | PROT_WRITE) < 0,
                "attacker: made the read-only mapping writable");
    uint64_t junk = UINT64_MAX;
    CHILD_CHECK(pwrite(fd, &junk, sizeof junk, 0) < 0,
                "attacker: wrote the page");
    CHILD_CHECK(ftruncate(fd, 0) < 0, "attacker: truncated the page");
    CHILD_CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) < 0,
                "attacker: changed the seals");
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int again = open(proc, O_RDWR);
    if (again >= 0) {
        CHILD_CHECK(pwrite(again, &junk, sizeof junk, 0) < 0,
                    "attacker: wrote the page through /proc");
        CHILD_CHECK(mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, again,
                         0) == MAP_FAILED,
                    "attacker: mapped the page writable through /proc");
        close(again);
    }
    struct ipc_announce *copy =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHILD_CHECK(copy != MAP_FAILED, "attacker: private copy");
    uint64_t names = atomic_load(&page->names);
    atomic_store(&copy->names, names + 1000);
    CHILD_CHECK(atomic_load(&page->names) < names + 1000,
                "attacker: its private copy reached the shared page");
    int slot = raw_slot(&r);
    CHILD_CHECK(slot >= 0, "attacker: slot");
    char name[64];
    snprintf(name, sizeof name, "announcer-%d", (int)getpid());
    struct danaus_desc d = {.call = DANAUS_CALL_MKDIR,
                            .mount = raw_mount(&r, MOUNT_A)};
    d.arg[0] = 0755;
    CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, name,
                         (uint32_t)strlen(name) + 1, 10000) == 0,
                "attacker: mkdir of its own");
    CHILD_CHECK(atomic_load(&page->names) > names,
                "attacker: its own change was not announced");
    ipc_announce_unmap(page);
    munmap(copy, size);
    raw_detach(&r);
    return 0;
}

static void test_announcements_read_only(void **state)
{
    (void)state;
    start("announce", "owner 65534:65534\n");
    with_checkers(forge_announcements, NULL, 2, 0);
}

static void test_two_uids(void **state)
{
    (void)state;
    start("uids", "owner 65534:65534\n");
    snprintf(root_file, sizeof root_file, "root-secret-%s", site.service);
    snprintf(nobody_file, sizeof nobody_file, "nobody-%s", site.service);
    pid_t root = spawn(root_client, NULL);
    usleep(300000);
    struct checker c = {1, 0, CHECK_SECONDS - 1, MOUNT_A};
    pid_t check = spawn(checker_main, &c);
    assert_int_equal(reap(spawn(owner_attacker, NULL), 60), 0);
    assert_int_equal(reap(check, 60), 0);
    assert_int_equal(reap(root, 60), 0);
    if (!ceph_conf) {
        char p[PATH_MAX + 256];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", host_a, nobody_file);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_uid, NOBODY); /* never root's */
        snprintf(p, sizeof p, "%s/%s", host_a, root_file);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_uid, 0);
        assert_int_equal(st.st_size, 6);
    }
}

/* ---- hit-ratio curves: what containers read, for the engine only ---- */

/* The tenant (the service's owner, whose clients reach the door) asks
 * for the curves, which tell what every container reads: refused, past
 * the last one too, with or without a hello, as the engine's calls are. */
static int curve_reader(void *arg)
{
    (void)arg;
    become(NOBODY);
    struct raw r;
    struct danaus_door_reply reply;
    CHILD_CHECK(raw_connect(&r, sock) == 0, "connect");
    CHILD_CHECK(raw_door(&r, DANAUS_DOOR_HRC, 0, 0, NULL, 0, &reply) == EPERM,
                "HRC answered the tenant");
    CHILD_CHECK(raw_door(&r, DANAUS_DOOR_HRC, UINT32_MAX, 0, NULL, 0,
                         &reply) == EPERM,
                "HRC past the last answered the tenant");
    raw_detach(&r);
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attach");
    CHILD_CHECK(raw_door(&r, DANAUS_DOOR_HRC, 0, 0, NULL, 0, &reply) == EPERM,
                "HRC answered a client");
    raw_detach(&r);
    return 0;
}

static void test_curves_for_root_only(void **state)
{
    (void)state;
    start("hrc", "owner 65534:65534\n");
    assert_int_equal(reap(spawn(curve_reader, NULL), 30), 0);
}

/* ---- forgetting a union's branch: the engine's call too ---- */

/* The tenant asks the service to forget a branch instance (so that a
 * later union would serve whatever is at that path then): refused, as
 * the engine's calls are. */
static int branch_forgetter(void *arg)
{
    (void)arg;
    become(NOBODY);
    struct raw r;
    struct danaus_door_reply reply;
    static const char strings[] = "local\0/";
    CHILD_CHECK(raw_connect(&r, sock) == 0, "connect");
    CHILD_CHECK(raw_door(&r, DANAUS_DOOR_BRANCH_FORGET, 2, 0, strings,
                         sizeof strings, &reply) == EPERM,
                "BRANCH_FORGET answered the tenant");
    raw_detach(&r);
    return 0;
}

static void test_branch_forget_for_root_only(void **state)
{
    (void)state;
    start("forget", "owner 65534:65534\n");
    assert_int_equal(reap(spawn(branch_forgetter, NULL), 30), 0);
    /* Root's malformed calls are refused, and the service goes on. */
    struct raw r;
    struct danaus_door_reply reply;
    static const char unended[] = {'l', 'o', 'c', 'a', 'l', '\0', '/'};
    static const char one[] = "local";
    static const char fine[] = "local\0/nowhere";
    assert_int_equal(raw_connect(&r, sock), 0);
    assert_int_equal(raw_door(&r, DANAUS_DOOR_BRANCH_FORGET, 2, 0, unended,
                              sizeof unended, &reply),
                     EINVAL);
    assert_int_equal(raw_door(&r, DANAUS_DOOR_BRANCH_FORGET, 1, 0, one,
                              sizeof one, &reply),
                     EINVAL);
    assert_int_equal(raw_door(&r, DANAUS_DOOR_BRANCH_FORGET, 2, 0, NULL, 0,
                              &reply),
                     EINVAL);
    assert_int_equal(raw_door(&r, DANAUS_DOOR_BRANCH_FORGET, 2, 0, fine,
                              sizeof fine, &reply),
                     0);
    raw_detach(&r);
}

/* ---- two containers: two views in one service ---- */

struct container {
    const char *own, *other; /* host mount points */
};

/* In a mount namespace of its own, with the view of `own`: its root is
 * own's instance, and other's index is refused whatever it names. */
static int container_main(void *arg)
{
    struct container *c = arg;
    CHILD_CHECK(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
    struct raw setup;
    CHILD_CHECK(raw_attach(&setup, sock) == 0, "attach for view");
    struct danaus_door_reply reply;
    size_t len = strlen(c->own) + 1;
    int err = raw_door(&setup, DANAUS_DOOR_VIEW, 1, 0, c->own, len, &reply);
    CHILD_CHECK(err == 0, "view: %s", strerror(err));
    raw_detach(&setup);

    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attach");
    CHILD_CHECK(raw_mount(&r, c->other) == UINT32_MAX, "other is listed");
    uint32_t own = raw_mount(&r, "/");
    CHILD_CHECK(own != UINT32_MAX, "no root in the view");
    int slot = raw_slot(&r);
    char name[96];
    snprintf(name, sizeof name, "escaped-%s%s", site.service, c->own + 1);
    for (uint32_t m = 0; m < 8; m++) {
        struct danaus_desc d = {.call = DANAUS_CALL_MKDIR, .mount = m};
        d.arg[0] = 0755;
        int64_t rc = raw_call(&r, (uint32_t)slot, &d, name,
                              (uint32_t)strlen(name) + 1, 5000);
        CHILD_CHECK(rc == (m == own ? 0 : -EINVAL), "mkdir on mount %u: %lld",
                    m, (long long)rc);
    }
    struct checker check = {(int)own + 1, 0, 1, "/"};
    return checker_main(&check);
}

static void test_two_containers(void **state)
{
    (void)state;
    start("views", "");
    struct container one = {MOUNT_A, MOUNT_B}, two = {MOUNT_B, MOUNT_A};
    pid_t a = spawn(container_main, &one), b = spawn(container_main, &two);
    assert_int_equal(reap(a, 60), 0);
    assert_int_equal(reap(b, 60), 0);
    if (!ceph_conf) {
        /* Each container made exactly its own directory. */
        char p[PATH_MAX + 256];
        struct stat st;
        snprintf(p, sizeof p, "%s/escaped-%s%s", host_a, site.service,
                 MOUNT_A + 1);
        assert_int_equal(stat(p, &st), 0);
        snprintf(p, sizeof p, "%s/escaped-%s%s", host_b, site.service,
                 MOUNT_B + 1);
        assert_int_equal(stat(p, &st), 0);
        snprintf(p, sizeof p, "%s/escaped-%s%s", host_a, site.service,
                 MOUNT_B + 1);
        assert_int_equal(stat(p, &st), -1);
    }
}

/* ---- paths longer than PATH_MAX that try to lead out (issue 38) ---- */

#define LONG_LEVELS 20 /* names of 250 bytes: 5,019 bytes deep */

/* A call on the two strings a and b (b NULL: one string), with arg0 and
 * arg1. */
static int64_t two_strings_args(struct raw *r, int slot, enum danaus_call call,
                                const char *a, const char *b, int64_t arg0,
                                int64_t arg1)
{
    static char buf[4 * DANAUS_LONG_PATH_MAX];
    size_t la = strlen(a) + 1, lb = b ? strlen(b) + 1 : 0;
    CHILD_CHECK(la + lb <= sizeof buf, "strings too long");
    memcpy(buf, a, la);
    if (b)
        memcpy(buf + la, b, lb);
    struct danaus_desc d = {.call = call, .mount = raw_mount(r, MOUNT_A)};
    d.arg[0] = arg0;
    d.arg[1] = arg1;
    return raw_call(r, (uint32_t)slot, &d, buf, (uint32_t)(la + lb), 10000);
}

static int64_t two_strings(struct raw *r, int slot, enum danaus_call call,
                           const char *a, const char *b, int64_t arg0)
{
    return two_strings_args(r, slot, call, a, b, arg0, 0);
}

/* An xattr call (GETXATTR of name, or LISTXATTR when name is NULL) on
 * path with AT flags at, asking for 64 bytes. */
static int64_t xattr_call(struct raw *r, int slot, const char *path,
                          const char *name, int at)
{
    return two_strings_args(r, slot,
                            name ? DANAUS_CALL_GETXATTR : DANAUS_CALL_LISTXATTR,
                            path, name, 64, at);
}

/* As root (whom no permission stops), on MOUNT_A (its root one level below the site): a chain of
 * LONG_LEVELS directories, longer than PATH_MAX, made with the whole path
 * each time; at its end symlinks out ("up" climbs LONG_LEVELS + 1 levels
 * to the site's "secret", "abs" names it, "root" is "/"), and paths that
 * try to leave through them and through "..". Nothing may open, and
 * nothing be made or moved, outside the instance: on the local backend
 * the later part of such a path may not climb above where it starts
 * (ENAMETOOLONG); Ceph's walk stops a climb at the instance's root
 * (ENOENT: no secret there). */
static int long_escape(void *arg)
{
    (void)arg;
    struct raw r = attacker_attach();
    int slot = raw_slot(&r);
    CHILD_CHECK(slot >= 0, "slot");
    static char chain[DANAUS_LONG_PATH_MAX], p[4 * DANAUS_LONG_PATH_MAX],
        q[2 * DANAUS_LONG_PATH_MAX];
    char name[251], secret[PATH_MAX + 16];
    memset(name, 'c', 250);
    name[250] = '\0';
    snprintf(secret, sizeof secret, "%s/secret", site.dir);
    size_t n = 0;
    for (int i = 0; i < LONG_LEVELS; i++) {
        n += (size_t)sprintf(chain + n, "%s%s", i ? "/" : "", name);
        int64_t rc = two_strings(&r, slot, DANAUS_CALL_MKDIR, chain, NULL,
                                 0755);
        CHILD_CHECK(rc == 0, "mkdir of %zu bytes: %lld", n, (long long)rc);
    }
    char up[3 * LONG_LEVELS + 16] = "";
    for (int i = 0; i <= LONG_LEVELS; i++)
        strcat(up, "../");
    strcat(up, "secret");
    const char *links[][2] = {{"up", up}, {"abs", secret}, {"root", "/"}};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", chain, links[i][0]);
        int64_t rc = two_strings(&r, slot, DANAUS_CALL_SYMLINK, links[i][1],
                                 p, 0);
        CHILD_CHECK(rc == 0, "symlink %s: %lld", links[i][0], (long long)rc);
    }
    snprintf(q, sizeof q, "%s/f", chain);
    int64_t h = raw_open(&r, (uint32_t)slot, raw_mount(&r, MOUNT_A), q,
                         O_CREAT | O_WRONLY);
    CHILD_CHECK(h > 0, "create at the end: %lld", (long long)h);

    /* What each try names: through the links, ".." past the chain's top
     * in a later piece, and ".." filling a first piece and going on. */
    char dots[3 * (LONG_LEVELS + 1) + 1] = "";
    for (int i = 0; i <= LONG_LEVELS; i++)
        strcat(dots, "/..");
    const char *tries[] = {"/up", "/abs", NULL, "/../../secret", NULL};
    for (int i = 0; i < 5; i++) {
        if (i == 2)
            snprintf(p, sizeof p, "%s/root%s", chain, secret);
        else if (i == 4)
            snprintf(p, sizeof p, "%s%s/secret", chain, dots);
        else
            snprintf(p, sizeof p, "%s%s", chain, tries[i]);
        int64_t rc = raw_open(&r, (uint32_t)slot, raw_mount(&r, MOUNT_A), p,
                              O_RDONLY);
        CHILD_CHECK(rc < 0, "open of try %d gave a handle", i);
        rc = two_strings(&r, slot, DANAUS_CALL_STAT, p, NULL, 0);
        CHILD_CHECK(rc < 0, "stat of try %d answered", i);
        rc = xattr_call(&r, slot, p, "user.secret", 0);
        CHILD_CHECK(rc < 0, "getxattr of try %d answered %lld", i,
                    (long long)rc);
        rc = xattr_call(&r, slot, p, NULL, 0);
        CHILD_CHECK(rc < 0, "listxattr of try %d answered %lld", i,
                    (long long)rc);
    }
    /* A short link to the secret, read by name from its parent's handle
     * (the local backend's getxattrat): followed inside the instance, or
     * the link itself. */
    int64_t rc = two_strings(&r, slot, DANAUS_CALL_SYMLINK, secret,
                             "xattr-abs", 0);
    CHILD_CHECK(rc == 0, "symlink xattr-abs: %lld", (long long)rc);
    for (int at = 0; !ceph_conf && at <= AT_SYMLINK_NOFOLLOW;
         at += AT_SYMLINK_NOFOLLOW) {
        rc = xattr_call(&r, slot, "xattr-abs", "user.secret", at);
        CHILD_CHECK(rc == (at ? -ENODATA : -ENOENT),
                    "getxattr of xattr-abs (at %d): %lld", at, (long long)rc);
        rc = xattr_call(&r, slot, "xattr-abs", NULL, at);
        CHILD_CHECK(rc == (at ? 0 : -ENOENT),
                    "listxattr of xattr-abs (at %d): %lld", at, (long long)rc);
    }
    two_strings(&r, slot, DANAUS_CALL_UNLINK, "xattr-abs", NULL, 0);
    p[0] = '\0';
    for (int i = 0; i < 1400; i++)
        strcat(p, "../");
    strcat(p, "secret");
    CHILD_CHECK(raw_open(&r, (uint32_t)slot, raw_mount(&r, MOUNT_A), p,
                         O_RDONLY) < 0,
                "open of 1,400 \"..\" gave a handle");

    /* Made or moved out: the test looks for them on the host. */
    snprintf(p, sizeof p, "%s%s/escaped-dir", chain, dots);
    two_strings(&r, slot, DANAUS_CALL_MKDIR, p, NULL, 0755);
    snprintf(p, sizeof p, "%s/up/../escaped-link", chain);
    two_strings(&r, slot, DANAUS_CALL_SYMLINK, "x", p, 0);
    snprintf(p, sizeof p, "%s%s/escaped-move", chain, dots);
    two_strings(&r, slot, DANAUS_CALL_RENAME, q, p, 0);
    snprintf(p, sizeof p, "%s/abs", chain);
    two_strings(&r, slot, DANAUS_CALL_TRUNCATE, p, NULL, 0);

    /* Longer than any path the wire carries. */
    memset(p, 'a', 3 * DANAUS_PATH_MAX);
    p[3 * DANAUS_PATH_MAX] = '\0';
    rc = two_strings(&r, slot, DANAUS_CALL_STAT, p, NULL, 0);
    CHILD_CHECK(rc == -ENAMETOOLONG, "a path of 12 KiB: %lld",
                (long long)rc);

    /* Away with the chain (the site's removal walks no deeper than
     * PATH_MAX), and with what Ceph's walk made at the instance's root. */
    const char *made[] = {"up", "abs", "root", "f"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", chain, made[i]);
        two_strings(&r, slot, DANAUS_CALL_UNLINK, p, NULL, 0);
    }
    two_strings(&r, slot, DANAUS_CALL_UNLINK, "escaped-move", NULL, 0);
    two_strings(&r, slot, DANAUS_CALL_RMDIR, "escaped-dir", NULL, 0);
    for (; n > 0; n = n > 251 ? n - 251 : 0) {
        chain[n] = '\0';
        rc = two_strings(&r, slot, DANAUS_CALL_RMDIR, chain, NULL, 0);
        CHILD_CHECK(rc == 0, "rmdir of %zu bytes: %lld", n, (long long)rc);
    }
    raw_detach(&r);
    return 0;
}

static void test_long_paths_stay_inside(void **state)
{
    (void)state;
    start("longpaths", "");
    char secret[PATH_MAX + 64];
    snprintf(secret, sizeof secret, "%s/secret", site.dir);
    FILE *f = fopen(secret, "w");
    assert_non_null(f);
    fputs("host secret\n", f);
    fclose(f);
    assert_int_equal(chmod(secret, 0644), 0);
    /* What an xattr call that got out would read. */
    assert_int_equal(setxattr(secret, "user.secret", "host", 4, 0), 0);
    assert_int_equal(reap(spawn(long_escape, NULL), 60), 0);
    const char *made[] = {"escaped-dir", "escaped-link", "escaped-move"};
    for (int i = 0; i < 3; i++) {
        char p[PATH_MAX + 64];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", site.dir, made[i]);
        assert_int_equal(lstat(p, &st), -1);
    }
    struct stat st;
    assert_int_equal(stat(secret, &st), 0);
    assert_int_equal(st.st_size, 12);
}

/* ---- a FIFO swapped in under an open ---- */

/* The local backend opens a name it found to be a regular file from its
 * parent's handle; an attacker who writes the directory swaps a FIFO in
 * between the look and the open, over and over. An open of a FIFO for
 * reading waits for a writer: no open may keep a service thread, and a
 * handle is only ever of the regular file. */
#define SWAP_OPENS 20000

static int swap_names(void *arg)
{
    (void)arg;
    char a[PATH_MAX + 16], b[PATH_MAX + 16];
    snprintf(a, sizeof a, "%s/swap", host_a);
    snprintf(b, sizeof b, "%s/other", host_a);
    for (;;)
        CHILD_CHECK(renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0,
                    "exchange: %s", strerror(errno));
}

static int open_swapping(void *arg)
{
    (void)arg;
    struct raw r;
    uint32_t mount;
    int slot = attach_with_slot(&r, MOUNT_A, &mount);
    int files = 0, fifos = 0;
    /* SWAP_OPENS at least, and on until the swaps landed both ways: on a
     * loaded machine the swapper may not run for a while (up to a minute,
     * yielding now and then). */
    uint64_t most = seconds_from_now(60);
    for (int i = 0; i < SWAP_OPENS || ((files == 0 || fifos == 0) &&
                                       ipc_now_ns() < most);
         i++) {
        if (i % 1000 == 999)
            sched_yield();
        /* Every other open says it saw a regular file there: half of
         * the time a lie, and the answer must not change. */
        int hint = i & 1 ? DANAUS_OPEN_SEEN_REGULAR : 0;
        int64_t h = raw_open(&r, (uint32_t)slot, mount, "swap",
                             O_RDONLY | hint);
        CHILD_CHECK(h >= 0, "open %d: %s", i, strerror((int)-h));
        fifos += h == 0; /* a FIFO: the client opens it itself */
        files += h > 0;
        if (h == 0)
            continue;
        /* The regular file is empty; a FIFO's handle would say ESPIPE. */
        struct danaus_desc d = {.call = DANAUS_CALL_PREAD, .mount = mount,
                                .handle = (uint64_t)h};
        d.arg[0] = 1;
        int64_t n = raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000);
        CHILD_CHECK(n == 0, "pread %d: %lld", i, (long long)n);
        d = (struct danaus_desc){.call = DANAUS_CALL_CLOSE, .mount = mount,
                                 .handle = (uint64_t)h};
        CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000) == 0,
                    "close %d", i);
    }
    CHILD_CHECK(files > 0 && fifos > 0, "files %d, FIFOs %d", files, fifos);
    return 0;
}

static void test_fifo_swapped_in(void **state)
{
    (void)state;
    if (ceph_conf)
        skip();
    start("fifoswap", "");
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/swap", host_a);
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
    snprintf(p, sizeof p, "%s/other", host_a);
    assert_int_equal(mkfifo(p, 0644), 0);
    pid_t swapper = spawn(swap_names, NULL);
    int rc = reap(spawn(open_swapping, NULL), 120);
    kill(swapper, SIGKILL);
    waitpid(swapper, NULL, 0);
    assert_int_equal(rc, 0);
}

/* ---- an open that lies about what it saw ---- */

/* DANAUS_OPEN_SEEN_REGULAR on a FIFO (read and write, no peer), a device
 * and a socket: each answers as without it (0: the client opens it
 * through the kernel), none blocks the service or hands over a handle;
 * a regular file opens as usual. */
static int lying_opens(void *arg)
{
    (void)arg;
    struct raw r;
    uint32_t mount;
    int slot = attach_with_slot(&r, MOUNT_A, &mount);
    const char *special[] = {"fifo", "null", "socket"};
    int modes[] = {O_RDONLY, O_WRONLY, O_RDWR};
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < 3; m++) {
            int64_t h = raw_open(&r, (uint32_t)slot, mount, special[i],
                                 modes[m] | DANAUS_OPEN_SEEN_REGULAR);
            int64_t plain = raw_open(&r, (uint32_t)slot, mount, special[i],
                                     modes[m]);
            CHILD_CHECK(h == 0 && plain == 0,
                        "open of %s (mode %d) with the hint: %lld, "
                        "without: %lld", special[i], modes[m], (long long)h,
                        (long long)plain);
        }
    int64_t h = raw_open(&r, (uint32_t)slot, mount, "file",
                         O_RDONLY | DANAUS_OPEN_SEEN_REGULAR);
    CHILD_CHECK(h > 0, "open of a file with the hint: %s",
                strerror((int)-h));
    char got[8] = {0};
    struct danaus_desc d = {.call = DANAUS_CALL_PREAD, .mount = mount,
                            .handle = (uint64_t)h};
    d.arg[0] = sizeof got;
    CHILD_CHECK(raw_call(&r, (uint32_t)slot, &d, NULL, 0, 5000) == 5 &&
                    memcmp(ipc_slot(&r.area, (uint32_t)slot)->buf, "data\n",
                           5) == 0,
                "pread of the file");
    return 0;
}

static void test_open_hint_lies(void **state)
{
    (void)state;
    if (ceph_conf)
        skip();
    start("openhint", "");
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/fifo", host_a);
    assert_int_equal(mkfifo(p, 0666), 0);
    snprintf(p, sizeof p, "%s/null", host_a);
    assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
    snprintf(p, sizeof p, "%s/socket", host_a);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    assert_true(strlen(p) < sizeof sa.sun_path);
    memcpy(sa.sun_path, p, strlen(p) + 1);
    assert_true(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0);
    assert_int_equal(chmod(p, 0666), 0);
    snprintf(p, sizeof p, "%s/file", host_a);
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0 && write(fd, "data\n", 5) == 5);
    close(fd);
    int rc = reap(spawn(lying_opens, NULL), 60);
    close(s);
    assert_int_equal(rc, 0);
}

/* ---- a file passed to its client (wire.h danaus_pass) ---- */

#define MOUNT_U "/sec-u"
#define PASS_SIZE (64 << 10) /* passed: at least the service's smallest */
static char pass_dir[PATH_MAX];

/* One pass from a raw client's pass socket, not waiting: its descriptor
 * and, in *handle, the handle it names; -1 when none is there. */
static int pass_take(struct raw *r, uint64_t *handle)
{
    struct danaus_pass pass;
    int fd, got;
    ssize_t n = ipc_recv_fds(r->pass_fd, &pass, sizeof pass, &fd, 1, &got,
                             MSG_DONTWAIT);
    if (n != sizeof pass || got != 1) {
        if (got == 1)
            close(fd);
        return -1;
    }
    *handle = pass.handle;
    return fd;
}

/* An OPEN of name asking (arg4) for a pass: the handle, and in *passed
 * what the answer says. */
static int64_t open_asking(struct raw *r, int slot, uint32_t mount,
                           const char *name, int flags, int64_t ask,
                           uint64_t *passed)
{
    struct danaus_desc d = {.call = DANAUS_CALL_OPEN, .mount = mount};
    d.arg[0] = flags;
    d.arg[4] = ask;
    int64_t h = raw_call(r, (uint32_t)slot, &d, name,
                         (uint32_t)strlen(name) + 1, 5000);
    struct danaus_open_out out;
    memcpy(&out, ipc_slot(&r->area, (uint32_t)slot)->buf, sizeof out);
    *passed = h > 0 ? out.passed : 0;
    return h;
}

static void close_raw(struct raw *r, int slot, uint32_t mount, int64_t h)
{
    struct danaus_desc d = {.call = DANAUS_CALL_CLOSE, .mount = mount,
                            .handle = (uint64_t)h};
    raw_call(r, (uint32_t)slot, &d, NULL, 0, 5000);
}

/* As root, which the kernel lets change any file it may write: asks for
 * passes and never reads them, then takes one and tries every change
 * through it and its /proc link. */
static int passes_abused(void *arg)
{
    (void)arg;
    struct raw r;
    uint32_t mount;
    int slot = attach_with_slot(&r, MOUNT_U, &mount);
    uint64_t passed;
    int64_t h = open_asking(&r, slot, mount, "big", O_RDONLY, 2, &passed);
    CHILD_CHECK(h == -EINVAL, "arg4 2: %lld", (long long)h);
    /* A socket nobody reads fills; the opens go on, answered unpassed. */
    int yes = 0, no = 0;
    for (int i = 0; i < 2000; i++) {
        h = open_asking(&r, slot, mount, "big", O_RDONLY, 1, &passed);
        CHILD_CHECK(h > 0, "open %d asking for a pass: %s", i,
                    strerror((int)-h));
        passed ? yes++ : no++;
        close_raw(&r, slot, mount, h);
    }
    CHILD_CHECK(yes > 0 && no > 0, "%d passed, %d not: the socket never "
                "filled", yes, no);
    uint64_t whose = 0;
    int fd;
    while ((fd = pass_take(&r, &whose)) >= 0)
        close(fd);
    /* The writable branch's file, and an open for writing: not passed. */
    h = open_asking(&r, slot, mount, "upper", O_RDONLY, 1, &passed);
    CHILD_CHECK(h > 0 && !passed, "the writable branch's file: %lld, %llu",
                (long long)h, (unsigned long long)passed);
    h = open_asking(&r, slot, mount, "other", O_RDWR, 1, &passed);
    CHILD_CHECK(h > 0 && !passed, "open for writing: %lld, %llu",
                (long long)h, (unsigned long long)passed);
    /* What a passed descriptor can do. */
    h = open_asking(&r, slot, mount, "big", O_RDONLY, 1, &passed);
    fd = pass_take(&r, &whose);
    CHILD_CHECK(h > 0 && passed && fd >= 0 && whose == (uint64_t)h,
                "a pass for handle %lld: %llu, fd %d for %llu", (long long)h,
                (unsigned long long)passed, fd, (unsigned long long)whose);
    char head[4];
    CHILD_CHECK(pread(fd, head, sizeof head, 0) == 4 &&
                    memcmp(head, "low ", 4) == 0,
                "the passed file reads as the file");
    CHILD_CHECK(write(fd, "x", 1) < 0 && errno == EBADF, "write: %s",
                strerror(errno));
    CHILD_CHECK(fchmod(fd, 04777) < 0 && errno == EROFS, "fchmod: %s",
                strerror(errno));
    CHILD_CHECK(fchown(fd, NOBODY, NOBODY) < 0 && errno == EROFS,
                "fchown: %s", strerror(errno));
    CHILD_CHECK(futimens(fd, NULL) < 0 && errno == EROFS, "futimens: %s",
                strerror(errno));
    CHILD_CHECK(fsetxattr(fd, "user.x", "1", 1, 0) < 0 && errno == EROFS,
                "fsetxattr: %s", strerror(errno));
    CHILD_CHECK(ftruncate(fd, 0) < 0 && (errno == EINVAL || errno == EBADF),
                "ftruncate: %s", strerror(errno));
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int rw = open(link, O_RDWR);
    CHILD_CHECK(rw < 0 && errno == EROFS, "reopen for writing: %s",
                rw < 0 ? strerror(errno) : "opened");
    void *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHILD_CHECK(map == MAP_FAILED && errno == EACCES, "shared writable map");
    close(fd);
    return 0;
}

static void test_passes_abused(void **state)
{
    (void)state;
    if (ceph_conf)
        skip();
    snprintf(pass_dir, sizeof pass_dir, "/tmp/danaus-pass-XXXXXX");
    assert_non_null(mkdtemp(pass_dir));
    char up[PATH_MAX + 8], low[PATH_MAX + 8], p[PATH_MAX + 16];
    snprintf(up, sizeof up, "%s/up", pass_dir);
    snprintf(low, sizeof low, "%s/low", pass_dir);
    assert_int_equal(mkdir(up, 0755), 0);
    assert_int_equal(mkdir(low, 0755), 0);
    static char data[PASS_SIZE];
    memset(data, 'l', sizeof data);
    memcpy(data, "low ", 4);
    snprintf(p, sizeof p, "%s/big", low);
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0 && write(fd, data, sizeof data) == sizeof data);
    close(fd);
    snprintf(p, sizeof p, "%s/other", low);
    fd = open(p, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0 && write(fd, data, sizeof data) == sizeof data);
    close(fd);
    snprintf(p, sizeof p, "%s/upper", up);
    fd = open(p, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0 && write(fd, data, sizeof data) == sizeof data);
    close(fd);
    char extra[3 * PATH_MAX];
    snprintf(extra, sizeof extra, "union %s local %s %s\n", MOUNT_U, up, low);
    start("pass", extra);
    int rc = reap(spawn(passes_abused, NULL), 120);
    /* The image's file is as it was. */
    struct stat st;
    snprintf(p, sizeof p, "%s/big", low);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(st.st_uid, 0);
    assert_int_equal(st.st_size, PASS_SIZE);
    char got[8];
    fd = open(p, O_RDONLY);
    assert_true(fd >= 0 && read(fd, got, 4) == 4 && memcmp(got, "low ", 4) == 0);
    close(fd);
    assert_int_equal(getxattr(p, "user.x", got, sizeof got), -1);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", pass_dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(rc, 0);
}

/* ---- a hello from a process that did not connect (issue 35, 2) ---- */

/* In a container's mount namespace with the view of MOUNT_A: connects,
 * forks and exits; the child, once its parent is gone, says hello on the
 * inherited connection. The namespace of the process that connected can
 * no longer be identified: the hello must be refused, never answered with
 * the host's every mount. The child writes what its hello got (0 or
 * -errno) and whether MOUNT_B was listed to the pipe. */
static int orphan_hello(void *arg)
{
    int *out = arg;
    CHILD_CHECK(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
    struct raw setup;
    CHILD_CHECK(raw_attach(&setup, sock) == 0, "attach for view");
    struct danaus_door_reply reply;
    int err = raw_door(&setup, DANAUS_DOOR_VIEW, 1, 0, MOUNT_A,
                       sizeof MOUNT_A, &reply);
    CHILD_CHECK(err == 0, "view: %s", strerror(err));
    raw_detach(&setup);
    become(NOBODY);
    struct raw r;
    CHILD_CHECK(raw_connect(&r, sock) == 0, "connect");
    pid_t parent = getpid();
    pid_t child = fork();
    CHILD_CHECK(child >= 0, "fork");
    if (child > 0)
        _exit(0);
    for (int i = 0; i < 1000 && getppid() == parent; i++)
        usleep(5000);
    int32_t got[2] = {getppid() == parent ? -EBUSY : raw_hello(&r), 0};
    if (got[0] == 0)
        got[1] = raw_mount(&r, MOUNT_B) != UINT32_MAX;
    CHILD_CHECK(write(out[1], got, sizeof got) == sizeof got, "pipe");
    _exit(0);
}

static void test_orphan_hello(void **state)
{
    (void)state;
    start("orphan", "owner 65534:65534\n");
    int out[2];
    assert_int_equal(pipe(out), 0);
    assert_int_equal(reap(spawn(orphan_hello, out), 30), 0);
    close(out[1]);
    int32_t got[2] = {1, 1};
    assert_int_equal(read(out[0], got, sizeof got), sizeof got);
    close(out[0]);
    /* Not served: neither the host's table nor anything else. */
    assert_int_equal(got[1], 0);
    assert_int_equal(got[0], -ESRCH);
    /* Whoever connects and says hello itself is served as before. */
    struct checker late = {9, NOBODY, 0.3, MOUNT_A};
    assert_int_equal(reap(spawn(checker_main, &late), 30), 0);
}

/* ---- claimed tickets: only a forked child keeps its parent's ---- */

static uint64_t claims_token; /* the owner's ticket, as its children see it */
static int64_t claims_handle;

/* A door exchange on a fresh connection without a hello. */
static int door_once(uint32_t op, uint32_t arg, uint64_t token,
                     const void *extra, size_t len,
                     struct danaus_door_reply *reply)
{
    struct raw r;
    CHILD_CHECK(raw_connect(&r, sock) == 0, "connect");
    int err = raw_door(&r, op, arg, token, extra, len, reply);
    raw_detach(&r);
    return err;
}

/* Not the owner's child: its parent is a child of the owner. */
static int claim_as_stranger(void *arg)
{
    (void)arg;
    struct danaus_door_reply reply;
    CHILD_CHECK(door_once(DANAUS_DOOR_CLAIM, 0, claims_token, NULL, 0,
                          &reply) == EPERM,
                "a grandchild claimed its grandparent's ticket");
    return 0;
}

static int run_stranger(void *arg)
{
    (void)arg;
    return reap(spawn(claim_as_stranger, NULL), 30);
}

/* The owner's child, as another uid. */
static int claim_as_other_uid(void *arg)
{
    (void)arg;
    become(NOBODY);
    struct danaus_door_reply reply;
    CHILD_CHECK(door_once(DANAUS_DOOR_CLAIM, 0, claims_token, NULL, 0,
                          &reply) == EPERM,
                "another uid claimed the ticket");
    return 0;
}

/* The owner's child that claims: a second claim, its PASS with handles
 * the ticket does not hold or with a length that lies, are refused; its
 * PASS of the owner's handle gives a ticket; once attached, it adopts the
 * claimed ticket and holds the handle, and the service closes the claim's
 * connection. Reports its pid, then waits for the owner's word (a byte on
 * fds[0]) before adopting: without it (the owner gone), it ends. */
static int claimer(void *arg)
{
    int *fds = arg; /* the owner's word, its end; our report, its end */
    close(fds[2]);
    close(fds[3]);
    struct raw c;
    struct danaus_door_reply reply;
    CHILD_CHECK(raw_connect(&c, sock) == 0, "connect");
    CHILD_CHECK(raw_door(&c, DANAUS_DOOR_CLAIM, 0, claims_token, NULL, 0,
                         &reply) == 0,
                "the owner's child could not claim: %d", reply.error);
    CHILD_CHECK(raw_door(&c, DANAUS_DOOR_CLAIM, 0, claims_token, NULL, 0,
                         &reply) == EPERM,
                "a second claim on the same connection");
    CHILD_CHECK(door_once(DANAUS_DOOR_CLAIM, 0, claims_token, NULL, 0,
                          &reply) == EPERM,
                "a claimed ticket claimed again");
    uint64_t wrong[2] = {(uint64_t)claims_handle + 1,
                         DANAUS_HANDLE(4000, 1)};
    CHILD_CHECK(raw_door(&c, DANAUS_DOOR_PASS, 1, claims_token, &wrong[1],
                         sizeof wrong[1], &reply) == EBADF,
                "PASS of a handle the ticket does not hold");
    CHILD_CHECK(raw_door(&c, DANAUS_DOOR_PASS, 2, claims_token, wrong,
                         sizeof wrong[0], &reply) == EINVAL,
                "PASS whose count lies");
    CHILD_CHECK(raw_door(&c, DANAUS_DOOR_PASS, 0, claims_token + 1, NULL, 0,
                         &reply) == EPERM,
                "PASS of another token");
    uint64_t h = (uint64_t)claims_handle;
    CHILD_CHECK(raw_door(&c, DANAUS_DOOR_PASS, 1, claims_token, &h, sizeof h,
                         &reply) == 0 && reply.token != 0,
                "PASS of the owner's handle");
    pid_t me = getpid();
    CHILD_CHECK(write(fds[1], &me, sizeof me) == sizeof me, "report");
    char go;
    CHILD_CHECK(read(fds[0], &go, 1) == 1, "wait");
    struct raw a;
    CHILD_CHECK(raw_attach(&a, sock) == 0, "attach");
    CHILD_CHECK(raw_door(&a, DANAUS_DOOR_ADOPT, 0, claims_token, NULL, 0,
                         &reply) == 0,
                "the claimer could not adopt what it claimed");
    int slot = raw_slot(&a);
    struct danaus_desc d = {.call = DANAUS_CALL_FSYNC,
                            .mount = raw_mount(&a, MOUNT_A), .handle = h};
    CHILD_CHECK(slot >= 0 && raw_call(&a, (uint32_t)slot, &d, NULL, 0,
                                      10000) == 0,
                "the adopted handle");
    CHILD_CHECK(raw_door(&c, DANAUS_DOOR_PASS, 0, claims_token, NULL, 0,
                         &reply) == EPIPE,
                "the claim's connection outlived its adoption");
    raw_detach(&a);
    raw_detach(&c);
    return 0;
}

/* The owner's other child, attached: the old rule (a child of the
 * ticket's owner) would let it adopt; a claimed ticket is the claimer's. */
static int adopt_claimed(void *arg)
{
    (void)arg;
    struct raw a;
    struct danaus_door_reply reply;
    CHILD_CHECK(raw_attach(&a, sock) == 0, "attach");
    CHILD_CHECK(raw_door(&a, DANAUS_DOOR_ADOPT, 0, claims_token, NULL, 0,
                         &reply) == EPERM,
                "another child adopted a claimed ticket");
    raw_detach(&a);
    return 0;
}

/* Claims, waits past the ticket's time or closes the claim first, then
 * attaches and adopts: the claim keeps it, its connection's end drops it. */
static int claim_then(void *arg)
{
    bool close_first = arg != NULL;
    struct raw c, a;
    struct danaus_door_reply reply;
    CHILD_CHECK(raw_connect(&c, sock) == 0, "connect");
    CHILD_CHECK(raw_door(&c, DANAUS_DOOR_CLAIM, 0, claims_token, NULL, 0,
                         &reply) == 0,
                "claim");
    if (close_first)
        raw_detach(&c);
    else
        sleep(DANAUS_TICKET_TTL_S + 2);
    CHILD_CHECK(raw_attach(&a, sock) == 0, "attach");
    int err = raw_door(&a, DANAUS_DOOR_ADOPT, 0, claims_token, NULL, 0,
                       &reply);
    CHILD_CHECK(close_first ? err == EPERM : err == 0,
                close_first ? "a ticket outlived its claim's connection"
                            : "a claimed ticket expired: %s",
                strerror(err));
    raw_detach(&a);
    if (!close_first)
        raw_detach(&c);
    return 0;
}

/* The owner: a handle, a ticket, and its children trying the ticket. */
static int ticket_owner(void *arg)
{
    (void)arg;
    struct raw r;
    struct danaus_door_reply reply;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attach");
    int slot = raw_slot(&r);
    claims_handle = raw_open(&r, (uint32_t)slot, raw_mount(&r, MOUNT_A),
                             "claimed", O_CREAT | O_RDWR);
    CHILD_CHECK(claims_handle > 0, "open");
    CHILD_CHECK(raw_door(&r, DANAUS_DOOR_TICKET, DANAUS_TICKET_ALL, 0, NULL,
                         0, &reply) == 0,
                "ticket");
    claims_token = reply.token;
    CHILD_CHECK(reap(spawn(run_stranger, NULL), 30) == 0, "stranger");
    CHILD_CHECK(reap(spawn(claim_as_other_uid, NULL), 30) == 0, "other uid");
    int to[2], from[2];
    CHILD_CHECK(pipe(to) == 0 && pipe(from) == 0, "pipes");
    int fds[4] = {to[0], from[1], to[1], from[0]};
    pid_t c = spawn(claimer, fds);
    close(to[0]);
    close(from[1]);
    pid_t got;
    CHILD_CHECK(read(from[0], &got, sizeof got) == sizeof got, "claimer");
    CHILD_CHECK(reap(spawn(adopt_claimed, NULL), 30) == 0, "other child");
    CHILD_CHECK(write(to[1], "g", 1) == 1, "go");
    CHILD_CHECK(reap(c, 30) == 0, "claimer");
    /* Two more tickets: one claimed past its time, one whose claim ends. */
    for (int close_first = 0; close_first < 2; close_first++) {
        CHILD_CHECK(raw_door(&r, DANAUS_DOOR_TICKET, DANAUS_TICKET_ALL, 0,
                             NULL, 0, &reply) == 0,
                    "ticket");
        claims_token = reply.token;
        CHILD_CHECK(reap(spawn(claim_then, close_first ? (void *)&reply : NULL),
                         30) == 0,
                    "claim_then");
    }
    /* Children that claim and die before the service reads their claims
     * (it is stopped meanwhile): their tickets go when the claims are
     * read, not when they would expire, so that their parent's next fork
     * still gets one. */
    uint64_t tokens[64];
    int n = 0;
    while (n < 64 && raw_door(&r, DANAUS_DOOR_TICKET, DANAUS_TICKET_ALL, 0,
                              NULL, 0, &reply) == 0)
        tokens[n++] = reply.token;
    CHILD_CHECK(n > 0 && n < 64, "the tickets a process may hold: %d", n);
    CHILD_CHECK(kill(daemon_.pid, SIGSTOP) == 0, "stop the service");
    for (int i = 0; i < n; i++) {
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) {
            struct raw c;
            struct danaus_door_msg m = {.op = DANAUS_DOOR_CLAIM,
                                        .version = DANAUS_WIRE_VERSION,
                                        .token = tokens[i]};
            _exit(raw_connect(&c, sock) == 0 &&
                          send(c.door, &m, sizeof m, 0) == sizeof m
                      ? 0
                      : 1);
        }
        CHILD_CHECK(reap(child, 10) == 0, "a claim sent");
    }
    CHILD_CHECK(kill(daemon_.pid, SIGCONT) == 0, "resume the service");
    usleep(300000);
    CHILD_CHECK(raw_door(&r, DANAUS_DOOR_TICKET, DANAUS_TICKET_ALL, 0, NULL,
                         0, &reply) == 0,
                "dead children's tickets still held: %s",
                strerror(reply.error));
    raw_detach(&r);
    return 0;
}

/* CLAIM and PASS (wire.h): what a forked child that has not attached may
 * do with its parent's ticket, and no one else. */
static void test_claimed_tickets(void **state)
{
    (void)state;
    start("claims", "owner 65534:65534\n");
    assert_int_equal(reap(spawn(ticket_owner, NULL), 60), 0);
    struct checker c = {1, 0, 0.3, MOUNT_A};
    assert_int_equal(reap(spawn(checker_main, &c), 30), 0);
}

/* ---- one uid takes all it can (issue 35, 3 and 4) ---- */

#define HOG_ATTACH_TRIES 64   /* per process */
#define HOG_PROCESSES 100
#define HOG_SILENT 300        /* connections that never say hello */

struct hog_report {
    int clients, slots, tickets;
    int silent, silent_open; /* hello-less connections made; still open
                                6 s later */
};

/* Reads exactly n bytes from fd within timeout_ms: 0, or -1. */
static int read_within(int fd, void *buf, size_t n, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) != 1)
        return -1;
    return read(fd, buf, n) == (ssize_t)n ? 0 : -1;
}

/* One process of a hog: attaches until refused, takes every slot and
 * ticket each attachment can get, says what it got, and holds it all. */
static int hog_process(int out)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    static struct raw r[HOG_ATTACH_TRIES];
    struct hog_report got = {0};
    for (int i = 0; i < HOG_ATTACH_TRIES; i++) {
        if (raw_attach(&r[i], sock) != 0) {
            raw_detach(&r[i]);
            break;
        }
        got.clients++;
        while (raw_slot(&r[i]) >= 0)
            got.slots++;
        struct danaus_door_reply reply;
        while (raw_door(&r[i], DANAUS_DOOR_TICKET, DANAUS_TICKET_ALL, 0, NULL,
                        0, &reply) == 0)
            got.tickets++;
    }
    CHILD_CHECK(write(out, &got, sizeof got) == sizeof got, "report");
    for (;;)
        pause();
}

/* Connections that never say hello, as many as HOG_SILENT: how many were
 * made, and how many the service still holds open 6 s later. */
static void hog_silent(struct hog_report *t)
{
    static int fd[HOG_SILENT];
    for (t->silent = 0; t->silent < HOG_SILENT; t->silent++) {
        struct raw r;
        if (raw_connect(&r, sock) < 0) {
            raw_detach(&r);
            break;
        }
        fd[t->silent] = r.door;
    }
    usleep(6000000);
    t->silent_open = 0;
    for (int i = 0; i < t->silent; i++) {
        struct pollfd p = {.fd = fd[i], .events = POLLIN};
        char byte;
        bool hung_up = poll(&p, 1, 0) == 1 &&
                       ((p.revents & (POLLHUP | POLLERR)) ||
                        recv(fd[i], &byte, 1, MSG_DONTWAIT) == 0);
        t->silent_open += !hung_up;
        close(fd[i]);
    }
}

struct hog_arg {
    uid_t uid;
    int out; /* the report goes here; then it holds until killed */
    bool silent; /* and makes connections that never say hello */
};

/* A uid that takes everything it can: processes of HOG_ATTACH_TRIES
 * hellos each, until a new one gets no attachment at all. */
static int uid_hog(void *arg)
{
    struct hog_arg *a = arg;
    become(a->uid);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int p[2];
    CHILD_CHECK(pipe(p) == 0, "pipe");
    struct hog_report total = {0};
    for (int k = 0; k < HOG_PROCESSES; k++) {
        pid_t pid = fork();
        CHILD_CHECK(pid >= 0, "fork");
        if (pid == 0)
            _exit(hog_process(p[1]));
        struct hog_report got;
        CHILD_CHECK(read_within(p[0], &got, sizeof got, 60000) == 0,
                    "hog process report");
        total.clients += got.clients;
        total.slots += got.slots;
        total.tickets += got.tickets;
        if (got.clients == 0)
            break;
    }
    if (a->silent)
        hog_silent(&total);
    CHILD_CHECK(write(a->out, &total, sizeof total) == sizeof total,
                "report");
    for (;;)
        pause();
}

struct honest {
    uid_t uid;
    int out; /* gets a struct honest_report */
};

struct honest_report {
    int errors, stats;
    double attach_ms, p50_us, p99_us;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Attaches, takes a slot and stats MOUNT_A's root 2,000 times: the errors,
 * the time the attach took and the stats' latency. */
static int honest_main(void *arg)
{
    struct honest *h = arg;
    if (h->uid)
        become(h->uid);
    enum { N = 2000 };
    static double us[N];
    struct honest_report rep = {0};
    struct raw r;
    uint64_t t0 = ipc_now_ns();
    int rc = raw_attach(&r, sock);
    rep.attach_ms = (double)(ipc_now_ns() - t0) / 1e6;
    int slot = rc == 0 ? raw_slot(&r) : rc;
    if (slot < 0) {
        fprintf(stderr, "honest uid %d: %s: %s\n", (int)h->uid,
                rc ? "attach" : "slot", strerror(-slot));
        rep.errors = 1;
    }
    uint32_t mount = raw_mount(&r, MOUNT_A);
    for (int i = 0; slot >= 0 && i < N; i++) {
        struct danaus_desc d = {.call = DANAUS_CALL_STAT, .mount = mount};
        uint64_t t = ipc_now_ns();
        int64_t n = raw_call(&r, (uint32_t)slot, &d, ".", 2, 10000);
        us[rep.stats++] = (double)(ipc_now_ns() - t) / 1e3;
        rep.errors += n != 0;
    }
    if (rep.stats) {
        qsort(us, (size_t)rep.stats, sizeof us[0], cmp_double);
        rep.p50_us = us[rep.stats / 2];
        rep.p99_us = us[rep.stats * 99 / 100];
    }
    CHILD_CHECK(write(h->out, &rep, sizeof rep) == sizeof rep, "report");
    return rep.errors ? 1 : 0;
}

/* Runs honest_main as uid; its report, printed under label. */
static struct honest_report honest_run(uid_t uid, const char *label)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    struct honest h = {uid, p[1]};
    pid_t pid = spawn(honest_main, &h);
    struct honest_report rep = {.errors = -1};
    int got = read_within(p[0], &rep, sizeof rep, 60000);
    int rc = reap(pid, 30);
    close(p[0]);
    close(p[1]);
    printf("  %-28s uid %5d: attach %.2f ms, %d stats, %d errors, "
           "p50 %.1f us, p99 %.1f us\n",
           label, (int)uid, rep.attach_ms, rep.stats, rep.errors, rep.p50_us,
           rep.p99_us);
    assert_int_equal(got, 0);
    assert_int_equal(rc, 0);
    return rep;
}

static pid_t hog_start(uid_t uid, bool silent, struct hog_report *rep)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    static struct hog_arg a;
    a = (struct hog_arg){uid, p[1], silent};
    pid_t pid = spawn(uid_hog, &a);
    assert_int_equal(read_within(p[0], rep, sizeof *rep, 120000), 0);
    close(p[0]);
    close(p[1]);
    printf("  hog uid %d holds %d clients, %d slots, %d tickets; %d silent "
           "connections, %d still open after 6 s\n",
           (int)uid, rep->clients, rep->slots, rep->tickets, rep->silent,
           rep->silent_open);
    return pid;
}

/* One uid takes every attachment, slot and ticket it can get and makes
 * connections that never say hello: another uid, root and the owner are
 * still served, with no error, and the hello-less connections are
 * dropped. Then a second uid takes what is left: root and the owner still
 * get in (their reserves). */
static void test_one_uid_takes_all(void **state)
{
    (void)state;
    start("shares", "owner 65534:65534\nread_cache_blocks 0\n");
    /* Every uid may reach the socket, as the tenant's uids of a container
     * whose rundir is bound in may. */
    assert_int_equal(chmod(sock, 0666), 0);
    honest_run(HONEST_UID, "another uid, before");
    honest_run(0, "root, before");
    struct hog_report first, second;
    pid_t hog1 = hog_start(HOG_UID, true, &first);
    struct honest_report other = honest_run(HONEST_UID, "another uid, beside it");
    honest_run(0, "root, beside it");
    honest_run(NOBODY, "the owner, beside it");
    /* Its shares (uid_clients 256, uid_slots 128, 1024 tickets, 64
     * hello-less connections, each dropped after 3 s). */
    assert_true(first.clients > 0 && first.clients <= 256);
    assert_true(first.slots > 0 && first.slots <= 128);
    assert_true(first.tickets > 0 && first.tickets <= 1024);
    assert_true(first.silent > 0);
    assert_int_equal(first.silent_open, 0);
    assert_int_equal(other.errors, 0);
    pid_t hog2 = hog_start(HOG2_UID, false, &second);
    honest_run(0, "root, beside two");
    honest_run(NOBODY, "the owner, beside two");
    kill(hog1, SIGKILL);
    kill(hog2, SIGKILL);
    assert_int_equal(reap(hog1, 30), 128 + SIGKILL);
    assert_int_equal(reap(hog2, 30), 128 + SIGKILL);
}

/* ---- handles and record locks per uid (issue 35, second round) ---- */

#define HOG_CLIENTS 8
#define UID_LOCKS (4 * CLIENT_LOCKS) /* uid_locks' default */

struct uid_hog_report {
    int locks[HOG_CLIENTS], handles[HOG_CLIENTS];
    int64_t lock_err, handle_err; /* how the last client's floods ended */
};

/* One process of HOG_UID with HOG_CLIENTS attachments: each takes every
 * record lock it can, then each opens every handle it can; it reports
 * what each got and holds it all until killed. */
static int uid_lock_handle_hog(void *arg)
{
    int out = *(int *)arg;
    become(HOG_UID);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after become, which clears it */
    static struct raw r[HOG_CLIENTS];
    int slot[HOG_CLIENTS];
    uint32_t a = 0;
    static struct uid_hog_report got;
    for (int i = 0; i < HOG_CLIENTS; i++) {
        CHILD_CHECK(raw_attach(&r[i], sock) == 0, "hog attach %d", i);
        CHILD_CHECK((slot[i] = raw_slot(&r[i])) >= 0, "hog slot %d", i);
        a = raw_mount(&r[i], MOUNT_A);
        char name[32];
        snprintf(name, sizeof name, "hog-locks-%d", i);
        got.locks[i] = lock_until_refused(&r[i], (uint32_t)slot[i], a, name,
                                          &got.lock_err);
    }
    for (int i = 0; i < HOG_CLIENTS; i++) {
        int64_t h;
        while ((h = raw_open(&r[i], (uint32_t)slot[i], a, ".", O_RDONLY)) > 0)
            got.handles[i]++;
        got.handle_err = h;
    }
    CHILD_CHECK(write(out, &got, sizeof got) == sizeof got, "report");
    for (;;)
        pause();
}

/* A client of uid that needs its full share of record locks and 16
 * handles: what a hog of another uid could not take from it. */
static int lock_handle_checker(void *arg)
{
    uid_t uid = *(uid_t *)arg;
    if (uid)
        become(uid);
    struct raw r;
    uint32_t a;
    int slot = attach_with_slot(&r, MOUNT_A, &a);
    char name[32];
    snprintf(name, sizeof name, "locks-of-%d", (int)uid);
    take_all_locks(&r, (uint32_t)slot, a, name);
    for (int i = 0; i < 16; i++) {
        int64_t h = raw_open(&r, (uint32_t)slot, a, ".", O_RDONLY);
        CHILD_CHECK(h > 0, "uid %d: handle %d: %lld", (int)uid, i,
                    (long long)h);
    }
    return 0;
}

/* One uid's processes take every record lock and handle they can, through
 * many attachments: its uid's bound stops them (ENOLCK, EMFILE), not the
 * service's, and the owner, root and another uid still get their full
 * share of locks and handles. Local backend: there each handle is one of
 * the service's descriptors, the scarcer resource. */
static void test_uid_takes_handles_and_locks(void **state)
{
    (void)state;
    if (ceph_conf)
        skip();
    char extra[128];
    snprintf(extra, sizeof extra,
             "owner 65534:65534\nread_cache_blocks 0\nclient_locks %d\n",
             CLIENT_LOCKS);
    start("uid-handles", extra);
    assert_int_equal(chmod(sock, 0666), 0);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t hog = spawn(uid_lock_handle_hog, &p[1]);
    struct uid_hog_report got;
    assert_int_equal(read_within(p[0], &got, sizeof got, 120000), 0);
    close(p[0]);
    close(p[1]);
    int locks = 0, handles = 0;
    for (int i = 0; i < HOG_CLIENTS; i++) {
        printf("  hog client %d: %d locks, %d handles\n", i, got.locks[i],
               got.handles[i]);
        locks += got.locks[i];
        handles += got.handles[i];
    }
    /* The uid's bound, reached by its clients together: the last ones got
     * nothing. */
    assert_int_equal(locks, UID_LOCKS);
    assert_int_equal(got.locks[HOG_CLIENTS - 1], 0);
    assert_int_equal(got.lock_err, -ENOLCK);
    assert_true(got.handles[0] > 16);
    assert_int_equal(got.handles[HOG_CLIENTS - 1], 0);
    assert_int_equal(got.handle_err, -EMFILE);
    static const uid_t others[] = {NOBODY, 0, HONEST_UID};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        uid_t uid = others[i];
        assert_int_equal(reap(spawn(lock_handle_checker, &uid), 60), 0);
    }
    kill(hog, SIGKILL);
    assert_int_equal(reap(hog, 30), 128 + SIGKILL);
}

/* ---- service threads per uid (issue 35, third round) ---- */

#define THREAD_HOG_CLIENTS 16 /* x CLIENT_SLOTS: uid_slots' default, 128 */

struct thread_hog {
    int out; /* gets how many calls it left waiting; then it holds */
};

/* One process of HOG_UID with THREAD_HOG_CLIENTS attachments: each opens
 * a file and takes every slot it can, then every slot posts a 4 KiB
 * pwrite at once. With the pool's backend rate at one byte a second each
 * write waits a minute for it (admission.h), on a service thread: calls
 * that hold their thread long and cost the service nothing, as a slow
 * backend's would. */
static int thread_hog(void *arg)
{
    struct thread_hog *t = arg;
    become(HOG_UID);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after become, which clears it */
    static struct raw r[THREAD_HOG_CLIENTS];
    static int slots[THREAD_HOG_CLIENTS][CLIENT_SLOTS];
    int nslots[THREAD_HOG_CLIENTS] = {0};
    int64_t h[THREAD_HOG_CLIENTS];
    uint32_t a = 0;
    for (int i = 0; i < THREAD_HOG_CLIENTS; i++) {
        CHILD_CHECK(raw_attach(&r[i], sock) == 0, "hog attach %d", i);
        int s;
        while (nslots[i] < CLIENT_SLOTS && (s = raw_slot(&r[i])) >= 0)
            slots[i][nslots[i]++] = s;
        CHILD_CHECK(nslots[i] > 0, "hog client %d: no slot", i);
        a = raw_mount(&r[i], MOUNT_A);
        char name[32];
        snprintf(name, sizeof name, "hog-threads-%d", i);
        h[i] = raw_open(&r[i], (uint32_t)slots[i][0], a, name,
                        O_CREAT | O_RDWR);
        CHILD_CHECK(h[i] > 0, "hog open %d: %lld", i, (long long)h[i]);
    }
    unsigned char block[4096];
    memset(block, 'h', sizeof block);
    int posted = 0;
    for (int i = 0; i < THREAD_HOG_CLIENTS; i++)
        for (int k = 0; k < nslots[i]; k++) {
            struct danaus_desc d = {.call = DANAUS_CALL_PWRITE, .mount = a,
                                    .handle = (uint64_t)h[i]};
            d.arg[1] = (int64_t)k * 4096;
            /* Posted and rung; its answer comes a minute later. */
            int64_t n = raw_call(&r[i], (uint32_t)slots[i][k], &d, block,
                                 sizeof block, 1);
            posted += n == -ETIMEDOUT;
        }
    CHILD_CHECK(write(t->out, &posted, sizeof posted) == sizeof posted,
                "report");
    for (;;)
        pause();
}

/* One uid keeps more calls waiting on service threads than a queue has
 * threads, and than the sweeper starts: another uid, root and the owner
 * are still served, with no error, while every one of those calls
 * waits. Local backend only: the service leaves with calls still waiting
 * (workers_stop), and on Ceph the MDS would then hold the next test's
 * calls until it gave up on the old session. */
static void test_uid_takes_threads(void **state)
{
    (void)state;
    if (ceph_conf)
        skip();
    start("uid-threads", "owner 65534:65534\nread_cache_blocks 0\n"
                         "backend_write_bytes_per_second 1\n");
    assert_int_equal(chmod(sock, 0666), 0);
    honest_run(HONEST_UID, "another uid, before");
    int p[2];
    assert_int_equal(pipe(p), 0);
    struct thread_hog t = {p[1]};
    pid_t hog = spawn(thread_hog, &t);
    int posted = 0;
    assert_int_equal(read_within(p[0], &posted, sizeof posted, 120000), 0);
    close(p[0]);
    close(p[1]);
    printf("  hog uid %d: %d pwrites waiting a minute each\n", HOG_UID,
           posted);
    /* More than a queue's threads (threads_per_queue 4 +
     * stalled_threads_per_queue 32) and the sweeper's 16 together. */
    assert_true(posted > 4 + 32 + 16);
    /* Time for the sweeper to find what no thread took (5 ms a sweep). */
    usleep(100000);
    struct honest_report other =
        honest_run(HONEST_UID, "another uid, beside it");
    honest_run(0, "root, beside it");
    honest_run(NOBODY, "the owner, beside it");
    assert_int_equal(other.errors, 0);
    kill(hog, SIGKILL);
    assert_int_equal(reap(hog, 30), 128 + SIGKILL);
}

/* ---- long calls in cpu groups (cpugroups.h) ---- */

#define FSYNC_HOG_CALLS 4

/* What the tests below make in the cpu hierarchy and beside it, for
 * remove_planted to remove whatever they left. */
static char planted_group[PATH_MAX + 64], planted_uid[PATH_MAX + 80],
    wrapper[64];

/* The group, in the cgroup v1 hierarchy with the cpu controller, of the
 * task whose cgroup file (/proc/.../cgroup) is at path, into out: 0 or
 * -1. */
static int cpu_group_of(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "re");
    char line[PATH_MAX + 128];
    int rc = -1;
    while (f && rc != 0 && fgets(line, sizeof line, f)) {
        char *ctl = strchr(line, ':');
        char *rel = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!rel)
            continue;
        *rel++ = '\0';
        rel[strcspn(rel, "\n")] = '\0';
        char *save = NULL;
        for (char *w = strtok_r(ctl + 1, ",", &save); w;
             w = strtok_r(NULL, ",", &save))
            if (strcmp(w, "cpu") == 0 &&
                (size_t)snprintf(out, size, "%s", rel) < size)
                rc = 0;
    }
    if (f)
        fclose(f);
    return rc;
}

/* This process's group in that hierarchy as a directory (mounted whole:
 * -1 otherwise), and the hierarchy's mount point. */
static int cpu_group_dir(char *dir, size_t size, char *point, size_t psize)
{
    char rel[PATH_MAX];
    if (cpu_group_of("/proc/self/cgroup", rel, sizeof rel) != 0)
        return -1;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[2 * PATH_MAX + 256];
    int rc = -1;
    while (f && rc != 0 && fgets(line, sizeof line, f)) {
        char root[PATH_MAX], p[PATH_MAX], type[32], opts[512];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, p) != 2 ||
            sscanf(dash + 3, "%31s %*s %511s", type, opts) != 2 ||
            strcmp(type, "cgroup") != 0 || strcmp(root, "/") != 0)
            continue;
        char *save = NULL;
        for (char *w = strtok_r(opts, ",", &save); w && rc != 0;
             w = strtok_r(NULL, ",", &save))
            if (strcmp(w, "cpu") == 0 &&
                (size_t)snprintf(point, psize, "%s", p) < psize &&
                (size_t)snprintf(dir, size, "%s%s", p,
                                 strcmp(rel, "/") == 0 ? "" : rel) < size)
                rc = 0;
    }
    if (f)
        fclose(f);
    return rc;
}

/* The thread ids listed in a tasks file (at most max): how many. */
static int read_tids(const char *path, pid_t *tids, int max)
{
    FILE *f = fopen(path, "re");
    int n = 0, tid;
    while (f && n < max && fscanf(f, "%d", &tid) == 1)
        tids[n++] = tid;
    if (f)
        fclose(f);
    return n;
}

static int wait_gone(const char *path, int timeout_ms)
{
    for (int i = 0; i < timeout_ms / 10 && access(path, F_OK) == 0; i++)
        usleep(10000);
    return access(path, F_OK) == 0 ? -1 : 0;
}

struct fsync_call {
    struct raw *r;
    int slot;
    uint32_t mount;
    int64_t handle, result;
};

static void *fsync_one(void *arg)
{
    struct fsync_call *c = arg;
    struct danaus_desc d = {.call = DANAUS_CALL_FSYNC, .mount = c->mount,
                            .handle = (uint64_t)c->handle};
    c->result = raw_call(c->r, (uint32_t)c->slot, &d, NULL, 0, 60000);
    return NULL;
}

/* One client of HOG_UID with FSYNC_HOG_CALLS fsyncs at once, from as many
 * threads: long calls, each waiting for the pool's rate when it is
 * small. Exits 0 once every one was answered 0. */
static int fsync_hog(void *arg)
{
    (void)arg;
    become(HOG_UID);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after become, which clears it */
    static struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "fsync hog attach");
    struct fsync_call calls[FSYNC_HOG_CALLS];
    uint32_t a = raw_mount(&r, MOUNT_A);
    for (int i = 0; i < FSYNC_HOG_CALLS; i++) {
        calls[i] = (struct fsync_call){&r, raw_slot(&r), a, 0, 0};
        CHILD_CHECK(calls[i].slot >= 0, "fsync hog slot %d", i);
    }
    int64_t h = raw_open(&r, (uint32_t)calls[0].slot, a, "fsync-hog",
                         O_CREAT | O_RDWR);
    CHILD_CHECK(h > 0, "fsync hog open: %lld", (long long)h);
    pthread_t t[FSYNC_HOG_CALLS];
    for (int i = 0; i < FSYNC_HOG_CALLS; i++) {
        calls[i].handle = h;
        CHILD_CHECK(pthread_create(&t[i], NULL, fsync_one, &calls[i]) == 0,
                    "thread");
    }
    for (int i = 0; i < FSYNC_HOG_CALLS; i++) {
        pthread_join(t[i], NULL);
        CHILD_CHECK(calls[i].result == 0, "fsync %d: %lld", i,
                    (long long)calls[i].result);
    }
    return 0;
}

/* The service's threads in the group at dir, at most max into tids,
 * once there are any (waits up to 10 s; fails without). */
static int threads_in_group(const char *dir, pid_t *tids, int max)
{
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/tasks", dir);
    int n = 0;
    for (int i = 0; i < 1000 && n == 0; i++) {
        n = read_tids(path, tids, max);
        usleep(10000);
    }
    printf("  %d service threads in %s\n", n, dir);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "/proc/%d/task/%d", (int)daemon_.pid,
                 (int)tids[i]);
        assert_int_equal(access(path, F_OK), 0);
    }
    return n;
}

/* Their calls answered, the n threads in tids are back in the service's
 * group, and the uid's group at uid_dir goes once idle. */
static void assert_back_home(const char *uid_dir, const pid_t *tids, int n)
{
    assert_int_equal(wait_gone(uid_dir, 10000), 0);
    char path[PATH_MAX], service_group[PATH_MAX], group[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)daemon_.pid);
    assert_int_equal(cpu_group_of(path, service_group, sizeof service_group),
                     0);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/cgroup",
                 (int)daemon_.pid, (int)tids[i]);
        if (cpu_group_of(path, group, sizeof group) == 0)
            assert_string_equal(group, service_group);
    }
}

/* A stop removes the service's groups (dir). */
static void stop_and_expect_gone(const char *dir)
{
    assert_int_equal(daemon_stop(&daemon_), 0);
    assert_int_equal(access(dir, F_OK), -1);
    site_remove(&site);
    memset(&site, 0, sizeof site);
    memset(&daemon_, 0, sizeof daemon_);
}

#define FUSE_HOG_FILES 3

struct fuse_fsync_call {
    int dir; /* the mount's root */
    char name[32];
};

static void *fuse_fsync_one(void *arg)
{
    const struct fuse_fsync_call *c = arg;
    int fd = openat(c->dir, c->name, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    intptr_t rc = fd >= 0 && write(fd, "x", 1) == 1 && fsync(fd) == 0 ? 0
                                                                      : errno;
    if (fd >= 0 && close(fd) < 0)
        rc = errno;
    return (void *)rc;
}

/* A program of HOG_UID without the preload (as a static one is): an
 * fsync of a file of its own through the FUSE mount, from each of
 * FUSE_HOG_FILES threads at once, each waiting for the pool's rate when
 * it is small. The mount is reached through the service's root (a
 * service started in a mount namespace of its own has it there). Exits
 * 0 once every one succeeded. */
static int fuse_fsync_hog(void *arg)
{
    (void)arg;
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "/proc/%d/root%s", (int)daemon_.pid, fuse_mp);
    int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct statfs fs;
    CHILD_CHECK(dir >= 0 && fstatfs(dir, &fs) == 0 &&
                    fs.f_type == FUSE_SUPER_MAGIC,
                "%s is no FUSE mount", path);
    become(HOG_UID);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after become, which clears it */
    static struct fuse_fsync_call calls[FUSE_HOG_FILES];
    pthread_t t[FUSE_HOG_FILES];
    for (int i = 0; i < FUSE_HOG_FILES; i++) {
        calls[i].dir = dir;
        snprintf(calls[i].name, sizeof calls[i].name, "fuse-hog-%d", i);
        CHILD_CHECK(pthread_create(&t[i], NULL, fuse_fsync_one, &calls[i]) ==
                        0,
                    "thread");
    }
    for (int i = 0; i < FUSE_HOG_FILES; i++) {
        void *rc;
        pthread_join(t[i], &rc);
        CHILD_CHECK(rc == NULL, "fsync of %s: %s", calls[i].name,
                    strerror((int)(intptr_t)rc));
    }
    return 0;
}

/* cpu_group_dir into home and point (PATH_MAX each), or the test is
 * skipped: it needs the local backend and a cgroup v1 cpu hierarchy. */
static void cpu_dirs_or_skip(char *home, char *point)
{
    if (ceph_conf || cpu_group_dir(home, PATH_MAX, point, PATH_MAX) != 0) {
        printf("  no cgroup v1 cpu hierarchy mounted whole: skipped\n");
        skip();
    }
}

/* Stops the service if a test left it, and removes what the tests
 * planted: 0, or -1 when a group would not go (a group is empty once the
 * service's log relay has gone too). */
static int remove_planted(void **state)
{
    int rc = site.dir[0] ? stop(state) : 0;
    if (planted_uid[0])
        rmdir(planted_uid);
    for (int i = 0; planted_group[0] && i < 500 &&
                    rmdir(planted_group) < 0 && errno != ENOENT;
         i++)
        usleep(10000);
    if (planted_group[0] && access(planted_group, F_OK) == 0)
        rc = -1;
    if (wrapper[0])
        unlink(wrapper);
    planted_group[0] = planted_uid[0] = wrapper[0] = '\0';
    return rc;
}

/* The service's long calls run in a cpu group of their uid's, inside a
 * group of all long calls with the configured cpu.shares; the threads
 * leave it when the calls end; idle uid groups go, and at stop the
 * service removes them all, as it removed at start the groups a killed
 * danausd left. Needs a cgroup v1 cpu hierarchy (skipped without). */
static void test_long_calls_in_cpu_groups(void **state)
{
    (void)state;
    char home[PATH_MAX], point[PATH_MAX];
    cpu_dirs_or_skip(home, point);
    /* What a killed danausd left: the groups of a pid that runs no more. */
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    assert_true(dead > 0);
    waitpid(dead, NULL, 0);
    char *stale = planted_group;
    snprintf(stale, sizeof planted_group, "%s/danausd.%d", home, (int)dead);
    snprintf(planted_uid, sizeof planted_uid, "%s/uid.7", stale);
    assert_int_equal(mkdir(stale, 0755), 0);
    assert_int_equal(mkdir(planted_uid, 0755), 0);

    start("cpu-groups", "long_calls_cpu_shares 512\nbackend_ops_per_second 1\n");
    assert_int_equal(access(stale, F_OK), -1);
    planted_group[0] = planted_uid[0] = '\0';
    char dir[PATH_MAX + 64], path[PATH_MAX + 128], text[32] = "";
    snprintf(dir, sizeof dir, "%s/danausd.%d", home, (int)daemon_.pid);
    snprintf(path, sizeof path, "%s/cpu.shares", dir);
    FILE *f = fopen(path, "re");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_string_equal(text, "512\n");

    /* A uid's fsyncs wait for the pool's rate (one op a second) on
     * service threads, which sit in its group meanwhile. */
    assert_int_equal(chmod(sock, 0666), 0);
    pid_t hog = spawn(fsync_hog, NULL);
    char uid_dir[PATH_MAX + 80];
    snprintf(uid_dir, sizeof uid_dir, "%s/uid.%d", dir, HOG_UID);
    pid_t tids[64];
    int n = threads_in_group(uid_dir, tids, 64);
    struct honest_report other = honest_run(HONEST_UID,
                                            "another uid, beside it");
    assert_int_equal(other.errors, 0);
    assert_int_equal(reap(hog, 60), 0);
    assert_back_home(uid_dir, tids, n);
    stop_and_expect_gone(dir);
}

/* The FUSE door's long calls run in the same groups: a program of
 * another uid, without the preload, fsyncs through the FUSE mount, and
 * the door's threads inside those calls sit in its uid's group
 * meanwhile, and come back to the service's after. */
static void test_fuse_long_calls_in_cpu_groups(void **state)
{
    (void)state;
    char home[PATH_MAX], point[PATH_MAX];
    cpu_dirs_or_skip(home, point);
    start_fuse_exe("cpu-fuse",
                   "long_calls_cpu_shares 512\nbackend_ops_per_second 1\n",
                   danausd);
    char dir[PATH_MAX + 64], uid_dir[PATH_MAX + 80];
    snprintf(dir, sizeof dir, "%s/danausd.%d", home, (int)daemon_.pid);
    snprintf(uid_dir, sizeof uid_dir, "%s/uid.%d", dir, HOG_UID);
    pid_t hog = spawn(fuse_fsync_hog, NULL);
    pid_t tids[64];
    int n = threads_in_group(uid_dir, tids, 64);
    assert_int_equal(reap(hog, 60), 0);
    for (int i = 0; i < FUSE_HOG_FILES; i++) {
        char path[PATH_MAX + 64], text[4] = "";
        snprintf(path, sizeof path, "%s/fuse-hog-%d", host_a, i);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(read(fd, text, sizeof text), 1);
        close(fd);
        assert_string_equal(text, "x");
    }
    assert_back_home(uid_dir, tids, n);
    stop_and_expect_gone(dir);
}

/* Starts danausd through a shell wrapper: in a cpu group it may not
 * write (root without CAP_DAC_OVERRIDE, the group another uid's), or
 * in a mount namespace without the cpu hierarchy. Either way it says so
 * once, makes no group, and serves long and short calls. */
static void run_without_groups(const char *how, const char *home,
                               const char *point, bool fuse)
{
    char *script = wrapper;
    snprintf(wrapper, sizeof wrapper, "/tmp/danaus-cpu-wrap.XXXXXX");
    int fd = mkstemp(script);
    assert_true(fd >= 0);
    static const char text[] =
        "#!/bin/sh\n"
        "case $DANAUS_TEST_CPU in\n"
        "norights) echo $$ > \"$DANAUS_TEST_CPU_GROUP/tasks\" &&\n"
        "  exec setpriv --bounding-set -dac_override,-dac_read_search \\\n"
        "    \"$DANAUS_TEST_DANAUSD\" \"$@\" ;;\n"
        "nomount) exec unshare -m sh -c "
        "'umount \"$DANAUS_TEST_CPU_MOUNT\" && exec \"$0\" \"$@\"' \\\n"
        "    \"$DANAUS_TEST_DANAUSD\" \"$@\" ;;\n"
        "esac\n"
        "exit 1\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)sizeof text - 1);
    assert_int_equal(fchmod(fd, 0755), 0);
    close(fd);
    /* The norights group: another uid's, files and all. */
    char group[PATH_MAX + 64];
    snprintf(group, sizeof group, "%s/danaus-test-norights.%d", home,
             (int)getpid());
    if (strcmp(how, "norights") == 0) {
        snprintf(planted_group, sizeof planted_group, "%s", group);
        assert_int_equal(mkdir(group, 0755), 0);
        DIR *d = opendir(group);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, "..") != 0)
                assert_int_equal(fchownat(dirfd(d), e->d_name, HOG2_UID,
                                          HOG2_UID, 0),
                                 0);
        closedir(d);
    }
    setenv("DANAUS_TEST_CPU", how, 1);
    setenv("DANAUS_TEST_CPU_GROUP", group, 1);
    setenv("DANAUS_TEST_CPU_MOUNT", point, 1);
    setenv("DANAUS_TEST_DANAUSD", danausd, 1);
    if (fuse)
        start_fuse_exe("cpu-none", "", script);
    else
        start_exe("cpu-none", "", script);
    unsetenv("DANAUS_TEST_CPU");
    static char log[65536];
    assert_non_null(strstr(daemon_log_text(&daemon_, log, sizeof log),
                           "no cpu group for long calls"));
    char dir[PATH_MAX + 128];
    snprintf(dir, sizeof dir, "%s/danausd.%d",
             strcmp(how, "norights") == 0 ? group : home, (int)daemon_.pid);
    assert_int_equal(access(dir, F_OK), -1);
    if (fuse) {
        assert_int_equal(reap(spawn(fuse_fsync_hog, NULL), 60), 0);
    } else {
        assert_int_equal(chmod(sock, 0666), 0);
        assert_int_equal(reap(spawn(fsync_hog, NULL), 60), 0);
        assert_int_equal(honest_run(HONEST_UID, how).errors, 0);
    }
    assert_int_equal(daemon_stop(&daemon_), 0);
    site_remove(&site);
    memset(&site, 0, sizeof site);
    memset(&daemon_, 0, sizeof daemon_);
    assert_int_equal(remove_planted(NULL), 0);
}

static void test_long_calls_without_cpu_groups(void **state)
{
    (void)state;
    char home[PATH_MAX], point[PATH_MAX];
    cpu_dirs_or_skip(home, point);
    run_without_groups("norights", home, point, false);
    run_without_groups("nomount", home, point, false);
}

/* And so does the FUSE door, its long calls too. */
static void test_fuse_long_calls_without_cpu_groups(void **state)
{
    (void)state;
    char home[PATH_MAX], point[PATH_MAX];
    cpu_dirs_or_skip(home, point);
    run_without_groups("norights", home, point, true);
    run_without_groups("nomount", home, point, true);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    danausd = argv[1];
    if (argc > 3 && strcmp(argv[2], "ceph") == 0)
        ceph_conf = argv[3];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_forged_doorbells, stop),
        cmocka_unit_test_teardown(test_forged_handles_and_mounts, stop),
        cmocka_unit_test_teardown(test_queue_wedge_and_scribble, stop),
        cmocka_unit_test_teardown(test_scribbled_service_words, stop),
        cmocka_unit_test_teardown(test_withheld_write_input, stop),
        cmocka_unit_test_teardown(test_work_counter_spin, stop),
        cmocka_unit_test_teardown(test_floods, stop),
        cmocka_unit_test_teardown(test_descriptor_exhaustion, stop),
        cmocka_unit_test_teardown(test_getdents_answer_rewritten, stop),
        cmocka_unit_test_teardown(test_area_grows_with_slots, stop),
        cmocka_unit_test_teardown(test_pid_file_planted, stop),
        cmocka_unit_test_teardown(test_read_cache_scribbled, stop),
        cmocka_unit_test_teardown(test_write_back_forged, stop),
        cmocka_unit_test_teardown(test_write_back_forged_over_restart, stop),
        cmocka_unit_test_teardown(test_announcements_read_only, stop),
        cmocka_unit_test_teardown(test_two_uids, stop),
        cmocka_unit_test_teardown(test_curves_for_root_only, stop),
        cmocka_unit_test_teardown(test_branch_forget_for_root_only, stop),
        cmocka_unit_test_teardown(test_two_containers, stop),
        cmocka_unit_test_teardown(test_long_paths_stay_inside, stop),
        cmocka_unit_test_teardown(test_fifo_swapped_in, stop),
        cmocka_unit_test_teardown(test_open_hint_lies, stop),
        cmocka_unit_test_teardown(test_passes_abused, stop),
        cmocka_unit_test_teardown(test_orphan_hello, stop),
        cmocka_unit_test_teardown(test_claimed_tickets, stop),
        cmocka_unit_test_teardown(test_one_uid_takes_all, stop),
        cmocka_unit_test_teardown(test_uid_takes_handles_and_locks, stop),
        cmocka_unit_test_teardown(test_uid_takes_threads, stop),
        cmocka_unit_test_teardown(test_long_calls_in_cpu_groups,
                                  remove_planted),
        cmocka_unit_test_teardown(test_long_calls_without_cpu_groups,
                                  remove_planted),
        cmocka_unit_test_teardown(test_fuse_long_calls_in_cpu_groups,
                                  remove_planted),
        cmocka_unit_test_teardown(test_fuse_long_calls_without_cpu_groups,
                                  remove_planted),
        cmocka_unit_test_teardown(test_fuzzer, stop),
    };
    if (getenv("DANAUS_SECURITY_FILTER"))
        cmocka_set_test_filter(getenv("DANAUS_SECURITY_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
