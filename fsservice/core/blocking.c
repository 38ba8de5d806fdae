/*
 * blocking.c - which requests may keep their service thread long
 * (blocking.h).
 *
 * Judged from the request alone, before it runs: data syncs, bulk
 * transfers, and every call that changes the name space or attributes (on
 * Ceph each is a round trip to the MDS, hundreds of microseconds to
 * seconds). What stays is what a cache answers: stat, access, small reads
 * and writes, lookups, directory reads, opens that create nothing, and
 * record locks, which live in the service's own table and never wait
 * there (a conflict answers EAGAIN at once and the library retries a
 * waiting lock: wire.h). On a local directory the host's kernel answers
 * the name space and attributes from its caches as quickly as a stat, so
 * there only syncs, truncates, fallocates (which allocate or free a range's
 * blocks, as a truncate does), flushes of write-back pages and bulk
 * transfers count
 * (call_short_in_kernel). A flush of a few pages is short anywhere: the
 * client's next call after a kept write carries one (DANAUS_DESC_FLUSH),
 * so a long one (a move to the cpu groups and back) would cost more than
 * the round trip the kept write saved.
 * A wrong guess costs little either way: a cheap request
 * counted long costs one wake-up of a parked thread; a long one counted
 * cheap is what the stall watch is for.
 */
#include "blocking.h"

#include "ipc/ipc.h"

#include <fcntl.h>

bool call_may_block(const struct danaus_desc *d)
{
    switch (d->call) {
    case DANAUS_CALL_STAT:
    case DANAUS_CALL_ACCESS:
    case DANAUS_CALL_READLINK:
    case DANAUS_CALL_GETXATTR:
    case DANAUS_CALL_LISTXATTR:
    case DANAUS_CALL_STATFS:
    case DANAUS_CALL_GETFL:
    case DANAUS_CALL_SETFL:
    case DANAUS_CALL_LSEEK:
    case DANAUS_CALL_CLOSE:
    case DANAUS_CALL_GETDENTS:
    case DANAUS_CALL_LOCK:
        return false;
    case DANAUS_CALL_READ:
    case DANAUS_CALL_PREAD:
        return (uint64_t)d->arg[0] >= BLOCKING_BYTES;
    case DANAUS_CALL_WRITE:
    case DANAUS_CALL_PWRITE:
        return d->buf_len >= BLOCKING_BYTES;
    case DANAUS_CALL_OPEN:
        return (d->arg[0] & (O_CREAT | O_TRUNC)) != 0;
    default:
        return true;
    }
}

bool flush_may_block(const struct ipc_area *a)
{
    uint32_t most = BLOCKING_BYTES / IPC_CACHE_BLOCK;
    return ipc_dirty_committed(a, most) == most;
}

bool call_short_in_kernel(const struct danaus_desc *d)
{
    switch (d->call) {
    case DANAUS_CALL_FSYNC:
    case DANAUS_CALL_TRUNCATE:
    case DANAUS_CALL_FALLOCATE:
        return false;
    default:
        return !call_is_bulk_transfer(d);
    }
}

bool call_is_write(const struct danaus_desc *d)
{
    return d->call == DANAUS_CALL_WRITE || d->call == DANAUS_CALL_PWRITE;
}

bool call_is_large_write(const struct danaus_desc *d)
{
    return call_is_write(d) && d->buf_len > IPC_INPUT_FIRST;
}

bool call_is_bulk_transfer(const struct danaus_desc *d)
{
    switch (d->call) {
    case DANAUS_CALL_READ:
    case DANAUS_CALL_PREAD:
    case DANAUS_CALL_WRITE:
    case DANAUS_CALL_PWRITE:
        return call_may_block(d);
    default:
        return false;
    }
}
