/*
 * heldlocks.h - the record locks this process holds, as the service granted
 * them: a copy kept for a restart of the service (resume.h), which takes
 * them again on the new one.
 *
 * The copy follows each lock request the service granted (unlocks too), as
 * ranges per owner: POSIX locks belong to the process and the file, named
 * by path; OFD and flock locks to the open file, named by its origin
 * (fdtable.h). Closing a descriptor drops the process's POSIX locks on its
 * file and, with the open file's last descriptor, its OFD and flock locks,
 * as the service does.
 */
#ifndef LIBFS_HELDLOCKS_H
#define LIBFS_HELDLOCKS_H

#include <stdbool.h>
#include <stdint.h>

/* After the service granted a SET of kind (DANAUS_LOCK_POSIX, _OFD,
 * _FLOCK) and type (F_RDLCK, F_WRLCK, F_UNLCK) over [start, start + len)
 * (len 0: to the end) on fd. */
void heldlocks_note(int fd, int kind, int type, int64_t start, int64_t len);

/* True when the process may hold a record lock (a lock's close must not
 * wait: closes.h). Lock-free. */
bool heldlocks_any(void);

/* Before fd is closed: true when the process held POSIX locks on its file
 * (or the copy overflowed, when it may have). */
bool heldlocks_closing(int fd);

/* Around fork (proc.c), as fdtable_hold. */
void heldlocks_hold(void);
void heldlocks_release(void);

/* In a forked child, after the release: POSIX locks are not inherited;
 * OFD and flock locks, which belong to the shared open file, are. */
void heldlocks_after_fork_child(void);

/* On a restarted service, once the descriptors are open again: takes every
 * held lock again. A lock another process took meanwhile cannot be had:
 * the descriptors it was held through are marked lost (EIO). */
void heldlocks_restore(void);

#endif
