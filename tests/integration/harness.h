/*
 * harness.h - running a real danausd for integration tests.
 *
 * A site is a private temporary directory holding one test's configuration,
 * run directory (where the service's socket lives) and the service's log.
 * A daemon is one danausd process started on a configuration, its stdout
 * and stderr going to a log file; "ready" means its log carries the line
 * "danausd: NAME ready: ...", which danausd prints once clients can attach.
 */
#ifndef DANAUS_TEST_HARNESS_H
#define DANAUS_TEST_HARNESS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

struct site {
    char dir[256];         /* the private temporary directory */
    char rundir[512];      /* dir/run */
    char conf[512];        /* dir/danausd.conf */
    char service[64];      /* unique per site */
};

/* Makes a fresh site named after tag; 0 or -1 with errno. */
int site_make(struct site *s, const char *tag);

/* Writes s->conf: the service and rundir lines, then body (printf format).
 * 0 or -1. */
int site_write_config(struct site *s, const char *body_fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Points this process's libdanaus at the site's service (DANAUS_SERVICE,
 * DANAUS_RUNDIR). Must run before the first danaus_* call. */
void site_use(const struct site *s);

/* Removes the site's directory tree. */
void site_remove(struct site *s);

struct daemon {
    pid_t pid; /* 0 once reaped */
    int status; /* wait status once reaped */
    char log[PATH_MAX];
};

/* Starts exe -c conf with output to log; 0 or -1 with errno. */
int daemon_spawn(struct daemon *d, const char *exe, const char *conf,
                 const char *log);

/* Waits until the log says ready: 0; -1 if the daemon exited first (its
 * status is in d->status) or timeout_ms passed. */
int daemon_wait_ready(struct daemon *d, int timeout_ms);

/* Waits for the daemon's exit: 0 with d->status set, or -1 on timeout. */
int daemon_wait_exit(struct daemon *d, int timeout_ms);

/* SIGTERM and wait: 0 if it exited with status 0 within 10 s, else -1
 * (killed with SIGKILL if it did not exit). */
int daemon_stop(struct daemon *d);

/* SIGTERM, and the exit code if the daemon exited within timeout_ms with
 * a log that contains says (unless NULL); -1 otherwise. Prints the time. */
int daemon_term(struct daemon *d, int timeout_ms, const char *says);

/* SIGKILL and reap. */
void daemon_kill(struct daemon *d);

/* The log's text, NUL-terminated, in buf; returns buf. */
char *daemon_log_text(const struct daemon *d, char *buf, size_t len);

/* spawn + wait_ready on s's configuration, logging to s->dir/NAME.log.
 * On failure prints the log to stderr and returns -1. */
int daemon_start(struct daemon *d, const char *exe, const struct site *s,
                 const char *logname, int timeout_ms);

/* Milliseconds, and nanoseconds, on the monotonic clock. */
double now_ms(void);
uint64_t monotonic_ns(void);

void sleep_ms(int ms);

/* Pools that meet in a pressure directory (backend_pressure_dir): a fresh
 * one named after tag and this process, 0 or -1; and its removal. */
int pressure_dir_make(char *dir, size_t size, const char *tag);
int pressure_dir_remove(const char *dir);

/* A pool's service at its defaults on the local backend (s->dir/host
 * served at s->dir/mnt), meeting the other pools in pressure_dir, with
 * its FUSE door on or off and extra configuration lines (each ending in a
 * newline, or ""). daemon_start's result. */
int pool_start(struct daemon *d, struct site *s, const char *exe,
               const char *tag, const char *pressure_dir, bool fuse,
               const char *extra);

/* Runs fn(arg) in a child process: each libdanaus client is a process of
 * its own (the library connects once per process). Returns the child's exit
 * code (fn's return value), 128 + signal if it died of one, or -1 if it ran
 * past timeout_ms (it is then killed). */
int run_in_child(int (*fn)(void *), void *arg, int timeout_ms);

/* Inside such a child: unless cond holds, print where and why, exit 1. */
#define CHILD_CHECK(cond, ...)                                               \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, \
                    #cond);                                                  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
            _exit(1);                                                        \
        }                                                                    \
    } while (0)

#endif
