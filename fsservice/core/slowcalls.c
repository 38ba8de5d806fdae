/*
 * slowcalls.c - a client's running average of its calls' time
 * (slowcalls.h).
 *
 * The average weighs the newest call an eighth, so a client turns slow
 * after a few slow calls and back after a few dozen fast ones. The bar is
 * well above a cached call (a stat, a small read) and below what one
 * waiting client would notice beside it. Threads update it without a lock:
 * a lost update only delays the turn by a call.
 */
#include "slowcalls.h"

#define SLOW_NS 50000u    /* an average above this is slow */
#define CAP_NS 100000000u /* one call counts at most this much */

void slowcalls_note(struct slowcalls *s, uint64_t ran_ns)
{
    uint32_t ran = ran_ns < CAP_NS ? (uint32_t)ran_ns : CAP_NS;
    uint32_t avg = atomic_load_explicit(&s->avg_ns, memory_order_relaxed);
    uint32_t next = avg - avg / 8 + ran / 8;
    if (next != avg)
        atomic_store_explicit(&s->avg_ns, next, memory_order_relaxed);
}

bool slowcalls_expect(const struct slowcalls *s)
{
    return atomic_load_explicit(&s->avg_ns, memory_order_relaxed) > SLOW_NS;
}
