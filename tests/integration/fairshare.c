/*
 * fairshare.c - pools sharing their backend with nothing configured
 * (fsservice/core/fairshare.h), as an operator relies on it: a pool
 * alone is never paced, two busy pools both get their work done, and a
 * busy pool next to one that waits for its share is held to its own
 * share (paced, still moving), and free again once the other leaves.
 *
 *   fairshare DANAUSD
 *
 * Two services on the local backend meet in one pressure directory, each
 * at the defaults (no weight, reservation, rate or target set). The
 * pool that waits is a note the test writes itself, as such a pool
 * would: a real one waits only on a loaded backend.
 */
#include "harness.h"

#include "fsservice/core/fairshare.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define CYCLES 300

static const char *danausd;
static char pressure_dir[600];
static struct site sites[2];
static struct daemon daemons[2];

static int start(void **state)
{
    (void)state;
    if (pressure_dir_make(pressure_dir, sizeof pressure_dir, "fairshare") < 0 ||
        pool_start(&daemons[0], &sites[0], danausd, "pool-a", pressure_dir,
                   false, "") < 0)
        return -1;
    return pool_start(&daemons[1], &sites[1], danausd, "pool-b",
                      pressure_dir, false, "");
}

static int stop(void **state)
{
    (void)state;
    int rc = daemon_stop(&daemons[0]) | daemon_stop(&daemons[1]);
    site_remove(&sites[0]);
    site_remove(&sites[1]);
    return rc | pressure_dir_remove(pressure_dir);
}

static struct fairshare_note note_of(const char *name)
{
    char path[700];
    struct fairshare_note n = {0};
    snprintf(path, sizeof path, "%s/shares/%s", pressure_dir, name);
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        if (pread(fd, &n, sizeof n, 0) != sizeof n)
            memset(&n, 0, sizeof n);
        close(fd);
    }
    return n;
}

struct cycles {
    const struct site *site;
    int n;       /* cycles; 0: until stop_fd reads end of file */
    int stop_fd; /* non-blocking */
    int done_fd; /* where the count goes at the end; -1: nowhere */
    int parents_fd; /* the parent's end of stop_fd's pipe, closed here */
};

/* Whether the parent closed the other end of stop_fd. */
static bool told_to_stop(int stop_fd)
{
    char c;
    return read(stop_fd, &c, 1) == 0;
}

/* c->n cycles of create, 64 KiB written, fsync, unlink: calls the
 * backend's servers must answer, each charged to the pool. */
static int cycles_child(void *arg)
{
    const struct cycles *c = arg;
    const struct site *s = c->site;
    static char buf[64 << 10];
    char path[700];
    if (c->parents_fd >= 0)
        close(c->parents_fd);
    site_use(s);
    memset(buf, 'f', sizeof buf);
    int i;
    for (i = 0; c->n ? i < c->n : !told_to_stop(c->stop_fd); i++) {
        snprintf(path, sizeof path, "%s/mnt/f%d", s->dir, i);
        int fd = danaus_open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        CHILD_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
        CHILD_CHECK(danaus_write(fd, buf, sizeof buf) == sizeof buf,
                    "write: %s", strerror(errno));
        CHILD_CHECK(danaus_fsync(fd) == 0, "fsync: %s", strerror(errno));
        CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
        CHILD_CHECK(danaus_unlink(path) == 0, "unlink: %s",
                    strerror(errno));
    }
    if (c->done_fd >= 0)
        CHILD_CHECK(write(c->done_fd, &i, sizeof i) == sizeof i,
                    "write: %s", strerror(errno));
    return 0;
}

static pid_t fork_child(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn(arg));
    return pid;
}

/* Whether child pid has not yet exited (it stays to be reaped). */
static bool running(pid_t pid)
{
    siginfo_t info = {0};
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) ==
               0 &&
           info.si_pid == 0;
}

static void expect_exit_0(pid_t pid, const char *what)
{
    struct daemon child = {.pid = pid};
    if (daemon_wait_exit(&child, 120000) < 0) {
        daemon_kill(&child);
        fail_msg("%s did not finish in 120 s", what);
    }
    if (!WIFEXITED(child.status) || WEXITSTATUS(child.status) != 0)
        fail_msg("%s failed (wait status %d)", what, child.status);
}

/* A pool alone on the backend does all its work, and its note says it
 * was active, with its cpus as its weight, and never held or paced; the
 * idle pool's note says it never used the backend. */
static void test_lone_pool_never_paced(void **state)
{
    (void)state;
    uint64_t t0 = monotonic_ns();
    struct cycles a_cycles = {&sites[0], CYCLES, -1, -1, -1};
    expect_exit_0(fork_child(cycles_child, &a_cycles), "pool a's cycles");
    sleep_ms(3 * 100); /* a window or two: the note's last word */
    struct fairshare_note a = note_of(sites[0].service);
    struct fairshare_note b = note_of(sites[1].service);
    cpu_set_t cpus;
    assert_int_equal(sched_getaffinity(0, sizeof cpus, &cpus), 0);
    if (a.magic != FAIRSHARE_MAGIC || a.active_until_ns < t0 ||
        a.weight != (uint64_t)CPU_COUNT(&cpus) || a.ceiling != 0 ||
        a.paced != 0)
        fail_msg("pool a's note: magic %s, active %s, weight %llu "
                 "(expected %d), ceiling %llu, paced %llu (expected 0, 0)",
                 a.magic == FAIRSHARE_MAGIC ? "right" : "wrong",
                 a.active_until_ns < t0 ? "never" : "yes",
                 (unsigned long long)a.weight, CPU_COUNT(&cpus),
                 (unsigned long long)a.ceiling,
                 (unsigned long long)a.paced);
    if (b.magic != FAIRSHARE_MAGIC || b.active_until_ns != 0)
        fail_msg("pool b's note: %s, active until %llu (expected never)",
                 b.magic == FAIRSHARE_MAGIC ? "there" : "missing",
                 (unsigned long long)b.active_until_ns);
}

/* Two pools at their defaults, both busy at once: both finish their
 * cycles, and both notes say they were active. */
static void test_two_pools_both_progress(void **state)
{
    (void)state;
    uint64_t t0 = monotonic_ns();
    struct cycles a_cycles = {&sites[0], CYCLES, -1, -1, -1};
    struct cycles b_cycles = {&sites[1], CYCLES, -1, -1, -1};
    pid_t a = fork_child(cycles_child, &a_cycles);
    pid_t b = fork_child(cycles_child, &b_cycles);
    expect_exit_0(a, "pool a's cycles next to pool b's");
    expect_exit_0(b, "pool b's cycles next to pool a's");
    assert_true(note_of(sites[0].service).active_until_ns > t0);
    assert_true(note_of(sites[1].service).active_until_ns > t0);
}

static void write_waiting_note(uint64_t until)
{
    char path[700];
    struct fairshare_note n = {
        .magic = FAIRSHARE_MAGIC, .weight = 6,
        .active_until_ns = until, .waiting_until_ns = until,
    };
    snprintf(path, sizeof path, "%s/shares/waiting-pool", pressure_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, &n, sizeof n), sizeof n);
    assert_int_equal(close(fd), 0);
}

/* Next to a pool of three times its weight that waits with nothing
 * used, pool a's cycles are held to its share (a quarter of the capacity,
 * less than it uses alone): its note shows a ceiling and paced calls,
 * and the cycles go on, held, until the test stops them. Once the other
 * pool is gone, pool a, alone again, is free at its next look. (Pool
 * b's note must have expired first: a pool next to another active one
 * lets go a sixteenth a window.) */
static void test_held_for_a_waiting_pool(void **state)
{
    (void)state;
    double t0 = now_ms();
    while (note_of(sites[1].service).active_until_ns > monotonic_ns() &&
           now_ms() - t0 < 10000)
        sleep_ms(50);
    write_waiting_note(monotonic_ns() + 600 * 1000000000ull);
    int stop[2], done[2];
    assert_int_equal(pipe(stop), 0);
    assert_int_equal(pipe(done), 0);
    assert_int_equal(fcntl(stop[0], F_SETFL, O_NONBLOCK), 0);
    struct cycles a_cycles = {&sites[0], 0, stop[0], done[1], stop[1]};
    pid_t pid = fork_child(cycles_child, &a_cycles);
    close(stop[0]);
    close(done[1]);
    /* Until some of its calls have waited for the share, and half a
     * second after: the held cycles go on. */
    struct fairshare_note a = {0};
    uint64_t held = 0;
    double paced_at = 0;
    t0 = now_ms();
    while (running(pid) && now_ms() - t0 < 30000 &&
           (paced_at == 0 || now_ms() - paced_at < 500)) {
        a = note_of(sites[0].service);
        if (a.ceiling)
            held = a.ceiling;
        if (a.paced && paced_at == 0)
            paced_at = now_ms();
        sleep_ms(20);
    }
    close(stop[1]);
    expect_exit_0(pid, "pool a's cycles next to a waiting pool");
    int cycles = 0;
    assert_int_equal(read(done[0], &cycles, sizeof cycles), sizeof cycles);
    close(done[0]);
    write_waiting_note(0);
    sleep_ms(3 * 100);
    struct fairshare_note after = note_of(sites[0].service);
    char path[700];
    snprintf(path, sizeof path, "%s/shares/waiting-pool", pressure_dir);
    assert_int_equal(unlink(path), 0);
    if (held == 0 || a.paced == 0 || cycles == 0 || after.ceiling != 0)
        fail_msg("pool a next to a waiting pool: ceiling %llu, paced "
                 "%llu, %d cycles (expected all above 0); after it left, "
                 "ceiling %llu (expected 0)",
                 (unsigned long long)held, (unsigned long long)a.paced,
                 cycles, (unsigned long long)after.ceiling);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fairshare DANAUSD\n");
        return 2;
    }
    danausd = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_pool_never_paced),
        cmocka_unit_test(test_two_pools_both_progress),
        cmocka_unit_test(test_held_for_a_waiting_pool),
    };
    return cmocka_run_group_tests_name("fairshare", tests, start, stop);
}
