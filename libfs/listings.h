/*
 * listings.h - the first records of a directory's listing, answered by
 * its open (wire.h DANAUS_OPEN_LISTING_AT) and kept for the descriptor's
 * first readdir or getdents64.
 *
 * Once the open answers, the service's offset is past the records, as the
 * kernel's is past what glibc's opendir has buffered. A directory stream
 * that takes them holds them as glibc's holds its buffer. Until one does,
 * they belong to the open file (its handle: a dup shares them), and
 * whatever would see the offset before a reader has taken them gets the
 * offset back as if they had not been read: an lseek, a fork, an exec or
 * spawn that passes descriptors on (an LSEEK to the last record taken).
 */
#ifndef LIBFS_LISTINGS_H
#define LIBFS_LISTINGS_H

#include "fdtable.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes of records an open asks for: a directory stream's buffer holds
 * them all (api/dir.c). */
#define LISTINGS_MAX 32768

/* A place for an open's records, taken before the open asks for them:
 * its index, or -1 when every place is taken (the open asks for none). */
int listings_reserve(void);

/* Gives back a reserved place the open did not fill (it failed, or the
 * file is no directory). */
void listings_cancel(int place);

/* Keeps len bytes of records (the service's) in place for h; end: the
 * service said nothing follows them; after: the service's offset after
 * them. */
void listings_fill(int place, const struct fd_info *h, const void *records,
                   size_t len, bool end, int64_t after);

/* For a new directory stream on fd (handle h): hands over the records
 * kept for h, a malloc'ed buffer of LISTINGS_MAX bytes with the records
 * in [*pos, *len), and forgets them. NULL when none are kept. */
unsigned char *listings_take(int fd, const struct fd_info *h, size_t *pos,
                             size_t *len, bool *end);

/* For getdents64 on fd: copies the whole records kept for h that fit
 * count bytes into buf. True when records were kept (*got: their bytes,
 * or -1 with errno EINVAL when the first does not fit); false when none
 * were, or all have been read (the service has the rest). */
bool listings_read(int fd, const struct fd_info *h, void *buf, size_t count,
                   ssize_t *got);

/* h's descriptors are all closed: its records go. */
void listings_forget(const struct fd_info *h);

/* Before an lseek on fd: its records go, and unless the seek sets the
 * offset itself (SEEK_SET), the offset goes back to the last record taken
 * first. */
void listings_settle(int fd, int whence);

/* Before a fork, or an exec or spawn that passes descriptors on: every
 * kept listing goes, each offset back where its readers stopped. */
void listings_give_back_all(void);

/* Around fork (proc.c). */
void listings_hold(void);
void listings_release(void);

#endif
