/*
 * program.c - host programs run for the engine (program.h).
 */
#include "program.h"
#include "fail.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether a line only notes what GNU tar did to a name ("tar: Removing
 * leading `../' from member names"), which --warning=none does not quiet:
 * the refusal follows it. */
static int is_tar_notice(const char *line)
{
    return strncmp(line, "tar: Removing leading ", 22) == 0;
}

/* GNU tar's last line after any error: it names nothing. */
#define TAR_FAILED "tar: Exiting with failure status due to previous errors"

/* Lines a caller takes for no error (program_run_tolerating). */
struct tolerated {
    const char *suffix; /* lines ending so; NULL: none */
    int count;
};

static int is_tolerated(struct tolerated *t, const char *line)
{
    size_t n = strlen(line), k = t->suffix ? strlen(t->suffix) : 0;
    if (!t->suffix || n < k || strcmp(line + n - k, t->suffix) != 0)
        return 0;
    t->count++;
    return 1;
}

/* Reads fd to its end, keeping the first non-empty line in first (the
 * cause: GNU tar, for one, ends with TAR_FAILED, which names nothing),
 * but for tar's notices and the lines t tolerates, and counting the
 * others. */
static int keep_first_line(int fd, char *first, size_t size,
                           struct tolerated *t)
{
    char buf[4096];
    size_t used = 0;
    ssize_t n;
    int others = 0;
    first[0] = '\0';
    while ((n = read(fd, buf + used, sizeof buf - 1 - used)) > 0) {
        used += (size_t)n;
        buf[used] = '\0';
        char *nl;
        while ((nl = strchr(buf, '\n'))) {
            *nl = '\0';
            if (is_tolerated(t, buf))
                ;
            else if (*buf && !*first && !is_tar_notice(buf))
                snprintf(first, size, "%.*s", (int)size - 1, buf);
            else if (*buf)
                others++;
            used -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, used + 1);
        }
        if (used == sizeof buf - 1)
            used = 0; /* a line longer than the buffer: drop its start */
    }
    return others;
}

/* Starts argv with stdout on out_fd (-1: /dev/null) and stderr on a
 * pipe, whose read end goes to *err_fd; its pid, or -1 (fail.h). */
static pid_t start(const char *const argv[], int out_fd, int (*setup)(void *),
                   void *arg, int *err_fd)
{
    int err[2];
    if (pipe2(err, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    pid_t pid = fork();
    if (pid < 0) {
        close(err[0]);
        close(err[1]);
        return fail_errno("fork");
    }
    if (pid == 0) {
        int out = out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY);
        dup2(out, 1);
        dup2(err[1], 2);
        if (setup && setup(arg) < 0) {
            fprintf(stderr, "%s\n", fail_message());
            _exit(127);
        }
        /* execvp takes char *const[] but changes no string (POSIX). */
        execvp(argv[0], (char *const *)argv);
        perror(argv[0]);
        _exit(127);
    }
    close(err[1]);
    *err_fd = err[0];
    return pid;
}

/* Reads the program's stderr to its end and waits for it; 0 when it
 * exited 0, or failed saying only what t tolerates, else -1 (fail.h)
 * with its first line. */
static int finish(const char *what, const char *const argv[], pid_t pid,
                  int err_fd, struct tolerated *t)
{
    char first[1024];
    int others = keep_first_line(err_fd, first, sizeof first, t);
    close(err_fd);
    int status;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status) && t->count && !others &&
        (!*first || strcmp(first, TAR_FAILED) == 0))
        return 0;
    if (!*first)
        return fail("%s: %s failed with no message", what, argv[0]);
    return fail("%s: %s failed: %s%s", what, argv[0], first,
                others ? " (and more errors)" : "");
}

int program_run(const char *what, const char *const argv[], int out_fd,
                int (*setup)(void *), void *arg)
{
    return program_run_tolerating(what, argv, out_fd, setup, arg, NULL,
                                  NULL);
}

int program_run_tolerating(const char *what, const char *const argv[],
                           int out_fd, int (*setup)(void *), void *arg,
                           const char *tolerated, int *count)
{
    struct tolerated t = {tolerated, 0};
    int err_fd = -1;
    pid_t pid = start(argv, out_fd, setup, arg, &err_fd);
    int rc = pid < 0 ? -1 : finish(what, argv, pid, err_fd, &t);
    if (count)
        *count = t.count;
    return rc;
}

int program_read(const char *what, const char *const argv[],
                 int (*consume)(int fd, void *arg), void *arg)
{
    int out[2], err_fd = -1;
    if (pipe2(out, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    pid_t pid = start(argv, out[1], NULL, NULL, &err_fd);
    close(out[1]);
    int rc = pid < 0 ? -1 : consume(out[0], arg);
    close(out[0]);
    if (pid < 0)
        return -1;
    if (rc < 0)
        kill(pid, SIGKILL);
    /* A consumer's refusal is the reason, not the kill it caused. */
    struct tolerated none = {NULL, 0};
    return finish(what, argv, pid, err_fd, &none) < 0 || rc < 0 ? -1 : 0;
}
