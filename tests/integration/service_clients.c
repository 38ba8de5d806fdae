/*
 * service_clients.c - how danausd serves its clients.
 *
 *   service_clients DANAUSD
 *
 * Credentials: a root service acts for each client with the client's own
 * uid and groups. Threads: many client threads at once get correct results,
 * and exiting threads give their slots back. Fork: a child process opening
 * its own files works, beside a parent whose threads keep working, and the
 * child never holds its parent's area, even when forked by a raw system
 * call that skips the library's atfork handlers. Clients run in child processes (the library connects
 * once per process); the test process itself never calls danaus_*.
 */
#include "harness.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define MOUNTPOINT "/danaus-clients"
#define USER_ID 1000

static const char *danausd;

struct fixture {
    struct site site;
    struct daemon daemon;
    char host[PATH_MAX + 16]; /* the host directory behind MOUNTPOINT */
};

/* Each test's service; the teardown stops it whatever the test did. */
static struct fixture fix;

/* Starts a service on a fresh host directory; extra: more config lines. */
static void start(struct fixture *f, const char *tag, const char *extra)
{
    assert_int_equal(site_make(&f->site, tag), 0);
    /* mkdtemp makes the site 0700; uid 1000 must reach the socket. */
    assert_int_equal(chmod(f->site.dir, 0755), 0);
    snprintf(f->host, sizeof f->host, "%s/host", f->site.dir);
    assert_int_equal(mkdir(f->host, 0755), 0);
    assert_int_equal(site_write_config(&f->site, "mount %s local %s\n%s",
                                       MOUNTPOINT, f->host, extra), 0);
    assert_int_equal(daemon_start(&f->daemon, danausd, &f->site, "danausd",
                                  10000), 0);
}

/* Fails the test if the service did not stop cleanly on SIGTERM. */
static int stop(void **state)
{
    int rc = fix.daemon.pid && daemon_stop(&fix.daemon) < 0 ? -1 : 0;
    site_remove(&fix.site);
    memset(&fix, 0, sizeof fix);
    return rc;
}

static void become_user(void)
{
    CHILD_CHECK(setgroups(0, NULL) == 0, "setgroups: %s", strerror(errno));
    CHILD_CHECK(setgid(USER_ID) == 0, "setgid: %s", strerror(errno));
    CHILD_CHECK(setuid(USER_ID) == 0, "setuid: %s", strerror(errno));
}

/* ---- credentials ---- */

static int user_client(void *arg)
{
    struct fixture *f = arg;
    become_user();
    site_use(&f->site);
    errno = 0;
    int fd = danaus_open(MOUNTPOINT "/rootfile", O_WRONLY);
    CHILD_CHECK(fd == -1 && errno == EACCES,
                "open root's 0644 file for writing: %d %s", fd, strerror(errno));
    fd = danaus_open(MOUNTPOINT "/rootfile", O_RDONLY);
    CHILD_CHECK(fd >= 0, "open root's 0644 file for reading: %s", strerror(errno));
    char buf[16];
    CHILD_CHECK(danaus_read(fd, buf, sizeof buf) == 4 && !memcmp(buf, "root", 4),
                "read root's file");
    danaus_close(fd);
    errno = 0;
    CHILD_CHECK(danaus_mkdir(MOUNTPOINT "/nope", 0755) == -1 && errno == EACCES,
                "mkdir in root's 0755 dir: %s", strerror(errno));

    fd = danaus_open(MOUNTPOINT "/shared/mine", O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHILD_CHECK(fd >= 0, "create in a 0777 dir: %s", strerror(errno));
    struct stat st;
    CHILD_CHECK(danaus_fstat(fd, &st) == 0, "fstat: %s", strerror(errno));
    CHILD_CHECK(st.st_uid == USER_ID && st.st_gid == USER_ID,
                "new file owned by %u:%u", (unsigned)st.st_uid, (unsigned)st.st_gid);
    CHILD_CHECK(danaus_write(fd, "mine", 4) == 4, "write: %s", strerror(errno));
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    errno = 0;
    CHILD_CHECK(danaus_chown(MOUNTPOINT "/shared/mine", 0, 0) == -1 && errno == EPERM,
                "chown to root: %s", strerror(errno));
    errno = 0;
    CHILD_CHECK(danaus_unlink(MOUNTPOINT "/rootfile") == -1 && errno == EACCES,
                "unlink in root's dir: %s", strerror(errno));
    return 0;
}

static void test_credentials(void **state)
{
    struct fixture *f = &fix;
    char extra[64];
    snprintf(extra, sizeof extra, "owner %d:%d\n", USER_ID, USER_ID);
    start(f, "cred", extra);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/rootfile", f->host);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "root", 4), 4);
    assert_int_equal(fchmod(fd, 0644), 0);
    close(fd);
    snprintf(path, sizeof path, "%s/shared", f->host);
    assert_int_equal(mkdir(path, 0777), 0);
    assert_int_equal(chmod(path, 0777), 0);

    assert_int_equal(run_in_child(user_client, f, 10000), 0);

    struct stat st;
    snprintf(path, sizeof path, "%s/shared/mine", f->host);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, USER_ID);
    assert_int_equal(st.st_gid, USER_ID);
    assert_int_equal(st.st_size, 4);
}

/* Without an owner line the socket and segment are root's, mode 0600: a
 * uid-1000 client cannot attach and sees ENOTCONN. */
static int user_client_refused(void *arg)
{
    struct fixture *f = arg;
    become_user();
    site_use(&f->site);
    struct stat st;
    errno = 0;
    int rc = danaus_stat(MOUNTPOINT, &st);
    CHILD_CHECK(rc == -1 && errno == ENOTCONN, "stat: %d %s", rc, strerror(errno));
    return 0;
}

static void test_other_owner_cannot_attach(void **state)
{
    start(&fix, "noowner", "");
    assert_int_equal(run_in_child(user_client_refused, &fix, 10000), 0);
}

/* ---- many threads ---- */

#define THREADS 16
#define ROUNDS 3
#define FILE_BYTES (300 * 1024) /* more than one slot buffer */

struct worker {
    int round, id;
    char error[256];
};

static void fill(unsigned char *buf, size_t n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
}

#define WORKER_CHECK(w, cond, ...)                                           \
    do {                                                                     \
        if (!(cond)) {                                                       \
            snprintf((w)->error, sizeof (w)->error, __VA_ARGS__);            \
            goto out;                                                        \
        }                                                                    \
    } while (0)

/* Mixed operations on files of this thread's own, each result checked. */
static void *worker_run(void *arg)
{
    struct worker *w = arg;
    unsigned char *want = malloc(FILE_BYTES), *got = malloc(FILE_BYTES);
    char dir[128], file[160], moved[160];
    int fd = -1;
    snprintf(dir, sizeof dir, MOUNTPOINT "/r%d-t%d", w->round, w->id);
    snprintf(file, sizeof file, "%s/data", dir);
    snprintf(moved, sizeof moved, "%s/moved", dir);
    fill(want, FILE_BYTES, (unsigned)(w->round * 100 + w->id));

    WORKER_CHECK(w, danaus_mkdir(dir, 0755) == 0, "mkdir: %s", strerror(errno));
    fd = danaus_open(file, O_RDWR | O_CREAT | O_EXCL, 0644);
    WORKER_CHECK(w, fd >= 0, "open: %s", strerror(errno));
    WORKER_CHECK(w, danaus_write(fd, want, FILE_BYTES) == FILE_BYTES,
                 "write: %s", strerror(errno));
    WORKER_CHECK(w, danaus_pread(fd, got, FILE_BYTES, 0) == FILE_BYTES,
                 "pread: %s", strerror(errno));
    WORKER_CHECK(w, memcmp(got, want, FILE_BYTES) == 0, "pread data differ");
    WORKER_CHECK(w, danaus_pwrite(fd, "XYZ", 3, 1000) == 3, "pwrite: %s",
                 strerror(errno));
    memcpy(want + 1000, "XYZ", 3);
    WORKER_CHECK(w, danaus_close(fd) == 0, "close: %s", strerror(errno));
    fd = -1;
    WORKER_CHECK(w, danaus_rename(file, moved) == 0, "rename: %s", strerror(errno));
    struct stat st;
    WORKER_CHECK(w, danaus_stat(moved, &st) == 0 && st.st_size == FILE_BYTES,
                 "stat after rename: %s", strerror(errno));
    errno = 0;
    WORKER_CHECK(w, danaus_stat(file, &st) == -1 && errno == ENOENT,
                 "old name still there: %s", strerror(errno));
    fd = danaus_open(moved, O_RDONLY);
    WORKER_CHECK(w, fd >= 0, "reopen: %s", strerror(errno));
    WORKER_CHECK(w, danaus_read(fd, got, FILE_BYTES) == FILE_BYTES, "read: %s",
                 strerror(errno));
    WORKER_CHECK(w, memcmp(got, want, FILE_BYTES) == 0, "read data differ");
    WORKER_CHECK(w, danaus_close(fd) == 0, "close: %s", strerror(errno));
    fd = -1;
    DIR *d = danaus_opendir(dir);
    WORKER_CHECK(w, d != NULL, "opendir: %s", strerror(errno));
    int entries = 0, seen = 0;
    struct dirent *e;
    while ((e = danaus_readdir(d))) {
        entries++;
        seen += strcmp(e->d_name, "moved") == 0;
    }
    danaus_closedir(d);
    WORKER_CHECK(w, entries == 3 && seen == 1, "listing: %d entries", entries);
    WORKER_CHECK(w, danaus_unlink(moved) == 0, "unlink: %s", strerror(errno));
    WORKER_CHECK(w, danaus_rmdir(dir) == 0, "rmdir: %s", strerror(errno));
out:
    if (fd >= 0)
        danaus_close(fd);
    free(want);
    free(got);
    return NULL;
}

static int threaded_client(void *arg)
{
    site_use(arg);
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t tid[THREADS];
        struct worker w[THREADS];
        for (int i = 0; i < THREADS; i++) {
            w[i] = (struct worker){.round = round, .id = i};
            CHILD_CHECK(pthread_create(&tid[i], NULL, worker_run, &w[i]) == 0,
                        "pthread_create");
        }
        for (int i = 0; i < THREADS; i++)
            pthread_join(tid[i], NULL);
        for (int i = 0; i < THREADS; i++)
            CHILD_CHECK(w[i].error[0] == '\0', "round %d thread %d: %s", round,
                        i, w[i].error);
    }
    /* Everything the threads made, they removed. */
    DIR *d = danaus_opendir(MOUNTPOINT);
    CHILD_CHECK(d != NULL, "opendir: %s", strerror(errno));
    int entries = 0;
    while (danaus_readdir(d))
        entries++;
    danaus_closedir(d);
    CHILD_CHECK(entries == 2, "mount root has %d entries", entries);
    return 0;
}

/* 3 rounds of 16 threads need 48 slots over time; 20 exist, so the rounds
 * after the first work only if exiting threads gave theirs back. */
static void test_threads_return_slots(void **state)
{
    start(&fix, "threads", "slots 20\nclient_slots 20\n");
    assert_int_equal(run_in_child(threaded_client, &fix.site, 60000), 0);
}

/* More threads at once than the client's slots: a thread that finds none
 * free waits until another's thread exits and gives its slot back (issue
 * 35), instead of failing its call with EAGAIN. */
#define SLOT_WAITERS 12

static void *stat_then_linger(void *arg)
{
    int *err = arg;
    struct stat st;
    *err = danaus_stat(MOUNTPOINT, &st) == 0 ? 0 : errno;
    usleep(200000); /* holds its slot meanwhile */
    return NULL;
}

static int slot_waiters(void *arg)
{
    site_use(arg);
    pthread_t tid[SLOT_WAITERS];
    int err[SLOT_WAITERS];
    for (int i = 0; i < SLOT_WAITERS; i++)
        CHILD_CHECK(pthread_create(&tid[i], NULL, stat_then_linger,
                                   &err[i]) == 0,
                    "pthread_create");
    for (int i = 0; i < SLOT_WAITERS; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < SLOT_WAITERS; i++)
        CHILD_CHECK(err[i] == 0, "thread %d: stat: %s", i, strerror(err[i]));
    return 0;
}

static void test_threads_wait_for_slots(void **state)
{
    start(&fix, "slotwait", "client_slots 4\n");
    assert_int_equal(run_in_child(slot_waiters, &fix.site, 60000), 0);
}

/* ---- fork ---- */

/* Writes, reads back and removes a file of its own: 0 if all was right. */
static int own_file_roundtrip(const char *path, const char *text)
{
    size_t n = strlen(text);
    char buf[256];
    int fd = danaus_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    int ok = danaus_write(fd, text, n) == (ssize_t)n &&
             danaus_pread(fd, buf, sizeof buf, 0) == (ssize_t)n &&
             memcmp(buf, text, n) == 0;
    ok &= danaus_close(fd) == 0;
    ok &= danaus_unlink(path) == 0;
    return ok ? 0 : -1;
}

/* The parent attaches before fork when arg is not NULL. */
static int forked_child_of_client(void *attach_first)
{
    if (attach_first)
        CHILD_CHECK(own_file_roundtrip(MOUNTPOINT "/parent-before", "before") == 0,
                    "parent before fork: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    CHILD_CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        for (int i = 0; i < 200; i++)
            if (own_file_roundtrip(MOUNTPOINT "/child", "child data") < 0) {
                fprintf(stderr, "child round %d: %s\n", i, strerror(errno));
                _exit(1);
            }
        _exit(0);
    }
    /* The parent keeps working at the same time as its child. */
    int failed = 0;
    for (int i = 0; i < 200; i++)
        failed += own_file_roundtrip(MOUNTPOINT "/parent", "parent data") < 0;
    int status;
    CHILD_CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    CHILD_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "forked child failed (status %#x)", status);
    CHILD_CHECK(failed == 0, "parent: %d of 200 round trips failed", failed);
    return 0;
}

static void test_fork_child_opens_its_files(void **state)
{
    start(&fix, "fork", "");
    site_use(&fix.site);
    assert_int_equal(run_in_child(forked_child_of_client, &fix, 10000), 0);
}

/* Neither process has talked to the service before fork. */
static void test_fork_before_attach(void **state)
{
    start(&fix, "forkfresh", "");
    site_use(&fix.site);
    assert_int_equal(run_in_child(forked_child_of_client, NULL, 10000), 0);
}

/* The inode of this process's mapping of a Danaus area (the memfd named
 * danaus-area), or 0 when it maps none. */
static unsigned long mapped_area_inode(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[512];
    unsigned long inode = 0;
    while (!inode && fgets(line, sizeof line, f))
        if (strstr(line, "/memfd:danaus-area") &&
            sscanf(line, "%*s %*s %*s %*s %lu", &inode) != 1)
            inode = 0;
    fclose(f);
    return inode;
}

static volatile int parent_threads_stop;

/* A parent thread's round trips, until told to stop: the failures. */
static void *parent_thread(void *arg)
{
    char path[64];
    snprintf(path, sizeof path, MOUNTPOINT "/thread-%ld", (long)(intptr_t)arg);
    intptr_t failed = 0;
    while (!parent_threads_stop)
        failed += own_file_roundtrip(path, path) < 0;
    return (void *)failed;
}

/* A forked child: it must not map the parent's area (inode parent_area),
 * then does round trips of its own. Exits with 0 when all was right. */
static void forked_child(unsigned long parent_area, int n)
{
    if (mapped_area_inode() == parent_area)
        _exit(2);
    char path[64];
    snprintf(path, sizeof path, MOUNTPOINT "/child-%d", (int)getpid());
    for (int i = 0; i < 50; i++)
        if (own_file_roundtrip(path, path) < 0)
            _exit(3);
    if (mapped_area_inode() == parent_area || mapped_area_inode() == 0)
        _exit(4);
    _exit(n >= 0 ? 0 : 5);
}

static int reap_child(pid_t pid)
{
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status)
               ? WEXITSTATUS(status)
               : 99;
}

static int forking_client(void *arg)
{
    (void)arg;
    CHILD_CHECK(own_file_roundtrip(MOUNTPOINT "/parent", "parent") == 0,
                "parent: %s", strerror(errno));
    unsigned long area = mapped_area_inode();
    CHILD_CHECK(area != 0, "the parent maps no area");
    /* A raw fork, while the parent has one thread (no lock another thread
     * could hold): the child finds out by itself that it is a child. */
    pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    CHILD_CHECK(pid >= 0, "clone: %s", strerror(errno));
    if (pid == 0)
        forked_child(area, 0);
    int rc = reap_child(pid);
    CHILD_CHECK(rc == 0, "raw-forked child exited %d", rc);
    /* Forks while the parent's threads keep working. */
    pthread_t threads[4];
    for (intptr_t i = 0; i < 4; i++)
        CHILD_CHECK(pthread_create(&threads[i], NULL, parent_thread,
                                   (void *)i) == 0, "pthread_create");
    for (int i = 0; i < 8; i++) {
        fflush(NULL);
        pid = fork();
        CHILD_CHECK(pid >= 0, "fork: %s", strerror(errno));
        if (pid == 0)
            forked_child(area, i);
        rc = reap_child(pid);
        CHILD_CHECK(rc == 0, "child %d exited %d", i, rc);
    }
    parent_threads_stop = 1;
    for (int i = 0; i < 4; i++) {
        void *failed;
        pthread_join(threads[i], &failed);
        CHILD_CHECK(failed == NULL, "parent thread %d: %ld round trips failed",
                    i, (long)(intptr_t)failed);
    }
    CHILD_CHECK(mapped_area_inode() == area, "the parent's area changed");
    return 0;
}

static void test_fork_keeps_areas_apart(void **state)
{
    start(&fix, "forkareas", "");
    site_use(&fix.site);
    assert_int_equal(run_in_child(forking_client, NULL, 60000), 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: service_clients DANAUSD\n");
        return 2;
    }
    danausd = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_credentials, stop),
        cmocka_unit_test_teardown(test_other_owner_cannot_attach, stop),
        cmocka_unit_test_teardown(test_threads_return_slots, stop),
        cmocka_unit_test_teardown(test_threads_wait_for_slots, stop),
        cmocka_unit_test_teardown(test_fork_before_attach, stop),
        cmocka_unit_test_teardown(test_fork_child_opens_its_files, stop),
        cmocka_unit_test_teardown(test_fork_keeps_areas_apart, stop),
    };
    return cmocka_run_group_tests_name("service_clients", tests, NULL, NULL);
}
