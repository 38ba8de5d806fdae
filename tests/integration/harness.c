/*
 * harness.c - running a real danausd for integration tests (see harness.h).
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

int site_make(struct site *s, const char *tag)
{
    static int count;
    snprintf(s->dir, sizeof s->dir, "/tmp/danaus-%s-XXXXXX", tag);
    if (!mkdtemp(s->dir))
        return -1;
    snprintf(s->rundir, sizeof s->rundir, "%s/run", s->dir);
    snprintf(s->conf, sizeof s->conf, "%s/danausd.conf", s->dir);
    snprintf(s->service, sizeof s->service, "%s-%d-%d", tag, (int)getpid(),
             count++);
    return mkdir(s->rundir, 0755);
}

int site_write_config(struct site *s, const char *body_fmt, ...)
{
    FILE *f = fopen(s->conf, "w");
    if (!f)
        return -1;
    fprintf(f, "service %s\nrundir %s\n", s->service, s->rundir);
    va_list ap;
    va_start(ap, body_fmt);
    vfprintf(f, body_fmt, ap);
    va_end(ap);
    return fclose(f) == 0 ? 0 : -1;
}

void site_use(const struct site *s)
{
    setenv("DANAUS_SERVICE", s->service, 1);
    setenv("DANAUS_RUNDIR", s->rundir, 1);
}

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
    return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

void site_remove(struct site *s)
{
    if (s->dir[0])
        nftw(s->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    s->dir[0] = '\0';
}

int daemon_spawn(struct daemon *d, const char *exe, const char *conf,
                 const char *log)
{
    snprintf(d->log, sizeof d->log, "%s", log);
    d->pid = 0;
    d->status = 0;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, log,
                                     O_WRONLY | O_CREAT | O_TRUNC | O_APPEND,
                                     0644);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    char *argv[] = {(char *)exe, (char *)"-c", (char *)conf, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    d->pid = pid;
    return 0;
}

char *daemon_log_text(const struct daemon *d, char *buf, size_t len)
{
    buf[0] = '\0';
    int fd = open(d->log, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return buf;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* Reaps the daemon if it has exited; true if it has. */
static int reaped(struct daemon *d)
{
    if (d->pid == 0)
        return 1;
    if (waitpid(d->pid, &d->status, WNOHANG) == d->pid) {
        d->pid = 0;
        return 1;
    }
    return 0;
}

int daemon_wait_ready(struct daemon *d, int timeout_ms)
{
    char text[8192];
    double end = now_ms() + timeout_ms;
    for (;;) {
        if (strstr(daemon_log_text(d, text, sizeof text), " ready: "))
            return 0;
        if (reaped(d) || now_ms() > end)
            return -1;
        sleep_ms(5);
    }
}

int daemon_wait_exit(struct daemon *d, int timeout_ms)
{
    double end = now_ms() + timeout_ms;
    while (!reaped(d)) {
        if (now_ms() > end)
            return -1;
        sleep_ms(2);
    }
    return 0;
}

/* How long a service may take to stop after SIGTERM: ThreadSanitizer
 * slows one that closes many files (a uid's 10,000 handles) past 10 s. */
#if defined(__SANITIZE_THREAD__)
#define STOP_TIMEOUT_MS 120000
#else
#define STOP_TIMEOUT_MS 10000
#endif

int daemon_stop(struct daemon *d)
{
    if (d->pid == 0)
        return -1;
    kill(d->pid, SIGTERM);
    if (daemon_wait_exit(d, STOP_TIMEOUT_MS) < 0) {
        daemon_kill(d);
        return -1;
    }
    return WIFEXITED(d->status) && WEXITSTATUS(d->status) == 0 ? 0 : -1;
}

int daemon_term(struct daemon *d, int timeout_ms, const char *says)
{
    double t0 = now_ms();
    kill(d->pid, SIGTERM);
    if (daemon_wait_exit(d, timeout_ms) < 0 || !WIFEXITED(d->status))
        return -1;
    printf("SIGTERM: exit %d after %.0f ms\n", WEXITSTATUS(d->status),
           now_ms() - t0);
    char text[8192];
    if (says && !strstr(daemon_log_text(d, text, sizeof text), says))
        return -1;
    return WEXITSTATUS(d->status);
}

void daemon_kill(struct daemon *d)
{
    if (d->pid == 0)
        return;
    kill(d->pid, SIGKILL);
    waitpid(d->pid, &d->status, 0);
    d->pid = 0;
}

int daemon_start(struct daemon *d, const char *exe, const struct site *s,
                 const char *logname, int timeout_ms)
{
    char log[PATH_MAX + 64];
    snprintf(log, sizeof log, "%s/%s.log", s->dir, logname);
    if (daemon_spawn(d, exe, s->conf, log) < 0) {
        fprintf(stderr, "cannot start %s: %s\n", exe, strerror(errno));
        return -1;
    }
    if (daemon_wait_ready(d, timeout_ms) == 0)
        return 0;
    char text[8192];
    fprintf(stderr, "danausd did not become ready; its log:\n%s\n",
            daemon_log_text(d, text, sizeof text));
    daemon_kill(d);
    return -1;
}

int run_in_child(int (*fn)(void *), void *arg, int timeout_ms)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* A group of its own, so a timeout kills its children too. */
        setpgid(0, 0);
        int rc = fn(arg);
        fflush(NULL);
        _exit(rc);
    }
    setpgid(pid, pid);
    struct daemon child = {.pid = pid};
    if (daemon_wait_exit(&child, timeout_ms) < 0) {
        fprintf(stderr, "child %d still running after %d ms: killed\n",
                (int)pid, timeout_ms);
        kill(-pid, SIGKILL);
        daemon_kill(&child);
        return -1;
    }
    if (WIFSIGNALED(child.status))
        return 128 + WTERMSIG(child.status);
    return WEXITSTATUS(child.status);
}

int pressure_dir_make(char *dir, size_t size, const char *tag)
{
    snprintf(dir, size, "/tmp/danaus-%s-%d", tag, (int)getpid());
    return mkdir(dir, 0700);
}

int pressure_dir_remove(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int pool_start(struct daemon *d, struct site *s, const char *exe,
               const char *tag, const char *pressure_dir, bool fuse,
               const char *extra)
{
    char mnt[600], host[600];
    if (site_make(s, tag) < 0)
        return -1;
    snprintf(mnt, sizeof mnt, "%s/mnt", s->dir);
    snprintf(host, sizeof host, "%s/host", s->dir);
    if (mkdir(mnt, 0755) < 0 || mkdir(host, 0755) < 0 ||
        site_write_config(s,
                          "fuse %s\nbackend_pressure_dir %s\n%s"
                          "mount %s local %s\n",
                          fuse ? "on" : "off", pressure_dir, extra, mnt,
                          host) < 0)
        return -1;
    return daemon_start(d, exe, s, "danausd", 60000);
}
