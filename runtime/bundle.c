/*
 * bundle.c - reading and changing an OCI bundle's config.json (bundle.h).
 */
#include "bundle.h"
#include "fail.h"
#include "json_write.h"
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define CONFIG_MAX (16 << 20) /* a config.json larger is refused */

struct json *bundle_read_json(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return fail_errno("cannot read %s", path), NULL;
    char *text = malloc(CONFIG_MAX);
    size_t n = text ? fread(text, 1, CONFIG_MAX, f) : 0;
    int bad = ferror(f) || n == CONFIG_MAX;
    fclose(f);
    struct json *j = NULL;
    if (!text)
        fail("out of memory reading %s", path);
    else if (bad)
        fail("cannot read %s (or larger than %d bytes)", path, CONFIG_MAX);
    else
        j = json_parse(path, text, n);
    free(text);
    if (j && j->type != JSON_OBJECT) {
        json_free(j);
        return fail("%s: not a JSON object", path), NULL;
    }
    return j;
}

int bundle_write_json(const char *path, const struct json *j)
{
    char tmp[STATE_PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return fail_errno("cannot write %s", tmp);
    int rc = json_write(f, j);
    if (fclose(f) != 0 || rc < 0 || rename(tmp, path) < 0) {
        unlink(tmp);
        return fail_errno("cannot write %s", path);
    }
    return 0;
}

/* Member key of j when it has type, else NULL (fail.h when key is there
 * twice, or of another type). */
static struct json *member(const struct json *j, const char *key,
                           enum json_type type, int *bad)
{
    const struct json *m;
    if (json_get("config.json", j, key, &m) < 0) {
        *bad = 1;
        return NULL;
    }
    if (m && m->type != type) {
        fail("config.json: \"%s\" has the wrong type", key);
        *bad = 1;
        return NULL;
    }
    return (struct json *)m;
}

int bundle_read(const char *dir, struct bundle *b)
{
    char path[STATE_PATH_MAX];
    *b = (struct bundle){0};
    snprintf(path, sizeof path, "%.4000s/config.json", dir);
    if (!(b->config = bundle_read_json(path)))
        return -1;
    int bad = 0;
    struct json *root = member(b->config, "root", JSON_OBJECT, &bad);
    struct json *rpath = member(root, "path", JSON_STRING, &bad);
    struct json *ro = member(root, "readonly", JSON_BOOL, &bad);
    struct json *notes = member(b->config, "annotations", JSON_OBJECT, &bad);
    struct json *pool = member(notes, BUNDLE_POOL_ANNOTATION, JSON_STRING,
                               &bad);
    struct json *autoremove = member(notes, BUNDLE_AUTOREMOVE_ANNOTATION,
                                     JSON_STRING, &bad);
    if (bad)
        return -1;
    b->autoremove = autoremove && strcasecmp(autoremove->text, "true") == 0;
    if (!rpath || !rpath->text[0])
        return fail("%s: no root.path", path);
    b->read_only = ro && strcmp(ro->text, "true") == 0;
    b->pool = pool ? pool->text : NULL;
    if (rpath->text[0] == '/')
        b->root = strdup(rpath->text);
    else if (asprintf(&b->root, "%s/%s", dir, rpath->text) < 0)
        b->root = NULL;
    if (!b->root)
        return fail("out of memory");
    /* The union's lower branches are a ':' separated list of plain
     * paths (wire.h DANAUS_DOOR_MOUNT_ADD). */
    if (!state_plain_path(b->root) || strchr(b->root, ':'))
        return fail("root.path %s: the runtime takes an absolute path "
                    "without '.', '..', empty components or ':'", b->root);
    return 0;
}

/* A bind mount object: source at destination, read-only; NULL when out
 * of memory. */
static struct json *bind_mount(const char *source, const char *destination)
{
    const char *const fields[][2] = {
        {"destination", destination}, {"type", "bind"}, {"source", source}};
    static const char *const options[] = {"rbind", "ro", "nosuid", "nodev"};
    struct json *m = json_new(JSON_OBJECT, NULL, NULL);
    struct json *opts = json_new(JSON_ARRAY, "options", NULL);
    int ok = m && opts;
    for (size_t i = 0; ok && i < sizeof fields / sizeof *fields; i++) {
        struct json *f = json_new(JSON_STRING, fields[i][0], fields[i][1]);
        ok = f != NULL;
        if (f)
            json_append(m, f);
    }
    for (size_t i = 0; ok && i < sizeof options / sizeof *options; i++) {
        struct json *o = json_new(JSON_STRING, NULL, options[i]);
        ok = o != NULL;
        if (o)
            json_append(opts, o);
    }
    if (!ok) {
        json_free(m);
        json_free(opts);
        return NULL;
    }
    json_append(m, opts);
    return m;
}

/* The env entry of name in env ("NAME=..."), or NULL. */
static struct json *env_entry(struct json *env, const char *name)
{
    size_t len = strlen(name);
    for (struct json *e = env->first; e; e = e->next)
        if (e->type == JSON_STRING && strncmp(e->text, name, len) == 0 &&
            e->text[len] == '=')
            return e;
    return NULL;
}

/* Sets NAME=value in env, replacing an entry of that name. 0 or -1. */
static int env_set(struct json *env, const char *name, const char *value)
{
    char *text;
    if (asprintf(&text, "%s=%s", name, value) < 0)
        return fail("out of memory");
    struct json *e = env_entry(env, name);
    if (e) {
        free(e->text);
        e->text = text;
        return 0;
    }
    e = json_new(JSON_STRING, NULL, text);
    free(text);
    if (!e)
        return fail("out of memory");
    json_append(env, e);
    return 0;
}

int bundle_process_env(struct json *process, const char *pool)
{
    int bad = 0;
    struct json *env = member(process, "env", JSON_ARRAY, &bad);
    if (bad)
        return -1;
    if (!env) {
        if (!(env = json_new(JSON_ARRAY, "env", NULL)))
            return fail("out of memory");
        json_append(process, env);
    }
    /* The caller's own preload stays, after libdanaus. */
    struct json *e = env_entry(env, "LD_PRELOAD");
    char preload[STATE_PATH_MAX];
    snprintf(preload, sizeof preload, "%s%s%.3000s", BUNDLE_LIBRARY_INSIDE,
             e && e->text[11] ? " " : "", e ? e->text + 11 : "");
    if (e && strstr(e->text, BUNDLE_LIBRARY_INSIDE))
        snprintf(preload, sizeof preload, "%.4000s", e->text + 11);
    return env_set(env, "LD_PRELOAD", preload) < 0 ||
                   env_set(env, "DANAUS_SERVICE", pool) < 0 ||
                   env_set(env, "DANAUS_RUNDIR", BUNDLE_RUNDIR_INSIDE) < 0
               ? -1
               : 0;
}

int bundle_write(struct bundle *b, const char *dir, const char *root,
                 const char *pool, const char *door, const char *library,
                 const char **paths, int *npaths)
{
    int bad = 0;
    struct json *jroot = member(b->config, "root", JSON_OBJECT, &bad);
    struct json *rpath = member(jroot, "path", JSON_STRING, &bad);
    struct json *mounts = member(b->config, "mounts", JSON_ARRAY, &bad);
    struct json *process = member(b->config, "process", JSON_OBJECT, &bad);
    if (bad || !rpath)
        return -1;
    char *text = strdup(root);
    if (!text)
        return fail("out of memory");
    free(rpath->text);
    rpath->text = text;
    if (!mounts) {
        if (!(mounts = json_new(JSON_ARRAY, "mounts", NULL)))
            return fail("out of memory");
        json_append(b->config, mounts);
    }
    /* Last, so they lie over whatever the caller mounted at /run. */
    struct json *door_mount = bind_mount(door, BUNDLE_RUNDIR_INSIDE);
    struct json *lib_mount = bind_mount(library, BUNDLE_LIBRARY_INSIDE);
    if (!door_mount || !lib_mount) {
        json_free(door_mount);
        json_free(lib_mount);
        return fail("out of memory");
    }
    json_append(mounts, door_mount);
    json_append(mounts, lib_mount);
    if (process && bundle_process_env(process, pool) < 0)
        return -1;
    *npaths = 0;
    for (struct json *m = mounts->first; m; m = m->next) {
        struct json *d = member(m, "destination", JSON_STRING, &bad);
        if (bad)
            return -1;
        if (!d || d->text[0] != '/')
            continue;
        if (*npaths == BUNDLE_PATHS_MAX)
            return fail("more than %d mounts in the container",
                        BUNDLE_PATHS_MAX);
        paths[(*npaths)++] = d->text;
    }
    char path[STATE_PATH_MAX];
    snprintf(path, sizeof path, "%.4000s/config.json", dir);
    return bundle_write_json(path, b->config);
}

void bundle_free(struct bundle *b)
{
    json_free(b->config);
    free(b->root);
    *b = (struct bundle){0};
}
