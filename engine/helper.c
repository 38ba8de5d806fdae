/*
 * helper.c - programs run as clients of a pool's danausd (helper.h).
 */
#include "helper.h"
#include "cgroup.h"
#include "fail.h"
#include "ns.h"
#include "service.h"
#include "state.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void helper_client_env(const char *pool, int preload)
{
    char run[STATE_PATH_MAX];
    state_path(run, "pools/%s/run", pool);
    setenv("DANAUS_SERVICE", pool, 1);
    setenv("DANAUS_RUNDIR", run, 1);
    if (preload)
        setenv("LD_PRELOAD", service_library(), 1);
}

int helper_run(const char *pool, char *const argv[])
{
    int err[2];
    if (pipe2(err, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    pid_t pid = fork();
    if (pid < 0)
        return fail_errno("fork");
    if (pid == 0) {
        char ipc[STATE_PATH_MAX];
        state_path(ipc, "pools/%s/ipc", pool);
        dup2(err[1], 2);
        if (cgroup_enter(pool) < 0 || ns_ipc_enter(ipc) < 0) {
            fprintf(stderr, "%s\n", fail_message());
            _exit(127);
        }
        helper_client_env(pool, 1);
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    close(err[1]);
    char out[4096], last[1024] = "";
    size_t used = 0;
    ssize_t n;
    while ((n = read(err[0], out + used, sizeof out - 1 - used)) > 0) {
        used += (size_t)n;
        out[used] = '\0';
        /* Keep the last complete line; drop older text when full. */
        char *nl;
        while ((nl = strchr(out, '\n'))) {
            *nl = '\0';
            if (*out)
                snprintf(last, sizeof last, "%.*s", (int)sizeof last - 1, out);
            used -= (size_t)(nl + 1 - out);
            memmove(out, nl + 1, used + 1);
        }
        if (used == sizeof out - 1)
            used = 0;
    }
    close(err[0]);
    int status;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    return fail("%s failed in pool %s: %s", argv[0], pool,
                *last ? last : "no message");
}
