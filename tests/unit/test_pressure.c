/*
 * test_pressure.c - pools holding back for one another
 * (fsservice/core/pressure.h): how a ceiling moves on a miss, while
 * targets are met and once nobody has one; what a pool with a target
 * writes in its note, for slow calls and for a request still running; and
 * the rates a pool's admission gets from the others' notes, with anything
 * else in the directory passed over, and, for a pool with a target, from
 * tighter targets and from peers that make fewer calls.
 */
#include "fsservice/core/pressure.h"

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
#include <unistd.h>
#include <cmocka.h>

#include "notedir.h"

#define MS 1000000ull
#define S 1000000000ull

static struct pressure_ceiling ceiling(uint64_t ops, uint64_t bytes)
{
    return (struct pressure_ceiling){ops, bytes};
}

static void test_next_ceiling(void **state)
{
    (void)state;
    struct pressure_ceiling c;
    /* A miss halves what the pool used, or its ceiling if lower, never
     * below the floor. */
    c = pressure_next(ceiling(0, 0), ceiling(1000, 64 << 20),
                      PRESSURE_MISSED);
    assert_int_equal(c.ops, 500);
    assert_int_equal(c.bytes, 32 << 20);
    c = pressure_next(ceiling(300, 8 << 20), ceiling(1000, 64 << 20),
                      PRESSURE_MISSED);
    assert_int_equal(c.ops, 150);
    assert_int_equal(c.bytes, 4 << 20);
    c = pressure_next(ceiling(0, 0), ceiling(0, 0), PRESSURE_MISSED);
    assert_int_equal(c.ops, PRESSURE_FLOOR_OPS);
    assert_int_equal(c.bytes, PRESSURE_FLOOR_BYTES);
    /* Targets met: a sixteenth and a floor more; no ceiling stays none. */
    c = pressure_next(ceiling(160, 16 << 20), ceiling(5, 0), PRESSURE_MET);
    assert_int_equal(c.ops, 160 + 10 + PRESSURE_FLOOR_OPS);
    assert_int_equal(c.bytes, (17 << 20) + PRESSURE_FLOOR_BYTES);
    c = pressure_next(ceiling(0, 0), ceiling(900, 1 << 30), PRESSURE_MET);
    assert_int_equal(c.ops, 0);
    assert_int_equal(c.bytes, 0);
    /* Growth stops below 2^32, admission's largest rate. */
    c = pressure_next(ceiling(UINT32_MAX - 1, UINT32_MAX), ceiling(0, 0),
                      PRESSURE_MET);
    assert_int_equal(c.ops, UINT32_MAX);
    assert_int_equal(c.bytes, UINT32_MAX);
    /* Nobody with a target on the backend: no ceiling. */
    c = pressure_next(ceiling(10, 1 << 20), ceiling(10, 1 << 20),
                      PRESSURE_NONE);
    assert_int_equal(c.ops, 0);
    assert_int_equal(c.bytes, 0);
}

static struct pressure_note read_note(const char *name)
{
    char path[128];
    struct pressure_note n = {0, 0, 0, 0};
    snprintf(path, sizeof path, "%s/%s", notedir, name);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, &n, sizeof n, 0), sizeof n);
    close(fd);
    return n;
}

static void write_note(const char *name, uint64_t active, uint64_t missed,
                       uint64_t target, uint64_t calls)
{
    char path[128];
    struct pressure_note n = {active, missed, target, calls};
    snprintf(path, sizeof path, "%s/%s", notedir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, &n, sizeof n), sizeof n);
    close(fd);
}

/* A pool named name in notedir, with its admission at no limit and no
 * request running. */
static void open_pool(struct pressure *p, struct admission *a,
                      struct deadlines *ds, const char *name,
                      uint32_t target_ms, uint64_t fixed_bytes)
{
    admission_init(a, 0, 0);
    deadlines_init(ds, 0, false);
    assert_int_equal(
        pressure_init(p, notedir, name, target_ms, 0, fixed_bytes, NULL, 0), 0);
}

/* A pool with a target: no note of activity before it has calls; a
 * tenth of its calls over the target is a miss, fewer is not; a request
 * running longer than the target is one too; and its note goes when it
 * closes. */
static void test_own_note(void **state)
{
    (void)state;
    struct pressure p;
    struct admission a;
    struct deadlines ds;
    open_pool(&p, &a, &ds, "victim", 20, 0);
    /* The windows below lie in the past, so that their misses have
     * expired by the running call's window; 10 s, not more: a machine
     * booted a minute ago has a monotonic clock near 0. */
    uint64_t t = ipc_now_ns() - 10 * S;

    pressure_tick(&p, &a, &ds, t);
    pressure_tick(&p, &a, &ds, t + 100 * MS);
    struct pressure_note n = read_note("victim");
    assert_int_equal(n.active_until_ns, 0);
    assert_int_equal(n.missed_until_ns, 0);
    assert_int_equal(n.target_ns, 20 * MS);

    for (int i = 0; i < 19; i++)
        pressure_count(&p, true, 0, 1 * MS);
    pressure_count(&p, true, 0, 21 * MS); /* 1 in 20: met */
    pressure_tick(&p, &a, &ds, t + 200 * MS);
    n = read_note("victim");
    assert_true(n.active_until_ns > t + 200 * MS);
    assert_int_equal(n.missed_until_ns, 0);

    for (int i = 0; i < 9; i++)
        pressure_count(&p, false, 4096, 1 * MS);
    pressure_count(&p, true, 0, 30 * MS); /* 1 in 10: missed */
    pressure_tick(&p, &a, &ds, t + 300 * MS);
    n = read_note("victim");
    assert_true(n.missed_until_ns > t + 300 * MS);

    /* No call completes in the next windows, but one has been running:
     * from the window in which it passes the target, a miss again. */
    struct call_record rec;
    deadline_register(&ds, &rec);
    deadline_begin(&rec, NULL, 1, DANAUS_CALL_FSYNC);
    uint64_t begun = ipc_now_ns();
    pressure_tick(&p, &a, &ds, begun + 10 * MS);
    n = read_note("victim");
    assert_true(n.missed_until_ns < begun);
    pressure_tick(&p, &a, &ds, begun + 500 * MS);
    n = read_note("victim");
    assert_true(n.missed_until_ns > begun + 500 * MS);
    assert_true(deadline_end(&rec));
    deadline_unregister(&ds, &rec);

    pressure_close(&p);
    char path[128];
    snprintf(path, sizeof path, "%s/victim", notedir);
    assert_int_equal(access(path, F_OK), -1);
}

/* A pool without a target, next to one: its admission's rates follow the
 * other's note, bounded by its own fixed rates, and never fall for its
 * own calls or for junk in the directory. */
static void test_rates_follow_notes(void **state)
{
    (void)state;
    struct pressure p;
    struct admission a;
    struct deadlines ds;
    open_pool(&p, &a, &ds, "neighbour", 0, 50 << 20);
    char path[160];
    snprintf(path, sizeof path, "%s/junk-short", notedir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/junk-fifo", notedir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/junk-notedir", notedir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/junk-link", notedir);
    assert_int_equal(symlink("/dev/zero", path), 0);

    uint64_t t = ipc_now_ns();
    pressure_tick(&p, &a, &ds, t);
    for (int i = 0; i < 300; i++)
        pressure_count(&p, true, 1 << 20, 100 * MS);
    pressure_tick(&p, &a, &ds, t + 100 * MS);
    /* No note: no ceiling; its own slow calls change nothing. */
    assert_int_equal(a.ops.rate, 0);
    assert_int_equal(a.bytes.rate, 50 << 20);

    /* The victim misses: half of the 3,000 ops and 3,000 MiB a second
     * used, the bytes below the fixed rate. */
    write_note("victim", t + 10 * S, t + 10 * S, 2 * MS, 100);
    for (int i = 0; i < 300; i++)
        pressure_count(&p, true, 1 << 20, 1 * MS);
    pressure_tick(&p, &a, &ds, t + 200 * MS);
    assert_int_equal(a.ops.rate, 1500);
    assert_int_equal(a.bytes.rate, 50 << 20);
    pressure_tick(&p, &a, &ds, t + 300 * MS);
    assert_int_equal(a.ops.rate, PRESSURE_FLOOR_OPS);

    /* Met again: it grows. */
    write_note("victim", t + 10 * S, 0, 2 * MS, 100);
    pressure_tick(&p, &a, &ds, t + 400 * MS);
    assert_int_equal(a.ops.rate, 2 * PRESSURE_FLOOR_OPS);
    /* The victim left the backend a while ago: no ceiling. */
    write_note("victim", t + 400 * MS, 0, 2 * MS, 100);
    pressure_tick(&p, &a, &ds, t + 500 * MS);
    assert_int_equal(a.ops.rate, 0);
    assert_int_equal(a.bytes.rate, 50 << 20);
    pressure_close(&p);
}

/* A pool with a 5 ms target, making 3,000 calls a second, next to pools
 * that miss theirs: it holds back for a 2 ms one; for a 5 ms one (a peer)
 * only while that one makes fewer calls; never for one of 10 ms, and a
 * note that says no target is passed over. Its own note says its rate. */
static void test_tighter_targets_first(void **state)
{
    (void)state;
    struct pressure p;
    struct admission a;
    struct deadlines ds;
    open_pool(&p, &a, &ds, "mid", 5, 0);
    uint64_t t = ipc_now_ns();
    pressure_tick(&p, &a, &ds, t);

    write_note("peer", t + 10 * S, t + 10 * S, 5 * MS, 5000);
    write_note("loose", t + 10 * S, t + 10 * S, 10 * MS, 1);
    write_note("none", t + 10 * S, t + 10 * S, 0, 1);
    for (int i = 0; i < 300; i++)
        pressure_count(&p, true, 0, 1 * MS);
    pressure_tick(&p, &a, &ds, t + 100 * MS);
    assert_int_equal(a.ops.rate, 0);
    assert_int_equal(read_note("mid").calls_per_second, 3000);

    write_note("peer", t + 10 * S, t + 10 * S, 5 * MS, 2000);
    for (int i = 0; i < 300; i++)
        pressure_count(&p, true, 0, 1 * MS);
    pressure_tick(&p, &a, &ds, t + 200 * MS);
    assert_int_equal(a.ops.rate, 1500);

    write_note("peer", t + 10 * S, t + 10 * S, 5 * MS, 5000);
    write_note("tight", t + 10 * S, t + 10 * S, 2 * MS, 5000);
    for (int i = 0; i < 300; i++)
        pressure_count(&p, true, 0, 1 * MS);
    pressure_tick(&p, &a, &ds, t + 300 * MS);
    assert_int_equal(a.ops.rate, 750);
    pressure_close(&p);
    const char *names[] = {"peer", "loose", "none", "tight"};
    for (int i = 0; i < 4; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", notedir, names[i]);
        assert_int_equal(unlink(path), 0);
    }
}

/* A directory that is not there is the operator's error, said at start;
 * none at all is no part in it. */
static void test_init_errors(void **state)
{
    (void)state;
    struct pressure p;
    assert_int_equal(
        pressure_init(&p, "/nonexistent/pressure", "a", 5, 0, 0, NULL, 0),
        -ENOENT);
    assert_int_equal(pressure_init(&p, NULL, "a", 0, 0, 0, NULL, 0), 0);
    assert_int_equal(p.dir_fd, -1);
    pressure_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_ceiling),
        cmocka_unit_test(test_own_note),
        cmocka_unit_test(test_rates_follow_notes),
        cmocka_unit_test(test_tighter_targets_first),
        cmocka_unit_test(test_init_errors),
    };
    return cmocka_run_group_tests(tests, notedir_make, notedir_remove);
}
