/*
 * service_restart_ceph.c - a Ceph-backed danausd killed with SIGKILL while
 * a client has files open for writing, then started again.
 *
 *   service_restart_ceph DANAUSD CEPH_CONF
 *
 * The dead service's Ceph session still holds the write caps of those
 * files; without reclaim the MDS keeps them until the session times out
 * (about 50 s here) and the restarted service's first read of such a file
 * waits that long. The restarted service resets its predecessor's session
 * at mount (client.c), so the read must come back with every fsync'd byte
 * within READ_BOUND_MS of the restart: far below the session timeout, far
 * above the milliseconds it takes.
 *
 * A client that lives through the restart (libfs/resume.h) goes on with
 * its descriptor within RESUME_BOUND_MS of the new service's start; since
 * the Ceph client keeps written data in the dead service until fsync, the
 * writes it had not fsync'd are reported lost by its next fsync (EIO,
 * once), and every fsync'd byte is still there. With ceph_write_through on,
 * nothing written is lost and fsync succeeds.
 *
 * A service still mounting Ceph (here: a cluster that is not there, which
 * Ceph waits 30 s for) ends on SIGTERM within STOP_BOUND_MS all the same.
 */
#include "harness.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define MOUNTPOINT "/danaus-restart"
#define NFILES 4
#define READ_BOUND_MS 15000 /* restart to first read; the failure is ~50 s */
#define STOP_BOUND_MS 2000
#define RESUME_BOUND_MS 2000

static const char *danausd, *ceph_conf;
static struct site site;
static struct daemon first, second;

struct files {
    const struct site *site;
    pid_t service;
    char dir[128];
};

static void record(char *buf, size_t len, const struct files *f, int i)
{
    snprintf(buf, len, "record %d of %s\n", i, f->dir);
}

/* Writes and fsyncs every file, keeps them open for writing and kills the
 * service under them. */
static int write_then_kill(void *arg)
{
    const struct files *f = arg;
    site_use(f->site);
    CHILD_CHECK(danaus_mkdir(f->dir, 0755) == 0, "mkdir %s: %s", f->dir,
                strerror(errno));
    for (int i = 0; i < NFILES; i++) {
        char path[256], rec[256];
        snprintf(path, sizeof path, "%s/f%d", f->dir, i);
        record(rec, sizeof rec, f, i);
        int fd = danaus_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHILD_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
        CHILD_CHECK(danaus_write(fd, rec, strlen(rec)) == (ssize_t)strlen(rec),
                    "write %s: %s", path, strerror(errno));
        CHILD_CHECK(danaus_fsync(fd) == 0, "fsync %s: %s", path,
                    strerror(errno));
    }
    kill(f->service, SIGKILL);
    return 0;
}

/* Reads every file back through the restarted service. */
static int read_back(void *arg)
{
    const struct files *f = arg;
    site_use(f->site);
    for (int i = 0; i < NFILES; i++) {
        char path[256], rec[256], buf[256];
        snprintf(path, sizeof path, "%s/f%d", f->dir, i);
        record(rec, sizeof rec, f, i);
        int fd = danaus_open(path, O_RDONLY);
        CHILD_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
        ssize_t n = danaus_read(fd, buf, sizeof buf - 1);
        CHILD_CHECK(n == (ssize_t)strlen(rec), "read %s: %zd, %s", path, n,
                    strerror(errno));
        buf[n] = '\0';
        CHILD_CHECK(strcmp(buf, rec) == 0, "%s holds '%s'", path, buf);
        danaus_close(fd);
    }
    return 0;
}

static int remove_files(void *arg)
{
    const struct files *f = arg;
    site_use(f->site);
    for (int i = 0; i < NFILES; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/f%d", f->dir, i);
        CHILD_CHECK(danaus_unlink(path) == 0, "unlink %s: %s", path,
                    strerror(errno));
    }
    CHILD_CHECK(danaus_rmdir(f->dir) == 0, "rmdir: %s", strerror(errno));
    return 0;
}

static void test_restart_reads_at_once(void **state)
{
    (void)state;
    assert_int_equal(site_make(&site, "restart"), 0);
    assert_int_equal(site_write_config(&site, "ceph_conf %s\nfuse off\n"
                                       "mount %s ceph /\n",
                                       ceph_conf, MOUNTPOINT), 0);
    double t0 = now_ms();
    assert_int_equal(daemon_start(&first, danausd, &site, "first", 60000), 0);
    printf("first start: ready after %.0f ms\n", now_ms() - t0);

    struct files f = {.site = &site, .service = first.pid};
    snprintf(f.dir, sizeof f.dir, "%s/restart-%d", MOUNTPOINT, (int)getpid());
    assert_int_equal(run_in_child(write_then_kill, &f, 30000), 0);
    assert_int_equal(daemon_wait_exit(&first, 5000), 0);

    t0 = now_ms();
    assert_int_equal(daemon_start(&second, danausd, &site, "second", 60000), 0);
    double ready = now_ms() - t0;
    assert_int_equal(run_in_child(read_back, &f, READ_BOUND_MS), 0);
    double read = now_ms() - t0;
    printf("restart: ready after %.0f ms, every file read after %.0f ms\n",
           ready, read);
    assert_true(read < READ_BOUND_MS);

    assert_int_equal(run_in_child(remove_files, &f, 30000), 0);
    assert_int_equal(daemon_stop(&second), 0);
}

static void test_sigterm_while_mounting(void **state)
{
    (void)state;
    assert_int_equal(site_make(&site, "mounting"), 0);
    char nowhere[PATH_MAX + 16];
    snprintf(nowhere, sizeof nowhere, "%s/nowhere.conf", site.dir);
    FILE *f = fopen(nowhere, "w");
    assert_non_null(f);
    fprintf(f, "[global]\nmon host = 127.0.0.1:1\n"
               "auth client required = none\n");
    fclose(f);
    assert_int_equal(site_write_config(&site, "ceph_conf %s\nfuse off\n"
                                       "mount %s ceph /\n",
                                       nowhere, MOUNTPOINT), 0);
    char log[PATH_MAX + 16];
    snprintf(log, sizeof log, "%s/mounting.log", site.dir);
    assert_int_equal(daemon_spawn(&first, danausd, site.conf, log), 0);
    usleep(1000 * 1000);
    assert_int_equal(daemon_term(&first, STOP_BOUND_MS, "during start-up"), 1);
}

/* ---- a client lives through the restart ---- */

static int to_child[2], to_parent[2];

struct resumer {
    struct files f;
    bool write_through; /* ceph_write_through on */
};

static int client_across_restart(const struct resumer *r)
{
    site_use(r->f.site);
    char path[256], buf[64] = {0};
    snprintf(path, sizeof path, "%s-resume", r->f.dir);
    int fd = danaus_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHILD_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
    CHILD_CHECK(danaus_write(fd, "synced ", 7) == 7 && danaus_fsync(fd) == 0,
                "write and fsync: %s", strerror(errno));
    CHILD_CHECK(danaus_write(fd, "unsynced", 8) == 8, "write");
    char c = 1;
    CHILD_CHECK(write(to_parent[1], &c, 1) == 1, "pipe");
    CHILD_CHECK(read(to_child[0], &c, 1) == 1, "pipe"); /* restarted */
    double t0 = now_ms();
    errno = 0;
    int rc = danaus_fsync(fd);
    double took = now_ms() - t0;
    if (r->write_through)
        CHILD_CHECK(rc == 0, "fsync with nothing lost: %s", strerror(errno));
    else
        CHILD_CHECK(rc == -1 && errno == EIO,
                    "fsync after writes the dead service held: %s",
                    strerror(errno));
    printf("resumed on the new service %.0f ms after its start\n", took);
    fflush(stdout);
    CHILD_CHECK(took < RESUME_BOUND_MS, "resume took %.0f ms", took);
    CHILD_CHECK(danaus_fsync(fd) == 0, "second fsync: %s", strerror(errno));
    CHILD_CHECK(danaus_lseek(fd, 0, SEEK_CUR) == 15, "offset kept");
    ssize_t n = danaus_pread(fd, buf, sizeof buf, 0);
    CHILD_CHECK(n >= 7 && memcmp(buf, "synced ", 7) == 0, "fsync'd bytes: %s",
                buf);
    if (r->write_through)
        CHILD_CHECK(n == 15 && memcmp(buf, "synced unsynced", 15) == 0,
                    "write-through kept %zd bytes: %s", n, buf);
    CHILD_CHECK(danaus_close(fd) == 0 && danaus_unlink(path) == 0, "unlink");
    return 0;
}

static void client_resumes(bool write_through)
{
    assert_int_equal(site_make(&site, "resume"), 0);
    assert_int_equal(site_write_config(&site, "ceph_conf %s\nfuse off\n"
                                       "ceph_write_through %s\n"
                                       "mount %s ceph /\n",
                                       ceph_conf, write_through ? "on" : "off",
                                       MOUNTPOINT), 0);
    assert_int_equal(daemon_start(&first, danausd, &site, "first", 60000), 0);
    assert_int_equal(pipe(to_child), 0);
    assert_int_equal(pipe(to_parent), 0);
    struct resumer r = {.f = {.site = &site, .service = first.pid},
                        .write_through = write_through};
    snprintf(r.f.dir, sizeof r.f.dir, "%s/resume-%d-%d", MOUNTPOINT,
             (int)getpid(), write_through);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(client_across_restart(&r));
    close(to_child[0]);
    close(to_parent[1]);
    char c;
    assert_int_equal(read(to_parent[0], &c, 1), 1);
    daemon_kill(&first);
    assert_int_equal(daemon_start(&second, danausd, &site, "second", 60000), 0);
    assert_int_equal(write(to_child[1], &c, 1), 1);
    close(to_child[1]);
    close(to_parent[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(daemon_stop(&second), 0);
}

static void test_client_resumes(void **state)
{
    (void)state;
    client_resumes(false);
}

static void test_client_resumes_write_through(void **state)
{
    (void)state;
    client_resumes(true);
}

static int cleanup(void **state)
{
    (void)state;
    daemon_kill(&first);
    daemon_kill(&second);
    site_remove(&site);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: service_restart_ceph DANAUSD CEPH_CONF\n");
        return 2;
    }
    danausd = argv[1];
    ceph_conf = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_restart_reads_at_once, cleanup),
        cmocka_unit_test_teardown(test_client_resumes, cleanup),
        cmocka_unit_test_teardown(test_client_resumes_write_through, cleanup),
        cmocka_unit_test_teardown(test_sigterm_while_mounting, cleanup),
    };
    return cmocka_run_group_tests_name("service_restart_ceph", tests, NULL,
                                       NULL);
}
