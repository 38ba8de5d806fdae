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
 *
 * A client and the thread serving it on one cpu take turns: each sleeps at
 * once (ipc/wait.c), and each futex wake pulls the sleeper to the waker's
 * cpu (the scheduler's wake-affine placement), so the pair stays on one
 * cpu while the other is idle, since no balancing sees two tasks running
 * at once: seen here as up to 0.35 context switches per stat where a
 * spinning pair has 0.003. A thread that finds its client on its
 * cpu after a short call steps aside to another cpu of its own; both then
 * spin, each on its own cpu. Only while no more tasks can run than there
 * are cpus (/proc/loadavg's count of runnable tasks, read at most once per
 * ASIDE_EVERY_NS): beside CPU-bound work a thread that stepped aside spun
 * on a busy cpu instead of sleeping (measured: a victim beside two
 * spinners in one 2-cpu service lost 15-18% of its ops, also with the
 * steps limited to one per 10 ms), while one step is enough to leave an
 * idle cpu's trap. The count is the host's, not the pool's: on a host of
 * many cpus it says little about the pool's own, and the step is then
 * bounded only by the 10 ms.
 */
#include "placement.h"

#include "ipc/ipc.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define ASIDE_EVERY_NS 10000000ull

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

/* Whether some cpu is idle: no more tasks runnable now than cpus online,
 * counting this thread and its client, which waits on this cpu and may be
 * runnable (spinning its grace for a request not yet taken). */
static bool cpu_to_spare(void)
{
    char text[128];
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    unsigned running;
    if (sscanf(text, "%*s %*s %*s %u/", &running) != 1)
        return false;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && running <= (unsigned long)cpus;
}

bool placement_step_aside(const cpu_set_t *group, uint32_t mark)
{
    static __thread uint64_t last_ns;
    cpu_set_t now, others;

    if (mark == 0 || mark > IPC_MAX_CPUS)
        return false;
    uint64_t t = ipc_now_ns();
    if (last_ns != 0 && t - last_ns < ASIDE_EVERY_NS)
        return false;
    last_ns = t;
    if (!cpu_to_spare())
        return false;
    int cpu = (int)mark - 1;
    if (pthread_getaffinity_np(pthread_self(), sizeof now, &now) != 0)
        return false;
    CPU_AND(&others, &now, group);
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) == 0 ||
        pthread_setaffinity_np(pthread_self(), sizeof others, &others) != 0)
        return false;
    /* Running on one of others now; all of now again, unless someone
     * changed the thread's cpus meanwhile (going back could widen them). */
    cpu_set_t after;
    if (pthread_getaffinity_np(pthread_self(), sizeof after, &after) == 0 &&
        CPU_EQUAL(&after, &others))
        pthread_setaffinity_np(pthread_self(), sizeof now, &now);
    return true;
}
