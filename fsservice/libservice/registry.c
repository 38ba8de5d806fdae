/*
 * registry.c - the backends by name (libservice.h): register, find, and
 * what the service asks of all of them at once (credentials, caching,
 * stop).
 *
 * A list, newest first, as SQLite's list of VFSes: a shim registered
 * under a backend's name is found in its place, and reaches the backend
 * it wraps by finding it before registering itself. The service's own
 * backends are registered on first use, so that a shim registering from
 * a constructor finds them there.
 */
#include "libservice.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The service's backends: adding one is its folder and a line here. Ceph's
 * is built only where libcephfs is (DANAUS_CEPH in CMakeLists.txt). */
#ifdef DANAUS_WITH_CEPH
#define CEPH_BACKEND(X) X(cephfs_backend)
#else
#define CEPH_BACKEND(X)
#endif
#define BUILTIN_BACKENDS(X) \
    X(local_backend)        \
    CEPH_BACKEND(X)

#define DECLARE(b) extern struct ls_backend b;
BUILTIN_BACKENDS(DECLARE)
#undef DECLARE

static struct ls_backend *backends;
static int cred_slots;
static bool builtins_done;

static int add(struct ls_backend *b)
{
    if (b->cred_init) {
        if (cred_slots == LS_CRED_STATES)
            return -ENOSPC;
        b->cred_slot = cred_slots++;
    }
    b->next = backends;
    backends = b;
    return 0;
}

static void register_builtins(void)
{
    if (builtins_done)
        return;
    builtins_done = true;
#define REGISTER(b) add(&b);
    BUILTIN_BACKENDS(REGISTER)
#undef REGISTER
}

int ls_backend_register(struct ls_backend *b)
{
    register_builtins();
    return add(b);
}

struct ls_backend *ls_backend_find(const char *name)
{
    register_builtins();
    for (struct ls_backend *b = backends; b; b = b->next)
        if (strcmp(b->name, name) == 0)
            return b;
    return NULL;
}

const struct ls_setting_key *ls_backend_setting(const char *key)
{
    register_builtins();
    for (struct ls_backend *b = backends; b; b = b->next)
        for (const struct ls_setting_key *k = b->settings; k && k->name; k++)
            if (strcmp(k->name, key) == 0)
                return k;
    return NULL;
}

/* Whether b is the one found under its name (not hidden by a shim). */
static bool visible(const struct ls_backend *b)
{
    return ls_backend_find(b->name) == b;
}

/* Oldest first, so the names read in the order they were registered. */
static size_t names_from(const struct ls_backend *b, char *buf, size_t size)
{
    if (!b)
        return 0;
    size_t n = names_from(b->next, buf, size);
    if (visible(b) && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " or " : "",
                              b->name);
    return n;
}

void ls_backend_names(char *buf, size_t size)
{
    register_builtins();
    if (size)
        buf[0] = '\0';
    names_from(backends, buf, size);
}

int ls_backend_start(struct ls_backend *b, const struct ls_settings *s,
                     char *err, size_t errlen)
{
    if (b->started || !b->start)
        return 0;
    if (b->start(b, s, err, errlen) < 0)
        return -1;
    b->started = true;
    return 0;
}

bool ls_backend_ready(const struct ls_backend *b)
{
    return !b->start || b->started;
}

struct ls_instance *ls_instance_new(const char *backend, const char *source,
                                    char *err, size_t errlen)
{
    struct ls_backend *b = ls_backend_find(backend);
    if (!b || !ls_backend_ready(b)) {
        snprintf(err, errlen, "backend %s is %s", backend,
                 b ? "not started" : "unknown");
        return NULL;
    }
    return b->instance_new(b, source, err, errlen);
}

int ls_cred_init(struct ls_cred *cred)
{
    memset(cred->state, 0, sizeof cred->state);
    for (struct ls_backend *b = backends; b; b = b->next) {
        if (!b->cred_init || !ls_backend_ready(b))
            continue;
        int rc = b->cred_init(b, cred);
        if (rc < 0) {
            ls_cred_release(cred);
            return rc;
        }
    }
    return 0;
}

void ls_cred_release(struct ls_cred *cred)
{
    for (struct ls_backend *b = backends; b; b = b->next)
        if (b->cred_release && cred->state[b->cred_slot])
            b->cred_release(b, cred);
    memset(cred->state, 0, sizeof cred->state);
}

void ls_backends_enable_cache(const struct ls_change_sink *sink,
                              void (*report)(const char *backend, int err))
{
    for (struct ls_backend *b = backends; b; b = b->next) {
        if (!b->enable_cache || !ls_backend_ready(b))
            continue;
        int rc = b->enable_cache(b, sink);
        if (rc < 0)
            report(b->name, rc);
    }
}

bool ls_backends_cache_writes(void)
{
    for (struct ls_backend *b = backends; b; b = b->next)
        if (b->caches_writes && ls_backend_ready(b) && b->caches_writes(b))
            return true;
    return false;
}

int ls_backends_resize_cache(uint64_t bytes)
{
    int resized = 0;
    for (struct ls_backend *b = backends; b; b = b->next) {
        if (!b->resize_cache || !ls_backend_ready(b))
            continue;
        int rc = b->resize_cache(b, bytes);
        if (rc < 0)
            return rc;
        resized++;
    }
    return resized;
}

void ls_backends_stop(void)
{
    for (struct ls_backend *b = backends; b; b = b->next) {
        if (b->started && b->stop)
            b->stop(b);
        b->started = false;
    }
}
