/*
 * service_resume.c - a preloaded program lives through a restart of its
 * service (issue 11, item 3; libfs/resume.h).
 *
 *   service_resume DANAUSD DANAUSD_STUCK
 *
 * Each test kills danausd with SIGKILL under a client that holds open
 * files, starts a new danausd on the same configuration, and checks what
 * the client then sees: its descriptors with their offsets (one offset for
 * dup'ed descriptors), append mode, its Danaus cwd; EIO on a descriptor
 * whose file was unlinked or replaced at its path by another file, and only
 * there; a forked child's inherited descriptor, the child having made no
 * call before the kill; its record locks held again, or
 * EIO on the descriptor whose lock another client took first; a call in flight at the kill
 * done exactly once by the new service; an open in flight sent again as it
 * was asked, beside descriptors the resume reopens; ENOTCONN once the restart wait
 * runs out with no service. DANAUSD_STUCK is the test build whose mount of
 * $DANAUS_STUCK_ROOT never answers a mkdir (stuck_shim.c): it holds a call
 * in flight, begun, when the kill lands.
 */
#include "harness.h"

#include <danaus/danaus.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define MOUNTPOINT "/danaus-resume"
/* Between the kill and the new service: the client's call waits. */
#define OUTAGE_MS 300

static const char *danausd, *danausd_stuck;
static struct site site;
/* What the parent does while no service runs, besides restart_under's
 * own (NULL: nothing more). */
static void (*meanwhile)(void);
static struct daemon first, second;
static int to_child[2], to_parent[2];

static int cleanup(void **state)
{
    (void)state;
    daemon_kill(&first);
    daemon_kill(&second);
    site_remove(&site);
    meanwhile = NULL;
    return 0;
}

/* A site mounting MOUNTPOINT on a host directory; $DANAUS_STUCK_ROOT
 * names that directory for danausd_stuck. */
static void make_site(const char *tag)
{
    assert_int_equal(site_make(&site, tag), 0);
    char host[PATH_MAX + 16];
    snprintf(host, sizeof host, "%s/host", site.dir);
    assert_int_equal(mkdir(host, 0755), 0);
    assert_int_equal(site_write_config(&site, "fuse off\nmount %s local %s\n",
                                       MOUNTPOINT, host), 0);
    setenv("DANAUS_STUCK_ROOT", host, 1);
    assert_int_equal(pipe(to_child), 0);
    assert_int_equal(pipe(to_parent), 0);
}

static void say(int fd)
{
    char c = 1;
    CHILD_CHECK(write(fd, &c, 1) == 1, "pipe");
}

static void hear(int fd)
{
    char c;
    CHILD_CHECK(read(fd, &c, 1) == 1, "pipe");
}

/* The parent's side: once the child is ready, SIGKILL the service, let the
 * outage last OUTAGE_MS with the child told, then start a new one. */
static void restart_under(struct daemon *dead, const char *exe)
{
    char c;
    assert_int_equal(read(to_parent[0], &c, 1), 1);
    daemon_kill(dead);
    /* What another host process does meanwhile: a new file takes the
     * place of "replaced" (the host directory holds the mount's files). */
    char from[PATH_MAX + 32], to[PATH_MAX + 32];
    snprintf(from, sizeof from, "%s/host/new", site.dir);
    snprintf(to, sizeof to, "%s/host/replaced", site.dir);
    int fd = open(from, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    close(fd);
    if (access(to, F_OK) == 0)
        assert_int_equal(rename(from, to), 0);
    else
        unlink(from);
    if (meanwhile)
        meanwhile();
    assert_int_equal(write(to_child[1], &c, 1), 1);
    usleep(OUTAGE_MS * 1000);
    assert_int_equal(daemon_start(&second, exe, &site, "second", 10000), 0);
}

/* After the fork: each side keeps only its own ends, so that a side that
 * exits early ends the other's read. */
static void keep_parent_ends(void)
{
    close(to_child[0]);
    close(to_parent[1]);
}

/* Runs fn in a child process (a client of its own, as libdanaus connects
 * once per process); its pid. */
static pid_t start_client(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn());
    return pid;
}

static int wait_child(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void expect_contents(const char *path, const char *want)
{
    char buf[64] = {0};
    int fd = danaus_open(path, O_RDONLY);
    CHILD_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
    ssize_t n = danaus_read(fd, buf, sizeof buf - 1);
    CHILD_CHECK(n == (ssize_t)strlen(want) && memcmp(buf, want, n) == 0,
                "%s holds \"%s\", want \"%s\"", path, buf, want);
    danaus_close(fd);
}

/* ---- descriptors, offsets and cwd survive ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names d lists, sorted, space-separated into out (closes d): their
 * number, or -1. */
static int names_of(DIR *d, char *out, size_t size)
{
    char *names[64];
    int n = 0;
    struct dirent *e;
    out[0] = '\0';
    if (!d)
        return -1;
    while (n < 64 && (e = danaus_readdir(d)) != NULL)
        names[n++] = strdup(e->d_name);
    danaus_closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
    return n;
}

static int client_with_open_files(void)
{
    site_use(&site);
    int a = danaus_open(MOUNTPOINT "/a", O_RDWR | O_CREAT, 0644);
    CHILD_CHECK(a >= 0 && danaus_write(a, "hello", 5) == 5, "a");
    int a2 = danaus_dup(a);
    int b = danaus_open(MOUNTPOINT "/b", O_WRONLY | O_CREAT | O_APPEND, 0644);
    CHILD_CHECK(a2 >= 0 && b >= 0 && danaus_write(b, "one", 3) == 3, "b");
    int gone = danaus_open(MOUNTPOINT "/gone", O_RDWR | O_CREAT, 0644);
    CHILD_CHECK(gone >= 0 && danaus_unlink(MOUNTPOINT "/gone") == 0, "gone");
    CHILD_CHECK(danaus_mkdir(MOUNTPOINT "/d", 0755) == 0 &&
                danaus_chdir(MOUNTPOINT "/d") == 0, "chdir");
    int rel = danaus_open("rel", O_WRONLY | O_CREAT, 0644);
    CHILD_CHECK(rel >= 0, "open rel: %s", strerror(errno));
    ssize_t wrote = danaus_write(rel, "r", 1);
    CHILD_CHECK(wrote == 1, "write rel: %zd %s", wrote, strerror(errno));
    int dir = danaus_open(MOUNTPOINT, O_RDONLY | O_DIRECTORY);
    CHILD_CHECK(dir >= 0, "dir");
    /* Replaced at its path during the outage (restart_under): another
     * file now, so the descriptor is lost rather than moved to it. */
    int replaced = danaus_open(MOUNTPOINT "/replaced", O_RDWR | O_CREAT,
                               0644);
    CHILD_CHECK(replaced >= 0, "replaced");
    /* Renamed by this process while open: reopened by its new name. */
    int moving = danaus_open(MOUNTPOINT "/moving", O_RDWR | O_CREAT, 0644);
    CHILD_CHECK(moving >= 0 && danaus_write(moving, "m", 1) == 1 &&
                danaus_rename(MOUNTPOINT "/moving", MOUNTPOINT "/moved") == 0,
                "moving");

    say(to_parent[1]);
    hear(to_child[0]); /* the service is dead now */
    double t0 = now_ms();
    ssize_t n = danaus_write(a, " world", 6);
    double took = now_ms() - t0;
    CHILD_CHECK(n == 6, "write after restart: %zd %s", n, strerror(errno));
    printf("first call after the kill waited %.0f ms (outage %d ms)\n", took,
           OUTAGE_MS);
    fflush(stdout);
    CHILD_CHECK(danaus_lseek(a2, 0, SEEK_CUR) == 11,
                "the dup'ed descriptor shares the offset");
    char buf[16] = {0};
    CHILD_CHECK(danaus_pread(a, buf, 11, 0) == 11 &&
                strcmp(buf, "hello world") == 0, "a holds \"%s\"", buf);
    CHILD_CHECK(danaus_lseek(b, 0, SEEK_SET) == 0 &&
                danaus_write(b, "two", 3) == 3, "append");
    struct stat st;
    errno = 0;
    CHILD_CHECK(danaus_fstat(gone, &st) == -1 && errno == EIO,
                "unlinked file: fstat %s", strerror(errno));
    CHILD_CHECK(danaus_close(gone) == 0, "close of the lost descriptor");
    CHILD_CHECK(danaus_write(rel, "s", 1) == 1, "rel");
    char cwd[256];
    CHILD_CHECK(danaus_getcwd(cwd, sizeof cwd) &&
                strcmp(cwd, MOUNTPOINT "/d") == 0, "cwd %s", cwd);
    int rel2 = danaus_open("rel2", O_WRONLY | O_CREAT, 0644);
    CHILD_CHECK(rel2 >= 0, "relative open: %s", strerror(errno));
    CHILD_CHECK(danaus_fsync(a) == 0, "fsync on the local backend: %s",
                strerror(errno));
    CHILD_CHECK(danaus_fstat(dir, &st) == 0 && S_ISDIR(st.st_mode), "dir");
    /* Its open brought records the dead service's offset had passed: the
     * stream reads every name once all the same. */
    char listed[512], now_there[512];
    CHILD_CHECK(names_of(danaus_fdopendir(dir), listed, sizeof listed) > 3,
                "listing of the directory opened before the kill");
    CHILD_CHECK(names_of(danaus_opendir(MOUNTPOINT), now_there,
                         sizeof now_there) > 3 &&
                strcmp(listed, now_there) == 0,
                "its names \"%s\", a new listing's \"%s\"", listed,
                now_there);
    errno = 0;
    CHILD_CHECK(danaus_write(replaced, "x", 1) == -1 && errno == EIO,
                "the descriptor of a file replaced at its path: %s",
                strerror(errno));
    CHILD_CHECK(danaus_write(moving, "n", 1) == 1,
                "write to the file this process renamed: %s", strerror(errno));
    expect_contents(MOUNTPOINT "/moved", "mn");
    expect_contents(MOUNTPOINT "/b", "onetwo");
    expect_contents(MOUNTPOINT "/d/rel", "rs");
    return 0;
}

static void test_descriptors_survive_restart(void **state)
{
    (void)state;
    make_site("resume");
    assert_int_equal(daemon_start(&first, danausd, &site, "first", 10000), 0);
    pid_t pid = start_client(client_with_open_files);
    keep_parent_ends();
    restart_under(&first, danausd);
    assert_int_equal(wait_child(pid), 0);
}

/* A forked child that made no call before the restart (its descriptors
 * wait in the ticket it claimed, which died with the service) reads its
 * inherited descriptor on the new service. */
static int child_without_calls(void)
{
    site_use(&site);
    int fd = danaus_open(MOUNTPOINT "/inherited", O_RDWR | O_CREAT, 0644);
    CHILD_CHECK(fd >= 0 && danaus_write(fd, "hello", 5) == 5, "write");
    fflush(NULL);
    pid_t pid = fork();
    CHILD_CHECK(pid >= 0, "fork");
    if (pid == 0) {
        say(to_parent[1]);
        hear(to_child[0]);
        char buf[8] = {0};
        ssize_t n = danaus_pread(fd, buf, 5, 0);
        CHILD_CHECK(n == 5 && memcmp(buf, "hello", 5) == 0,
                    "the child's inherited descriptor: %zd %s", n,
                    n < 0 ? strerror(errno) : buf);
        _exit(0);
    }
    int status;
    CHILD_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0,
                "the forked child");
    return 0;
}

static void test_forked_child_survives_restart(void **state)
{
    (void)state;
    make_site("forked");
    assert_int_equal(daemon_start(&first, danausd, &site, "first", 10000), 0);
    pid_t pid = start_client(child_without_calls);
    keep_parent_ends();
    restart_under(&first, danausd);
    assert_int_equal(wait_child(pid), 0);
}

/* ---- record locks are taken again ---- */

static int to_other[2];

/* Run by a second client on the new service: what it may lock. */
static int other_client_locks(void)
{
    site_use(&site);
    int held = danaus_open(MOUNTPOINT "/posix", O_RDWR);
    int flocked = danaus_open(MOUNTPOINT "/flock", O_RDWR);
    int taken = danaus_open(MOUNTPOINT "/taken", O_RDWR);
    CHILD_CHECK(held >= 0 && flocked >= 0 && taken >= 0, "open");
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    /* Taken before the first client comes back: its lock is lost. */
    CHILD_CHECK(danaus_fcntl(taken, F_SETLK, &fl) == 0, "lock taken: %s",
                strerror(errno));
    say(to_parent[1]);
    hear(to_other[0]); /* the first client has resumed */
    errno = 0;
    CHILD_CHECK(danaus_fcntl(held, F_SETLK, &fl) == -1 && errno == EAGAIN,
                "the POSIX lock is held again: %s", strerror(errno));
    errno = 0;
    CHILD_CHECK(danaus_flock(flocked, LOCK_EX | LOCK_NB) == -1 &&
                errno == EWOULDBLOCK, "the flock is held again: %s",
                strerror(errno));
    fl.l_start = 10;
    fl.l_len = 10;
    CHILD_CHECK(danaus_fcntl(held, F_SETLK, &fl) == 0,
                "bytes 10-19, unlocked before the kill: %s", strerror(errno));
    return 0;
}

static int client_with_locks(void)
{
    site_use(&site);
    int held = danaus_open(MOUNTPOINT "/posix", O_RDWR | O_CREAT, 0644);
    int flocked = danaus_open(MOUNTPOINT "/flock", O_RDWR | O_CREAT, 0644);
    int taken = danaus_open(MOUNTPOINT "/taken", O_RDWR | O_CREAT, 0644);
    CHILD_CHECK(held >= 0 && flocked >= 0 && taken >= 0, "open");
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    CHILD_CHECK(danaus_fcntl(held, F_SETLK, &fl) == 0 &&
                danaus_fcntl(taken, F_SETLK, &fl) == 0, "lock");
    fl.l_type = F_UNLCK;
    fl.l_start = 10;
    fl.l_len = 10;
    CHILD_CHECK(danaus_fcntl(held, F_SETLK, &fl) == 0, "unlock 10-19");
    CHILD_CHECK(danaus_flock(flocked, LOCK_EX) == 0, "flock");
    say(to_parent[1]);
    hear(to_child[0]); /* restarted, and /taken locked by another */
    struct stat st;
    CHILD_CHECK(danaus_fstat(held, &st) == 0, "fstat: %s", strerror(errno));
    errno = 0;
    CHILD_CHECK(danaus_fstat(taken, &st) == -1 && errno == EIO,
                "the descriptor whose lock was taken: %s", strerror(errno));
    say(to_parent[1]);
    hear(to_child[0]); /* the other client has checked */
    return 0;
}

static void test_locks_survive_restart(void **state)
{
    (void)state;
    make_site("locks");
    assert_int_equal(daemon_start(&first, danausd, &site, "first", 10000), 0);
    pid_t pid = start_client(client_with_locks);
    char c;
    assert_int_equal(read(to_parent[0], &c, 1), 1);
    daemon_kill(&first);
    assert_int_equal(daemon_start(&second, danausd, &site, "second", 10000),
                     0);
    /* Both clients speak on to_parent, one at a time; each hears on its
     * own pipe. */
    assert_int_equal(pipe(to_other), 0);
    pid_t other = start_client(other_client_locks);
    assert_int_equal(read(to_parent[0], &c, 1), 1); /* other: taken */
    assert_int_equal(write(to_child[1], &c, 1), 1); /* first: go on */
    assert_int_equal(read(to_parent[0], &c, 1), 1); /* first: resumed */
    assert_int_equal(write(to_other[1], &c, 1), 1); /* other: check */
    assert_int_equal(wait_child(other), 0);
    assert_int_equal(write(to_child[1], &c, 1), 1); /* first: done */
    keep_parent_ends();
    assert_int_equal(wait_child(pid), 0);
}

/* ---- a call in flight at the kill is done once, by the new service ---- */

static int err_of_blocked;

static void *blocked_mkdir(void *arg)
{
    (void)arg;
    err_of_blocked = danaus_mkdir(MOUNTPOINT "/made", 0755) == 0 ? 0 : errno;
    return NULL;
}

/* In the client: runs call on a thread of its own until it blocks in
 * danausd_stuck, tells the parent to kill and replace the service, and
 * waits for call to end on the new one. */
static void block_then_restart(void *(*call)(void *))
{
    pthread_t t;
    CHILD_CHECK(pthread_create(&t, NULL, call, NULL) == 0, "thread");
    usleep(300 * 1000); /* the call reaches the stuck backend */
    say(to_parent[1]);
    pthread_join(t, NULL);
}

/* In the parent: client runs under danausd_stuck, which is killed and
 * replaced by danausd when the client says so. */
static void restart_under_client(const char *tag, int (*client)(void))
{
    make_site(tag);
    assert_int_equal(daemon_start(&first, danausd_stuck, &site, "first",
                                  10000), 0);
    pid_t pid = start_client(client);
    keep_parent_ends();
    restart_under(&first, danausd);
    assert_int_equal(wait_child(pid), 0);
}

static int client_in_flight(void)
{
    site_use(&site);
    struct stat st;
    CHILD_CHECK(danaus_stat(MOUNTPOINT, &st) == 0, "attach");
    block_then_restart(blocked_mkdir);
    CHILD_CHECK(err_of_blocked == 0, "the mkdir in flight: %s",
                strerror(err_of_blocked));
    CHILD_CHECK(danaus_stat(MOUNTPOINT "/made", &st) == 0 &&
                S_ISDIR(st.st_mode), "made");
    errno = 0;
    CHILD_CHECK(danaus_mkdir(MOUNTPOINT "/made", 0755) == -1 &&
                errno == EEXIST, "a second mkdir: %s", strerror(errno));
    return 0;
}

static void test_call_in_flight_done_once(void **state)
{
    (void)state;
    restart_under_client("inflight", client_in_flight);
}

/* ---- an open in flight beside open descriptors ---- */

static int fd_of_blocked;

static void *blocked_open(void *arg)
{
    (void)arg;
    fd_of_blocked = danaus_open(MOUNTPOINT "/stuck-open", O_WRONLY | O_CREAT,
                                0644);
    err_of_blocked = fd_of_blocked >= 0 ? 0 : errno;
    return NULL;
}

/* The open is sent again to the new service as the program asked it,
 * though the resume first reopened the program's other descriptor with
 * calls of its own (which must not take the place of the open's request):
 * the file opened is stuck-open, and what is written through it lands
 * there. */
static int client_open_in_flight(void)
{
    site_use(&site);
    int other = danaus_open(MOUNTPOINT "/other", O_RDWR | O_CREAT, 0644);
    CHILD_CHECK(other >= 0 && danaus_write(other, "other", 5) == 5,
                "other: %s", strerror(errno));
    block_then_restart(blocked_open);
    CHILD_CHECK(err_of_blocked == 0, "the open in flight: %s",
                strerror(err_of_blocked));
    CHILD_CHECK(danaus_write(fd_of_blocked, "opened", 6) == 6, "write: %s",
                strerror(errno));
    struct stat st;
    CHILD_CHECK(danaus_stat(MOUNTPOINT "/stuck-open", &st) == 0 &&
                    st.st_size == 6,
                "stuck-open: %s, %lld bytes (expected 6)", strerror(errno),
                (long long)st.st_size);
    CHILD_CHECK(danaus_stat(MOUNTPOINT "/other", &st) == 0 &&
                    st.st_size == 5,
                "other: %lld bytes (expected 5)", (long long)st.st_size);
    return 0;
}

static void test_open_in_flight_beside_open_files(void **state)
{
    (void)state;
    restart_under_client("openflight", client_open_in_flight);
}

/* ---- an append in flight: made once, or EIO ---- */

static int log_fd;
static const char *append_bytes;
static ssize_t appended;

static void *blocked_append(void *arg)
{
    (void)arg;
    appended = danaus_write(log_fd, append_bytes, strlen(append_bytes));
    err_of_blocked = appended >= 0 ? 0 : errno;
    return NULL;
}

/* "first\n" appended to the log, then append_bytes, in flight while the
 * service is replaced; want: the log after, or NULL when the append must
 * fail with EIO. */
static int append_in_flight(const char *want)
{
    site_use(&site);
    log_fd = danaus_open(MOUNTPOINT "/log", O_WRONLY | O_APPEND | O_CREAT,
                         0644);
    CHILD_CHECK(log_fd >= 0 && danaus_write(log_fd, "first\n", 6) == 6,
                "first: %s", strerror(errno));
    block_then_restart(blocked_append);
    if (!want) {
        CHILD_CHECK(appended == -1 && err_of_blocked == EIO,
                    "the append overtaken: %zd, %s", appended,
                    strerror(err_of_blocked));
        return 0;
    }
    CHILD_CHECK(appended == (ssize_t)strlen(append_bytes),
                "the append in flight: %zd, %s", appended,
                strerror(err_of_blocked));
    off_t pos = danaus_lseek(log_fd, 0, SEEK_CUR);
    CHILD_CHECK(pos == (off_t)strlen(want), "offset after: %lld",
                (long long)pos);
    expect_contents(MOUNTPOINT "/log", want);
    return 0;
}

static int client_append_not_made(void)
{
    append_bytes = "stuck-before\n";
    return append_in_flight("first\nstuck-before\n");
}

static int client_append_made(void)
{
    append_bytes = "stuck-after\n";
    return append_in_flight("first\nstuck-after\n");
}

static int client_append_overtaken(void)
{
    append_bytes = "stuck-before\n";
    return append_in_flight(NULL);
}

/* Another host process appends to the log while no service runs. */
static void append_other(void)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/host/log", site.dir);
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "other\n", 6), 6);
    close(fd);
}

/* The dead service had not written the append (it blocked before): the
 * next one makes it, once. */
static void test_append_not_made_is_sent_again(void **state)
{
    (void)state;
    restart_under_client("appendnot", client_append_not_made);
}

/* The dead service had written it (and blocked after): it is not made
 * again, and the write returns its bytes. */
static void test_append_made_counts_once(void **state)
{
    (void)state;
    restart_under_client("appendmade", client_append_made);
}

/* Not made, but another writer appended meanwhile: whether it was made
 * cannot be told from the file, and sending it again could add it twice. */
static void test_append_overtaken_is_eio(void **state)
{
    (void)state;
    meanwhile = append_other;
    restart_under_client("appendother", client_append_overtaken);
}

/* ---- no service comes back: ENOTCONN after the restart wait ---- */

#define SHORT_WAIT_MS 500

static int client_without_successor(void)
{
    site_use(&site);
    setenv("DANAUS_RESTART_WAIT_MS", "500", 1);
    int fd = danaus_open(MOUNTPOINT "/f", O_RDWR | O_CREAT, 0644);
    CHILD_CHECK(fd >= 0, "open");
    say(to_parent[1]);
    hear(to_child[0]);
    double t0 = now_ms();
    errno = 0;
    CHILD_CHECK(danaus_write(fd, "x", 1) == -1 && errno == ENOTCONN,
                "write without a service: %s", strerror(errno));
    double took = now_ms() - t0;
    CHILD_CHECK(took >= SHORT_WAIT_MS - 50 && took < SHORT_WAIT_MS + 2000,
                "gave up after %.0f ms", took);
    /* Later calls try once more without waiting the whole time again. */
    t0 = now_ms();
    struct stat st;
    CHILD_CHECK(danaus_stat(MOUNTPOINT, &st) == -1 && errno == ENOTCONN,
                "stat");
    CHILD_CHECK(now_ms() - t0 < SHORT_WAIT_MS, "second call waited");
    return 0;
}

static void test_no_successor_is_enotconn(void **state)
{
    (void)state;
    make_site("nosucc");
    assert_int_equal(daemon_start(&first, danausd, &site, "first", 10000), 0);
    pid_t pid = start_client(client_without_successor);
    keep_parent_ends();
    char c;
    assert_int_equal(read(to_parent[0], &c, 1), 1);
    daemon_kill(&first);
    assert_int_equal(write(to_child[1], &c, 1), 1);
    assert_int_equal(wait_child(pid), 0);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DANAUSD DANAUSD_STUCK\n", argv[0]);
        return 2;
    }
    danausd = argv[1];
    danausd_stuck = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_descriptors_survive_restart, cleanup),
        cmocka_unit_test_teardown(test_forked_child_survives_restart,
                                  cleanup),
        cmocka_unit_test_teardown(test_locks_survive_restart, cleanup),
        cmocka_unit_test_teardown(test_call_in_flight_done_once, cleanup),
        cmocka_unit_test_teardown(test_open_in_flight_beside_open_files,
                                  cleanup),
        cmocka_unit_test_teardown(test_append_not_made_is_sent_again,
                                  cleanup),
        cmocka_unit_test_teardown(test_append_made_counts_once, cleanup),
        cmocka_unit_test_teardown(test_append_overtaken_is_eio, cleanup),
        cmocka_unit_test_teardown(test_no_successor_is_enotconn, cleanup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
