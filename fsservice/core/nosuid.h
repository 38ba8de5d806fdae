/*
 * nosuid.h - a pool whose files give no privileges (danausd.conf `nosuid
 * on`, `danaus pool create --nosuid`): no setuid or setgid bit and no
 * device node reaches its backend, through either door.
 *
 * The kernel's nosuid and nodev mount options only keep a mount from
 * honouring such files; a backend directory holds them for whoever reaches
 * it another way (a host user, a later mount without the options). Here
 * they are never made: every mode a client sets loses its setuid and
 * setgid bits (a directory's setgid too, so new files there take their
 * maker's group), and mknod of a character or block device is refused.
 * FIFOs and sockets are no privilege and stay.
 */
#ifndef DANAUS_NOSUID_H
#define DANAUS_NOSUID_H

#include <stdbool.h>
#include <sys/types.h>

/* mode as the pool stores it: without S_ISUID and S_ISGID when on. */
mode_t nosuid_mode(bool on, mode_t mode);
/* 0 when a node of mode (with its type) may be made; -EPERM for a
 * device when on. */
int nosuid_mknod(bool on, mode_t mode);

#endif
