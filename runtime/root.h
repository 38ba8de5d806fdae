/*
 * root.h - what danaus-runtime adds to a container runc makes: its root
 * from a pool of the engine. The runtime's record of a container lives in
 * the engine's state directory:
 *
 *   runtime/ID/record       the pool, the writable branch, the bundle
 *   runtime/ID/config.json  the bundle runc is given (bundle.h)
 *   runtime/ID/root         the union's FUSE mount: the container's root
 *   runtime/ID/lower-N      a bind mount of the root the caller prepared
 *
 * The union's writable branch is BACKEND/containers/oci-ID in the pool's
 * backend, its read-only branch the caller's root (through lower-N).
 */
#ifndef RUNTIME_ROOT_H
#define RUNTIME_ROOT_H

#include "bundle.h"

#include <sys/types.h>

/* The pool a container without the annotation gets, made on first use
 * with the online cpus no other pool has, ROOT_DEFAULT_MEMORY and a local
 * backend in the state directory (backends/default). */
#define ROOT_DEFAULT_POOL "default"
#define ROOT_DEFAULT_MEMORY "1G"

/* Whether id is one the runtime takes: 1 to 128 of [A-Za-z0-9_+.-], not
 * starting with '.' or '-' (runc's rule, and a file name). 0 or -1. */
int root_check_id(const char *id);
/* The runtime's directory of container id. */
void root_dir(const char *id, char *out);
/*
 * Makes container id's root: chooses the pool (b->pool, or the default
 * one, made if missing), makes the writable branch and the union over
 * b->root, mounted at runtime/ID/root, and writes runtime/ID/config.json
 * for runc. A container that ran before (podman start after it stopped)
 * keeps its pool and its branch. paths gets the container's kernel paths
 * (bundle_write), the pool's name goes into pool. bundle is the caller's
 * bundle directory: the container is podman's as long as that exists.
 * Takes the state lock meanwhile. 0, or -1 (fail.h) with nothing new
 * left behind.
 */
int root_make(const char *id, struct bundle *b, const char *bundle,
              char *pool, const char **paths, int *npaths);
/* Tells the pool's danausd that programs in the mount namespace of pid
 * (the container's first process, made by runc) see the root at "/".
 * 0, or -1 (fail.h). */
int root_view(const char *id, const char *pool, pid_t pid,
              const char **paths, int npaths);
/* The pool of container id (its record), into pool. 0, or -1 (fail.h:
 * not one of the runtime's). */
int root_pool(const char *id, char *pool);
/* The container stopped (runc deleted it): its root is unmounted. Its
 * branch stays for a later start while the caller's bundle exists,
 * unless the container was to be removed on exit (podman run --rm); then
 * it goes, and with it the runtime's record (and the note of
 * ROOT_POINTER_DIR). Every stopped container whose bundle is gone
 * (podman rm) goes too. 0, or -1. */
int root_stop(const char *id);

/* ROOT_POINTER_DIR/ID: the state directory of container id, for the
 * commands podman runs without the runtime flags it was created with. */
#define ROOT_POINTER_DIR "/run/danaus-runtime"
/* Removes ROOT_POINTER_DIR/ID unless the runtime has container id. */
void root_forget(const char *id);

#endif
