/*
 * helper.c - programs run as clients of a pool's danausd (helper.h).
 */
#include "helper.h"
#include "cgroup.h"
#include "fail.h"
#include "ns.h"
#include "program.h"
#include "service.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>

void helper_client_env(const char *pool, int preload)
{
    char door[STATE_PATH_MAX];
    service_door_dir(pool, door, sizeof door);
    setenv("DANAUS_SERVICE", pool, 1);
    setenv("DANAUS_RUNDIR", door, 1);
    if (preload)
        setenv("LD_PRELOAD", service_library(), 1);
}

int helper_join_pool(const char *pool)
{
    char ipc[STATE_PATH_MAX];
    state_path(ipc, "pools/%s/ipc", pool);
    return cgroup_enter(pool) < 0 || ns_ipc_enter(ipc) < 0 ? -1 : 0;
}

static int as_client(void *arg)
{
    const char *pool = arg;
    if (helper_join_pool(pool) < 0)
        return -1;
    helper_client_env(pool, 1);
    /* Its messages are read (program.h): in the C locale's words. */
    setenv("LC_ALL", "C", 1);
    return 0;
}

int helper_run(const char *pool, const char *const argv[])
{
    return helper_run_tolerating(pool, argv, NULL, NULL);
}

int helper_run_to(const char *pool, const char *const argv[], int out_fd)
{
    char what[64];
    snprintf(what, sizeof what, "pool %s", pool);
    return program_run(what, argv, out_fd, as_client, (void *)pool);
}

int helper_run_tolerating(const char *pool, const char *const argv[],
                          const char *tolerated, int *count)
{
    char what[64];
    snprintf(what, sizeof what, "pool %s", pool);
    return program_run_tolerating(what, argv, -1, as_client, (void *)pool,
                                  tolerated, count);
}
