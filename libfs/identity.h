/*
 * identity.h - has the process changed the identity it attached with?
 *
 * The service learns a client's identity once, when it attaches
 * (SO_PEERCRED and SO_PEERGROUPS: effective uid and gid, supplementary
 * groups), and acts with it for every call. A process that then changes
 * its effective ids or groups (seteuid, setgroups, ... as servers dropping
 * privileges and pjdfstest do) must not go on acting as before: from then
 * on its path calls go to the kernel, which reaches Danaus through the
 * FUSE door with each call's own credentials, until it takes back the
 * identity it attached with.
 */
#ifndef DANAUS_LIBFS_IDENTITY_H
#define DANAUS_LIBFS_IDENTITY_H

#include <stdbool.h>

/* Records the identity in force: the one the service is about to see
 * (called just before connecting). */
void identity_remember(void);

/* Called after each call that may change the identity: compares it with
 * the remembered one. */
void identity_recheck(void);

/* The identity differs from the one the service knows. */
bool identity_changed(void);

#endif
