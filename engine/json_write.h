/*
 * json_write.h - writes a tree of the engine's JSON reader (json.h) as
 * text, or builds one: the runtime reads an OCI config, changes a few
 * members and hands the result to runc; inspect builds its documents.
 */
#ifndef ENGINE_JSON_WRITE_H
#define ENGINE_JSON_WRITE_H

#include "json.h"

#include <stdio.h>

/* Writes j (and not its siblings) to f. 0, or -1 when f fails. */
int json_write(FILE *f, const struct json *j);
/* The same, a member or item a line, indented by four spaces a level
 * (as docker inspect prints), and a newline after. */
int json_write_indented(FILE *f, const struct json *j);
/* A new value of type (a member, with key; a string, with text; an
 * empty array or object), or NULL when out of memory. */
struct json *json_new(enum json_type type, const char *key, const char *text);
/* Puts item last among container's items. */
void json_append(struct json *container, struct json *item);
/* A member key of object (or, key NULL, an item of array): a string, a
 * number (printed %lld), a boolean. The member made, or NULL when out of
 * memory. */
struct json *json_add_string(struct json *object, const char *key,
                             const char *text);
struct json *json_add_number(struct json *object, const char *key,
                             long long n);
struct json *json_add_bool(struct json *object, const char *key, int b);
/* A new empty object or array as member key (NULL: item) of container. */
struct json *json_add(struct json *container, enum json_type type,
                      const char *key);

#endif
