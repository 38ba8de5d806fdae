/*
 * ipc.h - shared-memory transport between libdanaus and danausd.
 *
 * Trust boundary: the single client (process), not the memory. Two kinds of
 * shared memory, both memfds handed over the door's Unix socket with
 * SCM_RIGHTS at hello (never a name or id another process could open):
 *
 *   queues   one per service, mapped by every client: per core group a
 *            queue of doorbells (client index, slot, sequence: one 64-bit
 *            word) and the counters service threads sleep on. Nothing
 *            else: no request, no answer, no geometry.
 *   area     one per client, mapped only by that client and the service:
 *            its read cache (cache.c), when the service offers one; then
 *            its slots, each a completion word, a result, the request
 *            descriptor and a bulk buffer of slot_buf bytes. The file
 *            holds a slot's memory only once the service gave the slot
 *            out (it grows as the client's threads attach), and a slot
 *            given back gives its pages back.
 *
 * A client thread writes its descriptor into its own slot, publishes its
 * sequence number in the slot's posted word, and rings a doorbell in the
 * queue of its core group. A service thread takes a doorbell (one atomic
 * exchange, so a cell is never left half-taken), finds the client by the
 * index in its own private table, and serves the slot only if that client
 * owns it, its posted word holds the doorbell's sequence and the sequence
 * was not served before. It copies the descriptor out once and uses only
 * the copy (no double fetch). Identity, handle table and mount view are
 * those of the client whose area the request was found in.
 *
 * The fast lane: a service thread that has just answered a slot, and spins
 * for more work, watches that slot's posted word too and says so in the
 * slot's watched word; a client that finds it set after posting rings no
 * bell (ipc_send), which spares a round trip two of its cache-line
 * transfers each way (bench/ipc_roundtrip measures it). A request found
 * so is checked like one found by its bell. Setting watched itself
 * only keeps a client's own bells from being rung: its requests then wait
 * for a watcher or the sweep.
 *
 * Doorbells are the fast path, not the only one: a bell can be lost (a
 * client may overwrite any cell, or keep every cell full), so the service
 * also sweeps the owned slots of every client now and then (every few ms)
 * and serves what was posted and not taken; a client that finds no room
 * for its bell within a bounded wait leaves its request to the sweep.
 *
 * What a client can therefore do to others: ring doorbells naming them,
 * which at most makes the service look at a request they posted themselves
 * (answered once); fill, churn or overwrite the queues, which costs service
 * time and can delay others by one sweep period, never stall them (the
 * service empties every cell it looks at, so a cell cannot be wedged);
 * bump the counters, which costs spurious wake-ups. It
 * cannot read or write another client's slots, descriptors, buffers or
 * completion words, and the geometry it needs comes in the hello reply,
 * so scribbling on shared memory cannot send new clients elsewhere.
 *
 * Verbs:
 *   service: ipc_queues_create, ipc_area_create, ipc_take, ipc_wait_work,
 *            ipc_await_input, ipc_publish_bytes, ipc_complete, ipc_queue_backlog,
 *            ipc_queue_wake_all
 *   client:  ipc_queues_map, ipc_area_map, ipc_send (ipc_post, then
 *            ipc_ring unless watched), ipc_publish_input, ipc_await,
 *            ipc_await_pieces
 *   both:    ipc_queues_unmap, ipc_area_unmap
 *
 * The service reads every shared field as hostile: indices are bounded
 * before use and no loop waits on a value that only a client can change
 * without a bound on time. It reads each at most once per use, into its
 * own memory, and never reads back what it wrote there (docs/trust.md
 * lists every such read).
 */
#ifndef DANAUS_IPC_H
#define DANAUS_IPC_H

#include <danaus/wire.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IPC_MAX_CPUS DANAUS_MAX_CPUS
#define IPC_MAX_QUEUES 256
#define IPC_MAX_CELLS (1u << 16)
#define IPC_MAX_SLOTS (1u << 16)      /* per client */
#define IPC_MAX_SLOT_BUF (1u << 30)
#define IPC_MAX_CACHE_BLOCKS (1u << 18) /* per client: 1 GiB */
#define IPC_MAX_DIRTY_PAGES (1u << 16)  /* per client: 256 MiB */
#define IPC_CACHELINE 64

/* A doorbell: which client's slot holds a request with which sequence. */
struct ipc_bell {
    uint32_t client; /* < IPC_MAX_CLIENTS */
    uint32_t slot;   /* < IPC_MAX_SLOTS */
    uint32_t seq;
};
#define IPC_MAX_CLIENTS (1u << 15)

struct ipc_queue {
    /* Producers and consumers start their scans here; hints only. */
    _Atomic uint32_t produce_hint __attribute__((aligned(IPC_CACHELINE)));
    _Atomic uint32_t consume_hint __attribute__((aligned(IPC_CACHELINE)));
    /* Bumped after every take: with work_seq, an O(1) hint that doorbells
     * are waiting, see ipc_queue_pending. */
    _Atomic uint32_t take_seq;
    /* Bumped after every ring; service threads futex-sleep on it. */
    _Atomic uint32_t work_seq __attribute__((aligned(IPC_CACHELINE)));
    _Atomic uint32_t sleepers; /* service threads asleep on work_seq */
    /* Bumped after every take; producers sleep on it while the queue is
     * full. */
    _Atomic uint32_t room_seq __attribute__((aligned(IPC_CACHELINE)));
    _Atomic uint32_t room_waiters;
    /* ncells doorbells, a power of two; 0 is an empty cell. */
    _Atomic uint64_t cells[] __attribute__((aligned(IPC_CACHELINE)));
} __attribute__((aligned(IPC_CACHELINE)));

struct ipc_slot {
    _Atomic uint32_t done;    /* seq of the last answered request */
    _Atomic uint32_t waiting; /* the client sleeps on done */
    _Atomic uint32_t posted;  /* seq of the request desc holds */
    /* seq of the request the service took to run: once begun == seq the
     * request may have had effects even if the service dies before it
     * answers. The client reads it only after the service is gone, to
     * decide whether a retry on the next service is safe (libfs/resume.c). */
    _Atomic uint32_t begun;
    int64_t result;           /* >= 0 or -errno; valid once done == seq */
    /* The open file's offset after a READ, WRITE, LSEEK or GETDENTS
     * answered in this slot (written before done): the client keeps it to
     * restore the offset on a restarted service. */
    int64_t pos;
    /* Where a write to an O_APPEND file is about to land: the file's size
     * just before the backend writes, published as append_at, then
     * append_seq = seq. If the service dies during that write, the client
     * asks the next service whether its bytes are there (libfs/resume.c):
     * a write not noted here was not made. Read by the client only. */
    int64_t append_at;
    _Atomic uint32_t append_seq;
    /* Where each side runs while a request is in flight, as cpu + 1 (0:
     * not known), so that neither spins for a peer that needs its cpu
     * (wait.c), and so that a long call runs on its client's cpu
     * (fsservice/core/placement.c). Hints: the service compares client_cpu
     * with its own cpu and moves a long call only to a cpu of the call's
     * crew, so a forged value costs at most one bounded spin, or puts the
     * forger's own long calls on a cpu it could have run on itself. */
    _Atomic uint32_t client_cpu; /* the client, as it posts */
    _Atomic uint32_t server_cpu; /* the service thread running the request;
                                    0 until taken and once answered */
    /* After a PREAD: the generation the read cache may keep its data
     * under (cache.c), 0 for none; written before done, like pos. */
    uint32_t cache_gen;
    /* After a GETDENTS: 1 when the answer ends the listing (the backend
     * had nothing after its records); written before done, like pos. */
    uint32_t listing_end;
    /* After a request with DANAUS_DESC_FLUSH (wire.h): its seq once the
     * service has written the client's write-back pages; written before
     * done, like pos. */
    uint32_t flushed;
    /* Non-zero while a service thread watches posted (the fast lane). */
    _Atomic uint32_t watched;
    /* How much of a large read's answer is in buf already, as (seq << 32)
     * | bytes: the client copies those out while the rest arrives
     * (ipc_publish_bytes, ipc_await_pieces). */
    _Atomic uint64_t bytes_ready;
    /* How much of a large write's input is in buf, as (seq << 32) | bytes
     * of the input: the service writes those while the rest arrives
     * (ipc_publish_input, ipc_await_input). */
    _Atomic uint64_t bytes_in;
    struct danaus_desc desc;
    unsigned char buf[] __attribute__((aligned(4096)));
};

struct ipc_geometry {
    uint32_t nqueues;  /* core groups */
    uint32_t ncells;   /* per queue, power of two */
    uint32_t nslots;   /* slots of one client area */
    uint32_t slot_buf; /* bulk bytes per slot, multiple of 4096 */
    uint32_t cache_blocks; /* read cache blocks per client, a power of two,
                              or 0 for none */
    uint32_t dirty_pages;  /* write-back pages per client (writeback.c), 0
                              for none; only with a read cache */
    uint16_t cpu_queue[IPC_MAX_CPUS]; /* cpu number -> queue index */
};

/* The queues of a service. The geometry is each side's private copy: the
 * service's own, the client's from the hello reply. */
struct ipc_segment {
    int fd;
    unsigned char *queues;
    uint32_t nqueues, ncells;
    uint64_t queue_size, size;
};

struct ipc_cache_block;
struct ipc_dirty_page;

/* One client's slots, and its read cache. */
struct ipc_area {
    int fd;
    unsigned char *base;  /* the mapping: size bytes */
    unsigned char *slots; /* after the read cache */
    uint32_t nslots, slot_buf;
    uint32_t grown;       /* service: the file holds slots [0, grown) */
    uint64_t slot_size, size, cache_size;
    uint32_t cache_blocks;              /* 0: no cache */
    _Atomic uint32_t *cache_gens;       /* IPC_CACHE_HANDLES words */
    struct ipc_cache_block *cache_heads; /* cache_blocks of them */
    unsigned char *cache_data;          /* cache_blocks * IPC_CACHE_BLOCK */
    uint32_t dirty_pages;               /* 0: no write-back */
    struct ipc_dirty_page *dirty_heads; /* dirty_pages of them */
    unsigned char *dirty_data;          /* dirty_pages * IPC_CACHE_BLOCK */
};

/* Geometry limits: 1..IPC_MAX_QUEUES queues, ncells a power of two up to
 * IPC_MAX_CELLS, 1..IPC_MAX_SLOTS slots, slot_buf a multiple of 4096 up to
 * 1 GiB, cache_blocks 0 or a power of two up to IPC_MAX_CACHE_BLOCKS,
 * dirty_pages up to IPC_MAX_DIRTY_PAGES and 0 without a read cache,
 * every cpu_queue entry < nqueues. Every call returns 0 or -errno:
 * -EINVAL for a bad geometry, or (map) a descriptor that is not a memfd of
 * at least the size the geometry implies (for an area: its read cache).
 * Fresh slots have done == posted == 0. The descriptors are close-on-exec, and an area's mapping is not
 * inherited by fork (MADV_DONTFORK). */
bool ipc_geometry_valid(const struct ipc_geometry *g);
int ipc_queues_create(const struct ipc_geometry *g, struct ipc_segment *out);
int ipc_queues_map(int fd, const struct ipc_geometry *g,
                   struct ipc_segment *out);
void ipc_queues_unmap(struct ipc_segment *seg); /* and close fd */
int ipc_area_create(const struct ipc_geometry *g, struct ipc_area *out);
int ipc_area_map(int fd, const struct ipc_geometry *g, struct ipc_area *out);
void ipc_area_unmap(struct ipc_area *area); /* and close fd */

/* An area's file holds its read cache and, at first, no slot: slot i may
 * be touched only once the service grew it to hold slot i. Touching a
 * slot beyond the file's end faults (SIGBUS), so the service grows it
 * before it gives the slot out, and touches no other. */

/* Service: the file holds slots [0, n) from now on (it never shrinks).
 * 0 or -errno. */
int ipc_area_grow(struct ipc_area *a, uint32_t n);

/* Service: slot i was given back: its pages leave the file (they read as
 * zeros if touched again, and cost memory again only then). */
void ipc_area_release_slot(struct ipc_area *a, uint32_t i);

static inline struct ipc_queue *ipc_queue(const struct ipc_segment *seg,
                                          uint32_t i)
{
    return (struct ipc_queue *)(seg->queues + (uint64_t)i * seg->queue_size);
}

static inline struct ipc_slot *ipc_slot(const struct ipc_area *area,
                                        uint32_t i)
{
    return (struct ipc_slot *)(area->slots + (uint64_t)i * area->slot_size);
}

/*
 * Liveness probe a waiting client calls now and then (every few ms of
 * sleeping): returns false when the service is gone, and the wait then fails
 * with -ENOTCONN instead of hanging. NULL: never give up.
 */
typedef bool (*ipc_alive_fn)(void *arg);

/* Client: put d in slot s as request seq (d->seq is set to it). True when
 * a service thread watches the slot: the request then needs no doorbell. */
bool ipc_post(struct ipc_slot *s, const struct danaus_desc *d, uint32_t seq);

/* Client: ring b in q. Waits (spin, then futex) while q is full, for a
 * bounded time (tens of ms): 0, -EAGAIN when no room came (the request,
 * already posted, is then served by the service's sweep) or -ENOTCONN. */
int ipc_ring(const struct ipc_segment *seg, struct ipc_queue *q,
             struct ipc_bell b, ipc_alive_fn alive, void *arg);

/* Client: post d in slot s as request b.seq and ring b in q, unless a
 * service thread watches s (the fast lane): what every request does. 0, or
 * ipc_ring's error. */
int ipc_send(const struct ipc_segment *seg, struct ipc_queue *q,
             struct ipc_slot *s, const struct danaus_desc *d,
             struct ipc_bell b, ipc_alive_fn alive, void *arg);

/* Client: wait until slot s answers seq; returns the result or -ENOTCONN.
 * A signal does not end the wait: the request is in flight and is answered
 * exactly once. seq must differ from the slot's current done (a thread
 * numbers its requests done + 1, done + 2, ...). */
int64_t ipc_await(struct ipc_slot *s, uint32_t seq, ipc_alive_fn alive,
                  void *arg);

/* Client: ipc_await, and while it spins, bytes(ready, bytes_arg) each time
 * the service says that more of request seq's answer, ready bytes from the
 * start of the buffer, is there. */
typedef void (*ipc_bytes_fn)(uint32_t ready, void *bytes_arg);
int64_t ipc_await_pieces(struct ipc_slot *s, uint32_t seq, ipc_alive_fn alive,
                         void *arg, ipc_bytes_fn bytes, void *bytes_arg);

/* Service: the first ready bytes of request seq's answer are in s's
 * buffer, final (before ipc_complete). */
void ipc_publish_bytes(struct ipc_slot *s, uint32_t seq, uint32_t ready);

/*
 * A large write's input in pieces, the other way round: the client posts
 * once the first IPC_INPUT_FIRST bytes of the input are in the buffer and
 * copies the rest in while the service writes what is there. Only WRITE and
 * PWRITE requests are read so; their input is the descriptor's buf_len
 * bytes from buf_off.
 */
#define IPC_INPUT_FIRST (64u << 10)

/* Client: the first ready bytes of request seq's input are in s's buffer
 * (before ipc_send when all of a large input is there already, and after
 * each piece copied in after it). */
void ipc_publish_input(struct ipc_slot *s, uint32_t seq, uint32_t ready);

/* Client: whether the service thread watching s (the fast lane) asks for
 * a large write's input in pieces: it spins on another cpu and would write
 * each piece there while the client copies the next (IPC_WATCHING_PIECES).
 * Otherwise whoever takes the request would wait for the pieces where
 * they cannot come, or be woken for each. A hint; either answer is safe. */
bool ipc_slot_takes_pieces(const struct ipc_slot *s);

/* Service: how many of the len bytes of request seq's input are in s's
 * buffer (at least the first IPC_INPUT_FIRST), waiting until want are or
 * until give_up_ns (ipc_now_ns), whichever comes first: a client that
 * never sends the rest, or says it sent more than len, costs one bounded
 * wait. Spins while the client runs on another cpu and sleeps in short
 * steps otherwise (it then waits for this very cpu). */
uint32_t ipc_await_input(struct ipc_slot *s, uint32_t seq, uint32_t want,
                         uint32_t len, uint64_t give_up_ns);

/* Service: take one doorbell out of q without waiting. The bell is only a
 * claim: the caller checks it against the named client's area. after: the
 * client served last (UINT32_MAX: none); another client's bell is taken
 * first if there is one, so that clients of a busy queue take turns and a
 * client with many requests waiting cannot make another's wait behind all
 * of them. */
bool ipc_take(const struct ipc_segment *seg, struct ipc_queue *q,
              uint32_t after, struct ipc_bell *out);

/* Service: a slot watched while spinning for work (the fast lane): the
 * posted word as last served; on IPC_WOKE_SLOT, the new one. offer: what
 * the slot's watched word says meanwhile, IPC_WATCHING or (0 is taken as
 * that) IPC_WATCHING_PIECES. */
struct ipc_watch {
    struct ipc_slot *slot;
    uint32_t posted;
    uint32_t offer;
};
#define IPC_WATCHING 1u
#define IPC_WATCHING_PIECES 2u

enum ipc_woke { IPC_WOKE_NONE, IPC_WOKE_QUEUE, IPC_WOKE_SLOT };

/* Service: wait until q may hold a doorbell, without taking it, or (watch
 * not NULL) the watched slot's posted word moves: spin up to spin_ns, then
 * sleep up to sleep_ms (-1: until woken), watching only while spinning.
 * NONE on timeout and after ipc_queue_wake_all. A slot's new posted word
 * is a claim like a doorbell's: it is checked before it is served. */
enum ipc_woke ipc_wait_work(const struct ipc_segment *seg,
                            struct ipc_queue *q, struct ipc_watch *watch,
                            uint64_t spin_ns, int sleep_ms);

/* Service: publish the result of request seq in slot s and wake its thread. */
void ipc_complete(struct ipc_slot *s, uint32_t seq, int64_t result);

/* Service: the calling thread starts running the request in s (it tells
 * the waiting client where). */
void ipc_slot_running(struct ipc_slot *s);

/* Service: whether s's client last said it waits on the calling thread's
 * own cpu: then it needs this cpu to send its next request, and spinning
 * for that request would only keep it off. */
bool ipc_slot_client_here(const struct ipc_slot *s);

/* Service: the cpu mark s's client posted from (cpu + 1, 0 unknown; any
 * value a client wrote, to be bounded before use). */
uint32_t ipc_slot_client_mark(const struct ipc_slot *s);

/* Service: doorbells were rung and not all taken yet, read from two
 * counters without scanning the cells. A hint: a client that scribbles on
 * the counters can make it wrong, so nothing may sleep on its word alone
 * (ipc_wait_work scans the cells before it sleeps). */
bool ipc_queue_pending(const struct ipc_queue *q);

/* Service: cells holding a doorbell in q, bounded by ncells. */
uint32_t ipc_queue_backlog(const struct ipc_segment *seg, struct ipc_queue *q);

/* Wake every sleeper of q (service shutdown). */
void ipc_queue_wake_all(struct ipc_queue *q);

/*
 * The read cache (cache.c): copies of file data in a client's own area, so
 * that a pread of cached blocks costs the client a lookup and a copy and
 * no round trip. The client fills it with what its own PREADs returned and
 * reads it itself; the service writes one thing there, each handle's
 * generation, and reads nothing back. A block counts only while the
 * generation it was kept under is its handle's current one: the service
 * gives a generation with a PREAD's answer when the backend lets the data
 * be cached (it will be told before the data changes), and sets the
 * handle's generation to a new one, or 0, before any change takes effect,
 * and to 0 when the handle closes.
 *
 * Trust: the area is the client's alone, so its cache holds only bytes its
 * own reads of handles open for reading were answered with. A client that
 * scribbles on its cache reads wrong bytes of files it could read anyway;
 * nothing it writes there is read by the service or another client.
 */
#define IPC_CACHE_BLOCK 4096u
#define IPC_CACHE_HANDLES (1u << 16) /* handle indices with a generation */

struct ipc_cache_block {
    /* Odd while a client thread rewrites the block; a reader copies, then
     * checks it did not move (a sequence lock among the client's threads). */
    _Atomic uint32_t seq;
    uint32_t len;     /* valid bytes: IPC_CACHE_BLOCK, or fewer at the end
                         of the file */
    uint32_t gen;     /* the handle's generation it was kept under */
    uint32_t pad;
    uint64_t handle;
    uint64_t index;   /* file offset / IPC_CACHE_BLOCK */
};

/* handle's generation now: 0 when nothing of it may be read from the
 * cache (or there is no cache). Loaded sequentially consistent, so a look
 * comes after the caller's own sequentially consistent stores (a kept
 * write's ipc_dirty_commit). */
uint32_t ipc_cache_gen(const struct ipc_area *a, uint64_t handle);

/* Client: copies n > 0 bytes at off of handle's file into buf if all of
 * them are cached and current: the bytes copied (fewer only at the end of
 * the file), or -1 when any is not. */
ssize_t ipc_cache_read(const struct ipc_area *a, uint64_t handle, void *buf,
                       size_t n, uint64_t off);

/* Client: keeps what a PREAD of want bytes at off returned (got bytes in
 * data) under gen, the answer's cache_gen (0 keeps nothing). */
void ipc_cache_keep(const struct ipc_area *a, uint64_t handle, uint32_t gen,
                    const void *data, size_t got, size_t want, uint64_t off);

/* Service: handle index's generation is gen from now on (0: none of its
 * blocks counts). */
void ipc_cache_set_gen(const struct ipc_area *a, uint32_t index, uint32_t gen);

/*
 * Write-back pages (writeback.c): small positioned writes a client keeps
 * in its own area instead of sending them, while its handle's generation
 * carries IPC_GEN_WRITES_BACK: the service gives that bit only to a
 * handle open for writing whose backend holds the file for this open file
 * alone (a local write lease) and tells the service, which flushes the
 * handle's pages and sets its generation to 0 before anyone else may
 * open the file. The service also flushes them when the client asks
 * (FLUSH) and when the client is gone; a client whose service died sends
 * them to the next one.
 *
 * A page's state moves FREE -> CLAIMED (a client thread fills it) ->
 * COMMITTED -> TAKEN (the service, or the client resending it, copied it
 * and writes it) -> FREE. The client commits, then looks at the handle's
 * generation again, both sequentially consistent; the service sets the
 * generation to 0, then takes: so either the service's flush finds the
 * page, or the client sees the generation moved and takes it back
 * (ipc_dirty_retract) to send it itself. seq orders the pages of one
 * client: the service writes what it took in seq order.
 *
 * Trust: every word is the client's. The service decides only on its copy
 * (ipc_dirty_take), looks the handle up in that client's own table, and
 * checks the range; a client that rewrites its pages misleads the service
 * only into writing bytes of its own into files it has open for writing.
 */
#define IPC_GEN_WRITES_BACK 0x80000000u

enum ipc_dirty_state {
    IPC_DIRTY_FREE = 0,
    IPC_DIRTY_CLAIMED,
    IPC_DIRTY_COMMITTED,
    IPC_DIRTY_TAKEN,
};

struct ipc_dirty_page {
    _Atomic uint32_t state; /* enum ipc_dirty_state */
    uint32_t len;           /* bytes at off, up to IPC_CACHE_BLOCK */
    uint64_t handle;
    uint64_t off;
    uint64_t seq;
};

/* Client: a FREE page made CLAIMED, looking from *cursor on (which moves
 * past it); -1 when every page is in use. */
int32_t ipc_dirty_claim(const struct ipc_area *a, uint32_t *cursor);

/* Client: fills claimed page i and makes it COMMITTED. */
void ipc_dirty_commit(const struct ipc_area *a, uint32_t i, uint64_t handle,
                      uint64_t seq, const void *data, uint32_t len,
                      uint64_t off);

/* Client: takes committed page i back (FREE): true, else the service (or a
 * resend) has taken it. */
bool ipc_dirty_retract(const struct ipc_area *a, uint32_t i);

/* Client: whether page i is TAKEN still. */
bool ipc_dirty_taken(const struct ipc_area *a, uint32_t i);

/* Service (or a client resending a dead service's pages): takes page i if
 * it is COMMITTED, or TAKEN when also_taken (a dead service's flush may
 * not have written it), copying its head into *copy. */
bool ipc_dirty_take(const struct ipc_area *a, uint32_t i, bool also_taken,
                    struct ipc_dirty_page *copy);

/* The data of page i, len bytes (at most IPC_CACHE_BLOCK), copied out. */
void ipc_dirty_copy(const struct ipc_area *a, uint32_t i, void *out,
                    uint32_t len);

/* Page i was written (or dropped): FREE again. */
void ipc_dirty_release(const struct ipc_area *a, uint32_t i);

/* Service: how many pages are COMMITTED, counting up to most: a hint
 * (the client may change them as they are counted). */
uint32_t ipc_dirty_committed(const struct ipc_area *a, uint32_t most);

/*
 * Announcements (announce.c): what lets a client keep names and attributes
 * it was answered with and use them again without asking, as the kernel's
 * dentry and inode caches do. One page set per service, written by the
 * service alone and mapped read-only by every client (the memfd is sealed
 * against new writable mappings before any client gets it): counters the
 * service bumps after a change takes effect and before the change's reply
 * is sent, whichever door it came through.
 *
 *   names    every change of a name (create, remove, rename, link), of a
 *            directory's attributes (its search permission guards every
 *            name below it), or of anything the service cannot tie to one
 *            file: every cached answer depends on it
 *   attrs    every change of one file's attributes or data (it is bumped
 *            before the file's inode bucket)
 *   inodes   per inode-number bucket: a change of a file in it
 *   timeout_ms  how long an answer may be used without announcements:
 *            changes made to the backend outside the service are seen
 *            within it (0: nothing may be kept)
 *   instance    tells one service's page from its successor's
 *
 * A client keeps an answer with the counters it read BEFORE it asked
 * (names) or, for the inode bucket it only learns from the answer, the
 * bucket read after it while attrs stayed as read before it: the service
 * bumps attrs, then the bucket, so a bucket read after a bump of it comes
 * with the bump of attrs (acquire/release). An answer counts while every
 * counter it was kept with is unchanged.
 */
#define IPC_ANNOUNCE_INODES 4096u

struct ipc_announce {
    _Atomic uint64_t names;
    _Atomic uint64_t attrs;
    uint64_t instance;
    uint32_t timeout_ms;
    uint32_t pad;
    _Atomic uint64_t inodes[IPC_ANNOUNCE_INODES];
};

/* Service: a fresh page set (counters 0) with the given timeout, writable
 * through *page and sealed for everyone else; *fd is what clients map.
 * 0 or -errno. */
int ipc_announce_create(uint32_t timeout_ms, struct ipc_announce **page,
                        int *fd);
void ipc_announce_destroy(struct ipc_announce *page, int fd);

/* Client: maps fd read-only: 0 or -errno (-EINVAL: not a page set). */
int ipc_announce_map(int fd, const struct ipc_announce **page);
void ipc_announce_unmap(const struct ipc_announce *page);

/* Service: a change of names (or one not tied to a file), and of the
 * attributes or data of inode ino. */
void ipc_announce_names(struct ipc_announce *page);
void ipc_announce_inode(struct ipc_announce *page, uint64_t ino);

/* ino's bucket in inodes. */
static inline uint32_t ipc_announce_bucket(uint64_t ino)
{
    return (uint32_t)((ino * 0x9E3779B97F4A7C15ull) >> 52) &
           (IPC_ANNOUNCE_INODES - 1);
}

/*
 * Core groups: of the given cpus (the service's; offline ones are left
 * out), those sharing a cache of the given level form one group and one
 * queue. level 0 picks the L2 when it spans more than one of them,
 * otherwise the last-level cache (a one-cpu group cannot host a spinning
 * client and a spinning server at once); level -1 makes a group of each
 * cpu. cpus the topology says nothing about get a group each. Fills
 * cpu_queue and groups; returns the number of groups, or -errno (-ENOENT:
 * none of the cpus is online; -ENOSPC: more than max_groups). Every other
 * cpu, where clients may run too, maps to some valid queue.
 */
int ipc_core_groups(int level, const cpu_set_t *cpus,
                    uint16_t cpu_queue[IPC_MAX_CPUS], cpu_set_t *groups,
                    int max_groups);

/* Cpu lists as the kernel writes them ("0-3,8,10-11"), the one parser of
 * the tree (the engine's --cpus too). parse: 0 or -EINVAL (anything but
 * digits, '-' and ','; a range backwards); cpus at or beyond IPC_MAX_CPUS
 * are ignored. format: the
 * canonical form, cut short if size is too small. */
int ipc_cpulist_parse(const char *s, cpu_set_t *set);
void ipc_cpulist_format(const cpu_set_t *set, char *out, size_t size);

/* Low-level waiting, shared by both sides (ipc/wait.c). */
void ipc_cpu_relax(void);
/* The cpu the calling thread runs on, as published to a peer: cpu + 1, or
 * 0 when unknown. */
uint32_t ipc_cpu_mark(void);
/* Whether a peer published as running on mark is worth spinning for: only
 * when it said it runs on a cpu other than ours. One that said ours cannot
 * be running while we are; one that said nothing (0) is not known to run. */
bool ipc_peer_elsewhere(uint32_t mark);
/* One step of a spin loop waiting for a peer published as running on mark
 * (0: unknown): a pause, or a yield of the cpu for a thread that can run on
 * one cpu only while the peer is not known to run on another (it may need
 * this very cpu). */
void ipc_spin_step(uint32_t peer);
uint64_t ipc_now_ns(void);
/* The calling thread's cpu time (0 if unknown): a system call, unlike
 * ipc_now_ns. */
uint64_t ipc_thread_cpu_ns(void);
int ipc_futex_wait(_Atomic uint32_t *word, uint32_t expected, int timeout_ms);
void ipc_futex_wake(_Atomic uint32_t *word, int n);

/* Descriptors beside a message on a Unix socket (SCM_RIGHTS,
 * descriptors.c): the hello's, a passed file (wire.h danaus_pass), the
 * keeper's. At most IPC_FDS_MAX a message. */
#define IPC_FDS_MAX 8
/* Sends len bytes of buf and nfds descriptors as one message, with
 * MSG_NOSIGNAL and flags (MSG_DONTWAIT), EINTR retried: sendmsg's
 * result. */
ssize_t ipc_send_fds(int sock, const void *buf, size_t len, const int *fds,
                     int nfds, int flags);
/* Receives one message into buf (len bytes) and its descriptors,
 * close-on-exec, into fds (up to max), *nfds their count, with flags
 * (MSG_DONTWAIT), EINTR retried: recvmsg's result. A message cut short
 * (more bytes or descriptors than asked for) is -1 with EMSGSIZE, and the
 * descriptors that came with it are closed. */
ssize_t ipc_recv_fds(int sock, void *buf, size_t len, int *fds, int max,
                     int *nfds, int flags);

#endif
