/*
 * dirchanges.h - the directories changed lately, for the caches of walks
 * a libservice keeps (union/lookup.c's memo, local/dirs.c's handles), so
 * that removing one directory does not void what every thread remembers
 * of every other.
 *
 * A change counter with the last DIR_CHANGES changes, each the path of
 * the directory it touched, or "every directory" when the caller cannot
 * name it. A cache entry keeps the count it was made at; later it still
 * holds if no change since then touched its path or a directory above
 * it. Writers take a lock (changes are rmdir, rename, chmod: rare);
 * readers take none, and read each record between two looks at its
 * count, as a sequence lock, so a record being rewritten is never taken
 * for another (such a read counts as a change that touched everything).
 * A cache that falls more than DIR_CHANGES behind is void.
 */
#ifndef DANAUS_DIRCHANGES_H
#define DANAUS_DIRCHANGES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIR_CHANGES 64

struct dir_change {
    _Atomic uint64_t count; /* the change this record is, 0 while written */
    _Atomic uint32_t hash;  /* of the path; every directory: len 0, hash 0 */
    _Atomic uint32_t len;
};

struct dir_changes {
    _Atomic uint64_t count; /* changes made so far */
    pthread_mutex_t lock;   /* writers */
    struct dir_change last[DIR_CHANGES];
};

#define DIR_CHANGES_INIT {.lock = PTHREAD_MUTEX_INITIALIZER}

/* After a change of the directory at path (len bytes, no trailing '/'),
 * or of any directory (path NULL) took effect. */
void dir_changes_note(struct dir_changes *c, const char *path, size_t len);

/* The count now: a walk made after reading it knows every change up to
 * it. */
uint64_t dir_changes_now(struct dir_changes *c);

/* Whether a walk of path (len bytes) made at *since still holds: no
 * change after it touched path or a directory above it. When it holds,
 * *since moves to now, so the next look starts there. */
bool dir_changes_spare(struct dir_changes *c, uint64_t *since,
                       const char *path, size_t len);

#endif
