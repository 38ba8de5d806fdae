/*
 * wait.c - the low-level waiting both sides of the rings build on: a pause
 * for spin loops, where each side runs, the clocks (monotonic, and a
 * thread's cpu time), and futex wait/wake on words of the shared segment.
 *
 * Spinning pays only while the side waited for runs on another cpu, the
 * rule adaptive mutexes and the kernel's optimistic spinning follow (they
 * check that the lock's owner is on a cpu). User space cannot see whether
 * a peer is on a cpu, but each side can say where it runs (sched_getcpu,
 * cheap through rseq): a peer that said "my cpu" is not running while we
 * are, it waits for this very cpu, so the waiter sleeps at once and lets
 * it run. Deciding from the cpus alone (a thread allowed one cpu yields)
 * is not enough: the service may think it has two cpus while its thread
 * and the client share one, and the cpus can be taken away after start.
 *
 * The futexes are deliberately NOT FUTEX_PRIVATE: the client and the service
 * are different processes mapping the same System V segment, and only a
 * shared futex is keyed by the backing page rather than by (mm, address).
 */
#include "ipc.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void ipc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    /* pause: tells the core we spin, so it yields pipeline resources to the
     * sibling hyperthread and does not mis-speculate on the loop's exit. */
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

void ipc_spin_step(uint32_t peer)
{
    /* Whether this thread may run on one cpu only, found once per thread:
     * then a peer not known to run elsewhere (a pool of one core: the
     * service thread and the client) may need that same cpu, and pausing
     * would only keep it off until the spin ends. Such a thread yields the
     * cpu at every step instead. A peer that said it runs on another cpu
     * needs nothing of ours: a thread pinned apart from it pauses, as one
     * with two or more cpus does (a client pinned to cpu 0 and a service
     * pinned to cpu 1 spent a fifth of their time in sched_yield). */
    static __thread int one_cpu = -1;
    if (one_cpu < 0) {
        cpu_set_t set;
        one_cpu = sched_getaffinity(0, sizeof set, &set) == 0 &&
                  CPU_COUNT(&set) == 1;
    }
    if (one_cpu && !ipc_peer_elsewhere(peer))
        sched_yield();
    else
        ipc_cpu_relax();
}

uint32_t ipc_cpu_mark(void)
{
    int cpu = sched_getcpu();

    return cpu >= 0 ? (uint32_t)cpu + 1 : 0;
}

bool ipc_peer_elsewhere(uint32_t mark)
{
    return mark != 0 && mark != ipc_cpu_mark();
}

/* Clock id's time in nanoseconds, 0 when it cannot be read. */
static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;

    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ipc_now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

uint64_t ipc_thread_cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * Sleeps while *word == expected, up to timeout_ms (-1: no limit). Returns 0
 * when woken, -EAGAIN when *word already differed, -ETIMEDOUT, or -EINTR.
 * The kernel compares *word and queues the sleeper atomically with respect
 * to FUTEX_WAKE, which is what makes the check-then-sleep patterns of the
 * callers free of lost wake-ups.
 */
int ipc_futex_wait(_Atomic uint32_t *word, uint32_t expected, int timeout_ms)
{
    struct timespec ts, *tsp = NULL;

    if (timeout_ms >= 0) {
        ts.tv_sec = timeout_ms / 1000;
        ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000;
        tsp = &ts;
    }
    /* FUTEX_WAIT takes a relative timeout. The error goes back as the
     * result, and errno is left as it was: a timed-out wait inside a call
     * that succeeds must not leave ETIMEDOUT behind for the application
     * (readdir callers test errno at the end of a directory). */
    int saved = errno;
    long rc = syscall(SYS_futex, word, FUTEX_WAIT, expected, tsp, NULL, 0);
    int err = rc == 0 ? 0 : errno;
    errno = saved;
    return -err;
}

void ipc_futex_wake(_Atomic uint32_t *word, int n)
{
    syscall(SYS_futex, word, FUTEX_WAKE, n, NULL, NULL, 0);
}
