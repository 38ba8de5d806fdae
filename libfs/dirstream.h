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

struct call;
struct fd_info;
struct namecache_fill;

/* dirp is a Danaus directory stream (possibly already closed). */
bool dirstream_owns(const DIR *dirp);

/* Before c, an OPEN of rel with flags, is sent: asks for the first
 * records (wire.h) should it be a directory opened for reading, with
 * their attributes when the name cache wants them, into a place of
 * listings.h. The place, or -1 when nothing is asked: none was free, or
 * asking does not pay (O_DIRECTORY says a directory; without it, while
 * the process's opens for reading find enough of them). */
int dirstream_open_ask(struct call *c, const char *rel, int flags);

/* An open with flags found a directory (dir) or something else, as its
 * answer's attributes say. */
void dirstream_open_found(int flags, bool dir);

/* After the open succeeded as handle h, before a descriptor holds it (a
 * close from another thread then finds the records): keeps the records
 * it answered in place for the stream that the descriptor's first
 * readdir makes, and their attributes through fill; gives place back
 * when none came. */
void dirstream_open_keep(const struct call *c, int place,
                         const struct fd_info *h, const char *rel,
                         struct namecache_fill *fill);

/* Around fork (proc.c): the lock over the arena's free slots. */
void dirstream_hold(void);
void dirstream_release(void);

#endif
