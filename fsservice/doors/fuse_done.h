/*
 * fuse_done.h - the results of the FUSE requests that change names, and
 * of opens, kept for a successor.
 *
 * A request the dead service did but never answered comes again to the
 * next one (fuse_keeper.h, FUSE_NOTIFY_RESEND). Reading or stat-ing twice
 * is harmless; creating, linking, removing or renaming twice fails the
 * second time (EEXIST, ENOENT) where the program's call succeeded. So
 * those operations note here, in a record area the keeper hands on, under
 * the request's unique id, that they begin and then how they ended, before
 * they answer; the successor answers a resent request from its note
 * instead of running it again. One begun and never noted as done (the
 * service was killed while its backend call ran, which a SIGKILL lets
 * finish) is run again, and the error its own first run would cause
 * (EEXIST, ENOENT) taken for success (fuse_ops.c). An open or opendir
 * notes the handle it gave, so that a resent one is answered with that
 * handle rather than leave it held for good. A write to an O_APPEND file
 * notes where the file ended before it, so that a resent one is settled
 * by the file (fuse_ops.c). The notes are a ring: only
 * the last FUSE_DONE_NOTES requests are remembered, far more than the
 * kernel can have in flight.
 */
#ifndef DANAUS_FUSE_DONE_H
#define DANAUS_FUSE_DONE_H

#include "record_area.h"

#include <stdbool.h>
#include <stdint.h>

#define FUSE_DONE_NOTES 4096
/* The result noted before the backend call: begun, not known to be done. */
#define FUSE_DONE_BEGUN INT64_MIN

enum fuse_done_op {
    DONE_CREATE = 1,
    DONE_MKDIR,
    DONE_MKNOD,
    DONE_SYMLINK,
    DONE_LINK,
    DONE_UNLINK,
    DONE_RMDIR,
    DONE_RENAME,
    DONE_OPEN,    /* result: the handle given */
    DONE_OPENDIR, /* likewise */
    DONE_APPEND,  /* result: bytes written; at: the file's end before */
};

struct fuse_done {
    struct record_area area;
};

/* A new log in an area of its own, or the one in area fd (a previous
 * service's; fd then belongs to d): 0 or -errno. */
int fuse_done_init(struct fuse_done *d);
int fuse_done_adopt(struct fuse_done *d, int fd);
int fuse_done_fd(const struct fuse_done *d);
void fuse_done_free(struct fuse_done *d);

/* Request `unique` (op) ended with result (0, a handle, a count or
 * -errno), or began (FUSE_DONE_BEGUN); at: where, for an append. */
void fuse_done_note(struct fuse_done *d, uint64_t unique,
                    enum fuse_done_op op, int64_t result, int64_t at);

/* Whether request `unique` (op) was noted: true with its *result and
 * *at. */
bool fuse_done_find(const struct fuse_done *d, uint64_t unique,
                    enum fuse_done_op op, int64_t *result, int64_t *at);

#endif
