/*
 * test_preload_dir_compare.c - runs one shell command on a plain directory
 * and on a Danaus mount under LD_PRELOAD, and compares what it prints.
 *
 *   test_preload_dir_compare DANAUSD LIBDANAUS local|ceph CEPH_CONF|- COMMAND
 *
 * starts a danausd (local backend on a private directory, or CephFS root
 * with CEPH_CONF), then runs `sh -c COMMAND` three times with $ROOT set:
 *   plain   ROOT = a fresh plain directory, no preload;
 *   nosvc   ROOT = another plain directory, LD_PRELOAD but no
 *           DANAUS_SERVICE: must behave exactly as without the preload;
 *   danaus  ROOT = a fresh directory on the Danaus mount, LD_PRELOAD and
 *           the service named.
 * Each run's stdout, with its own ROOT replaced by "$ROOT", and exit status
 * must be the same (commands sort what a backend may list in another
 * order). Exit 0 when all agree.
 * Used by tests/preload/dir.cmake and stdio.cmake.
 */
#include "harness.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MOUNTPOINT "/danaus-preload-dir"

struct output {
    char *text;
    size_t len;
    int status;
};

/* Runs sh -c command with env added to a copy of ours; stdout captured. */
static int run(const char *command, char *const env[], struct output *out)
{
    char path[] = "/tmp/danaus-compare-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        for (int i = 0; env[i]; i++)
            putenv(env[i]);
        dup2(fd, 1);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    if (waitpid(pid, &out->status, 0) < 0)
        return -1;
    off_t len = lseek(fd, 0, SEEK_END);
    out->text = malloc((size_t)len + 1);
    if (!out->text || pread(fd, out->text, (size_t)len, 0) != len)
        return -1;
    out->text[len] = '\0';
    out->len = (size_t)len;
    close(fd);
    return 0;
}

/* Replaces every occurrence of root by "$ROOT". */
static void unroot(struct output *o, const char *root)
{
    size_t n = strlen(root);
    char *w = o->text;
    for (const char *r = o->text; *r;) {
        if (strncmp(r, root, n) == 0) {
            memcpy(w, "$ROOT", 5);
            w += 5;
            r += n;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    o->len = (size_t)(w - o->text);
}

static int same(const char *what, const struct output *a,
                const struct output *b)
{
    if (a->status == b->status && strcmp(a->text, b->text) == 0)
        return 1;
    printf("MISMATCH %s\n--- plain (status %d)\n%s--- %s (status %d)\n%s---\n",
           what, a->status, a->text, what, b->status, b->text);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: test_preload_dir_compare DANAUSD LIBDANAUS "
                        "local|ceph CEPH_CONF|- COMMAND\n");
        return 2;
    }
    /* The children change directory: the library's path must not be
     * relative. */
    char lib[PATH_MAX];
    if (!realpath(argv[2], lib)) {
        perror(argv[2]);
        return 2;
    }
    const char *danausd = argv[1], *mode = argv[3],
               *ceph_conf = argv[4], *command = argv[5];

    struct site site;
    struct daemon daemon = {0};
    if (site_make(&site, "preload-dir") < 0)
        return 1;
    char plain[PATH_MAX], nosvc[PATH_MAX], backing[PATH_MAX], droot[PATH_MAX];
    snprintf(plain, sizeof plain, "%s/plain", site.dir);
    snprintf(nosvc, sizeof nosvc, "%s/nosvc", site.dir);
    snprintf(backing, sizeof backing, "%s/backing", site.dir);
    if (mkdir(plain, 0755) < 0 || mkdir(nosvc, 0755) < 0 ||
        mkdir(backing, 0755) < 0)
        return 1;
    int rc = strcmp(mode, "ceph") == 0
                 ? site_write_config(&site, "ceph_conf %s\nmount %s ceph /\n",
                                     ceph_conf, MOUNTPOINT)
                 : site_write_config(&site, "mount %s local %s\n", MOUNTPOINT,
                                     backing);
    if (rc < 0 || daemon_start(&daemon, danausd, &site, "danausd", 60000) < 0)
        return 1;
    site_use(&site);
    /* On CephFS the root is shared: each run works in a directory of its
     * own. */
    snprintf(droot, sizeof droot, "%s/preload-%d", MOUNTPOINT, (int)getpid());
    if (danaus_mkdir(droot, 0755) < 0) {
        fprintf(stderr, "danaus_mkdir %s: %s\n", droot, strerror(errno));
        daemon_stop(&daemon);
        return 1;
    }

    char e_root_plain[PATH_MAX + 8], e_root_nosvc[PATH_MAX + 8],
        e_root_danaus[PATH_MAX + 8], e_preload[PATH_MAX + 16],
        e_service[128], e_rundir[PATH_MAX + 16];
    snprintf(e_root_plain, sizeof e_root_plain, "ROOT=%s", plain);
    snprintf(e_root_nosvc, sizeof e_root_nosvc, "ROOT=%s", nosvc);
    snprintf(e_root_danaus, sizeof e_root_danaus, "ROOT=%s", droot);
    snprintf(e_preload, sizeof e_preload, "LD_PRELOAD=%s", lib);
    snprintf(e_service, sizeof e_service, "DANAUS_SERVICE=%s", site.service);
    snprintf(e_rundir, sizeof e_rundir, "DANAUS_RUNDIR=%s", site.rundir);
    /* Our own environment names the service (site_use): the plain and
     * no-service runs must not see it. */
    unsetenv("DANAUS_SERVICE");
    unsetenv("DANAUS_RUNDIR");
    char *env_plain[] = {e_root_plain, NULL};
    char *env_nosvc[] = {e_root_nosvc, e_preload, NULL};
    char *env_danaus[] = {e_root_danaus, e_preload, e_service, e_rundir, NULL};

    struct output o_plain, o_nosvc, o_danaus;
    if (run(command, env_plain, &o_plain) < 0 ||
        run(command, env_nosvc, &o_nosvc) < 0 ||
        run(command, env_danaus, &o_danaus) < 0) {
        perror("run");
        daemon_stop(&daemon);
        return 1;
    }
    unroot(&o_plain, plain);
    unroot(&o_nosvc, nosvc);
    unroot(&o_danaus, droot);
    int ok = same("nosvc", &o_plain, &o_nosvc);
    ok &= same("danaus", &o_plain, &o_danaus);
    if (ok && getenv("COMPARE_VERBOSE"))
        printf("%s", o_danaus.text);
    if (!WIFEXITED(o_plain.status) || WEXITSTATUS(o_plain.status) != 0) {
        printf("the command fails on a plain directory (status %d)\n%s",
               o_plain.status, o_plain.text);
        ok = 0;
    }
    if (daemon_stop(&daemon) < 0) {
        printf("danausd did not stop cleanly\n");
        ok = 0;
    }
    if (ok)
        site_remove(&site);
    else
        printf("site kept: %s\n", site.dir);
    printf("%s\n", ok ? "same" : "DIFFERENT");
    return ok ? 0 : 1;
}
