/*
 * json_write.c - a JSON tree back to text (json_write.h). Numbers and
 * booleans are written as the reader kept them; strings are escaped.
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

static void write_value(FILE *f, const struct json *j)
{
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
            if (j->type == JSON_OBJECT) {
                write_string(f, m->key);
                fputc(':', f);
            }
            write_value(f, m);
        }
        fputc(j->type == JSON_ARRAY ? ']' : '}', f);
    }
}

int json_write(FILE *f, const struct json *j)
{
    write_value(f, j);
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
