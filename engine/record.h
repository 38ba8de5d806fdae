/*
 * record.h - the engine's state records: small text files of "key=value"
 * lines (a pool, an image, a container). Saved by writing a temporary file
 * and renaming it, so a crash leaves the old record or the new one.
 */
#ifndef ENGINE_RECORD_H
#define ENGINE_RECORD_H

#define RECORD_MAX 32

struct record {
    int n;
    char *key[RECORD_MAX];
    char *val[RECORD_MAX];
};

/* 0, or -1 with errno (ENOENT: no such record). */
int record_load(const char *path, struct record *r);
int record_save(const char *path, const struct record *r);
/* The value of key, or NULL. */
const char *record_get(const struct record *r, const char *key);
/* The value of key as a number, or def when absent or not a number. */
long long record_num(const struct record *r, const char *key, long long def);
void record_set(struct record *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Takes key and its value away, when there. */
void record_unset(struct record *r, const char *key);
void record_free(struct record *r);

#endif
