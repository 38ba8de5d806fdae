/*
 * lock.h - fcntl's record-lock commands on a Danaus descriptor, for
 * danaus_fcntl (libfs/api/file.c); implemented with flock and lockf in
 * libfs/api/lock.c.
 */
#ifndef LIBFS_LOCK_H
#define LIBFS_LOCK_H

#include <fcntl.h>
#include <stdint.h>

/* F_GETLK, F_SETLK, F_SETLKW and the F_OFD_ twins with Linux's semantics:
 * 0, or -1 with errno. */
int lock_fcntl(int fd, int cmd, struct flock *fl);

/* Takes a lock the process held on a service that has since restarted
 * (heldlocks.h), without waiting: 0, or -1 with errno. */
int lock_restore(int fd, int kind, int type, int64_t start, int64_t len);

/* Drops the process's POSIX locks on fd's file, as closing a descriptor of
 * it does, for a close that leaves the open file to a dup. Keeps errno; a
 * service that cannot be reached took the locks with it. */
void lock_drop_posix(int fd);

#endif
