/*
 * locks.c - record locks between processes on a Danaus mount.
 *
 *   locks DANAUSD LIBDANAUS
 *
 * Starts a danausd with a local mount. Two child processes, each its own
 * client of the service through the danaus_* API, play holder and
 * contender, kept in step by pipes: the contender sees F_SETLK fail with
 * EAGAIN, F_GETLK name the holder's pid, flock(LOCK_EX|LOCK_NB) fail with
 * EWOULDBLOCK, F_SETLKW wait until the holder unlocks, and fail with EINTR
 * when a signal handler interrupts it. A process's POSIX locks go when it
 * closes any descriptor of the file and when it exits; OFD locks stay
 * through a close of another descriptor, and of a dup, until the open
 * file's last descriptor goes (a dup shares the service's handle, which
 * must stay open for the others). Finally python3's fcntl.flock runs
 * under the preload against a holder, for the interposer.
 */
#include "harness.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define MOUNTPOINT "/mnt/danaus-locks"
#define FILE_PATH MOUNTPOINT "/locked"

static struct {
    const char *danausd, *lib;
    struct site site;
    struct daemon daemon;
    char data[PATH_MAX];
} run;

/* One byte through a pipe: the processes' handshake. */
static void tell(int fd)
{
    if (write(fd, "x", 1) != 1)
        _exit(90);
}

static void hear(int fd)
{
    char c;
    if (read(fd, &c, 1) != 1)
        _exit(91);
}

static int lock_range(int fd, int cmd, short type, off_t start, off_t len)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET,
                       .l_start = start, .l_len = len};
    return danaus_fcntl(fd, cmd, &fl);
}

/* Pipes: to_holder, to_contender. */
struct pair {
    int h[2], c[2];
    pid_t holder, contender;
};

static void pair_start(struct pair *p, void (*holder)(struct pair *),
                       void (*contender)(struct pair *))
{
    assert_int_equal(pipe(p->h), 0);
    assert_int_equal(pipe(p->c), 0);
    p->holder = fork();
    assert_true(p->holder >= 0);
    if (p->holder == 0) {
        holder(p);
        _exit(0);
    }
    p->contender = fork();
    assert_true(p->contender >= 0);
    if (p->contender == 0) {
        contender(p);
        _exit(0);
    }
}

static void pair_finish(struct pair *p)
{
    int status;
    assert_int_equal(waitpid(p->contender, &status, 0), p->contender);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(waitpid(p->holder, &status, 0), p->holder);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    close(p->h[0]);
    close(p->h[1]);
    close(p->c[0]);
    close(p->c[1]);
}

/* Holder: a write lock on [0, 100) and an exclusive flock; unlocks the
 * range when told, some time after the contender began to wait. */
static void exclusion_holder(struct pair *p)
{
    int fd = danaus_open(FILE_PATH, O_RDWR | O_CREAT, 0644);
    int ffd = danaus_open(FILE_PATH, O_RDONLY);
    CHILD_CHECK(fd >= 0 && ffd >= 0, "open: %s", strerror(errno));
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 0, 100) == 0, "%s",
                strerror(errno));
    CHILD_CHECK(danaus_flock(ffd, LOCK_EX) == 0, "%s", strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
    usleep(300000);
    CHILD_CHECK(lock_range(fd, F_SETLK, F_UNLCK, 0, 0) == 0, "%s",
                strerror(errno));
    hear(p->h[0]);
}

static void on_alarm(int sig)
{
    (void)sig;
}

static void exclusion_contender(struct pair *p)
{
    hear(p->c[0]);
    int fd = danaus_open(FILE_PATH, O_RDWR);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    errno = 0;
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 50, 10) == -1 &&
                    errno == EAGAIN,
                "F_SETLK: %s", strerror(errno));
    CHILD_CHECK(lock_range(fd, F_SETLK, F_RDLCK, 0, 1) == -1 &&
                    errno == EAGAIN,
                "F_SETLK read: %s", strerror(errno));
    struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET,
                       .l_start = 10, .l_len = 0};
    CHILD_CHECK(danaus_fcntl(fd, F_GETLK, &fl) == 0, "%s", strerror(errno));
    CHILD_CHECK(fl.l_type == F_WRLCK && fl.l_pid == p->holder &&
                    fl.l_start == 0 && fl.l_len == 100 &&
                    fl.l_whence == SEEK_SET,
                "F_GETLK: type %d pid %d (holder %d) start %lld len %lld",
                fl.l_type, fl.l_pid, p->holder, (long long)fl.l_start,
                (long long)fl.l_len);
    /* Past the holder's range: free. */
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 100, 10) == 0, "%s",
                strerror(errno));
    CHILD_CHECK(danaus_flock(fd, LOCK_EX | LOCK_NB) == -1 &&
                    errno == EWOULDBLOCK,
                "flock: %s", strerror(errno));
    CHILD_CHECK(danaus_flock(fd, LOCK_SH | LOCK_NB) == -1 &&
                    errno == EWOULDBLOCK,
                "flock shared: %s", strerror(errno));

    /* A handler without SA_RESTART interrupts the wait. The alarm repeats:
     * on a loaded machine a single one may fire before the wait begins,
     * and the wait would then last for ever (the holder waits for us). */
    struct sigaction sa = {.sa_handler = on_alarm};
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval every = {{0, 100000}, {0, 100000}}, off = {0};
    setitimer(ITIMER_REAL, &every, NULL);
    CHILD_CHECK(lock_range(fd, F_SETLKW, F_WRLCK, 0, 10) == -1 &&
                    errno == EINTR,
                "F_SETLKW interrupted: %s", strerror(errno));
    setitimer(ITIMER_REAL, &off, NULL);

    tell(p->h[1]);
    double t0 = now_ms();
    CHILD_CHECK(lock_range(fd, F_SETLKW, F_WRLCK, 0, 10) == 0, "%s",
                strerror(errno));
    double waited = now_ms() - t0;
    CHILD_CHECK(waited > 200, "F_SETLKW returned after %.0f ms", waited);
    fl = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET};
    CHILD_CHECK(danaus_fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type == F_UNLCK,
                "own locks do not conflict: %d", fl.l_type);
    tell(p->h[1]);
}

static void exclusion(void **state)
{
    (void)state;
    struct pair p;
    pair_start(&p, exclusion_holder, exclusion_contender);
    pair_finish(&p);
}

/* Holder: a POSIX lock on [0, 10) and an OFD lock on [20, 30), then a
 * second descriptor of the file is opened and closed (the POSIX lock goes,
 * the OFD lock stays), then exit without unlocking. */
static void close_holder(struct pair *p)
{
    int fd = danaus_open(FILE_PATH, O_RDWR);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 0, 10) == 0, "%s",
                strerror(errno));
    CHILD_CHECK(lock_range(fd, F_OFD_SETLK, F_WRLCK, 20, 10) == 0, "%s",
                strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
    int other = danaus_open(FILE_PATH, O_RDONLY);
    CHILD_CHECK(other >= 0 && danaus_close(other) == 0, "%s",
                strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
}

static void close_contender(struct pair *p)
{
    int fd = danaus_open(FILE_PATH, O_RDWR);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    hear(p->c[0]);
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 0, 10) == -1 &&
                    errno == EAGAIN,
                "before close: %s", strerror(errno));
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET,
                       .l_start = 20, .l_len = 1};
    CHILD_CHECK(danaus_fcntl(fd, F_GETLK, &fl) == 0 &&
                    fl.l_type == F_WRLCK && fl.l_pid == -1,
                "OFD holder: type %d pid %d", fl.l_type, fl.l_pid);
    tell(p->h[1]);
    hear(p->c[0]);
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 0, 10) == 0,
                "after close: %s", strerror(errno));
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 20, 10) == -1 &&
                    errno == EAGAIN,
                "OFD lock after close: %s", strerror(errno));
    tell(p->h[1]);
    /* The holder exits: its OFD lock goes with its open file. */
    CHILD_CHECK(lock_range(fd, F_SETLKW, F_WRLCK, 20, 10) == 0,
                "after exit: %s", strerror(errno));
}

static void close_and_exit_release(void **state)
{
    (void)state;
    struct pair p;
    pair_start(&p, close_holder, close_contender);
    pair_finish(&p);
}

/* Holder: POSIX [0, 10) and OFD [20, 30) through fd; closes a dup of fd
 * (POSIX goes, OFD stays, fd still reads), then fd itself while a second
 * dup keeps the open file (OFD stays), then that dup (OFD goes). */
static void dup_holder(struct pair *p)
{
    int fd = danaus_open(FILE_PATH, O_RDWR);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    CHILD_CHECK(danaus_pwrite(fd, "dup", 3, 0) == 3, "%s", strerror(errno));
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 0, 10) == 0, "%s",
                strerror(errno));
    CHILD_CHECK(lock_range(fd, F_OFD_SETLK, F_WRLCK, 20, 10) == 0, "%s",
                strerror(errno));
    int d = danaus_dup(fd);
    CHILD_CHECK(d >= 0, "dup: %s", strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
    CHILD_CHECK(danaus_close(d) == 0, "close dup: %s", strerror(errno));
    char buf[3];
    CHILD_CHECK(danaus_pread(fd, buf, 3, 0) == 3 && memcmp(buf, "dup", 3) == 0,
                "read after closing a dup: %s", strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
    int d2 = danaus_fcntl(fd, F_DUPFD_CLOEXEC, 0);
    CHILD_CHECK(d2 >= 0, "F_DUPFD: %s", strerror(errno));
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    CHILD_CHECK(danaus_pread(d2, buf, 3, 0) == 3, "read through the dup: %s",
                strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
    CHILD_CHECK(danaus_close(d2) == 0, "close last: %s", strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
}

static void dup_contender(struct pair *p)
{
    int fd = danaus_open(FILE_PATH, O_RDWR);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    hear(p->c[0]);
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 0, 10) == -1 &&
                    errno == EAGAIN,
                "before closing the dup: %s", strerror(errno));
    tell(p->h[1]);
    hear(p->c[0]);
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 0, 10) == 0,
                "POSIX lock after closing a dup: %s", strerror(errno));
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 20, 10) == -1 &&
                    errno == EAGAIN,
                "OFD lock after closing a dup: %s", strerror(errno));
    tell(p->h[1]);
    hear(p->c[0]);
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 20, 10) == -1 &&
                    errno == EAGAIN,
                "OFD lock while a dup holds the open file: %s",
                strerror(errno));
    tell(p->h[1]);
    hear(p->c[0]);
    CHILD_CHECK(lock_range(fd, F_SETLK, F_WRLCK, 20, 10) == 0,
                "OFD lock after the last close: %s", strerror(errno));
    tell(p->h[1]);
}

static void dup_close_release(void **state)
{
    (void)state;
    struct pair p;
    pair_start(&p, dup_holder, dup_contender);
    pair_finish(&p);
}

/* Holder: flock through a read-only descriptor, then its close (a close
 * the library may otherwise send late, in a batch: closes.h). */
static void read_only_holder(struct pair *p)
{
    int fd = danaus_open(FILE_PATH, O_RDONLY);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    CHILD_CHECK(danaus_flock(fd, LOCK_EX) == 0, "%s", strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
}

static void read_only_contender(struct pair *p)
{
    int fd = danaus_open(FILE_PATH, O_RDONLY);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    hear(p->c[0]);
    CHILD_CHECK(danaus_flock(fd, LOCK_EX | LOCK_NB) == -1 &&
                    errno == EWOULDBLOCK,
                "before close: %s", strerror(errno));
    tell(p->h[1]);
    hear(p->c[0]);
    CHILD_CHECK(danaus_flock(fd, LOCK_EX | LOCK_NB) == 0,
                "after the read-only close: %s", strerror(errno));
    tell(p->h[1]);
}

static void read_only_close_releases_at_once(void **state)
{
    (void)state;
    struct pair p;
    pair_start(&p, read_only_holder, read_only_contender);
    pair_finish(&p);
}

/* python3's fcntl.flock under the preload: flock(2) through the
 * interposer against a holder in another process. (Not flock(1): it forks
 * to run its command, and the descriptor the child inherits keeps the lock
 * until the service drops the child's unclaimed fork ticket.) */
static void flock_command_holder(struct pair *p)
{
    int fd = danaus_open(FILE_PATH, O_RDONLY);
    CHILD_CHECK(fd >= 0 && danaus_flock(fd, LOCK_SH) == 0, "%s",
                strerror(errno));
    tell(p->c[1]);
    hear(p->h[0]);
}

/* Exit status 0 when flock(how) succeeded, 2 on EWOULDBLOCK (1 would be
 * any other exception). */
static int flock_command(const char *how)
{
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd,
             "LD_PRELOAD=%s python3 -c 'import fcntl, os, sys\n"
             "fd = os.open(\"%s\", os.O_RDONLY)\n"
             "try:\n    fcntl.flock(fd, %s)\n"
             "except BlockingIOError:\n    sys.exit(2)'",
             run.lib, FILE_PATH, how);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void flock_command_contender(struct pair *p)
{
    hear(p->c[0]);
    CHILD_CHECK(flock_command("fcntl.LOCK_EX | fcntl.LOCK_NB") == 2,
                "exclusive beside a shared");
    CHILD_CHECK(flock_command("fcntl.LOCK_SH | fcntl.LOCK_NB") == 0,
                "shared beside a shared");
    tell(p->h[1]);
}

static void flock_under_preload(void **state)
{
    (void)state;
    struct pair p;
    pair_start(&p, flock_command_holder, flock_command_contender);
    pair_finish(&p);
    /* The service learns of the holder's exit from its connection's
     * hang-up, a moment after the exit: a blocking flock waits for it. */
    assert_int_equal(flock_command("fcntl.LOCK_EX"), 0);
}

static int setup(void **state)
{
    (void)state;
    if (site_make(&run.site, "locks") < 0)
        return -1;
    snprintf(run.data, sizeof run.data, "%s/data", run.site.dir);
    if (mkdir(run.data, 0755) < 0 ||
        site_write_config(&run.site, "mount %s local %s\n", MOUNTPOINT,
                          run.data) < 0 ||
        daemon_start(&run.daemon, run.danausd, &run.site, "danausd",
                     10000) < 0)
        return -1;
    site_use(&run.site);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    int rc = daemon_stop(&run.daemon);
    site_remove(&run.site);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DANAUSD LIBDANAUS\n", argv[0]);
        return 2;
    }
    run.danausd = argv[1];
    run.lib = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exclusion),
        cmocka_unit_test(close_and_exit_release),
        cmocka_unit_test(dup_close_release),
        cmocka_unit_test(read_only_close_releases_at_once),
        cmocka_unit_test(flock_under_preload),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
