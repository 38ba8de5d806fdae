/*
 * test_placement.c - when a service thread steps aside from its client's
 * cpu: /proc/stat's idle time per cpu read right; no step to a cpu kept
 * busy, nor on the first look or twice in 10 ms, unless the client has
 * been found beside the thread after every call for 10 ms.
 */
#include "fsservice/core/placement.h"
#include "ipc/ipc.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

static const char proc_stat[] =
    "cpu  900 10 300 5000 70 0 40 0 0 0\n"
    "cpu0 400 5 100 2000 30 0 20 0 0 0\n"
    "cpu1 500 5 200 3000 40 0 20 0 0 0\n"
    "cpu3 1 1 1 7 2 0 0 0 0 0\n"
    "intr 12345 1 2 3\n"
    "cpu2 1 1 1 100000 0 0 0 0 0 0\n";

static uint64_t idle_of(int first, int last)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = first; cpu <= last; cpu++)
        CPU_SET(cpu, &set);
    FILE *f = fmemopen((void *)proc_stat, strlen(proc_stat), "r");
    assert_non_null(f);
    uint64_t ticks = placement_idle_ticks(f, &set);
    fclose(f);
    return ticks;
}

/* idle plus iowait of the cpus asked for; the sum line is not a cpu, and
 * nothing after the cpu lines is read. */
static void idle_ticks_per_cpu(void **state)
{
    (void)state;
    assert_int_equal(idle_of(0, 0), 2030);
    assert_int_equal(idle_of(1, 1), 3040);
    assert_int_equal(idle_of(0, 1), 5070);
    assert_int_equal(idle_of(3, 3), 9);
    assert_int_equal(idle_of(2, 2), 0);
    assert_int_equal(idle_of(4, 9), 0);
}

static atomic_bool spinning;
static void *spin(void *arg)
{
    (void)arg;
    while (atomic_load(&spinning))
        ;
    return NULL;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000};
    nanosleep(&ts, NULL);
}

/* A thread on cpus 0 and 1 whose client waits on cpu 0 does not step to
 * cpu 1 while a spinner keeps cpu 1 busy, and keeps its cpus. */
static void no_step_to_busy_cpu(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        skip();
    cpu_set_t two, one, now;
    CPU_ZERO(&two);
    CPU_SET(0, &two);
    CPU_SET(1, &two);
    CPU_ZERO(&one);
    CPU_SET(1, &one);
    assert_int_equal(
        pthread_setaffinity_np(pthread_self(), sizeof two, &two), 0);

    pthread_t spinner;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    atomic_store(&spinning, true);
    assert_int_equal(pthread_create(&spinner, &attr, spin, NULL), 0);
    pthread_attr_destroy(&attr);
    sleep_ms(50);

    /* The first look has nothing to compare with; a second within 10 ms
     * is not taken. */
    assert_false(placement_step_aside(&two, 1));
    assert_false(placement_step_aside(&two, 1));
    for (int i = 0; i < 5; i++) {
        sleep_ms(40);
        assert_false(placement_step_aside(&two, 1));
    }
    assert_int_equal(
        pthread_getaffinity_np(pthread_self(), sizeof now, &now), 0);
    assert_true(CPU_EQUAL(&now, &two));

    atomic_store(&spinning, false);
    pthread_join(spinner, NULL);
}

/* The thread of trapped_steps_aside: its client found on cpu 0 after
 * calls 0.2 ms apart, cpu 1 kept busy by the spinner. Returns how long
 * the calls went on before the thread stepped (UINT64_MAX: never, in
 * 2 s), and checks it kept both cpus. */
static void *trapped_thread(void *arg)
{
    const cpu_set_t *two = arg;
    uint64_t start = ipc_now_ns(), took = UINT64_MAX;
    while (ipc_now_ns() - start < 2000000000ull) {
        if (placement_step_aside(two, 1)) {
            took = ipc_now_ns() - start;
            break;
        }
        struct timespec gap = {0, 200000};
        nanosleep(&gap, NULL);
    }
    cpu_set_t now;
    if (pthread_getaffinity_np(pthread_self(), sizeof now, &now) != 0 ||
        !CPU_EQUAL(&now, two))
        took = 0;
    return (void *)(uintptr_t)took;
}

/* A client found beside the thread after every call, 10 ms long: the
 * thread steps aside even to the cpu the spinner keeps busy, not sooner,
 * and keeps its cpus. In a thread of its own, as the step's state is per
 * thread. */
static void trapped_steps_aside(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        skip();
    cpu_set_t two, one;
    CPU_ZERO(&two);
    CPU_SET(0, &two);
    CPU_SET(1, &two);
    CPU_ZERO(&one);
    CPU_SET(1, &one);

    pthread_t spinner, trapped;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    atomic_store(&spinning, true);
    assert_int_equal(pthread_create(&spinner, &attr, spin, NULL), 0);
    sleep_ms(50);
    pthread_attr_setaffinity_np(&attr, sizeof two, &two);
    assert_int_equal(pthread_create(&trapped, &attr, trapped_thread, &two),
                     0);
    pthread_attr_destroy(&attr);
    void *took;
    pthread_join(trapped, &took);
    atomic_store(&spinning, false);
    pthread_join(spinner, NULL);

    assert_true((uintptr_t)took != UINT64_MAX); /* it stepped */
    assert_true((uintptr_t)took >= 10000000u);  /* not before 10 ms */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(idle_ticks_per_cpu),
        cmocka_unit_test(no_step_to_busy_cpu),
        cmocka_unit_test(trapped_steps_aside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
