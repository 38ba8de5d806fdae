/*
 * format.h - `danaus ps --format TEMPLATE`: a row per container through a
 * docker-like template, e.g. '{{.Names}}\t{{.Status}}'. Fields: Names (or
 * Name), Pool, Image, Status, Pid, Command, ReadOnly; '\t' and '\n' are a
 * tab and a newline, as docker's own formatter gives them. The same
 * walk serves inspect --format, with the fields of a JSON document.
 */
#ifndef ENGINE_FORMAT_H
#define ENGINE_FORMAT_H

#include <stddef.h>
#include <stdio.h>

struct ps_row {
    const char *name, *pool, *image, *status, *command;
    long long pid;
    int read_only;
};

/* 0 if every {{.Field}} of template is known and closed, else -1 with the
 * message naming the first bad one (fail.h). */
int format_check(const char *template);

/* Prints row through template (checked), then a newline. */
void format_print(const char *template, const struct ps_row *row);

/* A template's field: path (len bytes, the dot dropped: "State.Status")
 * looked up in arg, its text written to out (cap bytes); -1 for none. */
typedef int format_field_fn(const char *path, size_t len, const void *arg,
                            char *out, size_t cap);
/* Prints template to out (NULL: checks it only), fields through value.
 * 0, or -1 at the first bad placeholder, its text in bad. */
int format_fields(const char *template, format_field_fn *value,
                  const void *arg, FILE *out, char *bad, size_t badcap);

#endif
