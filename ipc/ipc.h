/*
 * ipc.h - shared-memory transport between libdanaus and danausd.
 *
 * One System V segment per service (shmget: attaching it never walks the
 * kernel's VFS, unlike shm_open). Layout, in order:
 *
 *   struct ipc_header                  geometry, cpu -> queue map
 *   struct ipc_queue  x nqueues        one request ring per core group
 *   struct ipc_slot   x nslots         one per client thread: completion word,
 *                                      result, bulk buffer of slot_buf bytes
 *
 * Verbs:
 *   service: ipc_segment_create, ipc_take, ipc_take_wait, ipc_complete,
 *            ipc_queue_reclaim, ipc_queue_backlog, ipc_segment_destroy
 *   client:  ipc_segment_attach, ipc_submit, ipc_await, ipc_segment_detach
 *
 * The service reads every shared field as hostile: indices are bounded before
 * use and no loop waits on a value that only a client can change without a
 * bound on time.
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

#define IPC_MAGIC 0x44414e41u /* "DANA" */
#define IPC_MAX_CPUS 1024
#define IPC_MAX_QUEUES 256
#define IPC_CACHELINE 64

/* Cell states. The state word also names the writing slot (bits 8..31), so
 * cells a dead client left half-written can be found and reclaimed. */
enum ipc_cell_state {
    IPC_CELL_EMPTY = 0,
    IPC_CELL_WRITING = 1, /* a producer owns it and is filling desc */
    IPC_CELL_READY = 2,   /* desc holds a valid request */
    IPC_CELL_TAKEN = 3,   /* a consumer is copying desc out */
};
#define IPC_CELL(state, slot) ((uint32_t)(state) | ((uint32_t)(slot) << 8))
#define IPC_CELL_STATE(word) ((word) & 0xffu)
#define IPC_CELL_SLOT(word) ((word) >> 8)

struct ipc_cell {
    _Atomic uint32_t state;
    uint32_t pad;
    struct danaus_desc desc;
} __attribute__((aligned(IPC_CACHELINE)));

struct ipc_queue {
    /* Producers and consumers start their scans here; hints only. */
    _Atomic uint32_t produce_hint __attribute__((aligned(IPC_CACHELINE)));
    _Atomic uint32_t consume_hint __attribute__((aligned(IPC_CACHELINE)));
    /* Bumped after every take (and reclaim of a READY cell): with work_seq,
     * an O(1) hint that requests are waiting, see ipc_queue_pending. */
    _Atomic uint32_t take_seq;
    /* Bumped after every publish; service threads futex-sleep on it. */
    _Atomic uint32_t work_seq __attribute__((aligned(IPC_CACHELINE)));
    _Atomic uint32_t sleepers; /* service threads asleep on work_seq */
    /* Bumped after every take; producers sleep on it while the ring is full. */
    _Atomic uint32_t room_seq __attribute__((aligned(IPC_CACHELINE)));
    _Atomic uint32_t room_waiters;
    struct ipc_cell cells[]; /* ncells, a power of two */
} __attribute__((aligned(IPC_CACHELINE)));

struct ipc_slot {
    _Atomic uint32_t done;    /* seq of the last answered request */
    _Atomic uint32_t waiting; /* the client sleeps on done */
    int64_t result;           /* >= 0 or -errno; valid once done == seq */
    /* Where each side runs while a request is in flight, as cpu + 1 (0:
     * not known), so that neither spins for a peer that needs its cpu
     * (wait.c). Hints: the service only compares client_cpu with its own
     * cpu, so a forged value costs at most one bounded spin. */
    _Atomic uint32_t client_cpu; /* the client, as it starts waiting */
    _Atomic uint32_t server_cpu; /* the service thread running the request;
                                    0 until taken and once answered */
    unsigned char buf[] __attribute__((aligned(4096)));
};

struct ipc_header {
    uint32_t magic, version;
    uint32_t nqueues, ncells, nslots, slot_buf;
    uint64_t queue_size, slot_size; /* bytes, each a multiple of 4096 */
    uint64_t queues_off, slots_off, total_size;
    uint16_t cpu_queue[IPC_MAX_CPUS]; /* cpu number -> queue index */
};

struct ipc_geometry {
    uint32_t nqueues;  /* core groups */
    uint32_t ncells;   /* per queue, power of two */
    uint32_t nslots;   /* client threads at most */
    uint32_t slot_buf; /* bulk bytes per slot, multiple of 4096 */
    uint16_t cpu_queue[IPC_MAX_CPUS];
};

struct ipc_segment {
    int shmid;
    struct ipc_header *hdr;
    /* Copies of the geometry taken at create/attach time: the service never
     * re-reads these from shared memory, where a client could change them. */
    uint32_t nqueues, ncells, nslots, slot_buf;
    uint64_t queue_size, slot_size;
    unsigned char *queues, *slots;
};

/* Segment. create: mode is e.g. 0600, owner/group the tenant's (-1: keep).
 * Geometry limits: 1..IPC_MAX_QUEUES queues, ncells a power of two up to
 * 65536, 1..2^24-1 slots, slot_buf a multiple of 4096 up to 1 GiB, every
 * cpu_queue entry < nqueues. Every call returns 0 or -errno: create gives
 * -EINVAL for a bad geometry; attach gives -EINVAL for a wrong magic or a
 * header that does not match the segment's size, -EPROTONOSUPPORT for
 * another layout version. A fresh slot has done == 0. */
int ipc_segment_create(const struct ipc_geometry *g, uid_t owner, gid_t group,
                       mode_t mode, struct ipc_segment *out);
int ipc_segment_attach(int shmid, struct ipc_segment *out);
void ipc_segment_detach(struct ipc_segment *seg);
void ipc_segment_destroy(struct ipc_segment *seg); /* mark removed, detach */

static inline struct ipc_queue *ipc_queue(const struct ipc_segment *seg,
                                          uint32_t i)
{
    return (struct ipc_queue *)(seg->queues + (uint64_t)i * seg->queue_size);
}

static inline struct ipc_slot *ipc_slot(const struct ipc_segment *seg,
                                        uint32_t i)
{
    return (struct ipc_slot *)(seg->slots + (uint64_t)i * seg->slot_size);
}

/*
 * Liveness probe a waiting client calls now and then (every few ms of
 * sleeping): returns false when the service is gone, and the wait then fails
 * with -ENOTCONN instead of hanging. NULL: never give up.
 */
typedef bool (*ipc_alive_fn)(void *arg);

/* Client: put d into q. Waits (spin, then futex) while q is full. 0 or
 * -ENOTCONN. */
int ipc_submit(const struct ipc_segment *seg, struct ipc_queue *q,
               const struct danaus_desc *d, ipc_alive_fn alive, void *arg);

/* Client: wait until slot s answers seq; returns the result or -ENOTCONN.
 * A signal does not end the wait: the request is in flight and is answered
 * exactly once. seq must differ from the slot's current done (a thread
 * numbers its requests done + 1, done + 2, ...). */
int64_t ipc_await(struct ipc_slot *s, uint32_t seq, ipc_alive_fn alive,
                  void *arg);

/* Service: copy one request out of q without waiting. */
bool ipc_take(const struct ipc_segment *seg, struct ipc_queue *q,
              struct danaus_desc *out);

/* Service: ipc_take, spinning up to spin_ns and then sleeping up to
 * sleep_ms (-1: until woken). False when nothing came, and also when
 * another thread took what woke this one: callers loop. */
bool ipc_take_wait(const struct ipc_segment *seg, struct ipc_queue *q,
                   struct danaus_desc *out, uint64_t spin_ns, int sleep_ms);

/* Service: wait until q may hold a request, without taking it: spin up to
 * spin_ns, then sleep up to sleep_ms (-1: until woken). False on timeout
 * and after ipc_queue_wake_all.
 * Lets a caller take the request inside a section of its own choosing. */
bool ipc_wait_work(const struct ipc_segment *seg, struct ipc_queue *q,
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

/* Service: requests were published and not all taken yet, read from two
 * counters without scanning the cells. A hint: a client that scribbles on
 * the counters can make it wrong, so nothing may sleep on its word alone
 * (ipc_wait_work scans the cells before it sleeps). */
bool ipc_queue_pending(const struct ipc_queue *q);

/* Service: cells READY (requests not yet taken) in q, bounded by ncells. */
uint32_t ipc_queue_backlog(const struct ipc_segment *seg, struct ipc_queue *q);

/* Service: empty every cell of q that slot left in WRITING or READY. Called
 * after the client owning slot died. */
void ipc_queue_reclaim(const struct ipc_segment *seg, struct ipc_queue *q,
                       uint32_t slot);

/* Wake every sleeper of q (service shutdown). */
void ipc_queue_wake_all(struct ipc_queue *q);

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

/* Cpu lists as the kernel writes them ("0-3,8,10-11"). parse: 0 or
 * -EINVAL; cpus at or beyond IPC_MAX_CPUS are ignored. format: the
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
/* One step of a spin loop: a pause, or a yield of the cpu for a thread that
 * can run on one cpu only (it shares it with the side it waits for). */
void ipc_spin_step(void);
uint64_t ipc_now_ns(void);
int ipc_futex_wait(_Atomic uint32_t *word, uint32_t expected, int timeout_ms);
void ipc_futex_wake(_Atomic uint32_t *word, int n);

#endif
