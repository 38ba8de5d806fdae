/*
 * cred.h - act with a client's identity on the calling thread, for the
 * local-directory backend (local.c).
 *
 * A service thread serves many clients; before each operation it takes on
 * the client's file-system identity (fsuid, fsgid, supplementary groups,
 * capabilities) so the kernel makes every permission decision itself.
 */
#ifndef DANAUS_LOCAL_CRED_H
#define DANAUS_LOCAL_CRED_H

#include "fsservice/libservice/libservice.h"

/* Whether this process can switch identities (it runs as root). When it
 * cannot, every operation simply runs as the service itself. */
int local_cred_can_switch(void);

/* Make the calling thread act as cred. 0 or -errno. */
int local_cred_enter(const struct ls_cred *cred);

/* The epoch of the calling thread's identity: another identity has
 * another (dirs.c keeps what a thread resolved under this epoch only). */
unsigned local_cred_epoch(void);

#endif
