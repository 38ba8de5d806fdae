/*
 * client.c - client lifetimes, their areas and slot ownership.
 *
 * The door thread alone publishes clients and removes them from the
 * table, and gives out slots; the spares thread makes them ahead and ends
 * them (client.h); service threads only look clients up (inside
 * an RCU read-side section, taking a reference) and claim posted requests
 * with a CAS on the slot's private taken word. A client leaves the table
 * before the door drops its reference, after a grace period, so a lookup
 * that found it can always take a reference safely.
 */
#include "client.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <string.h>
#include <unistd.h>
#include <urcu.h>

int client_registry_init(struct client_registry *r,
                         const struct ipc_geometry *geo, uint32_t total_slots)
{
    memset(r, 0, sizeof *r);
    r->geo = *geo;
    shares_init(&r->shares, 0);
    shares_bound(&r->shares, SHARE_SLOTS, total_slots, total_slots, 0);
    shares_bound(&r->shares, SHARE_HANDLES, UINT32_MAX, UINT32_MAX, 0);
    r->handles_per_client = HANDLES_MAX;
    r->table = calloc(IPC_MAX_CLIENTS, sizeof *r->table);
    return r->table ? 0 : -ENOMEM;
}

void client_registry_free(struct client_registry *r)
{
    free(r->table);
    r->table = NULL;
    shares_free(&r->shares);
}

static void client_free(struct client *c)
{
    if (c->area.slots)
        ipc_area_unmap(&c->area);
    if (c->pass_fd >= 0)
        close(c->pass_fd);
    pthread_mutex_destroy(&c->writeback_lock);
    pthread_mutex_destroy(&c->writeback_work.lock);
    pthread_cond_destroy(&c->writeback_work.done);
    free(c->writeback_taken);
    free(c->writeback_units);
    free(c->slots);
    free(c);
}

/* Everything a client holds that does not depend on who it is: its area
 * and its tables. NULL with errno. */
static struct client *client_make(const struct client_registry *r)
{
    struct client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->area.fd = -1;
    c->pass_fd = -1;
    c->slots = calloc(r->geo.nslots, sizeof *c->slots);
    pthread_mutex_init(&c->writeback_lock, NULL);
    pthread_mutex_init(&c->writeback_work.lock, NULL);
    pthread_cond_init(&c->writeback_work.done, NULL);
    c->writeback_taken = calloc(r->geo.dirty_pages ? r->geo.dirty_pages : 1,
                                sizeof *c->writeback_taken);
    c->writeback_units = calloc(r->geo.dirty_pages ? r->geo.dirty_pages : 1,
                                sizeof *c->writeback_units);
    int rc = c->slots && c->writeback_taken && c->writeback_units
                 ? ipc_area_create(&r->geo, &c->area)
                 : -ENOMEM;
    if (rc == 0 && handle_table_init(&c->handles) < 0)
        rc = -ENOMEM;
    if (rc < 0) {
        client_free(c);
        errno = -rc;
        return NULL;
    }
    return c;
}

static struct client *spare_take(struct client_spares *sp);

struct client *client_new(struct client_registry *r, pid_t pid,
                          const struct ls_cred *cred)
{
    uint32_t index = 0;
    while (index < IPC_MAX_CLIENTS && atomic_load(&r->table[index]))
        index++;
    if (index == IPC_MAX_CLIENTS) {
        errno = EMFILE;
        return NULL;
    }
    struct client *c = r->spares ? spare_take(r->spares) : client_make(r);
    if (!c)
        return NULL;
    c->handles.limit = r->handles_per_client;
    c->handles.shares = &r->shares;
    c->handles.uid = cred->uid;
    atomic_init(&c->refs, 1);
    c->id = ++r->next_id;
    c->index = index;
    c->pid = pid;
    c->cred = *cred;
    c->locks = r->locks;
    c->readcache = r->readcache;
    /* Release: a service thread that finds c in the table (rcu_dereference,
     * a consume load, which GCC makes an acquire) sees every field written
     * above, and the area's mapping. This is what rcu_assign_pointer does
     * (a fence, then a plain store), written as a C11 release store so that
     * ThreadSanitizer, which sees no fence in asm, sees the pairing too. */
    atomic_store_explicit(&r->table[index], c, memory_order_release);
    if (index >= atomic_load(&r->nindex))
        atomic_store(&r->nindex, index + 1);
    return c;
}

void client_get(struct client *c)
{
    atomic_fetch_add(&c->refs, 1);
}

void client_put(struct client *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    /* Before its handles close: the pages it kept back go to their files
     * while its open files still hold the backend's lease. */
    if (c->readcache) {
        readcache_flush_client(c->readcache, c);
        readcache_forget_client(c->readcache, c);
    }
    handle_table_destroy(&c->handles);
    /* The last reference: no request of the client is running, so none
     * can take a lock after this. */
    if (c->locks)
        lock_release_client(c->locks, c->id);
    ls_cred_release(&c->cred);
    client_free(c);
}

/* After the grace period of c's leaving the table. */
static void client_end(struct client_registry *r, struct client *c)
{
    for (; c->nslots > 0; c->nslots--)
        share_give(&r->shares, SHARE_SLOTS, c->cred.uid);
    client_put(c);
}

static bool spare_retire(struct client_spares *sp, struct client *c);

void client_detach(struct client_registry *r, struct client *c)
{
    rcu_assign_pointer(r->table[c->index], NULL);
    if (r->spares && spare_retire(r->spares, c))
        return;
    synchronize_rcu();
    client_end(r, c);
}

/* ---- the spares thread ---- */

/* Clients made ahead: enough for a burst of attaches between two of the
 * thread's turns; each is an area's mapping and a few tables, its pages
 * touched only once a client uses them. */
#define SPARES 4

struct client_spares {
    struct client_registry *r;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct client *ready;   /* made, for client_new */
    uint32_t nready;
    struct client *retired; /* detached, to end */
    bool make_failed;       /* the last make failed: wait for a take */
    int make_errno;         /* and why */
    bool wanted;            /* a take found none: say when one is made */
    int made_fd;            /* eventfd: a wanted client was made */
    bool stop;
};

/* A spare, or NULL with errno: why the last make failed, or EAGAIN while
 * the next is being made. */
static struct client *spare_take(struct client_spares *sp)
{
    pthread_mutex_lock(&sp->lock);
    struct client *c = sp->ready;
    if (c) {
        sp->ready = c->next_spare;
        sp->nready--;
        c->next_spare = NULL;
    } else {
        errno = sp->make_failed ? sp->make_errno : EAGAIN;
        sp->wanted = true;
    }
    /* A take is also when descriptors or memory may have come back. */
    sp->make_failed = false;
    pthread_cond_signal(&sp->wake);
    pthread_mutex_unlock(&sp->lock);
    return c;
}

/* False when the thread is stopping: the caller ends c itself. */
static bool spare_retire(struct client_spares *sp, struct client *c)
{
    pthread_mutex_lock(&sp->lock);
    bool taken = !sp->stop;
    if (taken) {
        c->next_spare = sp->retired;
        sp->retired = c;
        sp->make_failed = false;
        pthread_cond_signal(&sp->wake);
    }
    pthread_mutex_unlock(&sp->lock);
    return taken;
}

static void *spares_main(void *arg)
{
    struct client_spares *sp = arg;
    prctl(PR_SET_NAME, "danaus-spares");
    pthread_mutex_lock(&sp->lock);
    for (;;) {
        bool want = !sp->stop && !sp->make_failed && sp->nready < SPARES;
        if (!sp->retired && !want) {
            if (sp->stop)
                break;
            pthread_cond_wait(&sp->wake, &sp->lock);
            continue;
        }
        struct client *retired = sp->retired;
        sp->retired = NULL;
        pthread_mutex_unlock(&sp->lock);
        /* One grace period ends every client detached since the last. */
        if (retired)
            synchronize_rcu();
        while (retired) {
            struct client *c = retired;
            retired = c->next_spare;
            client_end(sp->r, c);
        }
        struct client *made = want ? client_make(sp->r) : NULL;
        int made_errno = errno;
        pthread_mutex_lock(&sp->lock);
        if (made) {
            made->next_spare = sp->ready;
            sp->ready = made;
            sp->nready++;
            /* Not on a failure: the door asks again on its own clock,
             * rather than in step with a thread failing as fast. */
            if (sp->wanted) {
                sp->wanted = false;
                uint64_t one = 1;
                /* Fails only with the count full: a wake-up is pending. */
                ssize_t n = write(sp->made_fd, &one, sizeof one);
                (void)n;
            }
        } else if (want) {
            sp->make_failed = true;
            sp->make_errno = made_errno ? made_errno : ENOMEM;
        }
    }
    pthread_mutex_unlock(&sp->lock);
    return NULL;
}

int client_spares_start(struct client_registry *r)
{
    struct client_spares *sp = calloc(1, sizeof *sp);
    if (!sp)
        return -ENOMEM;
    sp->r = r;
    sp->made_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (sp->made_fd < 0) {
        int err = errno;
        free(sp);
        return -err;
    }
    pthread_mutex_init(&sp->lock, NULL);
    pthread_cond_init(&sp->wake, NULL);
    int rc = pthread_create(&sp->thread, NULL, spares_main, sp);
    if (rc != 0) {
        pthread_cond_destroy(&sp->wake);
        pthread_mutex_destroy(&sp->lock);
        close(sp->made_fd);
        free(sp);
        return -rc;
    }
    r->spares = sp;
    return 0;
}

void client_spares_stop(struct client_registry *r)
{
    struct client_spares *sp = r->spares;
    if (!sp)
        return;
    pthread_mutex_lock(&sp->lock);
    sp->stop = true;
    pthread_cond_signal(&sp->wake);
    pthread_mutex_unlock(&sp->lock);
    /* It ends what was retired before it stops. */
    pthread_join(sp->thread, NULL);
    r->spares = NULL;
    while (sp->ready) {
        struct client *c = sp->ready;
        sp->ready = c->next_spare;
        handle_table_destroy(&c->handles);
        client_free(c);
    }
    pthread_cond_destroy(&sp->wake);
    pthread_mutex_destroy(&sp->lock);
    close(sp->made_fd);
    free(sp);
}

int client_spares_fd(const struct client_registry *r)
{
    return r->spares ? r->spares->made_fd : -1;
}

bool client_attached(struct client_registry *r, const struct client *c)
{
    rcu_read_lock();
    bool in = rcu_dereference(r->table[c->index]) == c;
    rcu_read_unlock();
    return in;
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
    for (uint32_t i = 0; i < c->area.nslots; i++) {
        struct client_slot *cs = &c->slots[i];
        if (atomic_load(&cs->owned) || atomic_load(&cs->running))
            continue;
        int rc = share_take(&r->shares, SHARE_SLOTS, c->cred.uid);
        if (rc < 0)
            return rc == -ENOMEM ? rc : -EAGAIN;
        /* The slot's memory, before anyone touches it (ipc.h). */
        if ((rc = ipc_area_grow(&c->area, i + 1)) < 0) {
            share_give(&r->shares, SHARE_SLOTS, c->cred.uid);
            return rc == -EINVAL ? -EAGAIN : -ENOMEM;
        }
        /* A fresh slot answers nothing yet: the client numbers its requests
         * from 1. All of it is written before the door's reply gives it
         * out, so the client never sees it half made. */
        struct ipc_slot *s = ipc_slot(&c->area, i);
        /* Atomic: a late ipc_complete of the slot's last owner may still
         * write it (ipc_complete). */
        __atomic_store_n(&s->result, 0, __ATOMIC_RELAXED);
        atomic_store(&s->waiting, 0);
        atomic_store(&s->posted, 0);
        atomic_store(&s->done, 0);
        atomic_store(&cs->taken, 0);
        atomic_store(&cs->owned, true);
        c->nslots++;
        return (int)i;
    }
    return -EAGAIN;
}

bool client_one_thread(const struct client *c)
{
    uint32_t owned = 0;
    for (uint32_t i = 0; i < c->area.nslots && owned < 2; i++)
        owned += atomic_load_explicit(&c->slots[i].owned,
                                      memory_order_relaxed);
    return owned == 1;
}

int slot_release(struct client_registry *r, struct client *c, uint32_t slot)
{
    if (slot >= c->area.nslots || !atomic_load(&c->slots[slot].owned))
        return -EINVAL;
    atomic_store(&c->slots[slot].owned, false);
    c->nslots--;
    share_give(&r->shares, SHARE_SLOTS, c->cred.uid);
    /* Its memory goes back, unless a late call still writes there
     * (client_request_end; the slot is then given out again only after). */
    if (!atomic_load(&c->slots[slot].running))
        ipc_area_release_slot(&c->area, slot);
    return 0;
}

struct client *client_request_begin(struct client_registry *r,
                                    struct ipc_bell b, struct danaus_desc *out)
{
    if (b.client >= IPC_MAX_CLIENTS)
        return NULL;
    rcu_read_lock();
    struct client *c = rcu_dereference(r->table[b.client]);
    if (c)
        client_get(c);
    rcu_read_unlock();
    if (!c)
        return NULL;
    if (b.slot < c->area.nslots && atomic_load(&c->slots[b.slot].owned)) {
        struct ipc_slot *s = ipc_slot(&c->area, b.slot);
        struct client_slot *cs = &c->slots[b.slot];
        uint32_t taken = atomic_load(&cs->taken);
        bool idle = false;
        /* Acquire pairs with ipc_post: the descriptor is complete. One
         * request per slot at a time: a client that posts again before
         * its answer (the protocol has it wait) finds the next one taken
         * only once the first has ended, by a watching thread or the
         * sweep, so answers never overtake each other in its slot. */
        if (atomic_load_explicit(&s->posted, memory_order_acquire) == b.seq &&
            taken != b.seq &&
            atomic_compare_exchange_strong(&cs->running, &idle, true)) {
            if (atomic_compare_exchange_strong(&cs->taken, &taken, b.seq)) {
                /* The one read of the shared descriptor. */
                memcpy(out, &s->desc, sizeof *out);
                /* Before any effect of the request (ipc.h). */
                atomic_store_explicit(&s->begun, b.seq,
                                      memory_order_release);
                return c;
            }
            atomic_store(&cs->running, false);
        }
    }
    client_put(c);
    return NULL;
}

void client_request_end(struct client *c, uint32_t slot)
{
    atomic_store(&c->slots[slot].running, false);
}

uint32_t client_sweep(struct client_registry *r, uint32_t *cursor,
                      struct ipc_bell *out, uint32_t max)
{
    uint32_t n = atomic_load(&r->nindex), found = 0;
    rcu_read_lock();
    for (uint32_t k = 0; k < n && found < max; k++) {
        uint32_t i = (*cursor + k) % n;
        struct client *c = rcu_dereference(r->table[i]);
        if (!c)
            continue;
        for (uint32_t s = 0; s < c->area.nslots && found < max; s++) {
            struct client_slot *cs = &c->slots[s];
            if (!atomic_load_explicit(&cs->owned, memory_order_relaxed))
                continue;
            uint32_t posted = atomic_load_explicit(
                &ipc_slot(&c->area, s)->posted, memory_order_relaxed);
            if (posted == atomic_load(&cs->taken))
                continue;
            if (cs->swept == posted)
                out[found++] = (struct ipc_bell){i, s, posted};
            cs->swept = posted;
        }
        if (found)
            *cursor = i + 1;
    }
    rcu_read_unlock();
    return found;
}
