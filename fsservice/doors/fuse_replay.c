/*
 * fuse_replay.c - the FUSE door's answers across a crash of the service
 * (fuse_replay.h): requests resent to the next service, handles given by
 * the previous one, appends settled by the file.
 */
#include "fuse_replay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the dead service had done of the request c runs, with its
 * result in *result; *at gets the note's offset (appends). */
static enum earlier earlier_noted(struct fuse_call *c, enum fuse_done_op op,
                                  int64_t *result, int64_t *at)
{
    bool resent;
    uint64_t unique = fuse_loop_request(&resent);
    int64_t noted;
    if (!resent || !fuse_done_find(&c->ex->done, unique, op, &noted, at))
        return EARLIER_NONE;
    if (noted == FUSE_DONE_BEGUN)
        return EARLIER_BEGUN;
    *result = noted;
    return EARLIER_DONE;
}

static enum earlier earlier_result(struct fuse_call *c, enum fuse_done_op op,
                                   int64_t *result)
{
    int64_t at;
    return earlier_noted(c, op, result, &at);
}

enum earlier fuse_replay_find(struct fuse_call *c, enum fuse_done_op op,
                              int *result)
{
    int64_t noted = 0;
    enum earlier e = earlier_result(c, op, &noted);
    if (e == EARLIER_DONE)
        *result = (int)noted;
    return e;
}

bool fuse_replay_opened(struct fuse_call *c, enum fuse_done_op op,
                        struct fuse_file_info *fi)
{
    int64_t fh = 0;
    struct fuse_handle h;
    struct ls_file *file;
    if (earlier_result(c, op, &fh) != EARLIER_DONE || fh <= 0 ||
        fuse_handles_get(&c->ex->handles, (uint64_t)fh, &h, &file) < 0)
        return false;
    fi->fh = (uint64_t)fh;
    return true;
}

/* Notes the request c runs as begun (FUSE_DONE_BEGUN) or done with
 * result, before it is answered; at: where, for an append. */
static void note_at(struct fuse_call *c, enum fuse_done_op op, int64_t result,
                    int64_t at)
{
    bool resent;
    uint64_t unique = fuse_loop_request(&resent);
    fuse_done_note(&c->ex->done, unique, op, result, at);
}

void fuse_replay_note(struct fuse_call *c, enum fuse_done_op op,
                      int64_t result)
{
    note_at(c, op, result, 0);
}

int fuse_replay_again(enum earlier e, int rc, int left_behind)
{
    return e == EARLIER_BEGUN && rc == -left_behind ? 0 : rc;
}

/* Opens handle h's file (or directory) again by its node's path, as
 * flags, with the service's own rights: the kernel checked the first
 * open, and a file since made read-only, or created so, stays writable
 * through it as on any file system. 0, or -EIO when the path no longer
 * names h's inode (unlinked or replaced meanwhile). */
static int reopen(struct fuse_call *c, const struct fuse_handle *h, int flags,
                  struct ls_file **out)
{
    const struct ls_cred *self =
        fuse_cred_of(c->ex->creds, getpid(), geteuid(), getegid());
    if (!self)
        return -ENOMEM;
    char path[DANAUS_LONG_PATH_MAX];
    struct ls_file *file = NULL;
    struct danaus_stat d;
    int rc = fuse_call_path(c, h->node, path);
    if (rc == 0)
        rc = c->inst->ops->open(c->inst, self, path, flags, 0, &file);
    if (rc == 0 && !h->dir &&
        ((rc = c->inst->ops->fstat(file, self, &d)) == 0 && d.ino != h->ino))
        rc = -ESTALE;
    if (rc < 0) {
        if (file)
            c->inst->ops->close(file);
        return -EIO;
    }
    *out = file;
    return 0;
}

int fuse_replay_file(struct fuse_call *c, const struct fuse_file_info *fi,
                     struct ls_file **out)
{
    struct fuse_handle h;
    struct ls_file *file;
    int rc = fuse_handles_get(&c->ex->handles, fi->fh, &h, out);
    if (rc < 0 || *out)
        return rc;
    rc = reopen(c, &h, h.dir ? O_RDONLY | O_DIRECTORY : h.flags & ~O_TRUNC,
                &file);
    if (rc < 0)
        return rc;
    *out = fuse_handles_set(&c->ex->handles, fi->fh, file);
    if (*out != file)
        c->inst->ops->close(file);
    return *out ? 0 : -EBADF;
}

/* Whether the append of buf that the dead service noted at `at` is in
 * handle fh's file, of size size_now: its size, or -EIO when the file does
 * not end with it there (another writer appended since: made or not
 * cannot be told). Read back through a file of its own, for the handle
 * may be write-only. */
static ssize_t append_made(struct fuse_call *c, uint64_t fh, const char *buf,
                           size_t size, int64_t at, int64_t size_now)
{
    struct fuse_handle h;
    struct ls_file *reader, *held;
    if (size_now < at || (uint64_t)(size_now - at) != size)
        return -EIO;
    ssize_t n = fuse_handles_get(&c->ex->handles, fh, &h, &held);
    if (n == 0)
        n = reopen(c, &h, O_RDONLY, &reader);
    if (n < 0)
        return n;
    char *there = malloc(size ? size : 1);
    n = !there ? -ENOMEM
               : c->inst->ops->pread(reader, c->cred, there, size, at);
    if (n >= 0)
        n = (size_t)n == size && memcmp(there, buf, size) == 0 ? n : -EIO;
    free(there);
    c->inst->ops->close(reader);
    return n;
}

ssize_t fuse_replay_append(struct fuse_call *c, uint64_t fh,
                           struct ls_file *file, const char *buf, size_t size)
{
    int64_t result = 0, at = 0;
    enum earlier e = earlier_noted(c, DONE_APPEND, &result, &at);
    if (e == EARLIER_DONE)
        return result;
    struct danaus_stat d;
    int rc = c->inst->ops->fstat(file, c->cred, &d);
    if (rc < 0)
        return rc;
    ssize_t n;
    if (e == EARLIER_BEGUN && d.size != at) {
        n = append_made(c, fh, buf, size, at, d.size);
    } else {
        off_t end;
        at = d.size;
        note_at(c, DONE_APPEND, FUSE_DONE_BEGUN, at);
        n = c->inst->ops->pwrite(file, c->cred, buf, size, -1, &end);
    }
    note_at(c, DONE_APPEND, n, at);
    return n;
}
