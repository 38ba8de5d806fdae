/*
 * runinfo.c - a container's run configuration, saved and loaded as JSON
 * (runinfo.h).
 */
#include "runinfo.h"
#include "fail.h"
#include "json_write.h"
#include "state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of entry's name (up to '=' or its end). */
static size_t name_len(const char *entry)
{
    return strcspn(entry, "=");
}

void env_put(struct env *e, const char *entry)
{
    char *copy = strdup(entry);
    if (!copy)
        return;
    size_t len = name_len(entry);
    for (int i = 0; i < e->n; i++)
        if (name_len(e->list[i]) == len &&
            strncmp(e->list[i], entry, len) == 0) {
            free(e->list[i]);
            e->list[i] = copy;
            return;
        }
    char **more = realloc(e->list, sizeof *more * (size_t)(e->n + 2));
    if (!more) {
        free(copy);
        return;
    }
    e->list = more;
    e->list[e->n++] = copy;
    e->list[e->n] = NULL;
}

void env_putf(struct env *e, const char *fmt, ...)
{
    char *entry = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&entry, fmt, ap);
    va_end(ap);
    if (n >= 0)
        env_put(e, entry);
    free(n >= 0 ? entry : NULL);
}

void env_free(struct env *e)
{
    for (int i = 0; i < e->n; i++)
        free(e->list[i]);
    free(e->list);
    e->list = NULL;
    e->n = 0;
}

static void add_strings(struct json *object, const char *key,
                        char *const *list)
{
    struct json *a = json_add(object, JSON_ARRAY, key);
    for (int i = 0; list && list[i]; i++)
        json_add_string(a, NULL, list[i]);
}

/* docker's Mounts: a bind's source is the host directory, a volume's its
 * directory in the pool's backend. */
static void add_mounts(struct json *object, const struct runinfo *r)
{
    struct json *mounts = json_add(object, JSON_ARRAY, "Mounts");
    for (int i = 0; i < r->nvolumes; i++) {
        const struct ns_bind *b = &r->volumes[i];
        struct json *m = json_add(mounts, JSON_OBJECT, NULL);
        char source[STATE_PATH_MAX];
        snprintf(source, sizeof source, "%.3000s/volumes/%s", r->backend,
                 b->volume ? b->volume : "");
        json_add_string(m, "Type", b->volume ? "volume" : "bind");
        if (b->volume)
            json_add_string(m, "Name", b->volume);
        json_add_string(m, "Source", b->volume ? source : b->host);
        json_add_string(m, "Destination", b->inside);
        json_add_bool(m, "RW", !b->readonly);
        if (b->idmap)
            json_add_string(m, "Mode", "idmap");
    }
}

int runinfo_save(const char *name, const struct runinfo *r)
{
    char path[STATE_PATH_MAX];
    state_path(path, "containers/%s/config.json", name);
    struct json *top = json_new(JSON_OBJECT, NULL, NULL);
    struct json *config = json_add(top, JSON_OBJECT, "Config");
    add_strings(config, "Env", r->env);
    add_strings(config, "Cmd", r->argv);
    json_add_string(config, "User", r->user);
    json_add_string(config, "WorkingDir", r->workdir);
    add_mounts(top, r);
    FILE *f = fopen(path, "we");
    int rc = !f || json_write(f, top) < 0 ? -1 : 0;
    if ((f && fclose(f) != 0) || rc < 0 || !config)
        rc = fail("cannot save %s", path);
    json_free(top);
    return rc;
}

/* A string member of o, NULL when absent or empty. */
static const char *text(const struct json *o, const char *key)
{
    const struct json *v = NULL;
    json_get("config.json", o, key, &v);
    return v && v->type == JSON_STRING && v->text[0] ? v->text : NULL;
}

struct ns_bind *runinfo_binds(const struct json *info, int *n)
{
    const struct json *mounts = NULL;
    json_get("config.json", info, "Mounts", &mounts);
    *n = 0;
    for (const struct json *m = mounts ? mounts->first : NULL; m; m = m->next)
        (*n)++;
    struct ns_bind *b = calloc((size_t)*n + 1, sizeof *b);
    int k = 0;
    for (const struct json *m = mounts ? mounts->first : NULL; b && m;
         m = m->next) {
        const struct json *rw = NULL;
        json_get("config.json", m, "RW", &rw);
        const char *mode = text(m, "Mode");
        b[k] = (struct ns_bind){text(m, "Source"), text(m, "Destination"),
                                !rw || strcmp(rw->text, "true") != 0,
                                text(m, "Name"), 0,
                                mode && strcmp(mode, "idmap") == 0};
        if (b[k].inside && (b[k].host || b[k].volume))
            k++;
    }
    *n = k;
    return b;
}

struct json *runinfo_load(const char *name)
{
    char path[STATE_PATH_MAX];
    state_path(path, "containers/%s/config.json", name);
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t cap = 0;
    ssize_t len = getdelim(&text, &cap, '\0', f);
    fclose(f);
    struct json *j = len > 0 ? json_parse(path, text, (size_t)len) : NULL;
    free(text);
    return j;
}
