/*
 * helper.h - runs a program as a client of a pool's danausd: in the pool's
 * cgroup and IPC namespace, with libdanaus.so preloaded and the service
 * named in its environment. This is how the engine writes into a pool's
 * backend (image layers, writable branches) whatever the backend is: the
 * paths under the pool's store mount go to its danausd.
 */
#ifndef ENGINE_HELPER_H
#define ENGINE_HELPER_H

/* Runs argv to completion. 0, or -1 (fail.h) with what it printed last. */
int helper_run(const char *pool, const char *const argv[]);
/* helper_run with its stdout on out_fd. */
int helper_run_to(const char *pool, const char *const argv[], int out_fd);
/* helper_run, taking stderr lines that end in tolerated for no error
 * (program_run_tolerating); *count gets how many there were. */
int helper_run_tolerating(const char *pool, const char *const argv[],
                          const char *tolerated, int *count);
/* Sets, in the calling process, what a client of the pool needs:
 * DANAUS_SERVICE, DANAUS_RUNDIR; with preload, LD_PRELOAD too. */
void helper_client_env(const char *pool, int preload);
/* Joins the pool's cgroup and IPC namespace; 0 or -1 (fail.h). */
int helper_join_pool(const char *pool);

#endif
