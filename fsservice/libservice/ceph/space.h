/*
 * space.h - how much a Ceph client may still write before its cluster is
 * full.
 *
 * The cluster says how much room its data pool has left (statfs: the
 * monitors' figure, which reaches 0 at the full ratio) only seconds late:
 * 256 MiB written and fsync'd here showed in statfs 3.4 s later (the OSD's
 * statistics reach the monitor through the manager every few seconds),
 * while a program writing through a service put 700 MiB in libcephfs's
 * cache in one second. Taken at its word, the late figure let a memstore
 * OSD fill to 100%, past its full ratio, and then the MDS could not write
 * its journal: unlinks got their early replies, and the rmdir after them
 * and every mkdir waited for good (docs/recovery.md). So a write gets only
 * the room the cluster last said was left, less what this client wrote in
 * the last SPACE_WINDOW_S seconds, and ENOSPC once that is none. Bytes
 * the cluster's figure already counts are counted twice until they leave
 * the window, which only brings ENOSPC earlier near full. A rewrite of
 * what the same open file wrote, truncated to, or freed by its truncate
 * (O_TRUNC, ftruncate) is not counted: fast rewriters would otherwise use
 * up the window's room with bytes that take none (another file's first
 * write got ENOSPC on a cluster at 2% use; a file rewritten after O_TRUNC
 * at 1 GB/s, on one at 3%).
 * Other overwrites count as new bytes until the room runs short: then a
 * write that lies inside its file (libcephfs's cached size) goes through
 * uncounted, so that rewriting a file never gets ENOSPC. What other
 * clients write is for the full ratio's margin to take.
 */
#ifndef DANAUS_CEPH_SPACE_H
#define DANAUS_CEPH_SPACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define SPACE_WINDOW_S 10
#define SPACE_ASK_MS 1000 /* how often the cluster is asked */
#define SPACE_UNKNOWN UINT64_MAX

struct ceph_space {
    _Atomic uint64_t left; /* bytes, the cluster's last figure */
    /* Bytes written in each of the last seconds (CLOCK_MONOTONIC), the
     * second they were written in beside them. */
    struct space_second {
        _Atomic uint64_t second, bytes;
    } written[SPACE_WINDOW_S];
};

/* Nothing known: every write has room until the first figure. */
void space_init(struct ceph_space *s);

/* The cluster's figure (SPACE_UNKNOWN: could not be asked). */
void space_set_left(struct ceph_space *s, uint64_t left);

/* The bytes a write may still take at now_ns (SPACE_UNKNOWN: no bound). */
uint64_t space_room(struct ceph_space *s, uint64_t now_ns);
/* Whether the cluster's last figure said it is full. */
bool space_full(struct ceph_space *s);
/* n bytes were written at now_ns. */
void space_wrote(struct ceph_space *s, uint64_t n, uint64_t now_ns);

#endif
