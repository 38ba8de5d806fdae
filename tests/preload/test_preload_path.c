/*
 * test_preload_path.c - the path, metadata, xattr and cwd interposers
 * against the kernel.
 *
 *   test_preload_path DANAUSD SUITE LIBDANAUS local
 *   test_preload_path DANAUSD SUITE LIBDANAUS ceph CEPH_CONF
 *
 * Starts a danausd (local backend on a directory of its own, or CephFS),
 * then runs the suite program (test_preload_path_suite.c) four ways and
 * requires the same transcript from each:
 *   - on a plain directory, without the preload (the reference);
 *   - on a plain directory, preloaded without DANAUS_SERVICE (a program
 *     without the service configured runs as without the preload);
 *   - on a plain directory, preloaded with the service (kernel paths are
 *     untouched);
 *   - on the Danaus mount, preloaded with the service.
 * Then the uid-1000 checks (EACCES, EPERM) run on the plain directory and,
 * as a client of its own, on the mount, and must agree too.
 */
#include "tests/integration/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MOUNTPOINT "/danaus-preload-path"
#define USER_ID 1000

static const char *suite;
static const char *lib;
static struct site site;

/* How a run's environment is made. */
enum env_kind { PLAIN, PRELOAD_ONLY, PRELOAD_SERVICE };

/* Runs the suite with args, stdout to out; as uid 1000 when user. Returns
 * its exit status (or -1). */
static int run(enum env_kind kind, bool user, const char *out,
               const char *a1, const char *a2)
{
    char preload[1100], service[128], rundir[600];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", lib);
    snprintf(service, sizeof service, "DANAUS_SERVICE=%s", site.service);
    snprintf(rundir, sizeof rundir, "DANAUS_RUNDIR=%s", site.rundir);
    char *env[] = {(char *)"PATH=/usr/bin:/bin", (char *)"LC_ALL=C", NULL,
                   NULL, NULL, NULL};
    if (kind != PLAIN)
        env[2] = preload;
    if (kind == PRELOAD_SERVICE) {
        env[3] = service;
        env[4] = rundir;
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
        if (fd >= 0)
            dup2(fd, 1);
        if (user && (setgroups(0, NULL) < 0 || setgid(USER_ID) < 0 ||
                     setuid(USER_ID) < 0))
            _exit(126);
        char *argv[] = {(char *)suite, (char *)a1, (char *)a2, NULL};
        execve(suite, argv, env);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Steps whose result is the backend's own, allowed to differ on CephFS:
 * libcephfs has no RENAME_EXCHANGE (EINVAL, as Linux answers for a file
 * system without it), and it takes user.* attributes on symbolic links,
 * which Linux refuses before any file system sees them (EPERM). */
static const char ceph_known[] = "^(renameat2 EXCHANGE|stat x1 exchanged|"
                                 "lsetxattr on link)";
static bool ceph;

/* Same file contents (less the known CephFS differences in ceph mode), or
 * a diff on stderr and false. */
static bool same(const char *expected, const char *actual, const char *what)
{
    char cmd[8192];
    if (ceph) {
        snprintf(cmd, sizeof cmd,
                 "grep -Ev '%s' '%s' > '%s.cmp' && grep -Ev '%s' '%s' > '%s.cmp'",
                 ceph_known, expected, expected, ceph_known, actual, actual);
        if (system(cmd) != 0)
            return false;
        static char e[1100], a[1100];
        snprintf(e, sizeof e, "%s.cmp", expected);
        snprintf(a, sizeof a, "%s.cmp", actual);
        expected = e;
        actual = a;
    }
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", expected, actual);
    if (system(cmd) == 0)
        return true;
    fprintf(stderr, "FAIL %s: transcript differs from the plain run:\n", what);
    snprintf(cmd, sizeof cmd, "diff -u '%s' '%s' >&2", expected, actual);
    if (system(cmd) < 0)
        perror("diff");
    return false;
}

/* A fresh directory for one run: made through the preload on the mount,
 * directly elsewhere. */
static bool make_root(const char *dir, bool danaus)
{
    if (danaus)
        return run(PRELOAD_SERVICE, false, NULL, "--mkdir", dir) == 0;
    return mkdir(dir, 0755) == 0 && chmod(dir, 0755) == 0;
}

int main(int argc, char **argv)
{
    ceph = argc == 6 && strcmp(argv[4], "ceph") == 0;
    if (!(argc == 5 && strcmp(argv[4], "local") == 0) && !ceph) {
        fprintf(stderr, "usage: %s DANAUSD SUITE LIBDANAUS local | "
                        "DANAUSD SUITE LIBDANAUS ceph CEPH_CONF\n", argv[0]);
        return 2;
    }
    suite = argv[2];
    lib = argv[3];
    char host[600], danaus_root[300], outside[300];
    if (site_make(&site, "preload-path") < 0 || chmod(site.dir, 0755) < 0) {
        perror("site");
        return 1;
    }
    snprintf(host, sizeof host, "%s/host", site.dir);
    int rc = ceph ? site_write_config(&site,
                                      "owner %d:%d\nceph_conf %s\nmount %s ceph /\n",
                                      USER_ID, USER_ID, argv[5], MOUNTPOINT)
                  : (mkdir(host, 0755) < 0 ? -1
                     : site_write_config(&site, "owner %d:%d\nmount %s local %s\n",
                                         USER_ID, USER_ID, MOUNTPOINT, host));
    struct daemon d;
    if (rc < 0 || daemon_start(&d, argv[1], &site, "danausd", 60000) < 0) {
        fprintf(stderr, "cannot start danausd\n");
        site_remove(&site);
        return 1;
    }

    /* Renames and links into OUTSIDE must cross file systems in the plain
     * runs too: /dev/shm is a tmpfs, the site is not. */
    struct stat a, b;
    snprintf(outside, sizeof outside, "/dev/shm/danaus-preload-path-%d",
             (int)getpid());
    snprintf(danaus_root, sizeof danaus_root, "%s/run-%d", MOUNTPOINT,
             (int)getpid());
    bool ok = mkdir(outside, 0755) == 0 && stat(outside, &a) == 0 &&
              stat(site.dir, &b) == 0 && a.st_dev != b.st_dev;
    if (!ok)
        fprintf(stderr, "FAIL: %s is not on another file system than %s\n",
                outside, site.dir);

    const struct {
        const char *name;
        enum env_kind kind;
        bool danaus;
    } runs[] = {
        {"plain", PLAIN, false},
        {"preload-no-service", PRELOAD_ONLY, false},
        {"preload-kernel-dir", PRELOAD_SERVICE, false},
        {"preload-danaus", PRELOAD_SERVICE, true},
    };
    char root[4][700], out[4][700], user_out[2][700];
    for (int i = 0; ok && i < 4; i++) {
        if (runs[i].danaus)
            snprintf(root[i], sizeof root[i], "%s", danaus_root);
        else
            snprintf(root[i], sizeof root[i], "%s/%s", site.dir, runs[i].name);
        snprintf(out[i], sizeof out[i], "%s/%s.txt", site.dir, runs[i].name);
        if (!make_root(root[i], runs[i].danaus)) {
            fprintf(stderr, "FAIL: cannot make %s\n", root[i]);
            ok = false;
            break;
        }
        rc = run(runs[i].kind, false, out[i], root[i], outside);
        if (rc != 0) {
            fprintf(stderr, "FAIL %s: suite exited with %d\n", runs[i].name,
                    rc);
            ok = false;
        } else if (i > 0) {
            ok = same(out[0], out[i], runs[i].name);
        }
    }
    for (int i = 0; ok && i < 2; i++) {
        int r = i == 0 ? 0 : 3;
        snprintf(user_out[i], sizeof user_out[i], "%s/user-%s.txt", site.dir,
                 runs[r].name);
        rc = run(runs[r].kind, true, user_out[i], "--user", root[r]);
        if (rc != 0) {
            fprintf(stderr, "FAIL user %s: exited with %d\n", runs[r].name,
                    rc);
            ok = false;
        }
    }
    if (ok)
        ok = same(user_out[0], user_out[1], "user-preload-danaus");

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", outside);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", outside);
    if (daemon_stop(&d) < 0) {
        fprintf(stderr, "FAIL: danausd did not stop cleanly\n");
        ok = false;
    }
    if (ok)
        site_remove(&site);
    else
        fprintf(stderr, "site kept for inspection: %s\n", site.dir);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
