/*
 * service_lifecycle.c - danausd's life as its users see it.
 *
 *   service_lifecycle DANAUSD
 *
 * A client whose service dies, told not to wait for a restart, gets errors
 * at once, never a hang; a client
 * without a service gets ENOTCONN; a bad configuration is refused with the
 * file and line; a second service of the same name is refused while the
 * first runs, in a log line with its time and name, and takes over the
 * socket once the first is gone. Clients run
 * in child processes (the library connects once per process); the test
 * process itself never calls danaus_*.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define MOUNTPOINT "/danaus-life"

#ifdef DANAUS_WITH_CEPH
#define BUILT_BACKENDS "local or ceph"
#else
#define BUILT_BACKENDS "local"
#endif

static const char *danausd;

/* Each test's site and services; the teardown kills what is left. */
static struct site site;
static struct daemon first, second;

static int cleanup(void **state)
{
    daemon_kill(&first);
    daemon_kill(&second);
    site_remove(&site);
    return 0;
}

/* A site whose config mounts MOUNTPOINT on a host directory of its own. */
static void make_local_site(struct site *s, const char *tag)
{
    assert_int_equal(site_make(s, tag), 0);
    char host[PATH_MAX + 16];
    snprintf(host, sizeof host, "%s/host", s->dir);
    assert_int_equal(mkdir(host, 0755), 0);
    /* Killed services here are not restarted: their FUSE mounts go at
     * once, not after fuse_keep (fuse_keeper.h). */
    assert_int_equal(site_write_config(s, "fuse_keep 0\nmount %s local %s\n",
                                       MOUNTPOINT, host), 0);
}

/* ---- the service dies under an attached client ---- */

static int client_outlives_service(void *arg)
{
    const struct site *s = ((void **)arg)[0];
    pid_t service = *(pid_t *)((void **)arg)[1];
    site_use(s);
    /* No restart follows (service_resume.c tests one): fail at once. */
    setenv("DANAUS_RESTART_WAIT_MS", "0", 1);
    int fd = danaus_open(MOUNTPOINT "/f", O_RDWR | O_CREAT, 0644);
    CHILD_CHECK(fd >= 0, "open: %s", strerror(errno));
    CHILD_CHECK(danaus_write(fd, "abc", 3) == 3, "write: %s", strerror(errno));

    kill(service, SIGKILL);
    double t0 = now_ms();
    char buf[4];
    errno = 0;
    ssize_t r = danaus_pread(fd, buf, sizeof buf, 0);
    double took = now_ms() - t0;
    CHILD_CHECK(r == -1 && (errno == ENOTCONN || errno == EIO),
                "pread after kill -9 returned %zd errno %s", r, strerror(errno));
    CHILD_CHECK(took < 1000, "pread took %.0f ms to fail", took);
    printf("pread failed with %s %.1f ms after kill -9\n",
           strerrorname_np(errno), took);

    /* Every later call, of any kind, fails at once too. */
    struct stat st;
    t0 = now_ms();
    errno = 0;
    int rc = danaus_stat(MOUNTPOINT "/f", &st);
    took = now_ms() - t0;
    CHILD_CHECK(rc == -1 && (errno == ENOTCONN || errno == EIO),
                "stat after kill -9 returned %d errno %s", rc, strerror(errno));
    CHILD_CHECK(took < 1000, "stat took %.0f ms to fail", took);
    return 0;
}

static void test_service_killed_under_client(void **state)
{
    make_local_site(&site, "gone");
    assert_int_equal(daemon_start(&first, danausd, &site, "danausd", 10000), 0);
    void *args[2] = {&site, &first.pid};
    assert_int_equal(run_in_child(client_outlives_service, args, 10000), 0);
    assert_int_equal(daemon_wait_exit(&first, 5000), 0);
    assert_true(WIFSIGNALED(first.status) && WTERMSIG(first.status) == SIGKILL);
}

/* ---- no service at all ---- */

static int client_without_service(void *arg)
{
    site_use(arg);
    double t0 = now_ms();
    errno = 0;
    int fd = danaus_open(MOUNTPOINT "/f", O_RDONLY);
    double took = now_ms() - t0;
    CHILD_CHECK(fd == -1 && errno == ENOTCONN, "open returned %d errno %s", fd,
                strerror(errno));
    CHILD_CHECK(took < 1000, "open took %.0f ms to fail", took);
    /* Later calls keep failing the same way. */
    struct stat st;
    errno = 0;
    CHILD_CHECK(danaus_stat(MOUNTPOINT, &st) == -1 && errno == ENOTCONN,
                "stat errno %s", strerror(errno));
    return 0;
}

static void test_no_service(void **state)
{
    make_local_site(&site, "none");
    assert_int_equal(run_in_child(client_without_service, &site, 5000), 0);
}

/* client_without_service told not to wait for a restart: a socket a
 * killed service left otherwise makes it wait (service_resume.c). */
static int client_not_waiting(void *arg)
{
    setenv("DANAUS_RESTART_WAIT_MS", "0", 1);
    return client_without_service(arg);
}

/* A socket file left by a killed service, with nobody listening. */
static void test_stale_socket_no_service(void **state)
{
    make_local_site(&site, "stale");
    assert_int_equal(daemon_start(&first, danausd, &site, "danausd", 10000), 0);
    daemon_kill(&first);
    char sock[PATH_MAX + 80];
    snprintf(sock, sizeof sock, "%s/%s.sock", site.rundir, site.service);
    assert_int_equal(access(sock, F_OK), 0);
    assert_int_equal(run_in_child(client_not_waiting, &site, 5000), 0);
}

/* ---- malformed configuration ---- */

struct bad_config {
    const char *body;     /* after "service NAME\nrundir DIR\n" */
    const char *expected; /* the whole of danausd's output */
};

/* Runs danausd in dir on the relative name conf; its exit code and output. */
static int run_danausd_in(const char *dir, const char *conf, char *out,
                          size_t outlen)
{
    char log[512];
    snprintf(log, sizeof log, "%.256s/out.log", dir);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || chdir(dir) < 0)
            _exit(127);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(danausd, danausd, "-c", conf, (char *)NULL);
        _exit(127);
    }
    struct daemon d = {.pid = pid};
    snprintf(d.log, sizeof d.log, "%s", log);
    if (daemon_wait_exit(&d, 10000) < 0) {
        daemon_kill(&d);
        return -1;
    }
    daemon_log_text(&d, out, outlen);
    return WIFEXITED(d.status) ? WEXITSTATUS(d.status) : -1;
}

/* danausd on the site's service and rundir lines, then body, written to
 * path: its exit code, and what it said in out. */
static int run_bad_config(struct site *s, const char *path, const char *body,
                          char *out, size_t outlen)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "service %s\nrundir %s\n%s", s->service, s->rundir, body);
    fclose(f);
    return run_danausd_in(s->dir, "bad.conf", out, outlen);
}

static void test_malformed_config(void **state)
{
    const struct bad_config cases[] = {
        {"x 1\nmount /m local /tmp\n",
         "danausd: bad.conf:3: unknown setting 'x' (backends built in: "
         BUILT_BACKENDS ")\n"},
        {"mount /m local /tmp\nslots 0\n",
         "danausd: bad.conf:4: slots must be a number from 1 to 65536, not '0'\n"},
        {"mount /m nfs /tmp\n",
         "danausd: bad.conf:3: unknown backend 'nfs' (" BUILT_BACKENDS ")\n"},
        {"mount /m local /tmp\n\n# comment\nqueue_cells 100\n",
         "danausd: bad.conf:6: queue_cells must be a power of two, not 100\n"},
        {"mount /a local /tmp\nmount /a/b local /tmp\n",
         "danausd: bad.conf:4: mount point /a/b overlaps /a\n"},
    };
    struct site *s = &site;
    assert_int_equal(site_make(s, "badconf"), 0);
    char path[PATH_MAX + 16], out[4096];
    snprintf(path, sizeof path, "%s/bad.conf", s->dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int code = run_bad_config(s, path, cases[i].body, out, sizeof out);
        printf("case %zu: exit %d, said: %s", i, code, out);
        assert_int_equal(code, 1);
        assert_string_equal(out, cases[i].expected);
    }
    int code = run_danausd_in(s->dir, "missing.conf", out, sizeof out);
    assert_int_equal(code, 1);
    assert_string_equal(out, "danausd: missing.conf: No such file or directory\n");
    /* What a mount needs is its backend's to say, once the log has its
     * prefix (a time and the service's name): the line's end is checked. */
    const struct bad_config refused[] = {
        {"mount /m local relative/dir\n",
         "danausd: local backend: source 'relative/dir' must be an absolute "
         "path\n"},
#ifdef DANAUS_WITH_CEPH
        {"mount /m ceph /x\n", "danausd: ceph: a ceph mount needs 'ceph_conf'\n"},
#endif
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(
            run_bad_config(s, path, refused[i].body, out, sizeof out), 1);
        size_t n = strlen(out), m = strlen(refused[i].expected);
        printf("refused %zu said: %s", i, out);
        assert_true(n >= m);
        assert_string_equal(out + n - m, refused[i].expected);
    }
}

/* ---- one service per name ---- */

/* text is one line of the log of service: "2026-11-29T03:20:00.123Z
 * SERVICE " (fsservice/core/log.h), then said. */
static void assert_log_line(const char *text, const char *service,
                            const char *said)
{
    const char *shape = "dddd-dd-ddTdd:dd:dd.dddZ ";
    size_t n = strlen(shape);
    assert_true(strlen(text) > n);
    for (size_t i = 0; i < n; i++)
        if (shape[i] == 'd' ? text[i] < '0' || text[i] > '9'
                            : text[i] != shape[i])
            fail_msg("no time at the start of [%s]", text);
    size_t name = strlen(service);
    assert_memory_equal(text + n, service, name);
    assert_int_equal(text[n + name], ' ');
    assert_string_equal(text + n + name + 1, said);
}

static int client_stats_mount(void *arg)
{
    site_use(arg);
    struct stat st;
    CHILD_CHECK(danaus_stat(MOUNTPOINT, &st) == 0, "stat: %s", strerror(errno));
    CHILD_CHECK(S_ISDIR(st.st_mode), "mount point is not a directory");
    return 0;
}

static void test_second_service_refused(void **state)
{
    struct site *s = &site;
    make_local_site(s, "twice");
    assert_int_equal(daemon_start(&first, danausd, s, "first", 10000), 0);

    char log[PATH_MAX + 16], text[4096], expected[2 * PATH_MAX];
    snprintf(log, sizeof log, "%s/second.log", s->dir);
    assert_int_equal(daemon_spawn(&second, danausd, s->conf, log), 0);
    assert_int_equal(daemon_wait_exit(&second, 10000), 0);
    assert_true(WIFEXITED(second.status) && WEXITSTATUS(second.status) == 1);
    snprintf(expected, sizeof expected,
             "danausd: %s/%s.sock: another service is running there\n",
             s->rundir, s->service);
    assert_log_line(daemon_log_text(&second, text, sizeof text), s->service,
                    expected);
    /* The refused start left the first service alone. */
    assert_int_equal(run_in_child(client_stats_mount, s, 5000), 0);

    daemon_kill(&first);
    assert_int_equal(daemon_start(&second, danausd, s, "third", 10000), 0);
    assert_int_equal(run_in_child(client_stats_mount, s, 5000), 0);
    assert_int_equal(daemon_stop(&second), 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: service_lifecycle DANAUSD\n");
        return 2;
    }
    /* Absolute: some tests run it from another directory. */
    danausd = realpath(argv[1], NULL);
    if (!danausd) {
        perror(argv[1]);
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_service_killed_under_client, cleanup),
        cmocka_unit_test_teardown(test_no_service, cleanup),
        cmocka_unit_test_teardown(test_stale_socket_no_service, cleanup),
        cmocka_unit_test_teardown(test_malformed_config, cleanup),
        cmocka_unit_test_teardown(test_second_service_refused, cleanup),
    };
    return cmocka_run_group_tests_name("service_lifecycle", tests, NULL, NULL);
}
