/*
 * heldlocks.c - the record locks this process holds (see heldlocks.h).
 *
 * One array of ranges, each with its owner key (the path for POSIX locks,
 * the origin for OFD and flock locks), kind and type, never overlapping
 * another of the same key and kind. A granted SET cuts the ranges it
 * covers out of those and, unless it unlocks, adds itself: what the
 * service's own table (fsservice/core/locks.c) holds, without merging,
 * which the service redoes when the ranges are taken again. Most
 * processes never lock: every entry point returns at once while the array
 * is empty. The service caps a client's locks (client_locks); past
 * HELD_MAX ranges the copy is given up and a restart loses the locks of
 * every descriptor that held one (they turn lost).
 */
#include "heldlocks.h"

#include "fdtable.h"
#include "lock.h"

#include <danaus/wire.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define HELD_MAX 8192

struct held {
    int kind, type;
    int64_t start, end; /* [start, end); end INT64_MAX: to the end */
    uint64_t origin;    /* OFD, flock */
    char *path;         /* POSIX */
};

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct held *held;
static int nheld, capheld;
static _Atomic bool any; /* nheld > 0 or overflowed, read without the lock */
static bool overflowed;

static bool same_owner(const struct held *h, int kind, uint64_t origin,
                       const char *path)
{
    if (h->kind != kind)
        return false;
    return kind == DANAUS_LOCK_POSIX ? strcmp(h->path, path) == 0
                                     : h->origin == origin;
}

static void drop(int i)
{
    free(held[i].path);
    held[i] = held[--nheld];
}

/* Under held_lock. False when out of room (the copy is then given up). */
static bool add(int kind, int type, int64_t start, int64_t end,
                uint64_t origin, const char *path)
{
    if (nheld == capheld) {
        int cap = capheld ? 2 * capheld : 16;
        struct held *bigger = cap <= HELD_MAX
                                  ? realloc(held, (size_t)cap * sizeof *held)
                                  : NULL;
        if (!bigger)
            return false;
        held = bigger;
        capheld = cap;
    }
    char *copy = NULL;
    if (kind == DANAUS_LOCK_POSIX && !(copy = strdup(path)))
        return false;
    held[nheld++] = (struct held){kind, type, start, end, origin, copy};
    return true;
}

/* Under held_lock: removes [start, end) from the owner's ranges, keeping
 * what lies outside it. */
static bool cut(int kind, uint64_t origin, const char *path, int64_t start,
                int64_t end)
{
    for (int i = 0; i < nheld;) {
        struct held h = held[i];
        if (!same_owner(&h, kind, origin, path) || h.end <= start ||
            h.start >= end) {
            i++;
            continue;
        }
        if (h.start < start &&
            !add(kind, h.type, h.start, start, origin, path))
            return false;
        if (h.end > end && !add(kind, h.type, end, h.end, origin, path))
            return false;
        drop(i); /* moves the last entry here: look at i again */
    }
    return true;
}

void heldlocks_note(int fd, int kind, int type, int64_t start, int64_t len)
{
    uint64_t origin;
    char path[DANAUS_PATH_MAX];
    if (type == F_UNLCK && !atomic_load(&any))
        return;
    if (!fdtable_owner(fd, &origin, path, sizeof path))
        return;
    int64_t end = len == 0 || start > INT64_MAX - len ? INT64_MAX : start + len;
    pthread_mutex_lock(&held_lock);
    if (!overflowed &&
        (!cut(kind, origin, path, start, end) ||
         (type != F_UNLCK && !add(kind, type, start, end, origin, path))))
        overflowed = true;
    atomic_store(&any, nheld > 0 || overflowed);
    pthread_mutex_unlock(&held_lock);
}

bool heldlocks_any(void)
{
    return atomic_load(&any);
}

bool heldlocks_closing(int fd)
{
    uint64_t origin;
    char path[DANAUS_PATH_MAX];
    if (!atomic_load(&any) || !fdtable_owner(fd, &origin, path, sizeof path))
        return false;
    int others;
    fdtable_find(origin, NULL, &others);
    pthread_mutex_lock(&held_lock);
    bool posix = overflowed;
    for (int i = 0; i < nheld;) {
        struct held *h = &held[i];
        bool gone = h->kind == DANAUS_LOCK_POSIX
                        ? strcmp(h->path, path) == 0
                        : h->origin == origin && others <= 1;
        posix |= gone && h->kind == DANAUS_LOCK_POSIX;
        if (gone)
            drop(i);
        else
            i++;
    }
    atomic_store(&any, nheld > 0 || overflowed);
    pthread_mutex_unlock(&held_lock);
    return posix;
}

void heldlocks_hold(void)
{
    pthread_mutex_lock(&held_lock);
}

void heldlocks_release(void)
{
    pthread_mutex_unlock(&held_lock);
}

void heldlocks_after_fork_child(void)
{
    for (int i = 0; i < nheld;) {
        if (held[i].kind == DANAUS_LOCK_POSIX)
            drop(i);
        else
            i++;
    }
    atomic_store(&any, nheld > 0 || overflowed);
}

/* Marks every descriptor of the owner of h lost. */
static void lose_owner(const struct held *h)
{
    const char *path = h->kind == DANAUS_LOCK_POSIX ? h->path : NULL;
    int fd;
    while ((fd = fdtable_find(h->origin, path, NULL)) >= 0)
        fdtable_mark_lost(fd);
}

void heldlocks_restore(void)
{
    if (!atomic_load(&any))
        return;
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < nheld; i++) {
        struct held *h = &held[i];
        const char *path = h->kind == DANAUS_LOCK_POSIX ? h->path : NULL;
        int fd = fdtable_find(h->origin, path, NULL);
        int64_t len = h->end == INT64_MAX ? 0 : h->end - h->start;
        if (fd >= 0 && (overflowed ||
                        lock_restore(fd, h->kind, h->type, h->start, len) < 0))
            lose_owner(h);
    }
    pthread_mutex_unlock(&held_lock);
}
