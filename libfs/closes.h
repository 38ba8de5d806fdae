/*
 * closes.h - closes of read-only files, sent to the service in batches.
 *
 * Closing a file opened only for reading reports nothing and changes
 * nothing another process sees, while the process holds no record lock
 * (a close drops them): find, tar and compilers close most of what they
 * open that way. Such a close waits here, and DANAUS_CLOSE_BATCH of them
 * go in one CLOSE. The cost: up to DANAUS_CLOSE_BATCH - 1 handles per
 * process stay open on the service after their descriptors are gone
 * (a removed file's space comes back when they go, or the process
 * ends). A forked child shares the list with the handles it inherits and
 * closes its copies in its own batches.
 */
#ifndef LIBFS_CLOSES_H
#define LIBFS_CLOSES_H

#include "fdtable.h"

/* Whether the close of fd may wait for a batch: asked before the close
 * forgets fd's locks (heldlocks_closing). */
bool closes_may_wait(int fd);

/* Closes h (its last descriptor is gone), in a batch when may_wait. 0, or
 * -1 with errno, as call_close. */
int closes_close(const struct fd_info *h, bool may_wait);

/* Sends the closes that wait, before an open for writing: a file this
 * process read lately stays open on the service until they go, and while
 * it is open there the backend gives the new descriptor no write lease
 * (local) or delegation (Ceph), so its reads and writes could not be
 * cached; its open would also wait for the service to give up its own
 * read lease. Keeps errno. */
void closes_flush(void);

/* Around fork (proc.c), before the fork's ticket copies the handles: the
 * child starts with the list the ticket saw. */
void closes_hold(void);
void closes_release(void);

#endif
