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
 * at once, and every call costs two context switches. A thread that finds
 * its client on its cpu after a short call steps aside to another cpu of
 * its own; both then spin, each on its own cpu. It steps at once if those
 * other cpus were idle, together, at least half the time since the thread
 * last looked (at most once per ASIDE_EVERY_NS): one step is enough to
 * leave an idle cpu's trap. It steps to busy cpus too once it has found
 * its client beside it after every call since its last look: the pair is
 * then trapped beside a neighbour that keeps the other cpus busy (a process
 * spinning on a cpu, another uid's flood of connections), where the
 * thread, at a higher priority than any client (nice -10), gets most of a
 * busy cpu, and the client gets its own cpu back. A single find is not
 * enough: a pair that meets a moment on one cpu parts again by itself,
 * and a step to a busy cpu takes time from whatever runs there. The idle
 * time is /proc/stat's, per cpu, in clock ticks and exact up to the read,
 * also for a tickless idle cpu: a look every 10 ms or more tells an idle
 * cpu (about a tick per look) from a busy one (none). The count of
 * runnable tasks in /proc/loadavg, looked at before, is the host's: any
 * daemon runnable at that instant made it refuse. Neither check keeps a
 * pair out of the trap for good: the pair moves between cpus together,
 * so half the looks judge a set other than the last one (and only start a
 * sample), and a pair that stepped apart falls back at the next sleep,
 * when a wake-up finds the other cpu busy a moment.
 */
#include "placement.h"

#include "ipc/ipc.h"

#include <ctype.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define ASIDE_EVERY_NS 10000000ull
/* Calls further apart than this end a trap (placement_step_aside). */
#define TRAP_GAP_NS ASIDE_EVERY_NS
/* Thousandths of the time the other cpus must have been idle or running
 * the thread itself for a bulk write to run beside its client: one beside
 * a busy cpu's work takes that cpu from it (the thread runs at a higher
 * priority), and keeps the client spinning on its own cpu, which the
 * backend's other threads then lack. With half, as for a step aside, a
 * Ceph service whose cluster shared the other cpu wrote slower beside it
 * than moved to the client's cpu. */
#define OTHERS_FREE_SHARE 875

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

uint64_t placement_idle_ticks(FILE *proc_stat, const cpu_set_t *set)
{
    char line[512];
    uint64_t ticks = 0;

    /* The per-cpu lines come first ("cpuN user nice system idle iowait
     * ..."), after the sum of all cpus ("cpu  ..."); what follows them
     * (the interrupt counts) can be long and is not read. */
    while (fgets(line, sizeof line, proc_stat) &&
           strncmp(line, "cpu", 3) == 0) {
        unsigned cpu;
        unsigned long long idle, iowait;
        if (!isdigit((unsigned char)line[3]) ||
            sscanf(line + 3, "%u %*u %*u %*u %llu %llu", &cpu, &idle,
                   &iowait) != 3)
            continue;
        if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, set))
            ticks += idle + iowait;
    }
    return ticks;
}

/* A thread's last look at the idle time of the cpus it could step to. */
struct look {
    uint64_t ns;
    uint64_t idle_ticks;
    uint64_t own_ns; /* the thread's cpu time then */
    cpu_set_t cpus;
};

/* Records a look at cpus at t: whether it can be judged against the last
 * one (same cpus, a sample in between), and if so, in *free_share, the
 * share of the time since, in thousandths, the cpus were free: idle, or
 * (own) running this thread. */
static bool look_at(struct look *last, const cpu_set_t *cpus, uint64_t t,
                    bool own, uint64_t *free_share)
{
    uint64_t ticks = 0;
    if (CPU_COUNT(cpus) > 0) {
        FILE *f = fopen("/proc/stat", "re");
        if (f) {
            ticks = placement_idle_ticks(f, cpus);
            fclose(f);
        }
    }
    uint64_t own_now = own ? ipc_thread_cpu_ns() : 0;
    long hz = sysconf(_SC_CLK_TCK);
    bool judged = last->ns != 0 && hz > 0 && CPU_COUNT(cpus) > 0 &&
                  CPU_EQUAL(&last->cpus, cpus) && ticks >= last->idle_ticks &&
                  own_now >= last->own_ns;
    if (judged)
        *free_share = ((ticks - last->idle_ticks) * (1000000000ull / hz) +
                       own_now - last->own_ns) * 1000 / (t - last->ns);
    last->ns = t;
    last->idle_ticks = ticks;
    last->own_ns = own_now;
    last->cpus = *cpus;
    return judged;
}

/* Whether cpus were idle, together, at least half the time since the last
 * look at the same cpus; records this look. */
static bool idle_since(struct look *last, const cpu_set_t *cpus, uint64_t t)
{
    uint64_t idle;
    return look_at(last, cpus, t, false, &idle) && idle >= 500;
}

/* The thread's cpus in *now, and in *others those of them in group but
 * the one of a client's mark. */
static void cpus_but_client(const cpu_set_t *group, uint32_t mark,
                            cpu_set_t *now, cpu_set_t *others)
{
    if (pthread_getaffinity_np(pthread_self(), sizeof *now, now) != 0)
        CPU_ZERO(now);
    CPU_AND(others, now, group);
    if (mark != 0 && mark <= IPC_MAX_CPUS)
        CPU_CLR((int)mark - 1, others);
}

bool placement_step_aside(const cpu_set_t *group, uint32_t mark)
{
    static __thread struct look last;
    static __thread uint64_t found_ns, trapped_since;
    cpu_set_t now, others;

    if (mark == 0 || mark > IPC_MAX_CPUS)
        return false;
    uint64_t t = ipc_now_ns();
    if (found_ns == 0 || t - found_ns > TRAP_GAP_NS)
        trapped_since = t;
    found_ns = t;
    if (last.ns != 0 && t - last.ns < ASIDE_EVERY_NS)
        return false;
    cpus_but_client(group, mark, &now, &others);
    /* Found beside it after every call since the last look: trapped. */
    bool trapped = last.ns != 0 && trapped_since <= last.ns;
    if ((!idle_since(&last, &others, t) && !trapped) ||
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

bool placement_others_free(const cpu_set_t *group, uint32_t mark)
{
    static __thread struct look last;
    static __thread bool was_free = true;
    cpu_set_t now, others;
    uint64_t share;

    uint64_t t = ipc_now_ns();
    if (last.ns != 0 && t - last.ns < ASIDE_EVERY_NS)
        return was_free;
    cpus_but_client(group, mark, &now, &others);
    if (look_at(&last, &others, t, true, &share))
        was_free = share >= OTHERS_FREE_SHARE;
    return was_free;
}
