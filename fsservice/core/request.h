/*
 * request.h - one request being served: its validated inputs and where its
 * outputs go. Shared by dispatch.c (decoding, the call table) and the
 * handlers in calls_fd.c and calls_path.c.
 *
 * Read once (docs/trust.md): the service reads each byte of a client's
 * buffer at most once, into its own memory, and decides only on that copy.
 * Strings are copied out before they are checked, so a client rewriting its
 * buffer meanwhile changes nothing. Bulk data moves directly between the
 * slot buffer and the backend only where nobody reads it back: a write's
 * payload goes to the backend once, a read's answer is written and never
 * looked at again. An answer that anyone reads after writing it (getdents'
 * records, stat, statfs, listxattr) is built in the service's memory and
 * copied out once (calls_fd.c, calls_path.c).
 */
#ifndef DANAUS_REQUEST_H
#define DANAUS_REQUEST_H

#include "openfile.h"
#include "service.h"

#include <stdbool.h>
#include <stdint.h>

struct request {
    struct service *svc;
    struct client *c;
    const struct danaus_desc *d;
    unsigned char *out;     /* start of the slot buffer */
    uint32_t out_cap;       /* slot buffer size */
    const unsigned char *in; /* [buf_off, buf_off + buf_len) of the buffer */
    uint32_t in_len;
    uint32_t in_used;       /* bytes of in consumed by strings so far */
    struct open_file *of;   /* desc.handle's open file, if it names one */
    int64_t *pos_out;       /* the slot's pos (ipc.h): the offset after a
                               call that moves it */
    uint32_t *cache_gen_out; /* the slot's cache_gen (ipc.h) */
    struct ipc_slot *slot;   /* for ipc_publish_bytes */
    int at_flags;            /* a path call's AT_ flags, once checked */
    /* Instance-relative paths may be longer than PATH_MAX (wire.h). */
    char path[DANAUS_LONG_PATH_MAX];
    char path2[DANAUS_LONG_PATH_MAX]; /* second string: rename target,
                                         xattr name */
};

typedef int64_t (*call_handler)(struct request *r);

/* The next NUL-ended string of the input into out (cap bytes). */
int request_string(struct request *r, char *out, size_t cap);
/* The instance of desc.mount, or NULL. */
struct ls_instance *request_instance(struct request *r);
/* Whether desc.mount is served read-only (EROFS for changes). */
bool request_read_only(struct request *r);
/* st as the client is told it: with the device of the FUSE mount of the
 * call's mount (its open file's, for a call on one) where there is one
 * (service.h's reported_dev). */
void request_report_dev(const struct request *r, struct danaus_stat *st);
/* Whether the file of inode ino (0: r->path's) is a program running from
 * the FUSE door (ETXTBSY for writers, as the kernel says). */
bool request_exec_busy(struct request *r, uint64_t ino);

/* Handlers. calls_fd.c: calls on an open file. */
int64_t call_open(struct request *r);
int64_t call_close(struct request *r);
int64_t call_read(struct request *r);
int64_t call_write(struct request *r);
int64_t call_pread(struct request *r);
int64_t call_pwrite(struct request *r);
int64_t call_lseek(struct request *r);
int64_t call_fsync(struct request *r);
int64_t call_fallocate(struct request *r);
int64_t call_flush(struct request *r);
/* After a PWRITE through r->of: its handle's generation, with
 * IPC_GEN_WRITES_BACK when its next small writes may be kept back. */
void pwrite_may_write_back(struct request *r);
int64_t call_getdents(struct request *r);
int64_t call_getfl(struct request *r);
int64_t call_setfl(struct request *r);

/* calls_lock.c: record locks, and the release of the client's POSIX locks
 * on the file when it closes a handle to it. */
int64_t call_lock(struct request *r);
void locks_on_close(struct request *r, struct open_file *of);

/* calls_path.c: calls on a path, or on an open file where desc.handle is
 * set ("path | handle" in wire.h). */
int64_t call_stat(struct request *r);
int64_t call_access(struct request *r);
int64_t call_mkdir(struct request *r);
int64_t call_mknod(struct request *r);
int64_t call_rmdir(struct request *r);
int64_t call_unlink(struct request *r);
int64_t call_rename(struct request *r);
int64_t call_link(struct request *r);
int64_t call_symlink(struct request *r);
int64_t call_readlink(struct request *r);
int64_t call_chmod(struct request *r);
int64_t call_chown(struct request *r);
int64_t call_utimens(struct request *r);
int64_t call_truncate(struct request *r);
int64_t call_statfs(struct request *r);
int64_t call_getxattr(struct request *r);
int64_t call_setxattr(struct request *r);
int64_t call_listxattr(struct request *r);
int64_t call_removexattr(struct request *r);

#endif
