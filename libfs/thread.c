/*
 * thread.c - per-thread state (see thread.h).
 *
 * The state lives in TLS. A pthread key whose value is set once the thread
 * holds a slot makes its destructor run at thread exit, which returns the
 * slot. (The main thread's slot is not returned at exit(): the service frees
 * every slot of a client when its door hangs up.)
 */
#include "thread.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

#define SLOT_WAIT_MS 5000
#define SLOT_NAP_MAX_NS 10000000L /* asks again at most every 10 ms */

static __thread struct thread_state state;
static __thread bool has_slot;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void give_back_slot(void *arg)
{
    struct thread_state *t = arg;
    uint32_t unused;
    const struct service *svc = service_peek();
    if (svc && svc->generation == t->generation)
        service_door(DANAUS_DOOR_SLOT_PUT, t->slot, &unused);
    has_slot = false;
}

static bool key_made;

static void make_key(void)
{
    key_made = pthread_key_create(&exit_key, give_back_slot) == 0;
}

/* SLOT_GET, asked again while it answers EAGAIN, for SLOT_WAIT_MS: slots
 * come back as threads end, their own process's or others'. The door is
 * free between two asks, so this process's other threads can give theirs
 * back meanwhile. */
static int ask_slot(uint32_t *slot)
{
    struct timespec nap = {0, 100000}, start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int err = service_door(DANAUS_DOOR_SLOT_GET, 0, slot);
        if (err != EAGAIN)
            return err;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long waited_ms = (now.tv_sec - start.tv_sec) * 1000 +
                         (now.tv_nsec - start.tv_nsec) / 1000000;
        if (waited_ms >= SLOT_WAIT_MS)
            return err;
        nanosleep(&nap, NULL);
        if (nap.tv_nsec < SLOT_NAP_MAX_NS / 2)
            nap.tv_nsec *= 2;
    }
}

static int take_slot(const struct service *svc)
{
    uint32_t slot;
    int err = ask_slot(&slot);
    if (err == 0 && slot >= svc->area.nslots)
        err = EPROTO;
    if (err) {
        errno = err;
        return -1;
    }
    state.slot = slot;
    state.generation = svc->generation;
    /* The service clears done when it hands out a slot; numbering on from
     * whatever done holds keeps our first seq different from it even if a
     * slot came back uncleared, so the first wait never sees a stale answer. */
    state.seq = atomic_load_explicit(&ipc_slot(&svc->area, slot)->done,
                                     memory_order_acquire);
    has_slot = true;
    pthread_once(&key_once, make_key);
    pthread_setspecific(exit_key, &state);
    return 0;
}

void thread_forget(void)
{
    has_slot = false;
    if (key_made)
        pthread_setspecific(exit_key, NULL);
}

void thread_drop_slot(void)
{
    if (!has_slot)
        return;
    give_back_slot(&state);
    if (key_made)
        pthread_setspecific(exit_key, NULL);
}

struct thread_state *thread_get(const struct service *svc)
{
    if ((!has_slot || state.generation != svc->generation) &&
        take_slot(svc) < 0)
        return NULL;
    /* Threads migrate: pick the queue of the cpu we are on now (the map is
     * our copy from the hello reply, checked when it came). */
    int cpu = sched_getcpu();
    state.queue = cpu >= 0 && cpu < IPC_MAX_CPUS ? svc->cpu_queue[cpu] : 0;
    return &state;
}
