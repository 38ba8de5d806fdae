/*
 * format.h - `danaus ps --format TEMPLATE`: a row per container through a
 * docker-like template, e.g. '{{.Names}}\t{{.Status}}'. Fields: Names (or
 * Name), Pool, Image, Status, Pid, Command, ReadOnly; '\t' and '\n' are a
 * tab and a newline, as docker's own formatter gives them.
 */
#ifndef ENGINE_FORMAT_H
#define ENGINE_FORMAT_H

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

#endif
