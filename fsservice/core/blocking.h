/*
 * blocking.h - which requests may keep their service thread long: the ones
 * another client's small, cached requests must not queue behind
 * (workers.c hands the queue to another thread before running them).
 */
#ifndef DANAUS_BLOCKING_H
#define DANAUS_BLOCKING_H

#include <danaus/wire.h>
#include <stdbool.h>

/* Bulk transfers from this many bytes count as possibly long. */
#define BLOCKING_BYTES (64u << 10)

/* How long a large write waits for its client's pieces (ipc_await_input)
 * before it ends short with what came. */
#define INPUT_WAIT_NS (20 * 1000000ull)

struct ipc_area;

/* d is the service's private copy of a request. A FLUSH, and the flush a
 * request carries (DANAUS_DESC_FLUSH), are judged by flush_may_block
 * instead, where the client's area is known. */
bool call_may_block(const struct danaus_desc *d);
/* Whether a FLUSH of the pages a's client kept back may: as a write of
 * their bytes would (judged from how many are committed now). */
bool flush_may_block(const struct ipc_area *a);
/* Of those, the ones that stay short on an instance whose name space the
 * host's kernel keeps (ls_instance.kernel_name_space): everything but
 * syncs, truncates, fallocates and bulk transfers. */
bool call_short_in_kernel(const struct danaus_desc *d);
/* Of those, the bulk reads and writes: long for their copies, which the
 * client overlaps with its own when it runs beside (calls_fd.c's
 * pieces). */
bool call_is_bulk_transfer(const struct danaus_desc *d);
/* WRITE or PWRITE. */
bool call_is_write(const struct danaus_desc *d);
/* A write whose input may come in pieces (ipc.h's IPC_INPUT_FIRST). */
bool call_is_large_write(const struct danaus_desc *d);

#endif
