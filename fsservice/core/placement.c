/*
 * placement.c - a service thread runs a long call on its client's cpu
 * (placement.h).
 *
 * The client sleeps through a call that keeps the service long, so its cpu
 * is free for the work; run there, one client's bulk transfers and syncs
 * load its own cpu, not a quiet neighbour's, where the scheduler would
 * rather put them (issue 18: a victim of stat and cached reads kept 42-49%
 * of its solo rate next to a 1 MiB fsync writer on one service, 71% once
 * the writer's calls followed it). Short calls stay where they are: a move
 * costs a migration, more than the call, and a client spinning for its
 * answer needs its cpu itself.
 */
#include "placement.h"

#include "ipc/ipc.h"

#include <pthread.h>

static bool only(const cpu_set_t *set, int cpu)
{
    return CPU_COUNT(set) == 1 && CPU_ISSET(cpu, set);
}

bool placement_follow(struct placement *p, const cpu_set_t *group,
                      uint32_t mark)
{
    cpu_set_t now, one;

    if (mark == 0 || mark > IPC_MAX_CPUS || p->moved_to)
        return false;
    int cpu = (int)mark - 1;
    if (pthread_getaffinity_np(pthread_self(), sizeof now, &now) != 0 ||
        CPU_COUNT(&now) < 2 || !CPU_ISSET(cpu, &now) ||
        !CPU_ISSET(cpu, group))
        return false;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0)
        return false;
    p->home = now;
    p->moved_to = (int)mark;
    return true;
}

void placement_go_home(struct placement *p)
{
    cpu_set_t now;

    if (!p->moved_to)
        return;
    /* Someone else's change while away stays: going back could widen it. */
    if (pthread_getaffinity_np(pthread_self(), sizeof now, &now) == 0 &&
        only(&now, p->moved_to - 1))
        pthread_setaffinity_np(pthread_self(), sizeof p->home, &p->home);
    p->moved_to = 0;
}
