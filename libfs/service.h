/*
 * service.h - the connection to danausd: the door socket, the doorbell
 * queues, this process's own area of slots and the mount table, set up once
 * per process on first use.
 *
 * When the service is found gone (door hang-up), the next call waits for
 * a restarted service at the same socket, for up to DANAUS_RESTART_WAIT_MS
 * (0: fail at once), attaches to it and opens this process's descriptors
 * there again (resume.c); without one it fails with ENOTCONN.
 */
#ifndef LIBFS_SERVICE_H
#define LIBFS_SERVICE_H

#include "mounts.h"

#include "ipc/ipc.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct service {
    int door;
    int pass;                /* our end of the pass socket (wire.h) */
    uint32_t client_id;
    uint32_t client_index; /* in our doorbells */
    struct ipc_segment seg;  /* the service's queues */
    struct ipc_area area;    /* our slots */
    const struct ipc_announce *announce; /* the service's change counters,
                                            read-only (namecache.h) */
    uint16_t cpu_queue[IPC_MAX_CPUS];
    struct mount_table mounts;
    uint64_t generation;     /* counts connections: slots of an older one
                                are not ours any more */
    uint32_t epoch;          /* counts service restarts: handles of an
                                older one are not ours any more */
    uint32_t flags;          /* DANAUS_HELLO_ */
    _Atomic bool gone;       /* the door hung up */
    bool mapped;             /* seg and area are mapped */
    uint64_t give_up_ms;     /* gone: until when to wait for a successor */
};

/* The descriptor the service passed for handle (wire.h danaus_pass; an
 * OPEN answered passed), close-on-exec as asked; -1 if it did not come
 * (the caller then reads through the service). Keeps errno. */
int service_take_pass(const struct service *s, uint64_t handle, bool cloexec);

/* The connected service, connecting on first use and attaching to a
 * restarted one when it is gone; NULL with errno ENOTCONN when it cannot
 * be reached. */
const struct service *service_get(void);

/* The connected service if it is not known to be gone, without connecting
 * or waiting; NULL otherwise. */
const struct service *service_peek(void);

/* dead (a connection a call was made on) is gone: the service that
 * replaced it, attaching to one if no other thread has; NULL with errno
 * ENOTCONN when none came within the restart wait. */
const struct service *service_resume(const struct service *dead);

/* Returns once no thread is opening descriptors on a restarted service. */
void service_wait_resumed(void);

/* Whether s was seen alive within the last millisecond or so, for the
 * caches that answer without asking it (readcache.h, namecache.h): the
 * promises behind them (a backend's leases, the service's announcements)
 * die with the service, and a process that only reads its caches would
 * not notice. */
bool service_seen_alive(const struct service *s);

/* Whether s's door has hung up. */
bool service_gone(const struct service *s);

/* The mount table, connecting on first use; still there after the service
 * is gone (calls on its paths then fail with ENOTCONN rather than reach the
 * kernel). NULL if the service was never reached. Keeps errno. */
const struct mount_table *service_mounts(void);

/* Whether this process has attached (without trying to). */
bool service_connected(void);

/* ipc_alive_fn on a connection (arg): false once its door has hung up
 * (and from then on). */
bool service_alive(void *arg);

/* One door request and its reply, serialized with other threads'.
 * 0 with *value set, or an errno. */
int service_door(uint32_t op, uint32_t arg, uint32_t *value);

/* Process life (wire.h, proc.c). A ticket for n handles, or for all with
 * DANAUS_TICKET_ALL: 0 with *token set, or an errno. */
int service_door_ticket(const uint64_t *handles, uint32_t n, uint64_t *token);
/* Adopts a ticket on the current connection: 0 or an errno. */
int service_door_adopt(uint64_t token);
/* The next connection adopts this ticket right after hello. */
void service_adopt_on_connect(uint64_t token);
/* A forked child that has not attached keeps its ticket (token) through a
 * connection of its own, without a hello, until it attaches, execs or
 * exits (wire.h, CLAIM): 0, or -1 when no connection could be made. The
 * answer is read by the first service_door_pass. */
int service_door_claim(uint64_t token);
/* Whether this process (or the process whose memory this vfork child
 * shares) holds a claimed ticket. */
bool service_claimed(void);
/* A ticket, for a new image or a spawned program, with n of the handles
 * the claimed ticket holds: 0 with *token set, or an errno. Takes no
 * memory from the heap (a vfork child may call it). */
int service_door_pass(const uint64_t *handles, uint32_t n, uint64_t *token);
/* In a forked child: drop the parent's connection (without disturbing the
 * parent's) so that the next call connects anew. */
void service_forget(void);

#endif
