/*
 * cwd.c - the Danaus cwd (see cwd.h), kept under a lock: chdir and path
 * resolution may run in different threads at once.
 */
#include "cwd.h"
#include "mounts.h"

#include <danaus/wire.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char current[DANAUS_PATH_MAX];
static bool set;

int cwd_get(char *buf, size_t size)
{
    int rc = 0;
    pthread_mutex_lock(&lock);
    if (set) {
        size_t n = strlen(current);
        if (n < size) {
            memcpy(buf, current, n + 1);
            rc = 1;
        } else {
            errno = ERANGE;
            rc = -1;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void cwd_set(const char *path)
{
    pthread_mutex_lock(&lock);
    set = path != NULL && strlen(path) < sizeof current;
    if (set)
        strcpy(current, path);
    pthread_mutex_unlock(&lock);
}

void cwd_renamed(const char *from, const char *to)
{
    pthread_mutex_lock(&lock);
    /* A new path too long to keep leaves the old one: relative paths then
     * fail (ENOENT) rather than reach some other directory. */
    if (set)
        path_moved(current, from, to, current, sizeof current);
    pthread_mutex_unlock(&lock);
}

void cwd_hold(void)
{
    pthread_mutex_lock(&lock);
}

void cwd_release(void)
{
    pthread_mutex_unlock(&lock);
}
