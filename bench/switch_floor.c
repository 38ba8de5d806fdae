/*
 * switch_floor.c - what handing the cpu back and forth between two
 * processes costs, with no work on either side: the floor under any
 * design in which a client waits for a service in another process (issue
 * 18's one-core goal is measured against it; README).
 *
 * A client process and a server process share one page. Each round trip,
 * the client sets the request word and waits for the reply word, and the
 * server does the reverse, in one of two ways:
 *   futex   the waiter sleeps on the word (ipc_futex_wait) and the other
 *           side wakes it (ipc_futex_wake), as danausd and its clients do
 *           when neither spins;
 *   yield   the waiter calls sched_yield until the word moves, so the
 *           other side, runnable on the same cpu, runs in its place.
 * Cases: both on cpu 0, or client on cpu 0 and server on cpu 1; and the
 * server at nice 0 or at danausd's default nice -10.
 *
 *   switch-floor [round_trips]
 *
 * Prints one line per case: the mean round trip in microseconds.
 */
#include "ipc/ipc.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

struct words {
    _Atomic uint32_t request __attribute__((aligned(IPC_CACHELINE)));
    _Atomic uint32_t reply __attribute__((aligned(IPC_CACHELINE)));
};

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

/* Waits until *word holds want, by futex or by yields. */
static void await_word(_Atomic uint32_t *word, uint32_t want, bool yield)
{
    uint32_t now;
    while ((now = atomic_load(word)) != want) {
        if (yield)
            sched_yield();
        else
            ipc_futex_wait(word, now, -1);
    }
}

static void set_word(_Atomic uint32_t *word, uint32_t v, bool yield)
{
    atomic_store(word, v);
    if (!yield)
        ipc_futex_wake(word, 1);
}

/* Mean round trip in us, or -1 if the case could not be set up. */
static double run(struct words *w, uint32_t n, int server_cpu,
                  int server_nice, bool yield)
{
    atomic_store(&w->request, 0);
    atomic_store(&w->reply, 0);
    pid_t server = fork();
    if (server < 0)
        return -1;
    if (server == 0) {
        if (pin(server_cpu) < 0 ||
            setpriority(PRIO_PROCESS, 0, server_nice) < 0)
            _exit(1);
        for (uint32_t i = 1; i <= n; i++) {
            await_word(&w->request, i, yield);
            set_word(&w->reply, i, yield);
        }
        _exit(0);
    }
    uint64_t start = ipc_now_ns();
    for (uint32_t i = 1; i <= n; i++) {
        set_word(&w->request, i, yield);
        await_word(&w->reply, i, yield);
    }
    uint64_t ns = ipc_now_ns() - start;
    int status;
    if (waitpid(server, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    return (double)ns / n / 1000.0;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 200000;
    if (n == 0 || pin(0) < 0) {
        fprintf(stderr, "usage: switch-floor [round_trips] (needs cpu 0)\n");
        return 2;
    }
    struct words *w = mmap(NULL, sizeof *w, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED) {
        perror("switch-floor: mmap");
        return 1;
    }
    static const struct {
        const char *name;
        int server_cpu, server_nice;
        bool yield;
    } cases[] = {
        {"futex, one cpu", 0, 0, false},
        {"futex, one cpu, server at nice -10", 0, -10, false},
        {"yield, one cpu", 0, 0, true},
        {"yield, one cpu, server at nice -10", 0, -10, true},
        {"futex, two cpus", 1, 0, false},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double us = run(w, n, cases[i].server_cpu, cases[i].server_nice,
                        cases[i].yield);
        if (us < 0) {
            printf("%-36s failed (cpu 1 or nice -10 not allowed?)\n",
                   cases[i].name);
            rc = 1;
        } else {
            printf("%-36s %8.2f us per round trip\n", cases[i].name, us);
        }
    }
    return rc;
}
