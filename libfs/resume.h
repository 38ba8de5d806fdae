/*
 * resume.h - living through a restart of the service.
 *
 * When danausd dies and a new one comes up at the same socket (service.c
 * attaches to it), the process goes on as if nothing happened where that
 * can be done safely:
 *  - its descriptors are opened again, by the path they were opened with,
 *    with their flags and their last known offset (fdtable.h); descriptors
 *    made by dup stay one open file. A file that cannot be opened again
 *    (unlinked, or renamed by another process), or whose path now names
 *    another file (its inode number, which the open answered, differs),
 *    fails with EIO on that descriptor only; the paths follow this
 *    process's own renames (fdtable_renamed).
 *  - a call in flight when the service died is sent again to the new one
 *    when it never started (the slot's begun word, ipc.h), or when doing
 *    it twice changes nothing; a call that changes the namespace and may
 *    have been done is settled by its outcome (mkdir answering EEXIST was
 *    ours, and so on); an append write that may have been done is settled
 *    by the file: the dead service said where it would land (ipc.h
 *    append_at), and the write was made if the file now holds its bytes
 *    there, not made if the file still ends there (it is sent again), and
 *    fails with EIO otherwise, since doing it twice would add the data
 *    twice; so does a fallocate that collapses or inserts a range.
 *  - a service that keeps written data in its memory (hello flag
 *    DANAUS_HELLO_CACHES_WRITES) may have lost a descriptor's writes not
 *    yet fsync'd: the next fsync on it reports EIO, once.
 *  - record locks are taken again (heldlocks.h); one another process took
 *    during the outage makes the descriptors it was held through lost.
 * Not kept: descriptors shared with another process (each process opens
 * its own, so they no longer share an offset), and mounts the new service
 * does not have.
 */
#ifndef LIBFS_RESUME_H
#define LIBFS_RESUME_H

#include "call.h"
#include "service.h"

#include <stdbool.h>

/* resume_call's answer for a call with nothing left to do. */
#define RESUME_DONE 1
/* Services resume_call follows that die in turn before the call is sent
 * again, the request still being in the first one's slot; below CONNS. */
#define RESUME_SUCCESSORS_MAX 2

/* Opens this process's descriptors of dead's service on now's. Called by
 * service.c, once now is current, before other threads may use their
 * descriptors again (service_wait_resumed). */
void resume_descriptors(const struct service *dead,
                        const struct service *now);

/* fd's handle on *svc for call id, waiting for a resume under way. False
 * with errno: EBADF (not a Danaus descriptor), EIO (its file was lost in
 * a restart, or id is an fsync that must report writes a restart lost:
 * once, as Linux reports a failed writeback), ENOTCONN. *svc may move to
 * a newer connection. */
bool resume_fd_info(int fd, uint32_t id, const struct service **svc,
                    struct fd_info *out);

/* Before c is posted: keeps a private copy of the request when the
 * service writes its answer over it (stat of a path, readlink, ...), so
 * that a retry can send it again. */
void resume_keep_request(const struct call *c);

/* c's service died before answering (begun: it had started on it). Moves
 * c to the new service: 0 to send it again, RESUME_DONE with the call's
 * result in *done, or -errno to fail the call with. */
int64_t resume_call(struct call *c, bool begun, int64_t *done);

/* The answer to report for a call sent again after its first try had
 * begun: an outcome that shows the first try's effect counts as success. */
int64_t resume_settle(const struct call *c, int64_t result);

#endif
