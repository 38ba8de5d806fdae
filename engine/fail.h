/*
 * fail.h - the engine's one-line error: the function that finds a problem
 * records it and returns -1; main prints it and exits non-zero.
 */
#ifndef ENGINE_FAIL_H
#define ENGINE_FAIL_H

/* Records "fmt ..." (the first problem wins) and returns -1. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fail() with ": strerror(errno)" appended. */
int fail_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The recorded message, or NULL. */
const char *fail_message(void);
/* Forgets the message (a cleanup path may fail quietly). */
void fail_clear(void);

#endif
