/*
 * lock.h - fcntl's record-lock commands on a Danaus descriptor, for
 * danaus_fcntl (libfs/api/file.c); implemented with flock and lockf in
 * libfs/api/lock.c.
 */
#ifndef LIBFS_LOCK_H
#define LIBFS_LOCK_H

#include <fcntl.h>

/* F_GETLK, F_SETLK, F_SETLKW and the F_OFD_ twins with Linux's semantics:
 * 0, or -1 with errno. */
int lock_fcntl(int fd, int cmd, struct flock *fl);

#endif
