/*
 * calls_fd.c - handlers of the calls on open files: open, close, dup, the
 * data calls, space (fallocate), seeking and directory reading.
 *
 * The file offset lives in the service-side open file (openfile.h): read,
 * write, lseek and getdents hold its pos_lock for the call, so descriptors
 * that share an open file share one offset, and concurrent calls on it are
 * atomic with respect to it, as POSIX asks.
 */
#include "blocking.h"
#include "nosuid.h"
#include "request.h"
#include "writeback.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Flags a client may pass to open. */
#define OPEN_FLAGS                                                       \
    (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_NONBLOCK |    \
     O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_SYNC | O_DSYNC | \
     O_LARGEFILE | O_NOATIME | O_DIRECT | O_PATH |                       \
     DANAUS_OPEN_SEEN_REGULAR)
/* With O_PATH, Linux ignores every flag but these. */
#define PATH_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* O_CLOEXEC is the client's; O_DIRECT would bind the alignment of the
 * client's buffer to the backend's device: the service's cache serves
 * instead. */
#define IGNORED_FLAGS (O_CLOEXEC | O_DIRECT)
/* Flags that act only at open time; an open file keeps (and GETFL
 * reports, as Linux's F_GETFL does) all the others. */
#define OPEN_TIME_FLAGS (O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC)
#define SETFL_FLAGS (O_APPEND | O_NONBLOCK)

static const struct ls_ops *ops_of(struct open_file *of)
{
    return of->file->inst->ops;
}

static bool readable(struct open_file *of)
{
    return (atomic_load(&of->flags) & O_ACCMODE) != O_WRONLY;
}

static bool writable(struct open_file *of)
{
    return (atomic_load(&of->flags) & O_ACCMODE) != O_RDONLY;
}

/* Whether the client may keep small writes through of back (ipc.h), the
 * backend willing: a write must reach the file at once with O_SYNC,
 * O_DSYNC and O_DIRECT, and an append's offset is the file's end, which
 * only the backend knows. */
static bool writes_back(struct open_file *of)
{
    return writable(of) && !(atomic_load(&of->flags) &
                             (O_APPEND | O_SYNC | O_DSYNC | O_DIRECT));
}

/* The count a data call asks for, which must fit the slot buffer. */
static int64_t count_arg(struct request *r)
{
    int64_t n = r->d->arg[0];
    return n < 0 || n > r->out_cap ? -EINVAL : n;
}

static int64_t list_into(struct request *r, unsigned char *answer,
                         uint64_t room, int64_t n, int64_t attrs,
                         const char *dir);
static bool listing_attrs_kind(int64_t attrs);

/* Sends the client its own descriptor of file (ls_ops.reader_fd) for
 * handle, without waiting: a client that does not read its pass socket
 * fills it and is answered through the service. Whether it was sent. */
static bool pass_file(struct request *r, int64_t handle, struct ls_file *file)
{
    int fd = file->inst->ops->reader_fd ? file->inst->ops->reader_fd(file)
                                        : -1;
    if (fd < 0 || r->c->pass_fd < 0)
        return false;
    struct danaus_pass pass = {(uint64_t)handle};
    return ipc_send_fds(r->c->pass_fd, &pass, sizeof pass, &fd, 1,
                        MSG_DONTWAIT) == (ssize_t)sizeof pass;
}

static __thread bool passed_here;

bool call_open_passed(void)
{
    bool passed = passed_here;
    passed_here = false;
    return passed;
}

int64_t call_open(struct request *r)
{
    int flags = (int)r->d->arg[0];
    if ((int64_t)flags != r->d->arg[0] || (flags & ~OPEN_FLAGS))
        return -EINVAL;
    /* The client's word only: what it costs if it lies, libservice.h. */
    int seen = flags & DANAUS_OPEN_SEEN_REGULAR ? LS_OPEN_SEEN_REGULAR : 0;
    flags &= ~DANAUS_OPEN_SEEN_REGULAR;
    int64_t list = r->d->arg[2], list_attrs = r->d->arg[3];
    int64_t may_pass = r->d->arg[4];
    if (list < 0 || (uint64_t)list > r->out_cap - DANAUS_OPEN_LISTING_AT ||
        !listing_attrs_kind(list_attrs) || (may_pass != 0 && may_pass != 1))
        return -EINVAL;
    if (flags & O_PATH)
        flags &= PATH_FLAGS;
    else if ((flags & O_ACCMODE) == O_ACCMODE)
        return -EINVAL;
    struct ls_instance *inst = request_instance(r);
    if (!inst)
        return -EINVAL;
    int rc = request_string(r, r->path, sizeof r->path);
    if (rc < 0)
        return rc;
    bool writes = !(flags & O_PATH) &&
                  ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC));
    if (writes && inst->read_only)
        return -EROFS;
    /* A truncating open is refused before it truncates; any other asks
     * after the open, by the number it learnt (no walk of the path). */
    if (writes && (flags & O_TRUNC) && request_exec_busy(r, 0))
        return -ETXTBSY;
    /* On a read-only instance O_CREAT opens what exists and creates
     * nothing, as Linux does on a read-only mount. */
    bool no_create = inst->read_only && (flags & O_CREAT);
    if (no_create)
        flags &= ~(O_CREAT | O_EXCL);
    struct ls_file *file;
    rc = inst->ops->open(
        inst, &r->c->cred, r->path, (flags & ~IGNORED_FLAGS) | seen,
        nosuid_mode(r->svc->cfg.nosuid, (mode_t)(r->d->arg[1] & 07777)),
        &file);
    if (rc == -ENOENT && no_create)
        return -EROFS;
    if (rc < 0)
        return rc;
    if (no_create && (r->d->arg[0] & O_EXCL)) {
        if (rc != LS_OPEN_SPECIAL)
            file->inst->ops->close(file);
        return -EEXIST;
    }
    if (rc == LS_OPEN_SPECIAL)
        return 0;
    if (writes && !(flags & O_TRUNC) && request_exec_busy(r, file->ino)) {
        file->inst->ops->close(file);
        return -ETXTBSY;
    }
    /* Read now: once the handle is in the table, the client may close it
     * (from another thread) before this call returns. */
    struct danaus_open_out out = {.ino = file->ino,
                                  .has_attrs = file->has_attrs};
    if (file->has_attrs) {
        out.attrs = file->attrs;
        request_report_dev(r, &out.attrs);
    }
    struct open_file *of = open_file_new(file, flags & ~OPEN_TIME_FLAGS);
    if (!of)
        return -ENOMEM;
    of->mount = r->d->mount;
    /* The first records, as the GETDENTS that opendir's first readdir
     * would send: one round trip for a directory that fits them. The
     * path was copied out, so the buffer is the answer's now. */
    if (list > 0 && file->is_dir && !(flags & O_PATH)) {
        r->of = of;
        int64_t got = list_into(r, r->out + DANAUS_OPEN_LISTING_AT,
                                r->out_cap - DANAUS_OPEN_LISTING_AT, list,
                                list_attrs, r->path);
        r->of = NULL;
        out.listed = got > 0 ? (uint64_t)got : 0;
    }
    /* Held past the insert: the client may close the handle at once, and
     * the descriptor passed must stay open until it is sent. */
    bool pass = may_pass && !file->is_dir && (flags & O_ACCMODE) == O_RDONLY &&
                !(flags & O_PATH) && file->has_attrs &&
                file->attrs.size >= DANAUS_PASS_MIN;
    if (pass)
        open_file_get(of);
    int64_t h = handle_insert(&r->c->handles, of);
    if (h < 0) {
        open_file_put(of);
        if (pass)
            open_file_put(of);
        return h;
    }
    if (pass) {
        out.passed = pass_file(r, h, file);
        passed_here = out.passed;
        open_file_put(of);
    }
    memcpy(r->out, &out, sizeof out);
    return h;
}

static int64_t close_one(struct request *r, uint64_t handle)
{
    struct open_file *of = handle_remove(&r->c->handles, handle);
    if (!of)
        return -EBADF;
    readcache_forget(&r->svc->readcache, r->c, handle);
    locks_on_close(r, of);
    open_file_put(of);
    return 0;
}

int64_t call_close(struct request *r)
{
    /* The list is the client's memory: read once, before any close. */
    uint64_t more[DANAUS_CLOSE_BATCH - 1];
    uint64_t n = (uint64_t)r->d->arg[0];
    if (n > DANAUS_CLOSE_BATCH - 1 || n * sizeof more[0] > r->in_len)
        return -EINVAL;
    memcpy(more, r->in, n * sizeof more[0]);
    int64_t rc = 0;
    if (r->d->handle || n == 0)
        rc = close_one(r, r->d->handle);
    for (uint64_t i = 0; i < n; i++)
        if (close_one(r, more[i]) < 0)
            rc = -EBADF;
    return rc;
}

/* A read this large is read in pieces of this size, each announced to
 * the client as it lands (ipc_publish_bytes), so that the client copies
 * one out while the next arrives: the two copies of a bulk read, the
 * backend's into the slot and the client's out of it, overlap. */
#define READ_PIECE (64u << 10)

/* Whether of's backend holds its file for the pool's page cache now;
 * *key names its data. */
static bool held_for_pool(struct open_file *of, uint64_t *key)
{
    int held = ops_of(of)->cache_hold(of->file, key);
    return held >= 1 && (held & LS_HOLD_POOL);
}

/* The first pooled read of of: the pages kept of its file are checked
 * against its version now, and its key kept. False when another thread
 * checks or the file cannot be held or stat'ed: that read goes by. */
static bool check_pool_version(struct request *r)
{
    struct open_file *of = r->of;
    int state = OPEN_POOL_UNCHECKED;
    uint64_t key;
    struct danaus_stat st;
    if (!atomic_compare_exchange_strong(&of->pool_state, &state,
                                        OPEN_POOL_CHECKING))
        return false;
    if (!held_for_pool(of, &key) ||
        ops_of(of)->fstat(of->file, &r->c->cred, &st) < 0) {
        atomic_store(&of->pool_state, OPEN_POOL_UNCHECKED);
        return false;
    }
    of->pool_version = (struct poolcache_version){
        st.size, st.mtime_sec, st.ctime_sec, st.mtime_nsec, st.ctime_nsec};
    of->pool_key = key;
    poolcache_check(&r->svc->poolcache, key, &of->pool_version);
    atomic_store(&of->pool_state, OPEN_POOL_CHECKED);
    return true;
}

/* Whether r's reads may go through the pool's page cache (poolcache.h),
 * and *seen, the change count its fills must find: only through a file
 * open for reading alone that its backend holds for the pool (so that
 * changes are announced), whose first read checked the pages kept of it.
 * The count is taken before the hold is looked at: a recall after that
 * look voids the fills. */
static bool pooled(struct request *r, uint32_t *seen)
{
    struct open_file *of = r->of;
    uint64_t key;
    if (!poolcache_on(&r->svc->poolcache) || !ops_of(of)->cache_hold ||
        (atomic_load(&of->flags) & O_ACCMODE) != O_RDONLY)
        return false;
    if (atomic_load(&of->pool_state) != OPEN_POOL_CHECKED &&
        !check_pool_version(r))
        return false;
    *seen = poolcache_fill_begin(&r->svc->poolcache, of->pool_key);
    return held_for_pool(of, &key);
}

/* want bytes at off into buf from the pool's page cache when it has every
 * page, else from the backend, read in whole pages the cache keeps. */
static ssize_t read_through_pool(struct request *r, uint32_t seen, void *buf,
                                 size_t want, off_t off)
{
    struct open_file *of = r->of;
    struct poolcache *pc = &r->svc->poolcache;
    int64_t got = poolcache_read(pc, of->mount, of->pool_key, (uint64_t)off,
                                 want, buf);
    if (got >= 0)
        return (ssize_t)got;
    uint64_t start = (uint64_t)off - (uint64_t)off % POOLCACHE_PAGE;
    uint64_t end = ((uint64_t)off + want + POOLCACHE_PAGE - 1) /
                   POOLCACHE_PAGE * POOLCACHE_PAGE;
    char *span = malloc(end - start);
    if (!span)
        return ops_of(of)->pread(of->file, &r->c->cred, buf, want, off);
    ssize_t k = ops_of(of)->pread(of->file, &r->c->cred, span, end - start,
                                  (off_t)start);
    if (k >= 0) {
        /* Held, the file keeps the size its version says. */
        bool eof = start + (uint64_t)k == (uint64_t)of->pool_version.size;
        poolcache_fill(pc, of->mount, of->pool_key, seen, &of->pool_version,
                       start, span, (uint64_t)k, eof);
        uint64_t skip = (uint64_t)off - start;
        k = (uint64_t)k > skip ? (ssize_t)((uint64_t)k - skip) : 0;
        if ((size_t)k > want)
            k = (ssize_t)want;
        memcpy(buf, span + skip, (size_t)k);
    }
    free(span);
    return k;
}

static ssize_t read_piece(struct request *r, bool pool, uint32_t seen,
                          void *buf, size_t want, off_t off)
{
    if (pool)
        return read_through_pool(r, seen, buf, want, off);
    return ops_of(r->of)->pread(r->of->file, &r->c->cred, buf, want, off);
}

/* n bytes at off into the slot, in pieces when they are many. */
static int64_t read_pieces(struct request *r, off_t off, uint64_t n)
{
    uint32_t seen = 0;
    bool pool = pooled(r, &seen);
    if (n <= READ_PIECE)
        return read_piece(r, pool, seen, r->out, (size_t)n, off);
    uint64_t got = 0;
    while (got < n) {
        size_t want = n - got < READ_PIECE ? (size_t)(n - got) : READ_PIECE;
        ssize_t k = read_piece(r, pool, seen, r->out + got, want,
                               off + (off_t)got);
        if (k < 0)
            return got > 0 ? (int64_t)got : k; /* as a read cut short */
        got += (uint64_t)k;
        ipc_publish_bytes(r->slot, r->d->seq, (uint32_t)got);
        if ((size_t)k < want)
            break;
    }
    return (int64_t)got;
}

/* Every page read counts toward the mount's hit-ratio curve (hrc.h). */
static int64_t read_at(struct request *r, off_t off)
{
    if (!readable(r->of))
        return -EBADF;
    if (r->of->file->is_dir)
        return -EISDIR;
    int64_t n = count_arg(r);
    if (n < 0)
        return n;
    int64_t got = read_pieces(r, off, (uint64_t)n);
    if (got > 0)
        hrc_read(&r->svc->hrc, r->of->mount, r->of->file, (uint64_t)off,
                 (uint64_t)got);
    return got;
}

/* Before an append: tells the client where it lands (ipc.h append_at), so
 * that a client whose service dies meanwhile can learn from the next one
 * whether the write was made. 0, or the error that stops the write. */
static int note_append(struct request *r)
{
    struct danaus_stat st;
    int rc = ops_of(r->of)->fstat(r->of->file, &r->c->cred, &st);
    if (rc < 0)
        return rc;
    r->slot->append_at = st.size;
    /* release: append_at is there before the client can see append_seq. */
    atomic_store_explicit(&r->slot->append_seq, r->d->seq,
                          memory_order_release);
    return 0;
}

/* Writes the input bytes at off, or at the end for O_APPEND (as Linux does
 * even for pwrite); *end gets the offset after the write. A large write's
 * input comes in pieces (ipc_await_input): each is written as it lands, so
 * that the client's copy into the slot and the backend's out of it
 * overlap. A client that stops sending holds its thread INPUT_WAIT_NS at
 * most; the write then ends short, with what came. An append waits for
 * all of its input, so that it lands in one piece, and says where first
 * (note_append). */
static int64_t write_at(struct request *r, off_t off, off_t *end)
{
    if (!writable(r->of))
        return -EBADF;
    bool append = atomic_load(&r->of->flags) & O_APPEND;
    if (append)
        off = -1;
    const struct ls_ops *ops = ops_of(r->of);
    if (r->in_len <= IPC_INPUT_FIRST) {
        int rc = append ? note_append(r) : 0;
        return rc < 0 ? rc
                      : ops->pwrite(r->of->file, &r->c->cred, r->in,
                                    r->in_len, off, end);
    }
    uint64_t give_up = ipc_now_ns() + INPUT_WAIT_NS;
    uint32_t done = 0;
    while (done < r->in_len) {
        uint32_t ready = ipc_await_input(r->slot, r->d->seq,
                                         append ? r->in_len : done + 1,
                                         r->in_len, give_up);
        if (ready <= done)
            break;
        int rc = append ? note_append(r) : 0;
        if (rc < 0)
            return rc;
        size_t want = ready - done;
        ssize_t k = ops->pwrite(r->of->file, &r->c->cred, r->in + done, want,
                                append ? -1 : off + done, end);
        if (k < 0)
            return done > 0 ? done : k; /* as a write cut short */
        done += (uint32_t)k;
        if ((size_t)k < want || append)
            break;
    }
    return done;
}

int64_t call_read(struct request *r)
{
    pthread_mutex_lock(&r->of->pos_lock);
    int64_t n = read_at(r, r->of->pos);
    if (n > 0)
        r->of->pos += n;
    *r->pos_out = r->of->pos;
    pthread_mutex_unlock(&r->of->pos_lock);
    return n;
}

int64_t call_write(struct request *r)
{
    pthread_mutex_lock(&r->of->pos_lock);
    off_t end = r->of->pos;
    int64_t n = write_at(r, r->of->pos, &end);
    if (n >= 0)
        r->of->pos = end;
    *r->pos_out = r->of->pos;
    pthread_mutex_unlock(&r->of->pos_lock);
    return n;
}

/* The generation is taken before the read: a change announced after it
 * voids it, whether the read saw the change or not. */
int64_t call_pread(struct request *r)
{
    if (r->d->arg[1] < 0)
        return -EINVAL;
    uint32_t gen = readable(r->of) && !r->of->file->is_dir
                       ? readcache_begin(&r->svc->readcache, r->c,
                                         r->d->handle, r->of->file,
                                         writes_back(r->of))
                       : 0;
    int64_t n = read_at(r, r->d->arg[1]);
    *r->cache_gen_out = n >= 0 ? gen : 0;
    return n;
}

int64_t call_pwrite(struct request *r)
{
    if (r->d->arg[1] < 0)
        return -EINVAL;
    off_t end;
    return write_at(r, r->d->arg[1], &end);
}

/* Small writes through a file the backend would not hold (open
 * elsewhere) that go by before it is asked again: each ask costs the
 * backend's hold (the local lease's system calls). */
#define ARM_RETRY 64

/* After the write's own announcement (dispatch), which set the handle's
 * generation to 0: a new one, which a client that only writes needs to
 * keep its next writes back; after a small write only, as only small ones
 * are kept (a large one would pay for the backend's hold for nothing). */
void pwrite_may_write_back(struct request *r)
{
    struct open_file *of = r->of;
    if (!writes_back(of) || of->file->is_dir || r->in_len > IPC_CACHE_BLOCK)
        return;
    uint32_t skips = atomic_load(&of->arm_skips);
    if (skips) {
        atomic_store(&of->arm_skips, skips - 1);
        return;
    }
    if (!readcache_begin(&r->svc->readcache, r->c, r->d->handle, of->file,
                         true))
        atomic_store(&of->arm_skips, ARM_RETRY);
}

int64_t call_flush(struct request *r)
{
    writeback_flush(r->svc, r->c, 0);
    return 0;
}

/* A directory's offset is a cookie of its backend: it can be read and set,
 * not computed with. */
static int64_t seek_dir(struct open_file *of, int64_t off, int whence)
{
    if (whence == SEEK_SET && off >= 0)
        return of->pos = off;
    if (whence == SEEK_CUR && off == 0)
        return of->pos;
    return -EINVAL;
}

static int64_t seek_file(struct request *r, int64_t off, int whence)
{
    struct open_file *of = r->of;
    int64_t base;
    struct danaus_stat st;
    switch (whence) {
    case SEEK_SET:
        base = 0;
        break;
    case SEEK_CUR:
        base = of->pos;
        break;
    case SEEK_END:
    case SEEK_DATA:
    case SEEK_HOLE: {
        int rc = ops_of(of)->fstat(of->file, &r->c->cred, &st);
        if (rc < 0)
            return rc;
        if (whence == SEEK_END) {
            base = st.size;
            break;
        }
        /* No sparse-file map: all of a file is data, its end the one hole. */
        if (off < 0)
            return -EINVAL;
        if (off >= st.size)
            return -ENXIO;
        return of->pos = whence == SEEK_DATA ? off : st.size;
    }
    default:
        return -EINVAL;
    }
    if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
        return off > 0 ? -EOVERFLOW : -EINVAL;
    return of->pos = base + off;
}

int64_t call_lseek(struct request *r)
{
    int whence = (int)r->d->arg[1];
    if (whence != r->d->arg[1])
        return -EINVAL;
    pthread_mutex_lock(&r->of->pos_lock);
    int64_t rc = r->of->file->is_dir ? seek_dir(r->of, r->d->arg[0], whence)
                                     : seek_file(r, r->d->arg[0], whence);
    *r->pos_out = r->of->pos;
    pthread_mutex_unlock(&r->of->pos_lock);
    return rc;
}

/* A write of pages kept back that failed is reported here, once. */
int64_t call_fsync(struct request *r)
{
    int rc = ops_of(r->of)->fsync(r->of->file, &r->c->cred, r->d->arg[0] != 0);
    int lost = atomic_exchange(&r->of->writeback_error, 0);
    return rc < 0 ? rc : -lost;
}

/* The modes of linux/falloc.h, checked as the kernel's vfs_fallocate does
 * (EOPNOTSUPP for what no file system takes): at most one operation bit,
 * PUNCH_HOLE only with KEEP_SIZE, the range moves never with it. Newer
 * bits, unknown to the union's partial copies, are refused the same way. */
static int fallocate_mode_check(int64_t mode)
{
    const int64_t keep = FALLOC_FL_KEEP_SIZE;
    switch (mode & ~keep) {
    case 0:
    case FALLOC_FL_ZERO_RANGE:
    case FALLOC_FL_UNSHARE_RANGE:
        return 0;
    case FALLOC_FL_PUNCH_HOLE:
        return mode & keep ? 0 : -EOPNOTSUPP;
    case FALLOC_FL_COLLAPSE_RANGE:
    case FALLOC_FL_INSERT_RANGE:
        return mode & keep ? -EOPNOTSUPP : 0;
    default:
        return -EOPNOTSUPP;
    }
}

/* fallocate(2)'s checks in its order (measured on this kernel): the range,
 * the mode, a descriptor open for writing, a regular file, the range's end;
 * the backend checks the rest (alignment of a collapse, its size limit). */
int64_t call_fallocate(struct request *r)
{
    int64_t mode = r->d->arg[0], off = r->d->arg[1], len = r->d->arg[2];
    if (off < 0 || len <= 0)
        return -EINVAL;
    int rc = fallocate_mode_check(mode);
    if (rc < 0)
        return rc;
    if (!writable(r->of))
        return -EBADF;
    if (r->of->file->is_dir)
        return -EISDIR;
    if (off > INT64_MAX - len)
        return -EFBIG;
    return ops_of(r->of)->fallocate(r->of->file, &r->c->cred, (int)mode, off,
                                    len);
}

/* The records are built in the service's own memory and copied out once:
 * a backend that reads what it wrote (local.c walks d_reclen to find the
 * cookie) must never read the client's buffer, which another of its
 * threads may rewrite meanwhile (request.h). */
/* Reads on into own[got, n) while the listing has more, so that a
 * directory that fits one answer is read in one call and the client
 * learns there (*end) that nothing follows, with no call that answers
 * nothing. An error (no room for the next record) only stops it, the
 * position as it was. Under the open file's pos_lock. */
static int64_t listing_rest(struct request *r, char *own, int64_t n,
                            int64_t got, bool *end)
{
    while (got < n) {
        off_t before = r->of->pos;
        int64_t more = ops_of(r->of)->getdents(r->of->file, &r->c->cred,
                                               own + got, (size_t)(n - got),
                                               &r->of->pos);
        if (more < 0 || more > n - got) {
            r->of->pos = before;
            break;
        }
        *end = more == 0;
        if (*end)
            break;
        got += more;
    }
    return got;
}

/* The attributes of each record in own[0, got) (service memory, the
 * backend's), as STAT of dir/name answers them, into the answer after the
 * records (which start at answer, with room bytes to the buffer's end):
 * what readdirplus gives the FUSE door, for the client's name cache.
 * attrs: DANAUS_LISTING_ATTRS_ALL, _DIRS (of records that may be
 * directories alone) or _XATTRS (wire.h). */
static void listing_attrs(struct request *r, unsigned char *answer,
                          uint64_t room, const char *dir, const char *own,
                          int64_t got, int64_t attrs)
{
    struct ls_instance *inst = r->of->file->inst;
    bool dirs_only = attrs == DANAUS_LISTING_ATTRS_DIRS;
    bool xattrs = attrs == DANAUS_LISTING_ATTRS_XATTRS;
    unsigned char *out = answer + DANAUS_DIRENT_ATTRS_AT(got);
    unsigned char *end = answer + room;
    int64_t records = 0;
    for (int64_t at = 0; at < got; records++) {
        const struct danaus_dirent *d = (const void *)(own + at);
        if (d->d_reclen <= DANAUS_DIRENT_NAME_AT || d->d_reclen > got - at)
            break;
        at += d->d_reclen;
    }
    /* Each record's attributes, then its byte of _XATTRS. */
    size_t each = sizeof(struct danaus_stat) + xattrs;
    if ((uint64_t)(end - out) < (uint64_t)records * each)
        records = (int64_t)((uint64_t)(end - out) / each);
    unsigned char *no_xattrs = out + records * sizeof(struct danaus_stat);
    const struct ls_ops *ops = inst->ops;
    /* dir/name, for a backend without stat_in and for the xattrs probe. */
    bool by_path = !ops->stat_in || xattrs;
    char path[PATH_MAX];
    size_t dlen = strlen(dir);
    int64_t at = 0;
    for (int64_t i = 0; i < records; i++) {
        const struct danaus_dirent *d = (const void *)(own + at);
        const char *name = d->d_name;
        size_t nlen = strnlen(name, d->d_reclen - DANAUS_DIRENT_NAME_AT);
        struct danaus_stat st = {0};
        bool none = false;
        bool dots = strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
        bool wanted = !dirs_only || d->d_type == DT_DIR ||
                      d->d_type == DT_UNKNOWN;
        if (!dots && wanted && nlen < d->d_reclen - DANAUS_DIRENT_NAME_AT &&
            !memchr(name, '/', nlen) && dlen + 1 + nlen < sizeof path) {
            if (by_path && dlen)
                snprintf(path, sizeof path, "%s/%s", dir, name);
            else if (by_path)
                memcpy(path, name, nlen + 1);
            int rc = ops->stat_in
                         ? ops->stat_in(r->of->file, &r->c->cred, name, &st)
                         : ops->stat(inst, &r->c->cred, path,
                                     AT_SYMLINK_NOFOLLOW, &st);
            if (rc < 0)
                memset(&st, 0, sizeof st);
            else
                request_report_dev(r, &st);
            none = xattrs && st.ino &&
                   ops->listxattr(inst, &r->c->cred, path, NULL, 0,
                                  AT_SYMLINK_NOFOLLOW) == 0;
        }
        memcpy(out, &st, sizeof st);
        out += sizeof st;
        if (xattrs)
            no_xattrs[i] = none;
        at += d->d_reclen;
    }
}

/* Lists r->of's directory on from its offset into answer (room bytes):
 * up to n bytes of records, each's attributes after them as attrs says
 * (a DANAUS_LISTING_ATTRS_, or 0) with dir the directory's path; sets the
 * slot's pos and listing_end. The records' bytes, or -errno. */
static int64_t list_into(struct request *r, unsigned char *answer,
                         uint64_t room, int64_t n, int64_t attrs,
                         const char *dir)
{
    if (attrs && (uint64_t)n > DANAUS_DIRENT_PLUS_ROOM(room))
        n = (int64_t)DANAUS_DIRENT_PLUS_ROOM(room);
    void *own = malloc(n ? (size_t)n : 1);
    if (!own)
        return -ENOMEM;
    pthread_mutex_lock(&r->of->pos_lock);
    bool end = false;
    int64_t got = ops_of(r->of)->getdents(r->of->file, &r->c->cred, own,
                                          (size_t)n, &r->of->pos);
    if (got > 0 && got <= n)
        got = listing_rest(r, own, n, got, &end);
    *r->pos_out = r->of->pos;
    pthread_mutex_unlock(&r->of->pos_lock);
    r->slot->listing_end = end;
    if (got > n)
        got = -EIO; /* a backend that says it wrote more than it was given */
    if (got > 0)
        memcpy(answer, own, (size_t)got);
    if (got > 0 && attrs)
        listing_attrs(r, answer, room, dir, own, got, attrs);
    free(own);
    return got;
}

static bool listing_attrs_kind(int64_t attrs)
{
    return attrs == 0 || attrs == DANAUS_LISTING_ATTRS_ALL ||
           attrs == DANAUS_LISTING_ATTRS_DIRS ||
           attrs == DANAUS_LISTING_ATTRS_XATTRS;
}

int64_t call_getdents(struct request *r)
{
    if (!r->of->file->is_dir)
        return -ENOTDIR;
    int64_t n = count_arg(r);
    if (n < 0)
        return n;
    int64_t attrs = r->d->arg[1];
    char dir[PATH_MAX];
    if (!listing_attrs_kind(attrs))
        return -EINVAL;
    if (attrs) {
        int rc = request_string(r, dir, sizeof dir);
        if (rc < 0)
            return rc;
    }
    return list_into(r, r->out, r->out_cap, n, attrs, dir);
}

int64_t call_getfl(struct request *r)
{
    return atomic_load(&r->of->flags);
}

int64_t call_setfl(struct request *r)
{
    int want = (int)(r->d->arg[0] & SETFL_FLAGS);
    int old = atomic_load(&r->of->flags);
    while (!atomic_compare_exchange_weak(&r->of->flags, &old,
                                         (old & ~SETFL_FLAGS) | want))
        ;
    return 0;
}
