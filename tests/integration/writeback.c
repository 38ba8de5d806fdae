/*
 * writeback.c - small writes kept back in the client's area (ipc.h,
 * write-back pages; fsservice/core/writeback.c, libfs/writeback.c), as
 * users rely on them: a kept pwrite returns without the service, the
 * writer's own reads and stats see it, and no byte of a write that
 * returned is lost when someone else opens the file, when the writer is
 * killed, or when danausd is killed and started again.
 *
 *   writeback DANAUSD local | union | kept
 *
 * union: the mount is a union (a container's root) over the local
 * backend, whose writable branch is the host directory seen below. kept:
 * the local backend with a FUSE door, so the service has a keeper, which
 * holds the pages over a kill (core/kept.h): also a writer that sleeps
 * through the restart, or is killed while no service runs, loses nothing.
 *
 * Whether a pwrite was kept is seen from outside, as the read cache's
 * test sees a cached pread: the service is stopped (SIGSTOP) and woken
 * 300 ms later, and a kept pwrite returns long before that. Whether bytes
 * reached the file is seen on the host directory the local backend
 * serves: stat(2) there does not break the service's lease; open(2)
 * there does, as any other opener's would.
 */
#include "harness.h"

#include <danaus/danaus.h>
#include <danaus/wire.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define WAKE_MS 300 /* the stopped service is woken after this */
#define KEPT_MS 150 /* a kept pwrite returns well within this */
#define PAGE 4096
#define PAGES 8

static const char *danausd;
static bool in_union;  /* the mount is a union over the host directory */
static bool kept;      /* the service has a keeper (a FUSE door) */
static char host[600]; /* the local backend's directory: the union's
                          writable branch */
static struct site site;
static struct daemon svc;
static char mnt[600];

static void *wake_service(void *arg)
{
    (void)arg;
    usleep(WAKE_MS * 1000);
    kill(svc.pid, SIGCONT);
    return NULL;
}

static void fill(unsigned char *buf, size_t n, off_t off)
{
    for (size_t k = 0; k < n; k++)
        buf[k] = (unsigned char)('a' + (off + (off_t)k) / PAGE % 26);
}

/* pwrites page i of fd's pattern while the service is stopped: whether it
 * returned before the service was woken (and wrote the page). */
static bool write_without_service(int fd, int i)
{
    unsigned char buf[PAGE];
    fill(buf, PAGE, (off_t)i * PAGE);
    pthread_t waker;
    kill(svc.pid, SIGSTOP);
    pthread_create(&waker, NULL, wake_service, NULL);
    double t0 = now_ms();
    ssize_t n = danaus_pwrite(fd, buf, PAGE, (off_t)i * PAGE);
    double took = now_ms() - t0;
    pthread_join(waker, NULL);
    CHILD_CHECK(n == PAGE, "pwrite of page %d: %zd (%s)", i, n,
                strerror(errno));
    return took < KEPT_MS;
}

static void write_page(int fd, int i)
{
    unsigned char buf[PAGE];
    fill(buf, PAGE, (off_t)i * PAGE);
    ssize_t n = danaus_pwrite(fd, buf, PAGE, (off_t)i * PAGE);
    CHILD_CHECK(n == PAGE, "pwrite of page %d: %zd (%s)", i, n,
                strerror(errno));
}

static void paths(const char *name, char *path, char *hpath, size_t len)
{
    snprintf(path, len, "%s/%s", mnt, name);
    snprintf(hpath, len, "%s/%s", host, name);
}

static off_t host_size(const char *hpath)
{
    struct stat st;
    return stat(hpath, &st) == 0 ? st.st_size : -1;
}

/* The file at hpath (the host's, or the mount's through read) holds
 * pages [0, n) of the pattern and nothing more. */
static void expect_pages(ssize_t (*rd)(int, void *, size_t, off_t),
                         int (*op)(const char *, int, ...), int (*cl)(int),
                         const char *p, int n)
{
    int fd = op(p, O_RDONLY);
    CHILD_CHECK(fd >= 0, "open %s: %s", p, strerror(errno));
    unsigned char got[PAGE], want[PAGE];
    for (int i = 0; i <= n; i++) {
        ssize_t k = rd(fd, got, PAGE, (off_t)i * PAGE);
        CHILD_CHECK(k == (i < n ? PAGE : 0), "%s: page %d: %zd bytes (%s)", p,
                    i, k, strerror(errno));
        fill(want, PAGE, (off_t)i * PAGE);
        CHILD_CHECK(k == 0 || memcmp(got, want, PAGE) == 0,
                    "%s: page %d is not what was written", p, i);
    }
    cl(fd);
}

static void expect_on_host(const char *hpath, int n)
{
    expect_pages(pread, open, close, hpath, n);
}

static void expect_through_danaus(const char *path, int n)
{
    expect_pages(danaus_pread, danaus_open, danaus_close, path, n);
}

/* fd, a new file at path whose first page went through (which gives the
 * handle the service's promise) and whose next PAGES - 1 are kept back:
 * the host's file still ends after page 0. */
static int open_with_kept_pages(const char *path, const char *hpath)
{
    site_use(&site);
    int fd = danaus_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHILD_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
    write_page(fd, 0);
    for (int i = 1; i < PAGES; i++)
        CHILD_CHECK(i > 1 || write_without_service(fd, i),
                    "a pwrite waited for the stopped service");
    for (int i = 2; i < PAGES; i++)
        write_page(fd, i);
    CHILD_CHECK(host_size(hpath) == PAGE,
                "the host's file has %lld bytes: the writes were not kept",
                (long long)host_size(hpath));
    return fd;
}

/* ---- the writer sees its writes ---- */

static int own_reads_child(void *arg)
{
    (void)arg;
    char path[800], hpath[800];
    paths("own", path, hpath, sizeof path);
    int fd = open_with_kept_pages(path, hpath);
    unsigned char got[PAGE], want[PAGE];
    fill(want, PAGE, 3 * PAGE);
    CHILD_CHECK(danaus_pread(fd, got, PAGE, 3 * PAGE) == PAGE &&
                    memcmp(got, want, PAGE) == 0,
                "pread of a kept page: %s", strerror(errno));
    struct stat st;
    CHILD_CHECK(danaus_fstat(fd, &st) == 0 && st.st_size == PAGES * PAGE,
                "fstat: size %lld", (long long)st.st_size);
    /* Kept again after the read, then a path stat. */
    write_page(fd, PAGES);
    CHILD_CHECK(danaus_stat(path, &st) == 0 && st.st_size == (PAGES + 1) * PAGE,
                "stat: size %lld", (long long)st.st_size);
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    expect_on_host(hpath, PAGES + 1);
    return 0;
}

static void test_writer_sees_its_writes(void **state)
{
    (void)state;
    int rc = run_in_child(own_reads_child, NULL, 30000);
    kill(svc.pid, SIGCONT);
    assert_int_equal(rc, 0);
}

/* ---- the next call carries the flush ---- */

/* How many calls the service answered through the preload door (wire.h
 * DANAUS_DOOR_STATS of every mount), or -1. */
static long long service_calls(void)
{
    struct danaus_door_msg m = {.op = DANAUS_DOOR_STATS,
                                .version = DANAUS_WIRE_VERSION, .arg = 1};
    char ask[sizeof m + 1] = {0}; /* then "": every mount */
    memcpy(ask, &m, sizeof m);
    struct danaus_stats_reply r;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int len = snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s.sock",
                       site.rundir, site.service);
    if (len < 0 || (size_t)len >= sizeof sa.sun_path)
        return -1;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
              send(fd, &ask, sizeof ask, MSG_NOSIGNAL) == sizeof ask &&
              recv(fd, &r, sizeof r, 0) == sizeof r && r.error == 0;
    if (fd >= 0)
        close(fd);
    return ok ? (long long)r.calls : -1;
}

/* A call after kept writes sees them in one round trip: the service
 * counts that call alone, not a FLUSH before it. */
static int carried_flush_child(void *arg)
{
    (void)arg;
    char path[800], hpath[800];
    paths("carried", path, hpath, sizeof path);
    int fd = open_with_kept_pages(path, hpath);
    long long before = service_calls();
    struct stat st;
    CHILD_CHECK(danaus_fstat(fd, &st) == 0 && st.st_size == PAGES * PAGE,
                "fstat after kept writes: size %lld",
                (long long)st.st_size);
    long long after = service_calls();
    CHILD_CHECK(before >= 0 && after == before + 1,
                "the fstat took %lld calls of the service", after - before);
    CHILD_CHECK(host_size(hpath) == PAGES * PAGE,
                "the host's file has %lld bytes after the fstat",
                (long long)host_size(hpath));
    /* Clean now: the next call carries nothing and is answered alone. */
    before = service_calls();
    CHILD_CHECK(danaus_fstat(fd, &st) == 0 && st.st_size == PAGES * PAGE,
                "second fstat: size %lld", (long long)st.st_size);
    CHILD_CHECK(service_calls() <= before + 1,
                "the second fstat took more than one call");
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    expect_on_host(hpath, PAGES);
    return 0;
}

static void test_next_call_carries_the_flush(void **state)
{
    (void)state;
    int rc = run_in_child(carried_flush_child, NULL, 30000);
    kill(svc.pid, SIGCONT);
    assert_int_equal(rc, 0);
}

/* ---- a write of a few pages is kept too ---- */

/* A database's page record (a page and 8 bytes, sqlite's journal) is
 * kept in two pieces: no call, and read back whole. */
static int record_child(void *arg)
{
    (void)arg;
    char path[800], hpath[800];
    paths("record", path, hpath, sizeof path);
    int fd = open_with_kept_pages(path, hpath);
    const size_t n = PAGE + 8;
    const off_t at = (off_t)PAGES * PAGE - 4;
    unsigned char rec[PAGE + 8], got[PAGE + 8];
    fill(rec, n, at);
    long long before = service_calls();
    CHILD_CHECK(danaus_pwrite(fd, rec, n, at) == (ssize_t)n,
                "pwrite of a record: %s", strerror(errno));
    long long after = service_calls();
    CHILD_CHECK(before >= 0 && after == before,
                "the record's pwrite took %lld calls of the service",
                after - before);
    CHILD_CHECK(danaus_pread(fd, got, n, at) == (ssize_t)n &&
                    memcmp(got, rec, n) == 0,
                "the record read back is not what was written");
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    CHILD_CHECK(host_size(hpath) == at + (off_t)n,
                "the host's file has %lld bytes, not %lld",
                (long long)host_size(hpath), (long long)(at + (off_t)n));
    int hfd = open(hpath, O_RDONLY);
    CHILD_CHECK(hfd >= 0 && pread(hfd, got, n, at) == (ssize_t)n &&
                    memcmp(got, rec, n) == 0,
                "the host's file does not hold the record");
    close(hfd);
    return 0;
}

static void test_record_of_pages_is_kept(void **state)
{
    (void)state;
    int rc = run_in_child(record_child, NULL, 30000);
    kill(svc.pid, SIGCONT);
    assert_int_equal(rc, 0);
}

/* ---- a forked child reads them through the descriptor it inherited ---- */

/* The child shares the open file (no open of its own, so no lease
 * breaks): the fork itself must have flushed. */
static int fork_child(void *arg)
{
    (void)arg;
    char path[800], hpath[800];
    paths("forked", path, hpath, sizeof path);
    int fd = open_with_kept_pages(path, hpath);
    pid_t pid = fork();
    if (pid == 0) {
        unsigned char got[PAGE], want[PAGE];
        for (int i = 0; i < PAGES; i++) {
            fill(want, PAGE, (off_t)i * PAGE);
            CHILD_CHECK(danaus_pread(fd, got, PAGE, (off_t)i * PAGE) == PAGE &&
                            memcmp(got, want, PAGE) == 0,
                        "the child's pread of page %d: not what was written",
                        i);
        }
        _exit(0);
    }
    int status;
    CHILD_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0,
                "the child failed");
    return 0;
}

static void test_forked_child_reads_them(void **state)
{
    (void)state;
    int rc = run_in_child(fork_child, NULL, 30000);
    kill(svc.pid, SIGCONT);
    assert_int_equal(rc, 0);
}

/* ---- fsync and close write them ---- */

static int fsync_child(void *arg)
{
    (void)arg;
    char path[800], hpath[800];
    paths("fsynced", path, hpath, sizeof path);
    int fd = open_with_kept_pages(path, hpath);
    CHILD_CHECK(danaus_fdatasync(fd) == 0, "fdatasync: %s", strerror(errno));
    CHILD_CHECK(host_size(hpath) == PAGES * PAGE,
                "after fdatasync the host's file has %lld bytes",
                (long long)host_size(hpath));
    /* fsync'd data survives a kill of the service, as before. */
    kill(svc.pid, SIGKILL);
    expect_on_host(hpath, PAGES);
    _exit(0);
}

static void test_fsync_writes_them(void **state)
{
    (void)state;
    int rc = run_in_child(fsync_child, NULL, 30000);
    kill(svc.pid, SIGCONT);
    assert_int_equal(rc, 0);
    assert_int_equal(daemon_wait_exit(&svc, 10000), 0);
    assert_int_equal(daemon_start(&svc, danausd, &site, "danausd-2", 60000), 0);
}

/* ---- flushed by many threads, the later of two writes wins ---- */

#define WRITERS 4

struct overlapper {
    int fd;
    pthread_barrier_t *kept, *checked;
};

/* The writes each overlapper keeps back, in this order: a later one
 * overlaps earlier ones, and the last replaces the first's range. */
static const struct overlap {
    off_t off;
    size_t len;
    char byte;
} overlaps[] = {
    {0, PAGE, 'X'}, {50, 100, 'Y'}, {PAGE, PAGE, 'Z'}, {PAGE - 6, 10, 'W'},
    {0, PAGE, 'V'},
};

/* What a file holds once the overlaps landed in their order. */
static void overlapped(unsigned char *want, size_t len)
{
    memset(want, 0, len);
    for (size_t k = 0; k < sizeof overlaps / sizeof overlaps[0]; k++)
        memset(want + overlaps[k].off, overlaps[k].byte, overlaps[k].len);
}

static void *overlapper_main(void *arg)
{
    struct overlapper *o = arg;
    unsigned char buf[PAGE];
    for (size_t k = 0; k < sizeof overlaps / sizeof overlaps[0]; k++) {
        memset(buf, overlaps[k].byte, overlaps[k].len);
        CHILD_CHECK(danaus_pwrite(o->fd, buf, overlaps[k].len,
                                  overlaps[k].off) == (ssize_t)overlaps[k].len,
                    "pwrite: %s", strerror(errno));
    }
    pthread_barrier_wait(o->kept);
    pthread_barrier_wait(o->checked);
    CHILD_CHECK(danaus_fdatasync(o->fd) == 0, "fdatasync: %s",
                strerror(errno));
    return NULL;
}

/* WRITERS threads of one client keep overlapping writes to files of
 * their own, then all fdatasync at once: the service writes the pages
 * of the four files with up to writeback_flushers threads, and each
 * file must hold what the last write of each byte put there. */
static int overlap_child(void *arg)
{
    (void)arg;
    site_use(&site);
    char path[WRITERS][800], hpath[WRITERS][800];
    struct overlapper o[WRITERS];
    pthread_t t[WRITERS];
    pthread_barrier_t kept, checked;
    pthread_barrier_init(&kept, NULL, WRITERS + 1);
    pthread_barrier_init(&checked, NULL, WRITERS + 1);
    for (int i = 0; i < WRITERS; i++) {
        char name[32];
        snprintf(name, sizeof name, "overlap%d", i);
        paths(name, path[i], hpath[i], sizeof path[i]);
        o[i].fd = danaus_open(path[i], O_RDWR | O_CREAT | O_TRUNC, 0644);
        CHILD_CHECK(o[i].fd >= 0, "open %s: %s", path[i], strerror(errno));
        /* Through the service: gives the handle its promise. */
        unsigned char zero[PAGE] = {0};
        CHILD_CHECK(danaus_pwrite(o[i].fd, zero, PAGE, 0) == PAGE,
                    "pwrite: %s", strerror(errno));
        o[i].kept = &kept;
        o[i].checked = &checked;
    }
    for (int i = 0; i < WRITERS; i++)
        pthread_create(&t[i], NULL, overlapper_main, &o[i]);
    pthread_barrier_wait(&kept);
    for (int i = 0; i < WRITERS; i++)
        CHILD_CHECK(host_size(hpath[i]) == PAGE,
                    "%s has %lld bytes: the writes were not kept", hpath[i],
                    (long long)host_size(hpath[i]));
    pthread_barrier_wait(&checked);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(t[i], NULL);
    unsigned char want[2 * PAGE], got[2 * PAGE + 1];
    overlapped(want, sizeof want);
    for (int i = 0; i < WRITERS; i++) {
        int fd = open(hpath[i], O_RDONLY);
        CHILD_CHECK(fd >= 0 && pread(fd, got, sizeof got, 0) == sizeof want &&
                        memcmp(got, want, sizeof want) == 0,
                    "%s does not hold the later writes", hpath[i]);
        close(fd);
        danaus_close(o[i].fd);
    }
    return 0;
}

static void test_later_write_wins(void **state)
{
    (void)state;
    assert_int_equal(run_in_child(overlap_child, NULL, 30000), 0);
}

/* ---- another opener sees them ---- */

/* A child that says it is ready on one pipe and waits on another for the
 * word to go on. */
struct waiting {
    pid_t pid;
    int go; /* a byte, then its close, let the child go on */
};

/* Forks a child running fn({ready, go}: the write end of one pipe, the
 * read end of the other), and returns once it said ready. */
static struct waiting start_waiting(int (*fn)(void *))
{
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        close(go[1]);
        int fds[2] = {ready[1], go[0]};
        _exit(fn(fds));
    }
    close(ready[1]);
    close(go[0]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    return (struct waiting){pid, go[1]};
}

/* Waits for child pid, which must exit 0. */
static void expect_exit_0(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Gives the child its word and waits for it to exit 0. */
static void let_go(struct waiting h)
{
    assert_int_equal(write(h.go, "g", 1), 1);
    close(h.go);
    expect_exit_0(h.pid);
}

/* Kills the child before its word. */
static void kill_waiting(struct waiting h)
{
    kill(h.pid, SIGKILL);
    assert_int_equal(waitpid(h.pid, NULL, 0), h.pid);
    close(h.go);
}

/* Keeps pages back, says so on ready, and holds the file open, making no
 * call, until done is closed. */
static int holder_child(void *arg)
{
    int *fds = arg; /* ready (write end), done (read end) */
    char path[800], hpath[800];
    paths("held", path, hpath, sizeof path);
    int fd = open_with_kept_pages(path, hpath);
    CHILD_CHECK(write(fds[0], "r", 1) == 1, "ready: %s", strerror(errno));
    char c;
    while (read(fds[1], &c, 1) > 0)
        ;
    (void)fd;
    _exit(0); /* nothing flushed at exit: the opener had it done */
}

static int danaus_opener(void *arg)
{
    (void)arg;
    char path[800], hpath[800];
    paths("held", path, hpath, sizeof path);
    site_use(&site);
    expect_through_danaus(path, PAGES);
    return 0;
}

static void test_another_opener_sees_them(void **state)
{
    (void)state;
    char path[800], hpath[800];
    paths("held", path, hpath, sizeof path);
    /* A program on the host, outside Danaus. */
    struct waiting h = start_waiting(holder_child);
    int fd = open(hpath, O_RDONLY);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(host_size(hpath), PAGES * PAGE);
    expect_on_host(hpath, PAGES);
    let_go(h);
    /* Another client of the service. */
    h = start_waiting(holder_child);
    assert_int_equal(run_in_child(danaus_opener, NULL, 30000), 0);
    let_go(h);
}

/* ---- the writer is killed ---- */

static int killed_child(void *arg)
{
    (void)arg;
    char path[800], hpath[800];
    paths("killed", path, hpath, sizeof path);
    open_with_kept_pages(path, hpath);
    raise(SIGKILL);
    return 1;
}

static void test_killed_writer_loses_nothing(void **state)
{
    (void)state;
    char path[800], hpath[800];
    paths("killed", path, hpath, sizeof path);
    assert_int_equal(run_in_child(killed_child, NULL, 30000), 128 + SIGKILL);
    /* The service writes them when it sees the client gone: no other
     * opener needed (stat does not break a lease). */
    double t0 = now_ms();
    while (host_size(hpath) != PAGES * PAGE && now_ms() - t0 < 5000)
        sleep_ms(10);
    assert_int_equal(host_size(hpath), PAGES * PAGE);
    expect_on_host(hpath, PAGES);
}

/* ---- danausd is killed in the middle of kept writes ---- */

#define STREAM_PAGES 3000
#define KILL_AFTER 700

/* Writes STREAM_PAGES pages one by one (each kept back while there is
 * room), telling the parent after KILL_AFTER; the service is killed and
 * started again meanwhile. Then closes and reads them all back. */
static int stream_child(void *arg)
{
    int out = *(int *)arg;
    char path[800], hpath[800];
    paths("stream", path, hpath, sizeof path);
    site_use(&site);
    int fd = danaus_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    for (int i = 0; i < STREAM_PAGES; i++) {
        write_page(fd, i);
        if (i == KILL_AFTER)
            CHILD_CHECK(write(out, "k", 1) == 1, "tell: %s", strerror(errno));
    }
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    expect_on_host(hpath, STREAM_PAGES);
    return 0;
}

static void test_service_killed_loses_nothing(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        _exit(stream_child(&p[1]));
    }
    close(p[1]);
    char c;
    assert_int_equal(read(p[0], &c, 1), 1);
    close(p[0]);
    daemon_kill(&svc);
    assert_int_equal(daemon_start(&svc, danausd, &site, "danausd-3", 60000), 0);
    expect_exit_0(pid);
}

/* Pages kept back and never flushed by the dead service reach the file
 * through the next one, when the writer next makes a call. */
static int resend_child(void *arg)
{
    int *fds = arg; /* ready (write end), restarted (read end) */
    char path[800], hpath[800];
    paths("resent", path, hpath, sizeof path);
    int fd = open_with_kept_pages(path, hpath);
    CHILD_CHECK(write(fds[0], "r", 1) == 1, "ready: %s", strerror(errno));
    char c;
    CHILD_CHECK(read(fds[1], &c, 1) == 1, "restarted: %s", strerror(errno));
    CHILD_CHECK(host_size(hpath) == PAGE,
                "the dead service wrote kept pages: %lld bytes",
                (long long)host_size(hpath));
    CHILD_CHECK(danaus_fsync(fd) == 0, "fsync: %s", strerror(errno));
    expect_on_host(hpath, PAGES);
    return 0;
}

static void test_restart_resends_kept_pages(void **state)
{
    (void)state;
    struct waiting h = start_waiting(resend_child);
    daemon_kill(&svc);
    assert_int_equal(daemon_start(&svc, danausd, &site, "danausd-4", 60000), 0);
    let_go(h);
}

/* ---- with a keeper: the writer makes no call after the restart ---- */

/* The sleeper's file, relative to the mount. */
static const char *sleeper_name = "sleeper";

/* Keeps pages back, says so, then waits for the parent's word. */
static int sleeper_child(void *arg)
{
    int *fds = arg; /* ready (write end), woken (read end) */
    char path[800], hpath[800];
    paths(sleeper_name, path, hpath, sizeof path);
    int fd = open_with_kept_pages(path, hpath);
    CHILD_CHECK(write(fds[0], "r", 1) == 1, "ready: %s", strerror(errno));
    char c;
    CHILD_CHECK(read(fds[1], &c, 1) == 1, "woken: %s", strerror(errno));
    /* Its own reads through the next service see them too, once. */
    expect_through_danaus(path, PAGES);
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    expect_on_host(hpath, PAGES);
    return 0;
}

/* The pid of the service's keeper (a child named danaus-keeper), or 0. */
static pid_t keeper_pid(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && !found && (e = readdir(d))) {
        char path[300], comm[64];
        int ppid;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fscanf(f, "%*d (%63[^)]) %*c %d", comm, &ppid) == 2 &&
            ppid == svc.pid && strcmp(comm, "danaus-keeper") == 0)
            found = (pid_t)atoi(e->d_name);
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

/* Kills the service's keeper and waits for the one that replaces it,
 * which must be handed everything the first held. */
static void replace_keeper(void)
{
    pid_t first = keeper_pid();
    assert_true(first > 0);
    kill(first, SIGKILL);
    double t0 = now_ms();
    pid_t next;
    while (((next = keeper_pid()) == 0 || next == first) &&
           now_ms() - t0 < 5000)
        sleep_ms(10);
    assert_true(next > 0 && next != first);
    /* Its messages are handed before the service's next word. */
    sleep_ms(100);
}

/* Runs sleeper_child until it is ready, kills danausd (with new_keeper,
 * after its keeper was killed and replaced), and with kill_writer kills
 * the writer too before the next danausd starts; then the host's file
 * must hold every page, the writer having made no call. */
static void sleeper_through_restart(bool kill_writer, bool new_keeper,
                                    const char *tag)
{
    char path[800], hpath[800];
    paths("sleeper", path, hpath, sizeof path);
    struct waiting h = start_waiting(sleeper_child);
    if (new_keeper)
        replace_keeper();
    daemon_kill(&svc);
    if (kill_writer)
        kill_waiting(h);
    assert_int_equal(host_size(hpath), PAGE);
    assert_int_equal(daemon_start(&svc, danausd, &site, tag, 60000), 0);
    /* Written before the service let anyone in: no wait. */
    assert_int_equal(host_size(hpath), PAGES * PAGE);
    expect_on_host(hpath, PAGES);
    if (!kill_writer)
        let_go(h);
}

static void test_sleeping_writer_loses_nothing(void **state)
{
    (void)state;
    sleeper_through_restart(false, false, "danausd-5");
}

static void test_writer_killed_meanwhile_loses_nothing(void **state)
{
    (void)state;
    sleeper_through_restart(true, false, "danausd-6");
}

static void test_keeper_replaced_loses_nothing(void **state)
{
    (void)state;
    sleeper_through_restart(true, true, "danausd-7");
}

/* ---- the next service killed while it writes them ---- */

/* A thread of process pid in uninterruptible sleep (a write to a frozen
 * file system). */
static bool blocked_in_kernel(pid_t pid)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d))) {
        char stat[400];
        char state = 0;
        snprintf(stat, sizeof stat, "/proc/%d/task/%s/stat", (int)pid,
                 e->d_name);
        FILE *f = fopen(stat, "r");
        if (!f)
            continue;
        found = fscanf(f, "%*d (%*[^)]) %c", &state) == 1 && state == 'D';
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

/* The loop device's mount point while mounted, for stop() when a check
 * failed first. */
static char frozen_dir[700];

static int sh(const char *fmt, const char *a, const char *b)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    return system(cmd);
}

/* The writer is killed with the service; the next service's writes of
 * its pages wait on a frozen file system (a loop device's, under the
 * host's directory) and it is killed there; the one after must write
 * them, which it can only if the second handed what it claimed to its
 * own keeper before writing. */
static void test_next_killed_while_writing_loses_nothing(void **state)
{
    (void)state;
    char img[700], log[700], hpath[800], path[800];
    const char *dir = frozen_dir;
    snprintf(img, sizeof img, "%s/frozen.img", site.dir);
    snprintf(frozen_dir, sizeof frozen_dir, "%s/frozen", host);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(sh("truncate -s 32M %s && mkfs.ext4 -q %s", img, img), 0);
    assert_int_equal(sh("mount -o loop %s %s", img, dir), 0);
    sleeper_name = "frozen/sleeper";
    paths(sleeper_name, path, hpath, sizeof path);
    struct waiting h = start_waiting(sleeper_child);
    sleeper_name = "sleeper";
    daemon_kill(&svc);
    kill_waiting(h);
    assert_int_equal(host_size(hpath), PAGE);
    assert_int_equal(sh("fsfreeze -f %s", dir, ""), 0);
    snprintf(log, sizeof log, "%s/danausd-8.log", site.dir);
    assert_int_equal(daemon_spawn(&svc, danausd, site.conf, log), 0);
    double t0 = now_ms();
    while (!blocked_in_kernel(svc.pid) && now_ms() - t0 < 20000)
        sleep_ms(5);
    bool blocked = blocked_in_kernel(svc.pid);
    kill(svc.pid, SIGKILL); /* lands once the write returns */
    assert_int_equal(sh("fsfreeze -u %s", dir, ""), 0);
    waitpid(svc.pid, NULL, 0);
    svc.pid = 0;
    assert_true(blocked);
    assert_int_equal(daemon_start(&svc, danausd, &site, "danausd-9", 60000), 0);
    assert_int_equal(host_size(hpath), PAGES * PAGE);
    expect_on_host(hpath, PAGES);
}

static int start(void **state)
{
    (void)state;
    if (site_make(&site, "writeback") < 0)
        return -1;
    snprintf(mnt, sizeof mnt, "%s/mnt", site.dir);
    snprintf(host, sizeof host, "%s/host", site.dir);
    char lower[600];
    snprintf(lower, sizeof lower, "%s/lower", site.dir);
    if (mkdir(mnt, 0755) < 0 || mkdir(host, 0755) < 0 ||
        mkdir(lower, 0755) < 0 ||
        site_write_config(&site,
                          "fuse %s\nwriteback_flushers 4\n%s %s local %s%s%s\n",
                          kept ? "on" : "off", in_union ? "union" : "mount",
                          mnt, host,
                          in_union ? " " : "", in_union ? lower : "") < 0)
        return -1;
    return daemon_start(&svc, danausd, &site, "danausd", 60000);
}

static int stop(void **state)
{
    (void)state;
    kill(svc.pid, SIGCONT);
    int rc = daemon_stop(&svc);
    if (frozen_dir[0]) {
        sh("fsfreeze -u %s 2>/dev/null; umount -l %s", frozen_dir, frozen_dir);
        frozen_dir[0] = '\0';
    }
    site_remove(&site);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "local") != 0 &&
                      strcmp(argv[2], "union") != 0 &&
                      strcmp(argv[2], "kept") != 0)) {
        fprintf(stderr, "usage: writeback DANAUSD local | union | kept\n");
        return 2;
    }
    danausd = argv[1];
    in_union = strcmp(argv[2], "union") == 0;
    kept = strcmp(argv[2], "kept") == 0;
    const struct CMUnitTest with_keeper[] = {
        cmocka_unit_test(test_sleeping_writer_loses_nothing),
        cmocka_unit_test(test_writer_killed_meanwhile_loses_nothing),
        cmocka_unit_test(test_keeper_replaced_loses_nothing),
        cmocka_unit_test(test_next_killed_while_writing_loses_nothing),
        cmocka_unit_test(test_service_killed_loses_nothing),
    };
    if (kept)
        return cmocka_run_group_tests_name("writeback_kept", with_keeper,
                                           start, stop);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_sees_its_writes),
        cmocka_unit_test(test_next_call_carries_the_flush),
        cmocka_unit_test(test_record_of_pages_is_kept),
        cmocka_unit_test(test_forked_child_reads_them),
        cmocka_unit_test(test_fsync_writes_them),
        cmocka_unit_test(test_later_write_wins),
        cmocka_unit_test(test_another_opener_sees_them),
        cmocka_unit_test(test_killed_writer_loses_nothing),
        cmocka_unit_test(test_service_killed_loses_nothing),
        cmocka_unit_test(test_restart_resends_kept_pages),
    };
    return cmocka_run_group_tests_name(in_union ? "writeback_union"
                                                : "writeback_local",
                                       tests, start, stop);
}
