/*
 * call.h - building and sending one request to the service.
 *
 * A call is begun on a mount (and handle), its strings and data are packed
 * into the thread's slot buffer, and call_send puts the descriptor into the
 * thread's ring and waits for the answer. Outputs are then read from the
 * start of the slot buffer (call_out). The danaus_* API and the interposers
 * are all written in these terms.
 */
#ifndef LIBFS_CALL_H
#define LIBFS_CALL_H

#include "fdtable.h"
#include "mounts.h"
#include "resolve.h"
#include "service.h"
#include "thread.h"

#include <danaus/wire.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Request bytes being packed into a buffer of cap bytes. */
struct call_pack {
    unsigned char *buf;
    uint32_t cap;
    uint32_t len;
};

/* Appends s and its NUL. 0, or -1 with errno ENAMETOOLONG when s is
 * DANAUS_PATH_MAX bytes or longer or does not fit. */
int pack_str(struct call_pack *p, const char *s);

/* Appends rel, an instance-relative path (resolved_path.rel), and its NUL.
 * 0, or -1 with errno ENAMETOOLONG when rel is DANAUS_LONG_PATH_MAX bytes
 * or longer or does not fit. */
int pack_path(struct call_pack *p, const char *rel);

/* Appends n data bytes. 0, or -1 with errno E2BIG when they do not fit. */
int pack_data(struct call_pack *p, const void *data, size_t n);

struct call {
    const struct service *svc;
    struct thread_state *thread;
    struct danaus_desc desc;
    struct call_pack pack;
    int fd; /* the Danaus descriptor the call is on, or -1 */
    /* A large read's pieces, while the call waits: on_bytes(ready,
     * on_bytes_arg) once the first ready bytes of the answer are in
     * call_out (ipc_await_pieces). NULL (call_begin's) for none. */
    ipc_bytes_fn on_bytes;
    void *on_bytes_arg;
    /* A large write's input past its first IPC_INPUT_FIRST bytes, copied
     * in after the request is posted, so that the service writes each
     * piece while the next is copied (ipc.h): fill(fill_arg, dst, n)
     * copies the input's next n bytes to dst. pack.len counts them all.
     * NULL (call_begin's): all of pack.len is packed already. */
    void (*fill)(void *fill_arg, unsigned char *dst, size_t n);
    void *fill_arg;
    /* Work of the caller's own that the service's answer does not
     * change: meanwhile(meanwhile_arg), once, after the request is posted
     * and before its answer is awaited. NULL (call_begin's): none. */
    void (*meanwhile)(void *meanwhile_arg);
    void *meanwhile_arg;
};

/* Begins call id on mount with handle (0 for none). 0 or -1 with errno. */
int call_begin(struct call *c, enum danaus_call id, uint32_t mount,
               uint64_t handle);

/* Begins call id on the file path names (relative to dirfd) and packs its
 * instance-relative path; *where gets the resolution (routing's, when it
 * resolved this path for this call: resolve.h). 0 or -1 with errno. */
int call_begin_path(struct call *c, enum danaus_call id, int dirfd,
                    const char *path, struct resolved_path *where);

/* call_begin_path for a call on a name (path_resolve_name). */
int call_begin_name(struct call *c, enum danaus_call id, int dirfd,
                    const char *path, struct resolved_path *where);

/* Begins call id on Danaus descriptor fd (EBADF otherwise; EIO when its
 * file was lost in a service restart). For the "path | handle" calls,
 * with_path packs the empty path string first. */
int call_begin_fd(struct call *c, enum danaus_call id, int fd, bool with_path);

/* Closes a handle the descriptor table no longer holds (info, from
 * fdtable_remove and the like): 0, or -1 with errno. Nothing is sent (0)
 * for a lost file, or while the service is gone or since replaced: its
 * open files went with it. */
int call_close(const struct fd_info *info);

/* Closes the n handles in v (n at most DANAUS_CLOSE_BATCH) in one CLOSE:
 * 0, or -1 with errno (EBADF when one was not open; the rest are closed). */
int call_close_batch(const struct fd_info *v, int n);

/* Sends the call and waits. The result (>= 0), or -1 with errno. When the
 * service dies meanwhile, the call moves to its successor (resume.c). */
int64_t call_send(struct call *c);

/* The slot buffer, where outputs are, and its size. */
static inline void *call_out(const struct call *c)
{
    return c->pack.buf;
}

static inline uint32_t call_capacity(const struct call *c)
{
    return c->pack.cap;
}

#endif
