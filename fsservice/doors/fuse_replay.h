/*
 * fuse_replay.h - what the FUSE door does about a service that died in
 * the middle (fuse_keeper.h), kept out of the operations (fuse_ops.c),
 * which call it around their backend calls.
 *
 * A request the dead service received comes again (fuse_done.h): one it
 * noted as done is answered from its note; one begun is run again, and
 * the error its own first run would cause taken for success. A handle
 * the dead service gave has no file in this process until its first use
 * opens the file again. A resent append is settled by what the file
 * holds, as the preload's are (libfs/resume.c).
 */
#ifndef DANAUS_FUSE_REPLAY_H
#define DANAUS_FUSE_REPLAY_H

#include "fuse_call.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What a service that died before answering the request c runs had done
 * of it: nothing, begun it (the backend call may have happened: a SIGKILL
 * lets a system call in progress finish), or done it. */
enum earlier { EARLIER_NONE, EARLIER_BEGUN, EARLIER_DONE };

/* Whether request c (op) was begun or done before; done, with its
 * result in *result. */
enum earlier fuse_replay_find(struct fuse_call *c, enum fuse_done_op op,
                              int *result);
/* Notes request c (op) as begun (FUSE_DONE_BEGUN) or done with result,
 * before it is answered. */
void fuse_replay_note(struct fuse_call *c, enum fuse_done_op op,
                      int64_t result);
/* rc of a request run again after e: a first run's success leaves
 * left_behind behind (EEXIST after a create, ENOENT after a removal or a
 * rename), which is then its success. */
int fuse_replay_again(enum earlier e, int rc, int left_behind);

/* An open (or opendir) the dead service answered with a handle it never
 * delivered: the handle, still held, into fi->fh, and true. */
bool fuse_replay_opened(struct fuse_call *c, enum fuse_done_op op,
                        struct fuse_file_info *fi);
/* The backend file of the handle in fi into *out. A handle given before
 * the service restarted has no file in this process yet: it is opened
 * again by its node's path, with the flags of its first open but O_TRUNC
 * and the service's own rights; a file unlinked or replaced meanwhile
 * gets EIO, on that handle only. 0 or -errno. */
int fuse_replay_file(struct fuse_call *c, const struct fuse_file_info *fi,
                     struct ls_file **out);
/* Writes buf to the end of file, open O_APPEND as handle fh: a write
 * lands at the backend's end when it runs; a resent one the dead service
 * had begun is made only if the file does not already end with it where
 * the note says the end was. Bytes written or -errno. */
ssize_t fuse_replay_append(struct fuse_call *c, uint64_t fh,
                           struct ls_file *file, const char *buf,
                           size_t size);

#endif
