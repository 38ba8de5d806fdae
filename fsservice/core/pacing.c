/*
 * pacing.c - one backend call's charge and count (pacing.h).
 */
#include "pacing.h"

#include "ipc/ipc.h"

void pace_begin(struct pace *p, struct admission *a,
                struct admission_cost cost)
{
    p->cost = cost;
    uint64_t wait = admission_charge_cost(a, cost);
    if (wait > 0)
        admission_wait(wait);
    p->start_ns = ipc_now_ns();
}

void pace_end(const struct pace *p, struct pressure *pr)
{
    pace_count(pr, p->cost, ipc_now_ns() - p->start_ns);
}

void pace_count(struct pressure *pr, struct admission_cost cost,
                uint64_t ran_ns)
{
    if (pressure_on(pr) && (cost.op || cost.bytes))
        pressure_count(pr, cost.op, cost.bytes, ran_ns);
}
