/*
 * cwd.h - the current directory when it is a Danaus directory.
 *
 * chdir into a Danaus directory cannot move the kernel's current directory
 * (the kernel does not know the mount), so libdanaus keeps a "Danaus cwd":
 * while it is set, relative paths start there and getcwd reports it; a
 * chdir anywhere else clears it. Inherited across fork (memory) and exec
 * (the environment, see proc.c).
 */
#ifndef DANAUS_LIBFS_CWD_H
#define DANAUS_LIBFS_CWD_H

#include <stdbool.h>
#include <stddef.h>

/* Copies the Danaus cwd into buf: 1 if one is set, 0 if not, -1 with
 * ERANGE if it does not fit. */
int cwd_get(char *buf, size_t size);
/* Sets it (an absolute, normalized path of a Danaus directory) or clears it
 * (NULL). */
void cwd_set(const char *path);

/* After this process renamed from to to (absolute, normalized): a Danaus
 * cwd at or below from moves with it, as the kernel's cwd follows its
 * directory. */
void cwd_renamed(const char *from, const char *to);

/* Around fork (proc.c): the child must not inherit the lock held by a
 * thread it does not have. */
void cwd_hold(void);
void cwd_release(void);

#endif
