/*
 * fuse_killpriv.h - a write takes a file's setuid and setgid bits.
 *
 * When a process without CAP_FSETID writes or truncates a setuid or
 * setgid file, the kernel clears those bits. Over FUSE the kernel asks
 * for that as a SETATTR of the mode from the writer, which the backend
 * refuses (EPERM) when the writer does not own the file. The bits a
 * writer may take are the ones writing a byte would take, so whoever may
 * write the file gets that one change, done as the pool's root.
 */
#ifndef DANAUS_FUSE_KILLPRIV_H
#define DANAUS_FUSE_KILLPRIV_H

#include "fuse_call.h"

#include <sys/types.h>

/* After chmod(path, mode) as the requester failed with rc: if the
 * requester may open the file for writing and mode is its mode less its
 * setuid and setgid bits, the chmod done as root on that open file (its
 * result); else rc. */
int fuse_killpriv(struct fuse_call *c, const char *path, mode_t mode, int rc);

#endif
