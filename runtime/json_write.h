/*
 * json_write.h - writes a tree of the engine's JSON reader (engine/json.h)
 * back as text: the runtime reads an OCI config, changes a few members
 * and hands the result to runc.
 */
#ifndef RUNTIME_JSON_WRITE_H
#define RUNTIME_JSON_WRITE_H

#include "json.h"

#include <stdio.h>

/* Writes j (and not its siblings) to f. 0, or -1 when f fails. */
int json_write(FILE *f, const struct json *j);
/* A new value of type (a member, with key; a string, with text; an
 * empty array or object), or NULL when out of memory. */
struct json *json_new(enum json_type type, const char *key, const char *text);
/* Puts item last among container's items. */
void json_append(struct json *container, struct json *item);

#endif
