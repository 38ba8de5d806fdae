/*
 * fuse_mountpoint.h - what the FUSE door and its keeper do to a mount
 * point: tell a mount whose connection the kernel aborted, find its
 * device, and detach it.
 */
#ifndef DANAUS_FUSE_MOUNTPOINT_H
#define DANAUS_FUSE_MOUNTPOINT_H

#include <stdbool.h>

/* Whether mp's FUSE connection is gone (stat fails with ENOTCONN,
 * "Transport endpoint is not connected"). */
bool fuse_mountpoint_stale(const char *mp);

/* The device number of the mount whose root is mp, the topmost there
 * (/proc/self/mountinfo's "major:minor"; no request to the mount), or 0
 * when none is found. */
unsigned long fuse_mountpoint_dev(const char *mp);

/* Detaches the mount at mp lazily: processes inside it keep what they
 * hold, new lookups see the directory below. 0 or -1 (errno). */
int fuse_mountpoint_detach(const char *mp);

#endif
