/*
 * announce.h - the service's side of the clients' name and attribute
 * caches (ipc.h, "Announcements"): which counters a change bumps.
 *
 * Every change a door makes is announced after it took effect and before
 * its reply goes out: the preload's calls from dispatch, the FUSE door's
 * from its own operations. A change of one file's attributes or data
 * that names the file by an open file bumps that inode's bucket; every
 * other change (a name made, removed or renamed, anything done by path,
 * anything to a directory) bumps names, which every cached answer
 * depends on. Coarse and cheap: one atomic add per change, and a client
 * that loses a cached answer asks again.
 */
#ifndef DANAUS_ANNOUNCE_H
#define DANAUS_ANNOUNCE_H

#include "fsservice/libservice/libservice.h"
#include "ipc/ipc.h"

#include <stdint.h>

struct announce {
    struct ipc_announce *page; /* NULL: nothing is announced */
    int fd;                    /* handed to clients at hello */
};

/* Creates the page set; timeout_ms bounds how long clients trust an
 * answer (changes outside the service). 0 or -errno. */
int announce_init(struct announce *a, uint32_t timeout_ms);
void announce_free(struct announce *a);

/* A change of names, or one not tied to one open file. */
void announce_names(struct announce *a);

/* A change of the attributes or data of file (names when it is a
 * directory, or its inode number is not known). */
void announce_file(struct announce *a, const struct ls_file *file);

/* A change of the data of the regular file numbered ino (names when ino
 * is 0: not known). */
void announce_data(struct announce *a, uint64_t ino);

#endif
