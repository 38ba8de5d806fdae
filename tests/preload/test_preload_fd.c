/*
 * test_preload_fd.c - the descriptor-and-data interposers under LD_PRELOAD.
 *
 *   test_preload_fd DANAUSD LIBDANAUS SUITE FORTIFIED_SUITE local
 *   test_preload_fd DANAUSD LIBDANAUS SUITE FORTIFIED_SUITE ceph CEPH_CONF
 *
 * Starts a danausd with one mount, then runs the suite program
 * (test_preload_fd_suite.c, plain and fortified builds) as an ordinary
 * application: on a plain directory without the preload, which is the
 * reference, and on the Danaus mount under LD_PRELOAD; the transcripts
 * (results, errno, contents) must be identical. The same holds on the plain
 * directory under the preload, with and without a service configured:
 * non-Danaus paths are untouched. Then the Danaus-only checks, the
 * fortified overflow abort, and a preloaded `cat` without a service.
 */
#include "tests/integration/harness.h"

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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define MOUNTPOINT "/mnt/danaus-preload-fd"
#define OUT_MAX (256 * 1024)

extern char **environ;

static struct {
    const char *danausd, *lib, *suite, *fortified, *mode, *ceph_conf;
    struct site site;
    struct daemon daemon;
    char plain[PATH_MAX], kdir[PATH_MAX], danaus_dir[PATH_MAX];
} run;

/* How a program is started: with or without the preload, with or without
 * the service in its environment. */
enum env_kind { BARE, PRELOAD_NO_SERVICE, PRELOAD };

struct output {
    int status;
    char out[OUT_MAX];
    char err[OUT_MAX];
};

/* environ without the variables this test sets, then those of kind. */
static char **make_env(enum env_kind kind)
{
    static char preload[PATH_MAX + 16], service[128], rundir[PATH_MAX];
    static char *env[512];
    int n = 0;
    for (char **e = environ; *e && n < 500; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0 &&
            strncmp(*e, "DANAUS_", 7) != 0)
            env[n++] = *e;
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", run.lib);
    snprintf(service, sizeof service, "DANAUS_SERVICE=%s", run.site.service);
    snprintf(rundir, sizeof rundir, "DANAUS_RUNDIR=%s", run.site.rundir);
    if (kind != BARE)
        env[n++] = preload;
    if (kind == PRELOAD) {
        env[n++] = service;
        env[n++] = rundir;
    }
    env[n] = NULL;
    return env;
}

static void slurp(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

/* Runs argv (NULL-terminated) with stdout and stderr into o. */
static void run_prog(enum env_kind kind, struct output *o, const char *arg0,
                     ...)
{
    const char *argv[8];
    va_list ap;
    va_start(ap, arg0);
    int n = 0;
    for (const char *a = arg0; a && n < 7; a = va_arg(ap, const char *))
        argv[n++] = a;
    argv[n] = NULL;
    va_end(ap);
    char out[PATH_MAX + 16], err[PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/out", run.site.dir);
    snprintf(err, sizeof err, "%s/err", run.site.dir);
    char **env = make_env(kind);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fo, 1);
        dup2(fe, 2);
        execve(argv[0], (char **)argv, env);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &o->status, 0), pid);
    slurp(out, o->out, sizeof o->out);
    slurp(err, o->err, sizeof o->err);
}

/* Equal transcripts, or the first line where they part. */
static void assert_same(const char *what, const struct output *ref,
                        const struct output *got)
{
    if (strcmp(ref->out, got->out) == 0)
        return;
    const char *a = ref->out, *b = got->out;
    while (*a && *a == *b) {
        a++;
        b++;
    }
    while (a > ref->out && a[-1] != '\n') {
        a--;
        b--;
    }
    fprintf(stderr, "%s differs from the reference:\n  want: %.*s\n  got:  %.*s\n",
            what, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
    fprintf(stderr, "stderr of the run:\n%s\n", got->err);
    fail();
}

static void assert_exit0(const char *what, const struct output *o)
{
    if (!WIFEXITED(o->status) || WEXITSTATUS(o->status) != 0) {
        fprintf(stderr, "%s: status 0x%x\n%s\n%s\n", what, o->status, o->out,
                o->err);
        fail();
    }
}

static int start_service(void **state)
{
    (void)state;
    if (site_make(&run.site, "preload-fd") < 0)
        return -1;
    char backing[PATH_MAX + 16];
    snprintf(run.plain, sizeof run.plain, "%s/plain", run.site.dir);
    snprintf(run.kdir, sizeof run.kdir, "%s/kernel", run.site.dir);
    snprintf(backing, sizeof backing, "%s/backing", run.site.dir);
    if (mkdir(run.plain, 0755) < 0 || mkdir(run.kdir, 0755) < 0 ||
        mkdir(backing, 0755) < 0)
        return -1;
    int rc = strcmp(run.mode, "ceph") == 0
                 ? site_write_config(&run.site, "ceph_conf %s\nmount %s ceph /\n",
                                     run.ceph_conf, MOUNTPOINT)
                 : site_write_config(&run.site, "mount %s local %s\n",
                                     MOUNTPOINT, backing);
    if (rc < 0 || daemon_start(&run.daemon, run.danausd, &run.site, "danausd",
                               60000) < 0)
        return -1;
    /* A directory of our own on the mount (in ceph mode the mount is the
     * whole of the cluster's CephFS). */
    site_use(&run.site);
    snprintf(run.danaus_dir, sizeof run.danaus_dir, "%s/preload-fd-%d",
             MOUNTPOINT, (int)getpid());
    return danaus_mkdir(run.danaus_dir, 0755);
}

static int stop_service(void **state)
{
    (void)state;
    int rc = daemon_stop(&run.daemon);
    site_remove(&run.site);
    return rc;
}

static void transcripts_match(void **state)
{
    (void)state;
    static struct output ref, got;
    run_prog(BARE, &ref, run.suite, "transcript", run.plain, run.kdir, NULL);
    assert_exit0("reference", &ref);
    /* The reference itself did what the suite expects. */
    assert_non_null(strstr(ref.out, "same bytes = 0"));
    assert_null(strstr(ref.out, "same bytes = -1"));

    run_prog(PRELOAD, &got, run.suite, "transcript", run.danaus_dir, run.kdir,
             NULL);
    assert_exit0("danaus", &got);
    assert_same("on the Danaus mount", &ref, &got);

    run_prog(PRELOAD, &got, run.fortified, "transcript", run.danaus_dir,
             run.kdir, NULL);
    assert_exit0("fortified danaus", &got);
    assert_same("fortified, on the Danaus mount", &ref, &got);

    run_prog(PRELOAD, &got, run.suite, "transcript", run.plain, run.kdir,
             NULL);
    assert_exit0("plain under preload", &got);
    assert_same("on a plain directory under the preload", &ref, &got);

    run_prog(PRELOAD_NO_SERVICE, &got, run.fortified, "transcript",
             run.plain, run.kdir, NULL);
    assert_exit0("plain, preload without service", &got);
    assert_same("preloaded without a service", &ref, &got);
}

static void danaus_only(void **state)
{
    (void)state;
    static struct output o;
    run_prog(PRELOAD, &o, run.suite, "danaus", run.danaus_dir, run.kdir, NULL);
    assert_exit0("danaus-only checks", &o);
}

/* A fortified read asking for more than its buffer aborts, whether the
 * descriptor is Danaus's or the kernel's. */
static void fortified_overflow_aborts(void **state)
{
    (void)state;
    static struct output o;
    const char *dirs[] = {run.plain, run.danaus_dir};
    for (int i = 0; i < 2; i++) {
        run_prog(PRELOAD, &o, run.fortified, "overflow", dirs[i], NULL);
        if (!WIFSIGNALED(o.status) || WTERMSIG(o.status) != SIGABRT ||
            !strstr(o.err, "buffer overflow detected")) {
            fprintf(stderr, "%s: status 0x%x\n%s\n%s\n", dirs[i], o.status,
                    o.out, o.err);
            fail();
        }
    }
}

static void no_service_untouched(void **state)
{
    (void)state;
    static struct output bare, pre;
    run_prog(BARE, &bare, "/bin/cat", "/etc/hostname", NULL);
    run_prog(PRELOAD_NO_SERVICE, &pre, "/bin/cat", "/etc/hostname", NULL);
    assert_exit0("cat", &pre);
    assert_string_equal(bare.out, pre.out);
    assert_string_equal(bare.err, pre.err);
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[5], "local") == 0) {
        run.mode = "local";
    } else if (argc == 7 && strcmp(argv[5], "ceph") == 0) {
        run.mode = "ceph";
        run.ceph_conf = argv[6];
    } else {
        fprintf(stderr, "usage: test_preload_fd DANAUSD LIBDANAUS SUITE "
                        "FORTIFIED_SUITE local | ... ceph CEPH_CONF\n");
        return 2;
    }
    run.danausd = argv[1];
    run.lib = argv[2];
    run.suite = argv[3];
    run.fortified = argv[4];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(transcripts_match),
        cmocka_unit_test(danaus_only),
        cmocka_unit_test(fortified_overflow_aborts),
        cmocka_unit_test(no_service_untouched),
    };
    return cmocka_run_group_tests(tests, start_service, stop_service);
}
