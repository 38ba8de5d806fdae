/*
 * client.h - attached clients, their private areas and the thread slots in
 * them.
 *
 * A client is one process attached through the door. Its credentials come
 * from the kernel (SO_PEERCRED, SO_PEERGROUPS) once, at hello, and every one
 * of its requests runs with them. It gets an area of its own (ipc.h: a
 * memfd only it and the service map) holding its slots, and an index in the
 * service's private client table, which its doorbells carry. A request is
 * attributed to the client whose area it was found in: a doorbell naming
 * another client can only make the service look at a request that client
 * posted itself, and the service serves each posted sequence once
 * (client_request_begin). Nothing a client writes names an identity.
 *
 * What a client may reach is decided here too, never by a field it wrote:
 * its mount view (the instances its hello listed: every live one for a
 * client of the service's own mount namespace, the view's for a container)
 * is checked on every request that names a mount by index; it holds at most
 * its area's slots (config client_slots), its uid's share of the service's
 * slots (shares.h: config uid_slots, with a reserve kept for root and the
 * owner), and handles_per_client handles (a quarter of the service's
 * descriptors) within its uid's share of them (config uid_handles), so
 * neither one client nor one uid can starve the others.
 *
 * Lifetime: the door holds one reference and publishes the client in the
 * table (RCU); a service thread takes another for each request. When the
 * door hangs up the client leaves the table, and after a grace period and
 * the last request its handles, locks and area go.
 *
 * The door's path makes no call that takes the process's mmap_lock as a
 * writer (mmap, munmap, mprotect, madvise of mappings, and malloc growing
 * an arena): a service thread inside a page fault holds that lock as a
 * reader, and one starved of cpu in its group holds it for as long, so
 * every attach would wait for the slowest fault in the service. A spares
 * thread makes clients ahead (areas mapped, tables allocated) for the door
 * to take, and ends the clients the door detaches (the grace period, the
 * unmap); a hello that finds none made waits for the next one rather than
 * have the door make it (a burst of attaches). Without the thread (unit
 * tests; its start failed) both run on the caller's thread.
 */
#ifndef DANAUS_CLIENT_H
#define DANAUS_CLIENT_H

#include "handles.h"
#include "locks.h"
#include "readcache.h"
#include "shares.h"
#include "slowcalls.h"
#include "fsservice/libservice/libservice.h"

#include "ipc/ipc.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

/* A write-back page a flush took, its head as copied (writeback.h). */
struct writeback_page {
    struct ipc_dirty_page head;
    uint32_t page;
    bool superseded; /* a later page of the same range replaces it */
};

/* One handle's pages of a flush (writeback.c), written by one thread in
 * the order the client numbered them. */
struct writeback_unit {
    struct open_file *of; /* NULL: the handle is not open (pages dropped) */
    uint32_t first, count; /* in writeback_taken */
};

/* The flush being written, whose units any thread that comes to flush
 * the same client takes, up to the service's writeback_flushers. */
struct writeback_work {
    pthread_mutex_t lock; /* short: taking a unit, counting one written */
    pthread_cond_t done;  /* a unit written */
    uint32_t nunits;      /* 0: no flush being written */
    uint32_t next, written, writers, max_writers;
};

/* The service's private record of one slot of a client's area. */
struct client_slot {
    _Atomic bool owned;     /* given to a thread (door thread writes) */
    _Atomic bool running;   /* a service thread runs a request of it */
    _Atomic uint32_t taken; /* the last sequence served */
    uint32_t swept;         /* posted as the last sweep saw it (sweeper) */
};

struct client {
    _Atomic long refs;
    uint32_t id;    /* unique over the service's life (lock owner) */
    uint32_t index; /* in the client table and the doorbells */
    pid_t pid;
    struct ls_cred cred;
    struct handle_table handles;
    struct ipc_area area;       /* the service's mapping of its slots */
    int pass_fd; /* our end of its pass socket (wire.h danaus_pass), or -1 */
    struct client_slot *slots;  /* area.nslots */
    uint32_t nslots;            /* slots it owns; door thread only */
    struct lock_table *locks;   /* where its POSIX locks go when it goes */
    struct readcache *readcache; /* forgets its handles when it goes */
    pthread_mutex_t writeback_lock;        /* one flush at a time */
    struct writeback_page *writeback_taken; /* area.dirty_pages of them */
    struct writeback_unit *writeback_units; /* as many */
    struct writeback_work writeback_work;
    bool area_kept;             /* handed to readcache.kept (readcache.c) */
    struct slowcalls slow;      /* how long its calls hold a thread */
    bool sees_all;              /* every live mount (no view) */
    uint8_t sees[DANAUS_MAX_INSTANCES / 8]; /* else these mount indices */
    struct client *next_spare;  /* in a spares list (client.c) */
};

struct client_spares;

struct client_registry {
    struct ipc_geometry geo;  /* of every client area */
    struct client *_Atomic *table; /* IPC_MAX_CLIENTS entries, RCU */
    uint32_t next_id;
    _Atomic uint32_t nindex;  /* table entries ever used */
    struct shares shares;     /* per uid: slots here; the door's others */
    uint32_t handles_per_client;
    struct lock_table *locks; /* the service's record locks, or NULL */
    struct readcache *readcache; /* the service's, or NULL */
    struct client_spares *spares; /* the spares thread's, or NULL */
};

/* geo: the geometry of client areas (nslots per client). total_slots:
 * slots of all clients at once (no per-uid bound until shares_bound sets
 * one, nor a reserve); handles are bounded per client only until
 * shares_bound bounds SHARE_HANDLES. */
int client_registry_init(struct client_registry *r,
                         const struct ipc_geometry *geo, uint32_t total_slots);
void client_registry_free(struct client_registry *r);

/* The spares thread: started once the registry's bounds are set, stopped
 * after the door (it ends the clients the door detached before it
 * returns). */
int client_spares_start(struct client_registry *r);
void client_spares_stop(struct client_registry *r);
/* An eventfd that turns readable when a client is made after client_new
 * found none (EAGAIN), for the door's epoll; -1 without the thread. */
int client_spares_fd(const struct client_registry *r);

/* Door thread: a new client with its area (a spare made ahead, or made
 * here when there is no spares thread), published in the table, with one
 * reference owned by the door; NULL with errno (EMFILE: the table is full,
 * or no descriptor for its area; EAGAIN: no spare made yet, ask again
 * when client_spares_fd says one was). */
struct client *client_new(struct client_registry *r, pid_t pid,
                          const struct ls_cred *cred);
/* Door thread: the client leaves the table; after a grace period (on the
 * spares thread, if started) its slots go back to its uid's share and the
 * door's reference is dropped. */
void client_detach(struct client_registry *r, struct client *c);
/* One more reference on c, for a service thread that keeps it past a
 * request (workers.c); the last client_put frees it. */
void client_get(struct client *c);
void client_put(struct client *c);

/* Whether c is still in the table (not detached). */
bool client_attached(struct client_registry *r, const struct client *c);

/* Whether c owns one slot alone: one thread of it makes calls, so none of
 * its calls can wait behind the one running (a hint: the door may give it
 * another slot at any moment). */
bool client_one_thread(const struct client *c);

/* The client's view: it may name mount index i (door thread sets it at
 * hello, before its first slot; service threads only read it). */
void client_view_add(struct client *c, uint32_t i);
bool client_sees(const struct client *c, uint32_t i);

/* Door thread only: a slot of c's area (its index), or -EAGAIN when its
 * area holds none free or its uid has its share (shares.h). */
int slot_assign(struct client_registry *r, struct client *c);
int slot_release(struct client_registry *r, struct client *c, uint32_t slot);

/*
 * Service threads: the client a doorbell names, with a reference, and the
 * service's own copy of the request in out, if the client owns the slot,
 * posted the bell's sequence there, that sequence was not served before
 * and no other request of the slot runs; else NULL (a stale or forged
 * bell: nobody waits for it; or one posted early, found again later).
 * End with client_request_end, answer with ipc_complete on the client's
 * slot, then client_put.
 */
struct client *client_request_begin(struct client_registry *r,
                                    struct ipc_bell b, struct danaus_desc *out);

/* Service threads: the request begun on slot is over (about to be
 * answered, or left to the deadline's answer); the slot may take its next.
 * A slot its client gave back while a request ran on it (after ETIMEDOUT:
 * deadline.h) is given out again only after this, so the late call's
 * writes into its buffer reach nobody. */
void client_request_end(struct client *c, uint32_t slot);

/*
 * The sweeper thread: fills out (up to max) with the requests that were
 * posted and not taken both now and at its previous call, whose bells were
 * therefore lost, overwritten or never rung (ipc.h), starting after the
 * client served last so that no client goes first every time. Serve each
 * through client_request_begin, which checks it again. Returns the count.
 */
uint32_t client_sweep(struct client_registry *r, uint32_t *cursor,
                      struct ipc_bell *out, uint32_t max);

#endif
