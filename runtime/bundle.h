/*
 * bundle.h - an OCI bundle's config.json as the runtime changes it: the
 * root that podman (or containerd) prepared becomes the read-only branch
 * of a union the pool's danausd serves, and the container gets what an
 * engine container gets to reach the service (the door's directory at
 * /run/danaus, libdanaus.so preloaded). Everything else stays as the
 * caller wrote it, for runc.
 */
#ifndef RUNTIME_BUNDLE_H
#define RUNTIME_BUNDLE_H

#include "json.h"

#define BUNDLE_LIBRARY_INSIDE "/usr/lib/danaus/libdanaus.so"
#define BUNDLE_RUNDIR_INSIDE "/run/danaus"
/* The annotation that names the pool (podman run --annotation). */
#define BUNDLE_POOL_ANNOTATION "danaus.pool"
#define BUNDLE_AUTOREMOVE_ANNOTATION "io.podman.annotations.autoremove"
#define BUNDLE_PATHS_MAX 63 /* kernel paths of a view (wire.h) */

struct bundle {
    struct json *config;
    char *root;       /* root.path, absolute: the union's lower branch */
    int read_only;    /* root.readonly */
    const char *pool; /* the annotation, or NULL */
    int autoremove;   /* podman run --rm (its annotation) */
};

/* Reads DIR/config.json. 0, or -1 (fail.h). */
int bundle_read(const char *dir, struct bundle *b);
/* Writes the changed config to DIR/config.json: root.path is root (the
 * union's mount point), door and library are bound in, the process
 * environment names the pool. The mount destinations of the result, the
 * paths the kernel keeps inside the container, go into paths (at most
 * BUNDLE_PATHS_MAX) and their count into *npaths. 0, or -1 (fail.h). */
int bundle_write(struct bundle *b, const char *dir, const char *root,
                 const char *pool, const char *door, const char *library,
                 const char **paths, int *npaths);
void bundle_free(struct bundle *b);

/* Adds to a process object's "env" (made if absent) what a client of pool
 * needs, over an LD_PRELOAD the caller set. 0, or -1 (fail.h). */
int bundle_process_env(struct json *process, const char *pool);

/* The file at path, parsed. NULL (fail.h) when it cannot be read or is not
 * JSON; what names it in messages. */
struct json *bundle_read_json(const char *path);
/* j written to path (by a temporary file and a rename). 0, or -1. */
int bundle_write_json(const char *path, const struct json *j);

#endif
