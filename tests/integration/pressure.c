/*
 * pressure.c - pools holding back for one another
 * (backend_pressure_dir, backend_latency_target_ms;
 * fsservice/core/pressure.h), as an operator relies on it: a pool whose
 * backend calls run past its target says so in the shared directory, and
 * another pool's name-space changes then slow to a trickle; once no pool
 * with a target uses the backend, they run free again.
 *
 *   pressure DANAUSD
 *
 * Two services on the local backend meet in one directory: the victim,
 * with a target of 1 ms, and the neighbour, without, whose FUSE door is
 * held back as its danaus_* calls are. The victim's slow
 * calls are 8 MiB writes and fsyncs on this host's disk (several ms
 * each); the test also writes a note itself, as a pool with a target
 * would.
 */
#include "harness.h"

#include "fsservice/core/pressure.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
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

#define BIG (8 << 20)

static const char *danausd;
static char pressure_dir[600];
static struct site victim_site, neighbour_site;
static struct daemon victim, neighbour;

static int start(void **state)
{
    (void)state;
    if (pressure_dir_make(pressure_dir, sizeof pressure_dir, "pressure") < 0 ||
        pool_start(&neighbour, &neighbour_site, danausd, "neighbour",
                   pressure_dir, true, "") < 0)
        return -1;
    char extra[128];
    snprintf(extra, sizeof extra,
             "backend_latency_target_ms 1\nslot_buffer %d\n", BIG);
    return pool_start(&victim, &victim_site, danausd, "victim", pressure_dir,
                      false, extra);
}

static int stop(void **state)
{
    (void)state;
    int rc = daemon_stop(&victim) | daemon_stop(&neighbour);
    site_remove(&victim_site);
    site_remove(&neighbour_site);
    return rc | pressure_dir_remove(pressure_dir);
}

/* 20 mkdirs by a client of the neighbour: through the danaus_* calls,
 * or the kernel's through its FUSE door when tag starts with "door". */
static int mkdirs_child(void *arg)
{
    const char *tag = arg;
    int (*make)(const char *, mode_t) =
        strncmp(tag, "door", 4) == 0 ? mkdir : danaus_mkdir;
    char path[700];
    site_use(&neighbour_site);
    for (int i = 0; i < 20; i++) {
        snprintf(path, sizeof path, "%s/mnt/%s%d", neighbour_site.dir, tag,
                 i);
        CHILD_CHECK(make(path, 0755) == 0, "mkdir %s: %s", path,
                    strerror(errno));
    }
    return 0;
}

/* neighbour_mkdirs's time, in ms. */
static double neighbour_mkdirs(const char *tag)
{
    double t0 = now_ms();
    assert_int_equal(run_in_child(mkdirs_child, (void *)tag, 30000), 0);
    return now_ms() - t0;
}

static void write_note(const char *name, uint64_t active, uint64_t missed)
{
    char path[700];
    struct pressure_note n = {active, missed, 1000000, 100};
    snprintf(path, sizeof path, "%s/%s", pressure_dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, &n, sizeof n), sizeof n);
    assert_int_equal(close(fd), 0);
}

/* While a pool with a target misses it, the neighbour's mkdirs go at the
 * floor's rate, 10 a second (a burst of one, then 19 more), those through
 * its FUSE door too; once the note says that pool left the backend, at
 * once. */
static void test_held_back_while_another_misses(void **state)
{
    (void)state;
    uint64_t now = monotonic_ns();
    write_note("other-pool", now + 30000000000ull, now + 30000000000ull);
    sleep_ms(300);
    double held = neighbour_mkdirs("held");
    double held_door = neighbour_mkdirs("door-held");
    write_note("other-pool", 0, 0);
    sleep_ms(300);
    double free_again = neighbour_mkdirs("free");
    double free_door = neighbour_mkdirs("door-free");
    char path[700];
    snprintf(path, sizeof path, "%s/other-pool", pressure_dir);
    assert_int_equal(unlink(path), 0);
    if (held < 1500 || held_door < 1500 || free_again > 1000 ||
        free_door > 1000)
        fail_msg("20 mkdirs took %.0f ms held back (expected 1,900), %.0f "
                 "through the FUSE door (the same), %.0f and %.0f ms free "
                 "(expected well under 1,000)",
                 held, held_door, free_again, free_door);
}

/* Writes and fsyncs 8 MiB at a time, each call several ms on any disk,
 * until the parent closes the other end of stop_fd. */
static int slow_writes(int stop_fd)
{
    char path[700];
    site_use(&victim_site);
    snprintf(path, sizeof path, "%s/mnt/big", victim_site.dir);
    char *buf = malloc(BIG);
    CHILD_CHECK(buf != NULL, "out of memory");
    memset(buf, 'v', BIG);
    int fd = danaus_open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHILD_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
    char c;
    while (read(stop_fd, &c, 1) < 0 && errno == EAGAIN) {
        CHILD_CHECK(danaus_pwrite(fd, buf, BIG, 0) == BIG, "pwrite: %s",
                    strerror(errno));
        CHILD_CHECK(danaus_fsync(fd) == 0, "fsync: %s", strerror(errno));
    }
    CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
    free(buf);
    return 0;
}

static struct pressure_note victim_note(void)
{
    char path[700];
    struct pressure_note n = {0};
    snprintf(path, sizeof path, "%s/%s", pressure_dir, victim_site.service);
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        if (pread(fd, &n, sizeof n, 0) != sizeof n)
            memset(&n, 0, sizeof n);
        close(fd);
    }
    return n;
}

/* While the victim's 8 MiB writes and fsyncs run past its 1 ms target,
 * its note says it missed and is on the backend, and the neighbour's
 * mkdirs are held back (from the floor, growing while the victim's note
 * says it is active) once the neighbour has looked at the notes. The
 * writes go on until the mkdirs are done: a note says "missed" for 200 ms
 * only after the last slow call, too short a time to start a client on a
 * loaded host. */
static void test_slow_calls_hold_the_neighbour(void **state)
{
    (void)state;
    int stop[2];
    assert_int_equal(pipe(stop), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(stop[1]);
        fcntl(stop[0], F_SETFL, O_NONBLOCK);
        _exit(slow_writes(stop[0]));
    }
    close(stop[0]);
    struct pressure_note n = {0};
    double t0 = now_ms();
    while (now_ms() - t0 < 20000) {
        n = victim_note();
        if (n.missed_until_ns > monotonic_ns())
            break;
        sleep_ms(20);
    }
    double held = 0;
    if (n.missed_until_ns > monotonic_ns()) {
        sleep_ms(2 * PRESSURE_WINDOW_MS); /* the neighbour's next look */
        held = neighbour_mkdirs("after");
    }
    close(stop[1]);
    struct daemon writer = {.pid = pid};
    assert_int_equal(daemon_wait_exit(&writer, 30000), 0);
    assert_true(WIFEXITED(writer.status));
    assert_int_equal(WEXITSTATUS(writer.status), 0);
    if (held == 0)
        fail_msg("in 20 s of 8 MiB writes and fsyncs the victim's note "
                 "never said it missed its target (last: target %llu ns, "
                 "missed until %llu)",
                 (unsigned long long)n.target_ns,
                 (unsigned long long)n.missed_until_ns);
    if (n.target_ns != 1000000 || n.active_until_ns < n.missed_until_ns ||
        held < 300)
        fail_msg("the victim's note: target %llu ns (expected 1 ms), active "
                 "%s while it missed; the neighbour's 20 mkdirs then took "
                 "%.0f ms (expected 300 or more)",
                 (unsigned long long)n.target_ns,
                 n.active_until_ns < n.missed_until_ns ? "not" : "also",
                 held);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pressure DANAUSD\n");
        return 2;
    }
    danausd = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held_back_while_another_misses),
        cmocka_unit_test(test_slow_calls_hold_the_neighbour),
    };
    return cmocka_run_group_tests_name("pressure", tests, start, stop);
}
