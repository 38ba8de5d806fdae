/*
 * client.h - attached clients and the thread slots they own.
 *
 * A client is one process attached through the door. Its credentials come
 * from the kernel (SO_PEERCRED, SO_PEERGROUPS) once, at hello, and every one
 * of its requests runs with them. It owns the slots its threads asked for;
 * which client owns which slot is recorded here, in the service's private
 * memory, so a request is attributed by its slot number alone and the
 * shared segment can never claim another identity than the slot's owner.
 *
 * What a client may reach is decided here too, never by a field it wrote:
 * its mount view (the instances its hello listed: every live one for a
 * client of the service's own mount namespace, the view's for a container)
 * is checked on every request that names a mount by index, and it holds at
 * most slots_per_client slots (config client_slots) and handles_per_client
 * handles (a quarter of the service's descriptors), so one client cannot
 * starve the others of either.
 *
 * Slot life: FREE -> OWNED (SLOT_GET) -> DRAINING (SLOT_PUT or client gone)
 * -> FREE once no request of it is in flight and no queue cell names it.
 */
#ifndef DANAUS_CLIENT_H
#define DANAUS_CLIENT_H

#include "handles.h"
#include "locks.h"
#include "fsservice/libservice/libservice.h"

#include "ipc/ipc.h"
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

struct client {
    _Atomic long refs;
    uint32_t id;
    pid_t pid;
    struct ls_cred cred;
    struct handle_table handles;
    uint32_t nslots; /* slots it owns; door thread only */
    bool sees_all;   /* every live mount (no view) */
    uint8_t sees[DANAUS_MAX_INSTANCES / 8]; /* else these mount indices */
    struct lock_table *locks; /* where its POSIX locks go when it goes */
};

struct slot_state;

struct client_registry {
    const struct ipc_segment *seg;
    uint32_t nslots;
    struct slot_state *slots; /* private to the service */
    uint32_t next_id;
    uint32_t draining;        /* slots waiting to be freed */
    uint32_t slots_per_client;
    uint32_t handles_per_client;
    struct lock_table *locks; /* the service's record locks, or NULL */
};

int client_registry_init(struct client_registry *r,
                         const struct ipc_segment *seg);
void client_registry_free(struct client_registry *r);

/* A client with one reference, owned by the door. */
struct client *client_new(struct client_registry *r, pid_t pid,
                          const struct ls_cred *cred);
void client_put(struct client *c);

/* The client's view: it may name mount index i (door thread sets it at
 * hello, before any slot exists; service threads only read it). */
void client_view_add(struct client *c, uint32_t i);
bool client_sees(const struct client *c, uint32_t i);

/* Door thread only. */
int slot_assign(struct client_registry *r, struct client *c); /* slot/-errno */
int slot_release(struct client_registry *r, struct client *c, uint32_t slot);
void client_detach(struct client_registry *r, struct client *c);
void slots_drain(struct client_registry *r);

/*
 * Service threads: the client owning slot, with a reference and the slot
 * marked in flight, or NULL (unowned, draining or out of range). Call inside
 * an RCU read-side section begun before the request was taken from its
 * queue; end it with slot_request_done.
 */
struct client *slot_request_begin(struct client_registry *r, uint32_t slot);
void slot_request_done(struct client_registry *r, uint32_t slot,
                       struct client *c);

#endif
