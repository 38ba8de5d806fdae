/*
 * fail.c - keeps the first error message of an engine command (fail.h).
 * The first one is the cause; what cleanup meets afterwards is a symptom.
 */
#include "fail.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char message[1024];
static int recorded;

static int record(const char *fmt, va_list ap, int err)
{
    if (recorded)
        return -1;
    int n = vsnprintf(message, sizeof message, fmt, ap);
    if (err && n >= 0 && (size_t)n < sizeof message)
        snprintf(message + n, sizeof message - (size_t)n, ": %s",
                 strerror(err));
    recorded = 1;
    return -1;
}

int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(fmt, ap, 0);
    va_end(ap);
    return -1;
}

int fail_errno(const char *fmt, ...)
{
    int err = errno;
    va_list ap;
    va_start(ap, fmt);
    record(fmt, ap, err);
    va_end(ap);
    return -1;
}

const char *fail_message(void)
{
    return recorded ? message : NULL;
}

void fail_clear(void)
{
    recorded = 0;
}
