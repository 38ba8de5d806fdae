/*
 * json_write.c - a JSON tree to text, and trees built (json_write.h).
 * Numbers and booleans are written as the reader kept them; strings are
 * escaped.
 */
#include "json_write.h"

#include <stdlib.h>
#include <string.h>

static void write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void newline(FILE *f, int depth)
{
    if (depth < 0)
        return;
    fputc('\n', f);
    for (int i = 0; i < depth; i++)
        fputs("    ", f);
}

/* depth < 0: all on one line; else indented from depth. */
static void write_value(FILE *f, const struct json *j, int depth)
{
    int inner = depth < 0 ? -1 : depth + 1;
    switch (j->type) {
    case JSON_NULL:
        fputs("null", f);
        return;
    case JSON_BOOL:
    case JSON_NUMBER:
        fputs(j->text, f);
        return;
    case JSON_STRING:
        write_string(f, j->text);
        return;
    case JSON_ARRAY:
    case JSON_OBJECT:
        fputc(j->type == JSON_ARRAY ? '[' : '{', f);
        for (const struct json *m = j->first; m; m = m->next) {
            if (m != j->first)
                fputc(',', f);
            newline(f, inner);
            if (j->type == JSON_OBJECT) {
                write_string(f, m->key);
                fputs(depth < 0 ? ":" : ": ", f);
            }
            write_value(f, m, inner);
        }
        if (j->first)
            newline(f, depth);
        fputc(j->type == JSON_ARRAY ? ']' : '}', f);
    }
}

int json_write(FILE *f, const struct json *j)
{
    write_value(f, j, -1);
    return ferror(f) ? -1 : 0;
}

int json_write_indented(FILE *f, const struct json *j)
{
    write_value(f, j, 0);
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

struct json *json_new(enum json_type type, const char *key, const char *text)
{
    struct json *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->type = type;
    j->text = text ? strdup(text) : NULL;
    j->key = key ? strdup(key) : NULL;
    if ((text && !j->text) || (key && !j->key)) {
        json_free(j);
        return NULL;
    }
    return j;
}

void json_append(struct json *container, struct json *item)
{
    struct json **p = &container->first;
    while (*p)
        p = &(*p)->next;
    *p = item;
}

/* item made of type, key and text put in container; NULL without one. */
static struct json *add(struct json *container, enum json_type type,
                        const char *key, const char *text)
{
    struct json *j = container ? json_new(type, key, text) : NULL;
    if (j)
        json_append(container, j);
    return j;
}

struct json *json_add_string(struct json *object, const char *key,
                             const char *text)
{
    return add(object, JSON_STRING, key, text ? text : "");
}

struct json *json_add_number(struct json *object, const char *key,
                             long long n)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", n);
    return add(object, JSON_NUMBER, key, text);
}

struct json *json_add_bool(struct json *object, const char *key, int b)
{
    return add(object, JSON_BOOL, key, b ? "true" : "false");
}

struct json *json_add(struct json *container, enum json_type type,
                      const char *key)
{
    return add(container, type, key, NULL);
}
