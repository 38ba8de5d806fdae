/*
 * fuse_mountpoint.h - what the FUSE door and its keeper do to a mount
 * point: tell a mount whose connection the kernel aborted, and detach it.
 */
#ifndef DANAUS_FUSE_MOUNTPOINT_H
#define DANAUS_FUSE_MOUNTPOINT_H

#include <stdbool.h>

/* Whether mp's FUSE connection is gone (stat fails with ENOTCONN,
 * "Transport endpoint is not connected"). */
bool fuse_mountpoint_stale(const char *mp);

/* Detaches the mount at mp lazily: processes inside it keep what they
 * hold, new lookups see the directory below. 0 or -1 (errno). */
int fuse_mountpoint_detach(const char *mp);

#endif
