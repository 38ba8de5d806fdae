/*
 * readcache.c - the read cache (ipc/cache.c, fsservice/core/readcache.c;
 * on CephFS fsservice/libservice/ceph/deleg.c, on the local backend
 * local/lease.c), as its users rely on it: a cached pread is answered
 * without the service, and no pread ever returns data older than a change
 * that finished before it, whoever made the change.
 *
 *   readcache DANAUSD local
 *   readcache DANAUSD ceph CEPH_CONF   (a build with Ceph: DANAUS_CEPH)
 *
 * Whether a pread was answered from the cache is seen from outside: the
 * service is stopped (SIGSTOP) and woken 300 ms later; a cached pread
 * returns long before that, one that needs the service cannot. Every change
 * below is made after such a check showed the reader's data cached, and
 * every read checks the bytes.
 *
 * Writers: another client of the same service (a forked child: each
 * process is a client), through a descriptor opened for writing, truncate
 * by path and ftruncate; the service's FUSE door (the kernel's path); and
 * a writer outside the service (another Ceph client: libcephfs in a child;
 * on the local backend a process writing the directory itself), one that
 * closes its file and one that keeps writing with it open; and, through a
 * descriptor open for reading and writing, its own writes. And once the
 * service is dead, no pread comes from the cache.
 */
#include "harness.h"

#ifdef DANAUS_WITH_CEPH
#include <cephfs/libcephfs.h>
#endif
#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define WAKE_MS 300   /* the stopped service is woken after this */
#define CACHED_MS 150 /* a cached pread returns well within this */
#define SIZE 16384

static const char *danausd;
static const char *ceph_conf; /* NULL: the local backend */
static char host[600];        /* the local backend's directory */
static struct site site;
static struct daemon svc;
static char mnt[600];  /* the mount point, also the FUSE door's */
static char cdir[64];  /* the test's directory, relative to the mount */

static void *wake_service(void *arg)
{
    (void)arg;
    usleep(WAKE_MS * 1000);
    kill(svc.pid, SIGCONT);
    return NULL;
}

/* preads n bytes at off of fd while the service is stopped: whether it
 * returned before the service was woken. The bytes go to buf, the count
 * to *got. */
static bool read_without_service(int fd, void *buf, size_t n, off_t off,
                                 ssize_t *got)
{
    pthread_t waker;
    kill(svc.pid, SIGSTOP);
    pthread_create(&waker, NULL, wake_service, NULL);
    double t0 = now_ms();
    *got = danaus_pread(fd, buf, n, off);
    double took = now_ms() - t0;
    pthread_join(waker, NULL);
    return took < CACHED_MS;
}

static void path_of(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s/%s", mnt, cdir, name);
}

static int write_bytes(const char *path, int c, size_t n, int flags)
{
    unsigned char buf[SIZE];
    memset(buf, c, n);
    int fd = danaus_open(path, O_WRONLY | O_CREAT | flags, 0644);
    if (fd < 0)
        return -1;
    ssize_t w = danaus_pwrite(fd, buf, n, 0);
    return danaus_close(fd) == 0 && w == (ssize_t)n ? 0 : -1;
}

/* fd reads n bytes of c at off (n == 0: end of file there); with tries >
 * 0, from the cache within that many tries. A try that needed the service
 * fills the cache for the next: an announcement may void a fresh
 * generation (Ceph tells of a truncation or of dropped caps some time
 * after it), and the cache is only a cache. */
#define CACHED_TRIES 3

static void expect(int fd, off_t off, size_t want, size_t n, int c,
                   int tries, int line)
{
    unsigned char buf[SIZE];
    ssize_t got;
    bool fast = false;
    for (int i = 0; i < (tries ? tries : 1) && !fast; i++) {
        if (tries)
            fast = read_without_service(fd, buf, want, off, &got);
        else
            got = danaus_pread(fd, buf, want, off);
        CHILD_CHECK(got == (ssize_t)n, "line %d: pread %zu at %lld: %zd (%s)",
                    line, want, (long long)off, got, strerror(errno));
        for (size_t k = 0; k < n; k++)
            CHILD_CHECK(buf[k] == c, "line %d: byte %zu is %#x, not %#x",
                        line, off + k, buf[k], c);
    }
    CHILD_CHECK(!tries || fast,
                "line %d: %d preads in a row waited for the stopped service",
                line, tries);
}
#define EXPECT(fd, off, want, n, c) expect(fd, off, want, n, c, 0, __LINE__)
#define EXPECT_CACHED(fd, off, want, n, c) \
    expect(fd, off, want, n, c, CACHED_TRIES, __LINE__)
/* Cached before this process ever read it: the first try must hit. */
#define EXPECT_READ_AHEAD(fd, off, want, n, c) \
    expect(fd, off, want, n, c, 1, __LINE__)

/* Runs fn in a process of its own (another client) and waits for it. */
static void in_other_process(void (*fn)(const char *), const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        fn(path);
        _exit(0);
    }
    int status;
    CHILD_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0,
                "the writer failed (status %#x)", status);
}

static void prepare(const char *path, int c)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/%s", mnt, cdir);
    CHILD_CHECK(danaus_mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir: %s",
                strerror(errno));
    CHILD_CHECK(write_bytes(path, c, SIZE, O_TRUNC) == 0, "write %s: %s",
                path, strerror(errno));
}

/* Runs a reader in a process of its own (a client), and wakes the service
 * whatever became of it. */
static void run_reader(int (*fn)(void *), int timeout_ms)
{
    int rc = run_in_child(fn, NULL, timeout_ms);
    kill(svc.pid, SIGCONT);
    assert_int_equal(rc, 0);
}

/* A new file `name` of SIZE bytes of c, open for reading with its first
 * block cached; its path in path. */
static int open_cached(const char *name, int c, char *path, size_t len)
{
    site_use(&site);
    path_of(path, len, name);
    prepare(path, c);
    int fd = danaus_open(path, O_RDONLY);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    EXPECT(fd, 0, 4096, 4096, c);
    EXPECT_CACHED(fd, 0, 4096, 4096, c);
    return fd;
}

/* ---- a cached pread needs no service ---- */

struct pending {
    int fd;
    ssize_t got;
    bool done;
};

static void *read_past_end(void *arg)
{
    struct pending *p = arg;
    char c;
    p->got = danaus_pread(p->fd, &c, 1, SIZE + 4096);
    __atomic_store_n(&p->done, true, __ATOMIC_SEQ_CST);
    return NULL;
}

static int cached_read_child(void *arg)
{
    (void)arg;
    site_use(&site);
    char path[800];
    path_of(path, sizeof path, "plain");
    prepare(path, 'a');
    int fd = danaus_open(path, O_RDONLY);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    EXPECT(fd, 0, SIZE, SIZE, 'a');
    EXPECT_CACHED(fd, 4096, 4096, 4096, 'a');
    EXPECT_CACHED(fd, 100, 9000, 9000, 'a');
    /* The end of the file is known once a read came back short there. */
    EXPECT(fd, SIZE - 10, 4096, 10, 'a');
    EXPECT_CACHED(fd, SIZE - 10, 4096, 10, 'a');
    EXPECT_CACHED(fd, SIZE, 100, 0, 'a');

    /* The control: a read of what is not cached waits for the service. */
    struct pending p = {.fd = fd};
    pthread_t reader, waker;
    kill(svc.pid, SIGSTOP);
    pthread_create(&reader, NULL, read_past_end, &p);
    usleep(WAKE_MS * 1000 / 2);
    bool early = __atomic_load_n(&p.done, __ATOMIC_SEQ_CST);
    pthread_create(&waker, NULL, wake_service, NULL);
    pthread_join(waker, NULL);
    pthread_join(reader, NULL);
    CHILD_CHECK(!early, "an uncached pread came back from a stopped service");
    CHILD_CHECK(p.got == 0, "pread past the end: %zd", p.got);

    /* A forked child is a client of its own, without its parent's area: it
     * reads the inherited descriptor right. One forked past the atfork
     * handlers (a raw clone) does not crash reading it. */
    for (int raw = 0; raw < 2; raw++) {
        pid_t pid = raw ? (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)
                        : fork();
        if (pid == 0) {
            unsigned char b[4096];
            ssize_t g = danaus_pread(fd, b, sizeof b, 4096);
            _exit(g == 4096 && b[0] == 'a' && b[4095] == 'a' ? 0 : 1);
        }
        int status;
        CHILD_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                        (raw || WEXITSTATUS(status) == 0),
                    "%s child: status %#x", raw ? "cloned" : "forked",
                    status);
    }

    /* A descriptor opened for writing reads nothing, cached or not. */
    int wfd = danaus_open(path, O_WRONLY);
    char c;
    CHILD_CHECK(wfd >= 0 && danaus_pread(wfd, &c, 1, 0) == -1 &&
                    errno == EBADF,
                "pread of a write-only descriptor: not EBADF");
    danaus_close(wfd);
    /* A closed and reopened file reads the same, and caches again. */
    danaus_close(fd);
    fd = danaus_open(path, O_RDONLY);
    EXPECT(fd, 0, 4096, 4096, 'a');
    EXPECT_CACHED(fd, 0, 4096, 4096, 'a');
    danaus_close(fd);
    return 0;
}

static void test_cached_read_needs_no_service(void **state)
{
    (void)state;
    run_reader(cached_read_child, 30000);
}

/* ---- a client that does not own the file ---- */

/* The local backend's leases need the file's owner or CAP_LEASE, which
 * the service keeps when it acts for such a client (local/cred.c; which
 * identity a service thread has when it takes the lease depends on whom
 * it served last, so test_local_cred checks the capability itself): a
 * pread of a file another user owns is cached like the owner's. */
static void prepare_as_root(const char *path)
{
    prepare(path, 'a');
}

static int other_uid_child(void *arg)
{
    (void)arg;
    char path[800];
    site_use(&site);
    path_of(path, sizeof path, "others");
    /* In a process of its own: this one's first call must be nobody's. */
    in_other_process(prepare_as_root, path);
    CHILD_CHECK(chmod(site.dir, 0755) == 0 && chmod(site.rundir, 0755) == 0,
                "chmod: %s", strerror(errno));
    char sock[600];
    snprintf(sock, sizeof sock, "%s/%s.sock", site.rundir, site.service);
    CHILD_CHECK(chmod(sock, 0666) == 0, "chmod of the socket: %s",
                strerror(errno));
    CHILD_CHECK(setgroups(0, NULL) == 0 &&
                    setresgid(65534, 65534, 65534) == 0 &&
                    setresuid(65534, 65534, 65534) == 0,
                "become nobody: %s", strerror(errno));
    int fd = danaus_open(path, O_RDONLY);
    CHILD_CHECK(fd >= 0, "open as nobody: %s", strerror(errno));
    EXPECT(fd, 0, 4096, 4096, 'a');
    EXPECT_CACHED(fd, 0, 4096, 4096, 'a');
    danaus_close(fd);
    return 0;
}

static void test_cached_for_another_uid(void **state)
{
    (void)state;
    if (ceph_conf)
        skip();
    run_reader(other_uid_child, 30000);
}

/* ---- readahead ---- */

/* A pread that misses the cache of a handle being cached, where the
 * previous miss ended, brings its aligned 32 KiB window along
 * (libfs/readcache.h): blocks never read are then answered from the
 * cache, up to the file's end. */
static int readahead_child(void *arg)
{
    (void)arg;
    char path[800];
    int fd = open_cached("ahead", 'a', path, sizeof path);
    EXPECT(fd, 4096, 4096, 4096, 'a');
    EXPECT(fd, 8192, 100, 100, 'a');
    EXPECT_READ_AHEAD(fd, 12288, 4096, 4096, 'a');
    EXPECT_READ_AHEAD(fd, 4096, 4096, 4096, 'a');
    EXPECT_READ_AHEAD(fd, SIZE - 1, 4096, 1, 'a');
    EXPECT_READ_AHEAD(fd, SIZE + 100, 4096, 0, 'a');
    danaus_close(fd);
    return 0;
}

static void test_readahead(void **state)
{
    (void)state;
    run_reader(readahead_child, 30000);
}

/* ---- changes by another client of the same service ---- */

static void overwrite_start(const char *path)
{
    unsigned char b[4096];
    memset(b, 'b', sizeof b);
    int fd = danaus_open(path, O_WRONLY);
    CHILD_CHECK(fd >= 0 && danaus_pwrite(fd, b, sizeof b, 0) == sizeof b &&
                    danaus_close(fd) == 0,
                "overwrite: %s", strerror(errno));
}

static void truncate_by_path(const char *path)
{
    CHILD_CHECK(danaus_truncate(path, 100) == 0, "truncate: %s",
                strerror(errno));
}

static void grow_through_descriptor(const char *path)
{
    int fd = danaus_open(path, O_RDWR);
    CHILD_CHECK(fd >= 0 && danaus_ftruncate(fd, 5000) == 0 &&
                    danaus_close(fd) == 0,
                "ftruncate: %s", strerror(errno));
}

static int same_service_child(void *arg)
{
    (void)arg;
    char path[800];
    int fd = open_cached("shared", 'a', path, sizeof path);
    EXPECT(fd, 4096, 4096, 4096, 'a');

    in_other_process(overwrite_start, path);
    EXPECT(fd, 0, 4096, 4096, 'b');
    EXPECT(fd, 4096, 4096, 4096, 'a');
    EXPECT_CACHED(fd, 0, 4096, 4096, 'b');

    in_other_process(truncate_by_path, path);
    EXPECT(fd, 0, 4096, 100, 'b');
    EXPECT_CACHED(fd, 0, 4096, 100, 'b');

    in_other_process(grow_through_descriptor, path);
    EXPECT(fd, 100, 4096, 4096, 0);
    EXPECT(fd, 4096, 4096, 5000 - 4096, 0);
    danaus_close(fd);
    return 0;
}

static void test_changes_by_another_client(void **state)
{
    (void)state;
    run_reader(same_service_child, 60000);
}

/* ---- changes through the FUSE door (the kernel's path) ---- */

/* Writes "kkkk" at the start of path through the kernel's open, which the
 * FUSE door serves. */
static void write_through_door(const char *path)
{
    int kfd = open(path, O_WRONLY);
    CHILD_CHECK(kfd >= 0 && pwrite(kfd, "kkkk", 4, 0) == 4 && close(kfd) == 0,
                "write through the door: %s", strerror(errno));
}

static int fuse_door_child(void *arg)
{
    (void)arg;
    char path[800];
    int fd = open_cached("door", 'a', path, sizeof path);
    write_through_door(path);
    EXPECT(fd, 0, 4, 4, 'k');
    EXPECT(fd, 4, 4092, 4092, 'a');
    danaus_close(fd);
    return 0;
}

static void test_changes_through_fuse_door(void **state)
{
    (void)state;
    run_reader(fuse_door_child, 30000);
}

/* ---- a descriptor open for reading and writing ---- */

/* Databases open their files O_RDWR: such a descriptor's preads are
 * cached as a read-only one's are (the local backend's write lease,
 * Ceph's write delegation), and every change shows in the next pread:
 * its own writes, another client's, the FUSE door's. */
static int read_write_child(void *arg)
{
    (void)arg;
    char path[800];
    site_use(&site);
    path_of(path, sizeof path, "rdwr");
    prepare(path, 'a');
    /* Read through a read-only descriptor first, as a program that reads
     * a file and then updates it: that close waits in the library's batch
     * (libfs/closes.h), and the open for writing sends it first, or the
     * file would still be open elsewhere and nothing could be cached. */
    int ro = danaus_open(path, O_RDONLY);
    char c;
    CHILD_CHECK(ro >= 0 && danaus_read(ro, &c, 1) == 1 && danaus_close(ro) == 0,
                "read-only read: %s", strerror(errno));
    int fd = danaus_open(path, O_RDWR);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    EXPECT(fd, 0, 4096, 4096, 'a');
    EXPECT_CACHED(fd, 0, 4096, 4096, 'a');
    CHILD_CHECK(danaus_pwrite(fd, "wwww", 4, 0) == 4, "pwrite: %s",
                strerror(errno));
    EXPECT(fd, 0, 4, 4, 'w');
    EXPECT(fd, 4, 4092, 4092, 'a');
    EXPECT_CACHED(fd, 0, 4, 4, 'w');

    in_other_process(overwrite_start, path);
    EXPECT(fd, 0, 4096, 4096, 'b');
    EXPECT_CACHED(fd, 0, 4096, 4096, 'b');

    write_through_door(path);
    EXPECT(fd, 0, 4, 4, 'k');
    EXPECT(fd, 4, 4092, 4092, 'b');
    danaus_close(fd);
    return 0;
}

static void test_read_write_descriptor(void **state)
{
    (void)state;
    run_reader(read_write_child, 60000);
}

/* ---- changes by a writer outside the service ---- */

/* The outside writer's calls: another Ceph client's (cm), or the host's
 * (cm NULL). In a build without Ceph, CEPH() is never reached: only the
 * local mode runs. */
struct outside {
    struct ceph_mount_info *cm;
};

#ifdef DANAUS_WITH_CEPH
#define CEPH(call) (call)
static struct ceph_mount_info *ceph_client(void)
{
    struct ceph_mount_info *cm;
    CHILD_CHECK(ceph_create(&cm, NULL) == 0 &&
                    ceph_conf_read_file(cm, ceph_conf) == 0 &&
                    ceph_mount(cm, "/") == 0,
                "a second Ceph client cannot mount");
    return cm;
}
#else
#define CEPH(call) (-ENOSYS)
static struct ceph_mount_info *ceph_client(void)
{
    CHILD_CHECK(false, "built without Ceph");
    return NULL;
}
#endif

static int outside_open(struct outside *o, const char *path)
{
    return o->cm ? CEPH(ceph_open(o->cm, path, O_WRONLY, 0))
                 : open(path, O_WRONLY);
}

static int outside_write(struct outside *o, int fd, const char *four)
{
    int rc = o->cm ? CEPH(ceph_write(o->cm, fd, four, 4, 0))
                   : (int)pwrite(fd, four, 4, 0);
    if (rc == 4)
        rc = o->cm ? CEPH(ceph_fsync(o->cm, fd, 0)) : fsync(fd);
    return rc;
}

static int outside_close(struct outside *o, int fd)
{
    return o->cm ? CEPH(ceph_close(o->cm, fd)) : close(fd);
}

static void outside_end(struct outside *o)
{
    if (o->cm) {
        (void)CEPH(ceph_unmount(o->cm));
        (void)CEPH(ceph_release(o->cm));
    }
}

/* The writer's side of a pipe pair: it waits for a byte, writes, answers. */
struct turns {
    int go[2], done[2];
};

static void step(struct turns *t)
{
    char b = 0;
    CHILD_CHECK(write(t->go[1], &b, 1) == 1 && read(t->done[0], &b, 1) == 1,
                "the outside writer is gone");
}

static void outside_writer(struct turns *t, const char *opath)
{
    struct outside o = {ceph_conf ? ceph_client() : NULL};
    char b;
    /* Turn 1: write and close. */
    CHILD_CHECK(read(t->go[0], &b, 1) == 1, "no turn");
    int fd = outside_open(&o, opath);
    CHILD_CHECK(fd >= 0 && outside_write(&o, fd, "cccc") == 0 &&
                    outside_close(&o, fd) == 0,
                "outside write: %d", fd);
    CHILD_CHECK(write(t->done[1], &b, 1) == 1, "no answer");
    /* Turns 2 and 3: write with the file kept open. */
    fd = outside_open(&o, opath);
    CHILD_CHECK(fd >= 0, "outside open: %d", fd);
    for (int turn = 0; turn < 2; turn++) {
        CHILD_CHECK(read(t->go[0], &b, 1) == 1, "no turn");
        CHILD_CHECK(outside_write(&o, fd, turn ? "eeee" : "dddd") == 0,
                    "outside write");
        CHILD_CHECK(write(t->done[1], &b, 1) == 1, "no answer");
    }
    outside_close(&o, fd);
    outside_end(&o);
}

static int outside_child(void *arg)
{
    (void)arg;
    char path[800], opath[800];
    if (ceph_conf)
        snprintf(opath, sizeof opath, "/%s/remote", cdir);
    else
        snprintf(opath, sizeof opath, "%s/%s/remote", host, cdir);
    int fd = open_cached("remote", 'a', path, sizeof path);
    struct turns t;
    CHILD_CHECK(pipe(t.go) == 0 && pipe(t.done) == 0, "pipe");
    pid_t writer = fork();
    if (writer == 0) {
        /* Its ends only: a reader that dies ends the writer's wait. */
        close(t.go[1]);
        close(t.done[0]);
        outside_writer(&t, opath);
        _exit(0);
    }
    close(t.go[0]);
    close(t.done[1]);

    step(&t);
    EXPECT(fd, 0, 4, 4, 'c');
    EXPECT(fd, 4, 4092, 4092, 'a');
    /* While the other writer keeps it open for writing, every pread sees
     * its latest write. */
    step(&t);
    EXPECT(fd, 0, 4, 4, 'd');
    EXPECT(fd, 0, 4, 4, 'd');
    step(&t);
    EXPECT(fd, 0, 4, 4, 'e');
    int status;
    CHILD_CHECK(waitpid(writer, &status, 0) == writer && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0,
                "the outside writer failed");
    danaus_close(fd);
    return 0;
}

static void test_changes_from_outside(void **state)
{
    (void)state;
    run_reader(outside_child, 90000);
}

/* ---- the service dies ---- */

/* The service's promise to hear of changes (its leases, its delegations)
 * dies with it: a pread after its death must not come from the cache. On
 * the local backend a writer outside changes the file at once (the leases
 * went with the service's descriptors); on Ceph the dead session holds its
 * caps until the next service resets it. */
static int death_child(void *arg)
{
    (void)arg;
    char path[800], opath[800];
    snprintf(opath, sizeof opath, "%s/%s/death", host, cdir);
    int fd = open_cached("death", 'a', path, sizeof path);
    setenv("DANAUS_RESTART_WAIT_MS", "0", 1);
    kill(svc.pid, SIGKILL);
    usleep(100000);
    if (!ceph_conf) {
        int w = open(opath, O_WRONLY);
        CHILD_CHECK(w >= 0 && pwrite(w, "zzzz", 4, 0) == 4 && close(w) == 0,
                    "outside write after the death: %s", strerror(errno));
    }
    unsigned char b[4096];
    ssize_t got = danaus_pread(fd, b, sizeof b, 0);
    CHILD_CHECK(got == -1 && errno == ENOTCONN,
                "pread after the service died: %zd (%s), first byte %#x", got,
                got < 0 ? strerror(errno) : "", got > 0 ? b[0] : 0);
    return 0;
}

static void test_service_death(void **state)
{
    (void)state;
    run_reader(death_child, 30000);
    /* The next service, for the group's teardown. */
    assert_int_equal(daemon_wait_exit(&svc, 10000), 0);
    assert_int_equal(daemon_start(&svc, danausd, &site, "danausd-next", 60000),
                     0);
}

static int start(void **state)
{
    (void)state;
    if (site_make(&site, "readcache") < 0)
        return -1;
    snprintf(mnt, sizeof mnt, "%s/mnt", site.dir);
    snprintf(cdir, sizeof cdir, "readcache-%d", (int)getpid());
    snprintf(host, sizeof host, "%s/host", site.dir);
    if (mkdir(mnt, 0755) < 0 || mkdir(host, 0755) < 0)
        return -1;
    int rc = ceph_conf ? site_write_config(&site,
                                           "ceph_conf %s\nfuse on\n"
                                           "mount %s ceph /\n",
                                           ceph_conf, mnt)
                       : site_write_config(&site,
                                           "fuse on\nmount %s local %s\n",
                                           mnt, host);
    if (rc < 0)
        return -1;
    return daemon_start(&svc, danausd, &site, "danausd", 60000);
}

static int stop(void **state)
{
    (void)state;
    kill(svc.pid, SIGCONT);
    int rc = daemon_stop(&svc);
    site_remove(&site);
    return rc;
}

int main(int argc, char **argv)
{
    if (!(argc == 3 && strcmp(argv[2], "local") == 0) &&
        !(argc == 4 && strcmp(argv[2], "ceph") == 0)) {
        fprintf(stderr, "usage: readcache DANAUSD local | ceph CEPH_CONF\n");
        return 2;
    }
    danausd = argv[1];
    ceph_conf = argc == 4 ? argv[3] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cached_read_needs_no_service),
        cmocka_unit_test(test_readahead),
        cmocka_unit_test(test_cached_for_another_uid),
        cmocka_unit_test(test_changes_by_another_client),
        cmocka_unit_test(test_changes_through_fuse_door),
        cmocka_unit_test(test_read_write_descriptor),
        cmocka_unit_test(test_changes_from_outside),
        cmocka_unit_test(test_service_death),
    };
    return cmocka_run_group_tests_name(ceph_conf ? "readcache_ceph"
                                                 : "readcache_local",
                                       tests, start, stop);
}
