/*
 * writeback.h - small positioned writes kept in this process's area (ipc.h,
 * write-back pages) instead of sent, while the service lets the handle
 * keep them (its generation carries IPC_GEN_WRITES_BACK).
 *
 * The process is dirty from a kept write until a flush sent after it
 * returns: every call carries one (DANAUS_DESC_FLUSH, call.c), and the
 * caches that answer without asking (readcache.h, namecache.h) miss
 * meanwhile, so whatever this process asks of any file sees its writes. What others
 * see is the file as of the last flush, and the backend's lease makes
 * the service flush before another opener goes on. A fork, an exec and
 * the process's exit flush first.
 */
#ifndef LIBFS_WRITEBACK_H
#define LIBFS_WRITEBACK_H

#include "service.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The most pages of the area one write is kept in: a database's page
 * record (sqlite's journal writes a page with 8 bytes around it) fits. */
#define WRITEBACK_MAX_PIECES 4

/* Keeps pwrite(fd, buf, n, off) back: n, or -1 when it must be sent
 * (errno untouched): no room, a handle without the promise, a descriptor
 * that is not plainly open for writing, more than WRITEBACK_MAX_PIECES
 * pages' worth. */
ssize_t writeback_pwrite(int fd, const void *buf, size_t n, off_t off);

/* Whether a kept write may not have been flushed yet. */
bool writeback_dirty(void);

/* Sends a FLUSH when dirty. 0, or -1 with errno. */
int writeback_flush(void);

/* For a call about to be sent: how many writes were kept so far, 0 when
 * every one was flushed (the call need carry no flush). */
uint64_t writeback_pending(void);
/* A call sent when pending() said upto carried a flush that the service
 * made. */
void writeback_flushed(uint64_t upto);

/* After a restart (resume.c): sends the pages that dead's area holds of
 * the handle old, in the order they were written, as PWRITEs through
 * handle (of mount) on the current service; handle 0 drops them (the
 * file could not be opened again). */
void writeback_resend(const struct service *dead, uint64_t old,
                      uint32_t mount, uint64_t handle);

/* In a forked child: nothing of the parent's is ours to flush. */
void writeback_forget(void);

#endif
