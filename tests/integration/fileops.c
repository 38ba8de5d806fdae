/*
 * fileops.c - the core data path checked against the kernel.
 *
 *   fileops DANAUSD local
 *   fileops DANAUSD ceph CEPH_CONF
 *
 * libc's file calls and the danaus_* API have the same signatures, so one
 * suite (fileops_suite.c) runs through a table of function pointers filled
 * once with libc's calls, on a plain temporary directory, and once with
 * danaus_*'s, on a mount of a danausd this program starts. Each step of the
 * suite writes one transcript line; the two transcripts must be equal.
 *
 * Each section of the suite is one cmocka test, run on both sides in its own
 * fresh directory; a mismatch is printed as step, libc line, danaus line.
 * The Danaus side lives at /danaus-fileops/run-PID: in local mode the mount
 * is a host directory of our own, in ceph mode it is the root of CephFS, so
 * every run uses its own directory there.
 */
#include "fileops_suite.h"
#include "harness.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#define MOUNTPOINT "/danaus-fileops"

static const struct fsops libc_ops = {
    "libc",
    open, openat, creat, close, read, write, pread, pwrite, readv, writev,
    lseek, fsync, fdatasync, truncate, ftruncate, stat, lstat, fstat, fstatat,
    access, mkdir, rmdir, unlink, rename, link, symlink, readlink, chmod,
    fchmod, chown, fchown, utimensat, futimens, statfs, opendir, fdopendir,
    readdir, closedir, rewinddir, getxattr, setxattr, listxattr, removexattr,
    dup, dup2,
};

static const struct fsops danaus_ops = {
    "danaus",
    danaus_open, danaus_openat, danaus_creat, danaus_close, danaus_read,
    danaus_write, danaus_pread, danaus_pwrite, danaus_readv, danaus_writev,
    danaus_lseek, danaus_fsync, danaus_fdatasync, danaus_truncate,
    danaus_ftruncate, danaus_stat, danaus_lstat, danaus_fstat, danaus_fstatat,
    danaus_access, danaus_mkdir, danaus_rmdir, danaus_unlink, danaus_rename,
    danaus_link, danaus_symlink, danaus_readlink, danaus_chmod, danaus_fchmod,
    danaus_chown, danaus_fchown, danaus_utimensat, danaus_futimens,
    danaus_statfs, danaus_opendir, danaus_fdopendir, danaus_readdir,
    danaus_closedir, danaus_rewinddir, danaus_getxattr, danaus_setxattr,
    danaus_listxattr, danaus_removexattr, danaus_dup, danaus_dup2,
};

static struct {
    const char *danausd;
    const char *mode;      /* local or ceph */
    const char *ceph_conf;
    struct site site;
    struct daemon daemon;
    char libc_root[PATH_MAX];
    char danaus_root[PATH_MAX];
} run;

static int start_service(void **state)
{
    if (site_make(&run.site, "fileops") < 0)
        return -1;
    char backing[PATH_MAX + 16];
    snprintf(run.libc_root, sizeof run.libc_root, "%s/plain", run.site.dir);
    snprintf(backing, sizeof backing, "%s/backing", run.site.dir);
    if (mkdir(run.libc_root, 0755) < 0 || mkdir(backing, 0755) < 0)
        return -1;
    int rc = strcmp(run.mode, "ceph") == 0
                 ? site_write_config(&run.site, "ceph_conf %s\nmount %s ceph /\n",
                                     run.ceph_conf, MOUNTPOINT)
                 : site_write_config(&run.site, "mount %s local %s\n",
                                     MOUNTPOINT, backing);
    if (rc < 0 || daemon_start(&run.daemon, run.danausd, &run.site, "danausd",
                               60000) < 0)
        return -1;
    site_use(&run.site);
    snprintf(run.danaus_root, sizeof run.danaus_root, "%s/run-%d", MOUNTPOINT,
             (int)getpid());
    if (danaus_mkdir(run.danaus_root, 0755) < 0) {
        fprintf(stderr, "danaus_mkdir %s: %s\n", run.danaus_root,
                strerror(errno));
        return -1;
    }
    return 0;
}

static int stop_service(void **state)
{
    int rc = 0;
    if (run.danaus_root[0] && fileops_remove_tree(&danaus_ops, run.danaus_root) < 0) {
        fprintf(stderr, "cannot remove %s through danaus: %s\n",
                run.danaus_root, strerror(errno));
        rc = -1;
    }
    if (run.daemon.pid && daemon_stop(&run.daemon) < 0) {
        fprintf(stderr, "danausd did not stop cleanly on SIGTERM\n");
        rc = -1;
    }
    site_remove(&run.site);
    return rc;
}

/* Prints every line where the transcripts differ; their number. */
static int compare(const struct transcript *a, const struct transcript *b)
{
    int bad = 0;
    int n = a->n > b->n ? a->n : b->n;
    for (int i = 0; i < n; i++) {
        const char *x = i < a->n ? a->line[i] : "(none)";
        const char *y = i < b->n ? b->line[i] : "(none)";
        if (strcmp(x, y) != 0) {
            printf("MISMATCH step %d\n  libc:   %s\n  danaus: %s\n", i, x, y);
            bad++;
        }
    }
    return bad;
}

/* Runs one section on both sides, each in a fresh directory, and compares. */
static void run_section(void **state)
{
    const struct fileops_section *sec = *state;
    struct side sides[2] = {
        {.fs = &libc_ops},
        {.fs = &danaus_ops},
    };
    const char *roots[2] = {run.libc_root, run.danaus_root};
    for (int i = 0; i < 2; i++) {
        struct side *s = &sides[i];
        snprintf(s->root, sizeof s->root, "%s/%s", roots[i], sec->name);
        umask(022);
        if (s->fs->mkdir(s->root, 0755) < 0)
            fail_msg("%s: mkdir %s: %s", s->fs->name, s->root, strerror(errno));
        sec->run(s);
        umask(022);
    }
    int bad = compare(&sides[0].t, &sides[1].t);
    if (getenv("FILEOPS_VERBOSE"))
        for (int i = 0; i < sides[1].t.n; i++)
            printf("  %s\n", sides[1].t.line[i]);
    transcript_free(&sides[0].t);
    transcript_free(&sides[1].t);
    if (bad)
        fail_msg("section %s: %d of the steps differ", sec->name, bad);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "local") == 0) {
        run.mode = "local";
    } else if (argc == 4 && strcmp(argv[2], "ceph") == 0) {
        run.mode = "ceph";
        run.ceph_conf = argv[3];
    } else {
        fprintf(stderr, "usage: fileops DANAUSD local | DANAUSD ceph CEPH_CONF\n");
        return 2;
    }
    run.danausd = argv[1];

    struct CMUnitTest tests[FILEOPS_MAX_SECTIONS];
    int n = 0;
    for (const struct fileops_section *s = fileops_sections; s->name; s++) {
        tests[n] = (struct CMUnitTest){
            .name = s->name, .test_func = run_section,
            .initial_state = (void *)s};
        n++;
    }
    char group[32];
    snprintf(group, sizeof group, "fileops_%s", run.mode);
    return _cmocka_run_group_tests(group, tests, (size_t)n, start_service,
                                   stop_service);
}
