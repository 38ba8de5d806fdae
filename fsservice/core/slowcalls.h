/*
 * slowcalls.h - which clients' calls keep a service thread long.
 *
 * A request runs on the thread that took it from its queue, and until it
 * ends that thread watches nothing: unless the request was known to be
 * long and the queue was handed to another thread first (workers.c), a
 * request of another client waits behind it. What the kind of a call says
 * (blocking.h) is a guess: a getdents of a directory of thousands of names
 * holds a thread far longer than a stat, and a client may send nothing
 * else. So each client keeps an average of how long its calls held their
 * thread, and the calls of a client whose average says slow run as long
 * calls: handed off, so that another client's request never waits behind
 * them, beyond the first few that made the average.
 *
 * A second average, of the cpu time its long calls took, says whether
 * what keeps them long is work (listing a huge directory) or waiting (for
 * a cpu, a backend): only work is weighed in the cpu groups (cpugroups.h,
 * workers.c). A client whose call waited once for a cpu is slow lately by
 * the first average; in its uid's group its next calls would get a sliver
 * of a cpu, stay slow and keep it there.
 *
 * Averages are per client (process), a service thread's own measure of
 * what it ran; nothing the client writes enters them.
 */
#ifndef DANAUS_SLOWCALLS_H
#define DANAUS_SLOWCALLS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* A client's average, in its struct client. */
struct slowcalls {
    _Atomic uint32_t avg_ns;     /* exponentially weighted, capped */
    _Atomic uint32_t cpu_avg_ns; /* the same, of its long calls' cpu time */
};

/* A call of the client held its thread ran_ns. */
void slowcalls_note(struct slowcalls *s, uint64_t ran_ns);

/* Whether the client's next call is to be run as a long call. */
bool slowcalls_expect(const struct slowcalls *s);

/* A long call of the client took cpu_ns of its thread's cpu time. */
void slowcalls_note_cpu(struct slowcalls *s, uint64_t cpu_ns);

/* Whether the client's long calls are work enough to be weighed as such. */
bool slowcalls_cpu_heavy(const struct slowcalls *s);

#endif
