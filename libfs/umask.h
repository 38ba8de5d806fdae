/*
 * umask.h - the calling process's file-mode creation mask.
 *
 * The kernel applies the umask of the process that creates a file; Danaus
 * creates files in the service, whose own umask is 0, so the library applies
 * the client's before it sends a create.
 */
#ifndef DANAUS_LIBFS_UMASK_H
#define DANAUS_LIBFS_UMASK_H

#include <sys/types.h>

/* mode with the process's umask applied. */
mode_t umask_apply(mode_t mode);

/* Sets the umask to mask with set (libc's umask) and keeps it known:
 * what umask returns. */
mode_t umask_set(mode_t (*set)(mode_t), mode_t mask);

#endif
