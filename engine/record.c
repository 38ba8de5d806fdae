/*
 * record.c - key=value state files (record.h).
 */
#include "record.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int record_load(const char *path, struct record *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0 && r->n < RECORD_MAX) {
        if (line[len - 1] == '\n')
            line[len - 1] = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        record_set(r, line, "%s", eq + 1);
    }
    free(line);
    fclose(f);
    return 0;
}

int record_save(const char *path, const struct record *r)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -1;
    for (int i = 0; i < r->n; i++)
        fprintf(f, "%s=%s\n", r->key[i], r->val[i]);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        int err = errno;
        fclose(f);
        unlink(tmp);
        errno = err;
        return -1;
    }
    fclose(f);
    return rename(tmp, path);
}

const char *record_get(const struct record *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->key[i], key) == 0)
            return r->val[i];
    return NULL;
}

long long record_num(const struct record *r, const char *key, long long def)
{
    const char *v = record_get(r, key);
    char *end;
    if (!v || !*v)
        return def;
    long long n = strtoll(v, &end, 10);
    return *end ? def : n;
}

void record_set(struct record *r, const char *key, const char *fmt, ...)
{
    char *val;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&val, fmt, ap) < 0)
        abort();
    va_end(ap);
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->key[i], key) == 0) {
            free(r->val[i]);
            r->val[i] = val;
            return;
        }
    if (r->n == RECORD_MAX)
        abort();
    r->key[r->n] = strdup(key);
    r->val[r->n++] = val;
}

void record_unset(struct record *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->key[i], key) == 0) {
            free(r->key[i]);
            free(r->val[i]);
            r->n--;
            r->key[i] = r->key[r->n];
            r->val[i] = r->val[r->n];
            return;
        }
}

void record_free(struct record *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->key[i]);
        free(r->val[i]);
    }
    r->n = 0;
}
