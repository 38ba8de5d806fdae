/*
 * ipc_roundtrip.c - round-trip latency of one request through the shared
 * memory between two processes: a client posting in its area, ringing and
 * awaiting, a service process taking the doorbell, checking it against the
 * area as danausd does and completing, each pinned to its own cpu.
 *
 * usage: ipc_roundtrip [requests] [service_spin_us] [think_us] [fast_lane]
 *                      [bytes]
 *   service_spin_us: how long the service spins before it futex-sleeps
 *   (default 1000000, i.e. it effectively always spins; 0: it sleeps
 *   whenever the queue is empty).
 *   think_us: the client's pause between requests (default 0); with a
 *   pause longer than the service's spin, every request pays a futex wake.
 *   fast_lane: 1 (default) the service watches the slot it answered last
 *   as danausd does (ipc.h), 0 every request goes through a doorbell.
 *   bytes: a payload (default 0, at most 65536) the client copies into the
 *   slot's buffer before it posts and the service copies out before it
 *   answers, as a pwrite's data travels (danausd copies it into its Ceph
 *   client's buffer); a payload's cost is the time its cache lines take
 *   to move between the two cpus.
 * Prints the mean and percentiles in microseconds.
 */
#include "ipc/ipc.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void pin(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

static unsigned char payload_in[65536], payload_out[65536];

static void serve(struct ipc_segment *seg, struct ipc_area *area,
                  uint64_t spin_ns, bool fast, size_t bytes)
{
    struct ipc_queue *q = ipc_queue(seg, 0);
    struct ipc_bell b;
    struct danaus_desc d;

    struct ipc_watch watch = {ipc_slot(area, 0), 0, IPC_WATCHING};

    for (;;) {
        /* As a danausd thread: the slot answered last is watched while
         * spinning (ipc.h's fast lane), and found there needs no bell. */
        if (!ipc_take(seg, q, UINT32_MAX, &b)) {
            enum ipc_woke woke =
                ipc_wait_work(seg, q, fast ? &watch : NULL, spin_ns, -1);
            if (woke != IPC_WOKE_SLOT)
                continue;
            b = (struct ipc_bell){0, 0, watch.posted};
        }
        if (b.slot >= area->nslots)
            continue;
        struct ipc_slot *s = ipc_slot(area, b.slot);
        if (atomic_load_explicit(&s->posted, memory_order_acquire) != b.seq)
            continue;
        memcpy(&d, &s->desc, sizeof d);
        if (d.call == DANAUS_CALL_NONE) /* the client says stop */
            return;
        /* What danausd writes as it takes a request (client.c, workers.c). */
        atomic_store_explicit(&s->begun, b.seq, memory_order_release);
        ipc_slot_running(s);
        memcpy(payload_out, s->buf, bytes);
        ipc_complete(s, b.seq, d.arg[0]);
        watch.posted = b.seq;
    }
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    uint64_t spin_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000) *
                       1000ull;
    struct ipc_geometry g;
    struct ipc_segment seg;
    struct ipc_area area;
    struct ipc_slot *s;
    uint64_t think_ns = (argc > 3 ? strtoull(argv[3], NULL, 10) : 0) * 1000ull;
    bool fast = argc > 4 ? atoi(argv[4]) != 0 : true;
    size_t bytes = argc > 5 ? strtoul(argv[5], NULL, 10) : 0;
    uint64_t *lat, sum = 0;
    pid_t service;

    if (n < 1 || bytes > sizeof(payload_in))
        return 2;
    memset(&g, 0, sizeof(g));
    g.nqueues = 1;
    g.ncells = 64;
    g.nslots = 1;
    g.slot_buf = sizeof(payload_in);
    if (ipc_queues_create(&g, &seg) != 0 || ipc_area_create(&g, &area) != 0 ||
        ipc_area_grow(&area, g.nslots) != 0) {
        perror("ipc_queues_create");
        return 1;
    }
    service = fork();
    if (service == 0) {
        /* The area is mapped MADV_DONTFORK (a forked client must not speak
         * as its parent): the child maps it again from the inherited fd. */
        if (ipc_area_map(area.fd, &g, &area) != 0)
            _exit(1);
        pin(1);
        serve(&seg, &area, spin_ns, fast, bytes);
        _exit(0);
    }
    pin(0);
    lat = calloc((size_t)n, sizeof(*lat));
    s = ipc_slot(&area, 0);
    for (int i = 0; i < n; i++) {
        struct danaus_desc d = {.call = DANAUS_CALL_STAT,
                                .seq = (uint32_t)i + 1};
        uint64_t t0 = ipc_now_ns();

        while (ipc_now_ns() - t0 < think_ns)
            ipc_cpu_relax();
        t0 = ipc_now_ns();
        d.arg[0] = i;
        payload_in[i % sizeof(payload_in)]++;
        memcpy(s->buf, payload_in, bytes);
        ipc_send(&seg, ipc_queue(&seg, 0), s, &d,
                 (struct ipc_bell){0, 0, d.seq}, NULL, NULL);
        if (ipc_await(s, d.seq, NULL, NULL) != i) {
            fprintf(stderr, "wrong answer to request %d\n", i);
            kill(service, SIGKILL);
            return 1;
        }
        lat[i] = ipc_now_ns() - t0;
        sum += lat[i];
    }
    struct danaus_desc stop = {.call = DANAUS_CALL_NONE};
    stop.seq = (uint32_t)n + 1;
    ipc_send(&seg, ipc_queue(&seg, 0), s, &stop,
             (struct ipc_bell){0, 0, stop.seq}, NULL, NULL);
    waitpid(service, NULL, 0);
    ipc_queues_unmap(&seg);
    ipc_area_unmap(&area);

    qsort(lat, (size_t)n, sizeof(*lat), by_value);
    printf("%d round trips, service spin %llu us, think %llu us, %s: "
           "%zu bytes: mean %.2f us, p50 %.2f, p99 %.2f, max %.2f\n",
           n, (unsigned long long)(spin_ns / 1000),
           (unsigned long long)(think_ns / 1000),
           fast ? "fast lane" : "doorbells only", bytes, sum / 1e3 / n,
           lat[n / 2] / 1e3, lat[(size_t)n * 99 / 100] / 1e3,
           lat[n - 1] / 1e3);
    free(lat);
    return 0;
}
