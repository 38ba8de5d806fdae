/*
 * readcache.h - the client's side of the read cache (ipc.h, cache.c):
 * preads of a Danaus descriptor answered from this process's own area
 * when every byte is there under its handle's current generation, and what
 * PREAD answers bring kept there for the next ones.
 *
 * Only positioned reads (pread, preadv and preadv2 of one buffer) look in
 * the cache: read() moves the service's file offset, which dup'ed and
 * inherited descriptors share, so it always asks the service.
 */
#ifndef LIBFS_READCACHE_H
#define LIBFS_READCACHE_H

#include "call.h"

#include <stddef.h>
#include <sys/types.h>

/* n bytes at off of fd's file into buf from the cache: the bytes copied
 * (fewer only at the end of the file), or -1 when they are not all there
 * (errno untouched: the caller asks the service). */
ssize_t readcache_pread(int fd, void *buf, size_t n, off_t off);

/* After c, a PREAD of want bytes at off, answered got bytes: keeps them
 * if the answer allows and want is not a bulk read (over 64 KiB). */
void readcache_keep(const struct call *c, size_t want, size_t got, off_t off);

/* Readahead. A pread of n bytes at off that missed the cache asks c for
 * the range [*start, *start + *len) instead, which holds it: the aligned
 * window of READCACHE_WINDOW bytes around it when it goes on where the
 * calling thread's last miss of the handle ended (a scan), while c's
 * handle is being cached (its generation is not 0), and the window fits
 * c's buffer and holds the whole pread; else just the pread's range. 32 KiB: below the
 * size the service takes for a bulk transfer and moves to the client's cpu
 * (64 KiB, fsservice/core/blocking.h), which a 64 KiB window paid for on
 * every miss (0.03 context switches a pread where there were 0.0005). */
#define READCACHE_WINDOW (32u << 10)
void readcache_window(const struct call *c, size_t n, off_t off,
                      off_t *start, size_t *len);

#endif
