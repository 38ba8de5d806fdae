/*
 * container.h - containers: run, ps, stop, rm, logs.
 */
#ifndef ENGINE_CONTAINER_H
#define ENGINE_CONTAINER_H

struct run_options {
    const char *pool, *image, *name;
    char **env; /* VAR=VALUE, nenv of them */
    int nenv;
    int detach;
    int remove; /* --rm: the container goes when it exits */
    char **argv; /* the command, NULL-ended */
};

/* Returns the exit status to leave with: the container's (foreground), 0
 * (detached), or 125/126/127 for the engine's own failures as docker does
 * (message in fail.h). */
int container_run(const struct run_options *o);
int container_list(int all);
int container_stop(const char *name);
int container_remove(const char *name, int force);
int container_logs(const char *name);

#endif
