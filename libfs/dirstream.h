/*
 * dirstream.h - telling Danaus directory streams from libc's.
 *
 * The interposed readdir, closedir and the rest receive DIR pointers from
 * both danaus_opendir and libc's opendir. A Danaus DIR lives in a reserved
 * range of address space (libfs/api/dir.c), so the question is answered
 * from the pointer's value alone: a libc DIR is never read, and the answer
 * costs a load and two comparisons.
 */
#ifndef LIBFS_DIRSTREAM_H
#define LIBFS_DIRSTREAM_H

#include <dirent.h>
#include <stdbool.h>

/* dirp is a Danaus directory stream (possibly already closed). */
bool dirstream_owns(const DIR *dirp);

/* Around fork (proc.c): the lock over the arena's free slots. */
void dirstream_hold(void);
void dirstream_release(void);

#endif
