/*
 * program.c - host programs run for the engine (program.h).
 */
#include "program.h"
#include "fail.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads fd to its end, keeping the last non-empty line in last. */
static void keep_last_line(int fd, char *last, size_t size)
{
    char buf[4096];
    size_t used = 0;
    ssize_t n;
    last[0] = '\0';
    while ((n = read(fd, buf + used, sizeof buf - 1 - used)) > 0) {
        used += (size_t)n;
        buf[used] = '\0';
        char *nl;
        while ((nl = strchr(buf, '\n'))) {
            *nl = '\0';
            if (*buf)
                snprintf(last, size, "%.*s", (int)size - 1, buf);
            used -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, used + 1);
        }
        if (used == sizeof buf - 1)
            used = 0; /* a line longer than the buffer: drop its start */
    }
}

int program_run(const char *what, char *const argv[], int out_fd,
                int (*setup)(void *), void *arg)
{
    int err[2];
    if (pipe2(err, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    pid_t pid = fork();
    if (pid < 0)
        return fail_errno("fork");
    if (pid == 0) {
        int out = out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY);
        dup2(out, 1);
        dup2(err[1], 2);
        if (setup && setup(arg) < 0) {
            fprintf(stderr, "%s\n", fail_message());
            _exit(127);
        }
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    close(err[1]);
    char last[1024];
    keep_last_line(err[0], last, sizeof last);
    close(err[0]);
    int status;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    return fail("%s: %s failed: %s", what, argv[0],
                *last ? last : "no message");
}
