/*
 * service_stuck.c - one mount whose backend never answers stalls nothing
 * else, and SIGTERM still ends the service.
 *
 *   service_stuck DANAUSD_STUCK
 *
 * DANAUSD_STUCK is the test build of danausd whose local mount of root
 * $DANAUS_STUCK_ROOT blocks every mkdir forever (stuck_shim.c). One client
 * sends more such mkdirs, from threads pinned to every cpu, than all the
 * service threads of all queues can hold at the usual bound; another client
 * must then still be served on the other mount and on the stuck mount's
 * other calls, within CALLS_BOUND_MS for the lot (without the stall watch it
 * waits forever). Each blocked mkdir, a long call, must run on the cpu of
 * the client thread that sent it (fsservice/core/placement.c): for every
 * cpu, at least STUCK_PER_CPU service threads are then allowed that cpu
 * alone. So must a blocked mkdir that rang no bell (a raw client's, whose
 * slot says a service thread watches it), which the sweeper finds and
 * runs on a thread of its own. SIGTERM must end the service within STOP_BOUND_MS (the
 * service waits 2 s for calls in progress, then leaves them), and the
 * blocked client's calls then fail with ENOTCONN, as any client's whose
 * service is gone and not restarted (DANAUS_RESTART_WAIT_MS=0).
 *
 * With request_deadline_ms set, the blocked call itself fails with
 * ETIMEDOUT at its deadline (within DEADLINE_MS plus the watch's 50 ms
 * tick; checked against twice that), and the same client thread goes on
 * working, through timeout after timeout.
 *
 * The shim wraps every local instance the service makes, a union's
 * branches among them: a union whose writable branch is the stuck root
 * times its mkdir out too, and still reads.
 */
#include "harness.h"
#include "raw_client.h"

#include <danaus/danaus.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define STUCK "/danaus-stuck"
#define FREE "/danaus-free"
#define THREADS_PER_QUEUE 4
#define STUCK_PER_CPU (2 * THREADS_PER_QUEUE)
#define CALLS_BOUND_MS 10000
#define STOP_BOUND_MS 5000
#define DEADLINE_MS 300
#define TIMEOUTS 10
#define FOLLOW_BOUND_MS 5000

static const char *danausd;
static struct site site;
static struct daemon service;
static pid_t blocked_client;

static int cpus(cpu_set_t *set)
{
    CHILD_CHECK(sched_getaffinity(0, sizeof *set, set) == 0, "affinity");
    return CPU_COUNT(set);
}

/* The n-th cpu this process may run on. */
static int nth_cpu(const cpu_set_t *set, int n)
{
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, set) && n-- == 0)
            return cpu;
    return -1;
}

static void pin(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

struct stuck_call {
    pthread_t thread;
    int cpu, index, err;
    pthread_barrier_t *all_in;
};

static void *mkdir_in_stuck_mount(void *arg)
{
    struct stuck_call *s = arg;
    pin(s->cpu);
    /* Every thread owns its slot (a call of its own: a name no other
     * thread asks, which no cache answers) before any mkdir: a client
     * calling from one thread has its long calls run where the service's
     * thread is (workers.c), not moved to its cpu. */
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, FREE "/none%d", s->index);
    danaus_stat(path, &st);
    pthread_barrier_wait(s->all_in);
    snprintf(path, sizeof path, STUCK "/d%d", s->index);
    s->err = danaus_mkdir(path, 0755) == 0 ? 0 : errno;
    return NULL;
}

/* Blocks STUCK_PER_CPU mkdirs on every cpu; once the service is gone they
 * must have failed with ENOTCONN. */
static int block_every_queue(void *arg)
{
    site_use(arg);
    /* No restart follows: fail at once rather than wait for one. */
    setenv("DANAUS_RESTART_WAIT_MS", "0", 1);
    cpu_set_t set;
    int n = cpus(&set) * STUCK_PER_CPU;
    struct stuck_call *calls = calloc((size_t)n, sizeof *calls);
    pthread_barrier_t all_in;
    CHILD_CHECK(calls != NULL &&
                    pthread_barrier_init(&all_in, NULL, (unsigned)n) == 0,
                "calloc");
    for (int i = 0; i < n; i++) {
        calls[i].cpu = nth_cpu(&set, i / STUCK_PER_CPU);
        calls[i].index = i;
        calls[i].all_in = &all_in;
        CHILD_CHECK(pthread_create(&calls[i].thread, NULL,
                                   mkdir_in_stuck_mount, &calls[i]) == 0,
                    "pthread_create");
    }
    for (int i = 0; i < n; i++) {
        pthread_join(calls[i].thread, NULL);
        CHILD_CHECK(calls[i].err == ENOTCONN, "mkdir %d ended with %s", i,
                    strerror(calls[i].err));
    }
    return 0;
}

/* Ordinary work on the free mount and the stuck mount's other calls, from
 * every cpu (so through every queue). */
static int work_elsewhere(void *arg)
{
    site_use(arg);
    cpu_set_t set;
    int n = cpus(&set);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        pin(nth_cpu(&set, i));
        char path[64], buf[8];
        struct stat st;
        double t0 = now_ms();
        snprintf(path, sizeof path, FREE "/f%d", i);
        int fd = danaus_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        CHILD_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
        CHILD_CHECK(danaus_pwrite(fd, "abc", 3, 0) == 3, "pwrite: %s",
                    strerror(errno));
        CHILD_CHECK(danaus_pread(fd, buf, sizeof buf, 0) == 3 &&
                        memcmp(buf, "abc", 3) == 0,
                    "pread: %s", strerror(errno));
        CHILD_CHECK(danaus_close(fd) == 0, "close: %s", strerror(errno));
        snprintf(path, sizeof path, FREE "/d%d", i);
        CHILD_CHECK(danaus_mkdir(path, 0755) == 0 || errno == EEXIST,
                    "mkdir %s: %s", path, strerror(errno));
        CHILD_CHECK(danaus_stat(STUCK "/present", &st) == 0 &&
                        S_ISREG(st.st_mode),
                    "stat in the stuck mount: %s", strerror(errno));
        double took = now_ms() - t0;
        if (took > worst)
            worst = took;
    }
    printf("work on cpu after cpu: slowest round %.1f ms\n", worst);
    return 0;
}

/* How many threads of process pid may run on cpu and no other. */
static int threads_on_cpu_alone(pid_t pid, int cpu)
{
    char dir[64], want[16];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    snprintf(want, sizeof want, "%d", cpu);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX], line[256];
        snprintf(path, sizeof path, "%s/%s/status", dir, e->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue; /* the thread left */
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
                char *v = line + 18;
                v += strspn(v, " \t");
                v[strcspn(v, "\n")] = '\0';
                n += strcmp(v, want) == 0;
            }
        fclose(f);
    }
    closedir(d);
    return n;
}

/* Every blocked mkdir runs on its client's cpu: per_cpu threads allowed
 * that cpu alone, for each cpu (waits for them to be taken); what: the
 * calls', for the report. */
static void check_calls_follow_clients(int per_cpu, const char *what)
{
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    for (int i = 0; i < CPU_COUNT(&set); i++) {
        int cpu = nth_cpu(&set, i), n;
        double t0 = now_ms();
        while ((n = threads_on_cpu_alone(service.pid, cpu)) < per_cpu &&
               now_ms() - t0 < FOLLOW_BOUND_MS)
            usleep(10 * 1000);
        printf("threads of danausd on cpu %d alone: %d (%s from it: %d)\n",
               cpu, n, what, per_cpu);
        assert_true(n >= per_cpu);
    }
}

/* The site: a stuck and a free local mount, or (as_union) a union over
 * the stuck root and a free mount; extra goes into the config. */
static void make_site(const char *extra, bool as_union)
{
    assert_int_equal(site_make(&site, "stuck"), 0);
    char stuck_root[PATH_MAX + 16], free_root[PATH_MAX + 16];
    snprintf(stuck_root, sizeof stuck_root, "%s/stuck", site.dir);
    snprintf(free_root, sizeof free_root, "%s/free", site.dir);
    assert_int_equal(mkdir(stuck_root, 0755), 0);
    assert_int_equal(mkdir(free_root, 0755), 0);
    char present[PATH_MAX + 32];
    snprintf(present, sizeof present, "%s/present", stuck_root);
    int fd = open(present, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    close(fd);
    char lower[PATH_MAX + 16];
    snprintf(lower, sizeof lower, "%s/lower", site.dir);
    assert_int_equal(mkdir(lower, 0755), 0);
    assert_int_equal(site_write_config(&site,
                                       "fuse off\nthreads_per_queue %d\n%s"
                                       "%s %s local %s%s%s\n"
                                       "mount %s local %s\n",
                                       THREADS_PER_QUEUE, extra,
                                       as_union ? "union" : "mount", STUCK,
                                       stuck_root, as_union ? " " : "",
                                       as_union ? lower : "", FREE,
                                       free_root), 0);
    setenv("DANAUS_STUCK_ROOT", stuck_root, 1);
    assert_int_equal(daemon_start(&service, danausd, &site, "danausd", 10000),
                     0);
}

/* SIGTERM ends the service, whose log names the calls left blocked. */
static void stop_within_bound(void)
{
    assert_int_equal(daemon_term(&service, STOP_BOUND_MS,
                                 "calls still blocked in backends"), 0);
}

static void test_stuck_mount_stalls_nothing(void **state)
{
    (void)state;
    make_site("", false);

    printf("before any call blocks: ");
    assert_int_equal(run_in_child(work_elsewhere, &site, CALLS_BOUND_MS), 0);
    fflush(NULL);
    blocked_client = fork();
    assert_true(blocked_client >= 0);
    if (blocked_client == 0)
        _exit(block_every_queue(&site));
    /* Time for the mkdirs to reach the service and block its threads. */
    usleep(500 * 1000);

    check_calls_follow_clients(STUCK_PER_CPU, "blocked calls");
    printf("with every queue's threads blocked: ");
    assert_int_equal(run_in_child(work_elsewhere, &site, CALLS_BOUND_MS), 0);

    stop_within_bound();

    struct daemon client = {.pid = blocked_client};
    assert_int_equal(daemon_wait_exit(&client, 5000), 0);
    blocked_client = 0;
    assert_true(WIFEXITED(client.status));
    assert_int_equal(WEXITSTATUS(client.status), 0);
}

struct unrung {
    struct raw *r;
    pthread_t thread;
    int cpu, slot;
};

/* A mkdir in the stuck mount from cpu, posted with the slot's watched
 * word set, as if a service thread spun on it: no bell rings. */
static void *post_unrung(void *arg)
{
    struct unrung *u = arg;
    pin(u->cpu);
    char path[32];
    snprintf(path, sizeof path, "u%d", u->cpu);
    struct danaus_desc d = {.call = DANAUS_CALL_MKDIR,
                            .mount = raw_mount(u->r, STUCK)};
    d.arg[0] = 0755;
    atomic_store(&ipc_slot(&u->r->area, (uint32_t)u->slot)->watched, 1);
    raw_call(u->r, (uint32_t)u->slot, &d, path, (uint32_t)strlen(path) + 1,
             60000);
    return NULL;
}

/* One unrung mkdir per cpu, each waited for until this process is
 * killed. */
static int block_unrung(void *arg)
{
    (void)arg;
    char sock[600];
    snprintf(sock, sizeof sock, "%s/%s.sock", site.rundir, site.service);
    struct raw r;
    CHILD_CHECK(raw_attach(&r, sock) == 0, "attach");
    cpu_set_t set;
    int n = cpus(&set);
    struct unrung *u = calloc((size_t)n, sizeof *u);
    CHILD_CHECK(u != NULL, "calloc");
    for (int i = 0; i < n; i++) {
        u[i].r = &r;
        u[i].cpu = nth_cpu(&set, i);
        u[i].slot = raw_slot(&r);
        CHILD_CHECK(u[i].slot >= 0, "slot: %d", u[i].slot);
    }
    for (int i = 0; i < n; i++)
        CHILD_CHECK(pthread_create(&u[i].thread, NULL, post_unrung, &u[i]) ==
                        0,
                    "pthread_create");
    for (int i = 0; i < n; i++)
        pthread_join(u[i].thread, NULL);
    return 0;
}

/* The sweeper's threads, too, run a blocked call on its client's cpu; and
 * SIGTERM still ends the service. */
static void test_swept_calls_follow_clients(void **state)
{
    (void)state;
    make_site("", false);
    fflush(NULL);
    blocked_client = fork();
    assert_true(blocked_client >= 0);
    if (blocked_client == 0)
        _exit(block_unrung(NULL));
    check_calls_follow_clients(1, "unrung blocked calls");
    stop_within_bound();
}

static int time_out_and_go_on(void *arg)
{
    site_use(arg);
    double worst = 0;
    for (int i = 0; i < TIMEOUTS; i++) {
        char path[64];
        snprintf(path, sizeof path, STUCK "/t%d", i);
        double t0 = now_ms();
        errno = 0;
        int rc = danaus_mkdir(path, 0755);
        double took = now_ms() - t0;
        CHILD_CHECK(rc == -1 && errno == ETIMEDOUT, "mkdir %s: %d %s", path,
                    rc, strerror(errno));
        CHILD_CHECK(took < 2 * DEADLINE_MS, "mkdir took %.0f ms", took);
        if (took > worst)
            worst = took;
        struct stat st;
        CHILD_CHECK(danaus_stat(STUCK "/present", &st) == 0,
                    "stat after a timeout: %s", strerror(errno));
        snprintf(path, sizeof path, FREE "/t%d", i);
        CHILD_CHECK(danaus_mkdir(path, 0755) == 0,
                    "mkdir %s after a timeout: %s", path, strerror(errno));
    }
    printf("deadline %d ms: mkdir failed with ETIMEDOUT after at most "
           "%.0f ms, %d times in a row\n", DEADLINE_MS, worst, TIMEOUTS);
    return 0;
}

static void test_deadline(void **state)
{
    (void)state;
    char extra[64];
    snprintf(extra, sizeof extra, "request_deadline_ms %d\n", DEADLINE_MS);
    make_site(extra, false);
    assert_int_equal(run_in_child(time_out_and_go_on, &site, 30000), 0);
    stop_within_bound();
}

static void test_union_branch(void **state)
{
    (void)state;
    char extra[64];
    snprintf(extra, sizeof extra, "request_deadline_ms %d\n", DEADLINE_MS);
    make_site(extra, true);
    assert_int_equal(run_in_child(time_out_and_go_on, &site, 30000), 0);
    stop_within_bound();
}

static int cleanup(void **state)
{
    (void)state;
    if (blocked_client > 0) {
        kill(blocked_client, SIGKILL);
        waitpid(blocked_client, NULL, 0);
    }
    daemon_kill(&service);
    site_remove(&site);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: service_stuck DANAUSD_STUCK\n");
        return 2;
    }
    danausd = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_stuck_mount_stalls_nothing, cleanup),
        cmocka_unit_test_teardown(test_swept_calls_follow_clients, cleanup),
        cmocka_unit_test_teardown(test_deadline, cleanup),
        cmocka_unit_test_teardown(test_union_branch, cleanup),
    };
    return cmocka_run_group_tests_name("service_stuck", tests, NULL, NULL);
}
