/*
 * client.c - client lifetimes and slot ownership.
 *
 * Service threads and the door thread meet on two words per slot:
 *   owner     set by the door (assign, release), read by service threads
 *   inflight  raised by a service thread for the length of a request
 * A service thread raises inflight and then reads owner; the door clears
 * owner and then waits for inflight to fall to zero before reusing the slot.
 * Both sides use sequentially consistent operations, so at least one of
 * them sees the other's write: either the service thread sees no owner and
 * drops the request, or the door sees it in flight and waits.
 *
 * A request may sit between leaving its queue and raising inflight; the
 * service thread covers that window with an RCU read-side section, and the
 * door waits a grace period after clearing owners before it reclaims cells
 * and drops its references.
 */
#include "client.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

enum slot_phase { SLOT_FREE, SLOT_OWNED, SLOT_DRAINING };

struct slot_state {
    struct client *_Atomic owner;
    _Atomic int inflight;
    enum slot_phase phase; /* door thread only */
};

int client_registry_init(struct client_registry *r,
                         const struct ipc_segment *seg)
{
    memset(r, 0, sizeof *r);
    r->seg = seg;
    r->nslots = seg->nslots;
    r->slots = calloc(r->nslots, sizeof *r->slots);
    r->slots_per_client = r->nslots;
    r->handles_per_client = HANDLES_MAX;
    return r->slots ? 0 : -ENOMEM;
}

void client_registry_free(struct client_registry *r)
{
    free(r->slots);
    r->slots = NULL;
}

struct client *client_new(struct client_registry *r, pid_t pid,
                          const struct ls_cred *cred)
{
    struct client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (handle_table_init(&c->handles) < 0) {
        free(c);
        return NULL;
    }
    c->handles.limit = r->handles_per_client;
    atomic_init(&c->refs, 1);
    c->id = ++r->next_id;
    c->pid = pid;
    c->cred = *cred;
    c->locks = r->locks;
    return c;
}

static void client_get(struct client *c)
{
    atomic_fetch_add(&c->refs, 1);
}

void client_put(struct client *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    handle_table_destroy(&c->handles);
    /* The last reference: no request of the client is running, so none
     * can take a lock after this. */
    if (c->locks)
        lock_release_client(c->locks, c->id);
    if (c->cred.ceph_perm)
        cephfs_cred_release(&c->cred);
    free(c);
}

void client_view_add(struct client *c, uint32_t i)
{
    if (i < DANAUS_MAX_INSTANCES)
        c->sees[i / 8] |= (uint8_t)(1u << (i % 8));
}

bool client_sees(const struct client *c, uint32_t i)
{
    return c->sees_all || (i < DANAUS_MAX_INSTANCES &&
                           (c->sees[i / 8] & (1u << (i % 8))));
}

int slot_assign(struct client_registry *r, struct client *c)
{
    if (c->nslots >= r->slots_per_client)
        return -EAGAIN;
    for (uint32_t i = 0; i < r->nslots; i++) {
        struct slot_state *st = &r->slots[i];
        if (st->phase != SLOT_FREE)
            continue;
        /* A fresh slot answers nothing yet: the client numbers its requests
         * from 1. */
        struct ipc_slot *s = ipc_slot(r->seg, i);
        s->result = 0;
        atomic_store(&s->waiting, 0);
        atomic_store(&s->done, 0);
        client_get(c);
        st->phase = SLOT_OWNED;
        atomic_store(&st->owner, c);
        c->nslots++;
        return (int)i;
    }
    return -EAGAIN;
}

/* Clears the owner of every slot of c (only slot `one` if not UINT32_MAX),
 * then after a grace period reclaims their queue cells and drops the
 * references the slots held. */
static void release_slots(struct client_registry *r, struct client *c,
                          uint32_t one)
{
    uint32_t first = one == UINT32_MAX ? 0 : one;
    uint32_t last = one == UINT32_MAX ? r->nslots : one + 1;
    uint32_t released = 0;
    for (uint32_t i = first; i < last; i++) {
        struct slot_state *st = &r->slots[i];
        if (st->phase == SLOT_OWNED && atomic_load(&st->owner) == c) {
            atomic_store(&st->owner, NULL);
            st->phase = SLOT_DRAINING;
            released++;
        }
    }
    if (!released)
        return;
    synchronize_rcu();
    for (uint32_t i = first; i < last; i++) {
        if (r->slots[i].phase != SLOT_DRAINING)
            continue;
        for (uint32_t q = 0; q < r->seg->nqueues; q++)
            ipc_queue_reclaim(r->seg, ipc_queue(r->seg, q), i);
    }
    r->draining += released;
    c->nslots -= released;
    for (uint32_t k = 0; k < released; k++)
        client_put(c);
}

int slot_release(struct client_registry *r, struct client *c, uint32_t slot)
{
    if (slot >= r->nslots || r->slots[slot].phase != SLOT_OWNED ||
        atomic_load(&r->slots[slot].owner) != c)
        return -EINVAL;
    release_slots(r, c, slot);
    slots_drain(r);
    return 0;
}

void client_detach(struct client_registry *r, struct client *c)
{
    release_slots(r, c, UINT32_MAX);
    slots_drain(r);
    client_put(c);
}

void slots_drain(struct client_registry *r)
{
    if (!r->draining)
        return;
    for (uint32_t i = 0; i < r->nslots; i++) {
        struct slot_state *st = &r->slots[i];
        if (st->phase == SLOT_DRAINING && atomic_load(&st->inflight) == 0) {
            st->phase = SLOT_FREE;
            r->draining--;
        }
    }
}

struct client *slot_request_begin(struct client_registry *r, uint32_t slot)
{
    if (slot >= r->nslots)
        return NULL;
    struct slot_state *st = &r->slots[slot];
    atomic_fetch_add(&st->inflight, 1);
    struct client *c = atomic_load(&st->owner);
    if (!c) {
        atomic_fetch_sub(&st->inflight, 1);
        return NULL;
    }
    /* Safe: the door drops the slot's reference only after a grace period,
     * and the caller is inside a read-side section. */
    client_get(c);
    return c;
}

void slot_request_done(struct client_registry *r, uint32_t slot,
                       struct client *c)
{
    client_put(c);
    atomic_fetch_sub(&r->slots[slot].inflight, 1);
}
