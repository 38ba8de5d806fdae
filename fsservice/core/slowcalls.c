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

static void note(_Atomic uint32_t *avg_ns, uint64_t ns)
{
    uint32_t ran = ns < CAP_NS ? (uint32_t)ns : CAP_NS;
    uint32_t avg = atomic_load_explicit(avg_ns, memory_order_relaxed);
    uint32_t next = avg - avg / 8 + ran / 8;
    if (next != avg)
        atomic_store_explicit(avg_ns, next, memory_order_relaxed);
}

void slowcalls_note(struct slowcalls *s, uint64_t ran_ns)
{
    note(&s->avg_ns, ran_ns);
}

bool slowcalls_expect(const struct slowcalls *s)
{
    return atomic_load_explicit(&s->avg_ns, memory_order_relaxed) > SLOW_NS;
}

void slowcalls_note_cpu(struct slowcalls *s, uint64_t cpu_ns)
{
    note(&s->cpu_avg_ns, cpu_ns);
}

bool slowcalls_cpu_heavy(const struct slowcalls *s)
{
    return atomic_load_explicit(&s->cpu_avg_ns, memory_order_relaxed) >
           SLOW_NS;
}
