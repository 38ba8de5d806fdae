/*
 * openfds.h - walking the process's open descriptors, as the kernel lists
 * them in /proc/self/fd, without allocating (exec may run in a vfork
 * child; close_range may run anywhere).
 */
#ifndef DANAUS_LIBFS_OPENFDS_H
#define DANAUS_LIBFS_OPENFDS_H

/* Calls fn for every open descriptor (but the one used for the listing). */
void openfds_each(void (*fn)(int fd, void *arg), void *arg);

#endif
