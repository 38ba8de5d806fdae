/*
 * image_config.c - an image's run settings, from its configuration to its
 * record and back (image_config.h).
 *
 * In the record a list is its items, each followed by a space, with '%',
 * spaces and control characters written %XX: one line, and an empty
 * list ("") told from a list of one empty item (" ").
 */
#include "image_config.h"
#include "fail.h"
#include "json.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const list_keys[][2] = {
    {"Entrypoint", "entrypoint"}, {"Cmd", "cmd"}, {"Env", "env"}};

int image_config_env_ok(const char *text)
{
    return text[0] != '=' && strchr(text, '=') != NULL;
}

int image_config_user_ok(const char *text)
{
    size_t len = strlen(text), colon = strcspn(text, ":");
    /* Past the name, a ':' and a group with no ':' of its own, if any:
     * without a colon there is nothing past the name to look in. */
    if (len == 0 || len > IMAGE_CONFIG_MAX_USER || colon == 0 ||
        colon + 1 == len || (colon < len && strchr(text + colon + 1, ':')))
        return 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (*p <= ' ' || *p == 0x7f)
            return 0;
    return 1;
}

/* The first bytes of an author's text for a one-line message: control
 * characters shown as '?'. */
static const char *shown(const char *text, char out[65])
{
    snprintf(out, 65, "%s", text);
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            *p = '?';
    return out;
}

/* items into rec's key, encoded (above). */
static void save_list(struct record *rec, const char *key,
                      const struct json *items)
{
    size_t cap = 1;
    for (const struct json *i = items->first; i; i = i->next)
        cap += 3 * strlen(i->text) + 1;
    char *out = malloc(cap), *o = out;
    if (!out)
        abort();
    for (const struct json *i = items->first; i; i = i->next) {
        for (const unsigned char *p = (const unsigned char *)i->text; *p;
             p++)
            o += *p <= ' ' || *p == '%' || *p == 0x7f
                     ? sprintf(o, "%%%02X", *p)
                     : sprintf(o, "%c", *p);
        *o++ = ' ';
    }
    *o = '\0';
    record_set(rec, key, "%s", out);
    free(out);
}

/* One of the lists: null (unset) or an array of at most
 * IMAGE_CONFIG_MAX_ITEMS strings; Env's each NAME=VALUE. */
static int import_list(const struct json *config, int k, struct record *rec)
{
    const char *name = list_keys[k][0];
    const struct json *v;
    if (json_get("image config", config, name, &v) < 0)
        return -1;
    if (!v || v->type == JSON_NULL)
        return 0;
    if (v->type != JSON_ARRAY)
        return fail("image config: \"%s\" is not a list", name);
    int n = 0;
    for (const struct json *i = v->first; i; i = i->next, n++) {
        if (i->type != JSON_STRING)
            return fail("image config: \"%s\" holds a %s", name,
                        "value that is not a string");
        if (n == IMAGE_CONFIG_MAX_ITEMS)
            return fail("image config: \"%s\" has more than %d items", name,
                        IMAGE_CONFIG_MAX_ITEMS);
        char buf[65];
        if (k == 2 && !image_config_env_ok(i->text))
            return fail("image config: \"Env\" entry '%s' is not "
                        "NAME=VALUE", shown(i->text, buf));
    }
    save_list(rec, list_keys[k][1], v);
    return 0;
}

/* WorkingDir or User: absent, null or "" (unset), or a checked string. */
static int import_string(const struct json *config, const char *name,
                         const char *key, int (*ok)(const char *),
                         const char *expected, struct record *rec)
{
    const struct json *v;
    if (json_get("image config", config, name, &v) < 0)
        return -1;
    if (!v || v->type == JSON_NULL)
        return 0;
    if (v->type != JSON_STRING)
        return fail("image config: \"%s\" is not a string", name);
    if (!v->text[0])
        return 0;
    char buf[65];
    if (!ok(v->text))
        return fail("image config: \"%s\" '%s' is not %s", name,
                    shown(v->text, buf), expected);
    record_set(rec, key, "%s", v->text);
    return 0;
}

int image_config_import(const char *text, size_t len, struct record *rec)
{
    struct json *top = json_parse("image config", text, len);
    const struct json *config;
    if (!top)
        return -1;
    int rc = top->type != JSON_OBJECT
                 ? fail("image config: not a JSON object")
                 : json_get("image config", top, "config", &config);
    if (rc == 0 && config && config->type != JSON_OBJECT &&
        config->type != JSON_NULL)
        rc = fail("image config: \"config\" is not an object");
    for (int k = 0; k < 3 && rc == 0; k++)
        rc = import_list(config, k, rec);
    if (rc == 0)
        rc = import_string(config, "WorkingDir", "workdir", state_plain_path,
                           "a plain absolute path", rec);
    if (rc == 0)
        rc = import_string(config, "User", "user", image_config_user_ok,
                           "USER[:GROUP]", rec);
    json_free(top);
    return rc;
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* A list as save_list wrote it; NULL-ended, malloc'ed. */
static char **load_list(const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p; p++)
        n += *p == ' ';
    char **items = calloc(n + 1, sizeof *items);
    char *buf = malloc(strlen(text) + 1), *o = buf;
    if (!items || !buf)
        abort();
    for (size_t i = 0; i < n; i++) {
        items[i] = o;
        for (; *text != ' '; text++)
            if (*text == '%' && hex(text[1]) >= 0 && hex(text[2]) >= 0) {
                *o++ = (char)(hex(text[1]) * 16 + hex(text[2]));
                text += 2;
            } else {
                *o++ = *text;
            }
        *o++ = '\0';
        text++;
    }
    if (n == 0)
        free(buf);
    return items;
}

void image_config_load(const struct record *rec, struct image_config *c)
{
    memset(c, 0, sizeof *c);
    char **lists[] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        const char *v = record_get(rec, list_keys[k][1]);
        if (v)
            lists[k] = load_list(v);
    }
    c->entrypoint = lists[0];
    c->cmd = lists[1];
    c->env = lists[2];
    const char *w = record_get(rec, "workdir"), *u = record_get(rec, "user");
    c->workdir = w ? strdup(w) : NULL;
    c->user = u ? strdup(u) : NULL;
}

void image_config_free(struct image_config *c)
{
    char **lists[] = {c->entrypoint, c->cmd, c->env};
    for (int k = 0; k < 3; k++) {
        if (lists[k] && lists[k][0])
            free(lists[k][0]);
        free(lists[k]);
    }
    free(c->workdir);
    free(c->user);
    memset(c, 0, sizeof *c);
}
