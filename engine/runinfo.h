/*
 * runinfo.h - what a container was run with, as inspect shows it
 * (docker's Config and Mounts): its command's environment, command, user,
 * working directory and mounts, saved at run in
 * containers/NAME/config.json and read back by inspect.
 */
#ifndef ENGINE_RUNINFO_H
#define ENGINE_RUNINFO_H

#include "json.h"
#include "ns.h"

/* An environment being built: entries "NAME=VALUE", a later one of a
 * name replacing the earlier (as putenv does). */
struct env {
    char **list; /* NULL-ended, malloc'ed, as are its entries */
    int n;
};

/* Sets entry (copied); out of memory, it is left out. */
void env_put(struct env *e, const char *entry);
void env_putf(struct env *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void env_free(struct env *e);

struct runinfo {
    char *const *env;  /* the command's environment but HOME */
    char *const *argv; /* the command, ENTRYPOINT included */
    const char *user, *workdir; /* NULL: the image's default (root, /) */
    const struct ns_bind *volumes; /* -v, as given */
    int nvolumes;
    const char *backend; /* the pool's backend directory */
};

/* Saves it for container name. 0 or -1 (fail.h). */
int runinfo_save(const char *name, const struct runinfo *r);
/* The saved object, or NULL (a container run before it was saved). */
struct json *runinfo_load(const char *name);
/* -v as run was given them, from the saved object's Mounts (the strings
 * point into it; a volume's host is its directory in the backend until
 * container.h mounts it). NULL when out of memory; free it. */
struct ns_bind *runinfo_binds(const struct json *info, int *n);

#endif
