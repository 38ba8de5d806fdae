/*
 * json.h - a strict JSON reader (RFC 8259) for what image authors write:
 * image configs and the manifests that name them. Anything outside the
 * grammar is refused, as are strings holding NUL (\u0000: an argument or
 * environment entry cannot carry one) and nesting deeper than
 * JSON_MAX_DEPTH; a key twice in an object is refused when it is asked
 * for (json_get), so no reader can take a different one of the two.
 */
#ifndef ENGINE_JSON_H
#define ENGINE_JSON_H

#include <stddef.h>

#define JSON_MAX_DEPTH 32

enum json_type {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
};

struct json {
    enum json_type type;
    char *text;   /* a string's value (unescaped), a number's or bool's text */
    char *key;    /* as a member of an object, its key */
    struct json *first, *next; /* an array's or object's items; siblings */
};

/* The value that text (len bytes) is, or NULL (fail.h, naming what). */
struct json *json_parse(const char *what, const char *text, size_t len);
void json_free(struct json *j);
/* Member key of object j: 0 with *out (NULL when absent, or when j is not
 * an object), -1 when the key is there twice (fail.h, naming what). */
int json_get(const char *what, const struct json *j, const char *key,
             const struct json **out);

#endif
