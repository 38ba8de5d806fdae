/*
 * container.h - containers: run, exec, ps, stop, rm, logs.
 */
#ifndef ENGINE_CONTAINER_H
#define ENGINE_CONTAINER_H

#include "net.h"
#include "ns.h"
#include "record.h"

#include <sys/types.h>

#define RUN_PIDS_DEFAULT 2048 /* podman's */

struct run_options {
    const char *pool, *image, *name;
    char **env; /* VAR=VALUE, nenv of them */
    int nenv;
    int detach;
    int remove; /* --rm: the container goes when it exits */
    int tty;    /* -t: a pseudo-terminal (tty.h) */
    int interactive; /* -i: the caller's stdin, else /dev/null */
    int read_only; /* --read-only: the root takes no change (EROFS) */
    struct ns_bind *volumes; /* -v HOSTDIR|VOLUME:DIR[:ro], nvolumes */
    int nvolumes;
    const char *workdir; /* -w DIR, or NULL: the image's */
    const char *user;    /* -u USER[:GROUP] (user.h), or NULL: the image's */
    const char *entrypoint; /* --entrypoint CMD ("": none), or NULL */
    int host_network;   /* --network host: the host's, not its own */
    int bridge_network; /* --network bridge: on its pool's bridge (net.h) */
    struct net_port *ports; /* -p, nports of them (bridge only) */
    int nports;
    int new_privileges; /* --security-opt no-new-privileges=false */
    long pids_limit;    /* --pids-limit */
    char **argv; /* the command, NULL-ended; empty: the image's CMD */
    int again; /* start (start.h): name is an ended container, whose
                  record and writable branch are kept */
};

/* Returns the exit status to leave with: the container's (foreground), 0
 * (detached), or 125/126/127 for the engine's own failures as docker does
 * (message in fail.h). */
int container_run(const struct run_options *o);
/* ps: running containers (all: every one); quiet: names only (-q);
 * format: a row template (--format, format.h) or NULL. */
int container_list(int all, int quiet, const char *format);
/* SIGTERM, then SIGKILL after grace_s seconds (< 0: the default, 5). */
int container_stop(const char *name, int grace_s);
int container_remove(const char *name, int force);
/* Sends sig to the container's pid 1 (which, as any PID namespace's
 * init, gets only the signals it handles, and SIGKILL). */
int container_kill(const char *name, int sig);
/* Waits until the container has ended and prints its exit status (-1
 * when it was removed meanwhile or never recorded one). */
int container_wait(const char *name);
/* A detached container's output: the last tail lines (< 0: all); with
 * follow, then what it writes until it ends. */
int container_logs(const char *name, int follow, long tail);
/* Runs argv in the running container with x's env, workdir, user,
 * interactive and tty (the rest of x unused); its exit status, or 125 (fail.h),
 * 126/127 when argv cannot be run. */
int container_exec(const char *name, const struct run_options *x,
                   char **argv);
/* For danaus cp of a container that does not run (rec: its record):
 * its root mounted as start mounts it, by the pool's danausd at
 * containers/NAME/root, and the volumes among its n -v (runinfo_binds)
 * under containers/NAME/volumes/, their host set to the mount; no
 * process of the container's runs. 0 or -1 (fail.h). */
int container_mount_root(const char *name, const struct record *rec,
                         struct ns_bind *volumes, int n);
/* Takes those mounts away (none there is no error; fail.h untouched). */
void container_unmount_root(const char *name, const struct record *rec);

#endif
