/*
 * pressure.c - pools that share a backend hold back for one whose calls
 * it makes too slow (pressure.h).
 *
 * A miss is a window in which a tenth or more of the pool's charged calls
 * (admission.h: name-space changes, syncs, writes) took longer than its
 * target in the backend, or a request of the pool has been running longer
 * than that: a pool whose fsync waits seconds behind a neighbour's
 * journal entries completes nothing in those windows, and only the
 * request still running shows it. A miss holds for MISS_HOLD_MS, so that
 * the others see it at their next look whenever it falls in their window.
 *
 * Halving on a miss and growing by a sixteenth otherwise (io.latency halves
 * a queue depth and adds one) moves the others' rates toward what the
 * backend can take beside the pool with the target: the backend's queues
 * drain only some time after the others slow down, so the pool misses for
 * a few windows more and the others overshoot downward, then grow back.
 */
#include "pressure.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define MISS_HOLD_MS (2 * PRESSURE_WINDOW_MS)
#define ACTIVE_HOLD_MS 1000

static const uint64_t ms = 1000000;

int pressure_init(struct pressure *p, const char *dir, const char *name,
                  uint32_t target_ms, uint64_t fixed_ops,
                  uint64_t fixed_bytes, const struct fairshare_config *fair,
                  uint32_t cpus)
{
    memset(p, 0, sizeof *p);
    p->dir_fd = -1;
    p->note_fd = -1;
    p->fixed_ops = fixed_ops;
    p->fixed_bytes = fixed_bytes;
    if (!dir)
        return 0;
    if (strlen(name) > NAME_MAX)
        return -ENAMETOOLONG;
    strcpy(p->name, name);
    p->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (p->dir_fd < 0)
        return -errno;
    if (target_ms > 0) {
        p->note.target_ns = target_ms * ms;
        p->note_fd = openat(p->dir_fd, name,
                            O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (p->note_fd < 0 ||
            pwrite(p->note_fd, &p->note, sizeof p->note, 0) !=
                (ssize_t)sizeof p->note) {
            int err = errno;
            pressure_close(p);
            return -err;
        }
    }
    int rc = fairshare_init(&p->share, p->dir_fd, name, fair, cpus);
    if (rc < 0)
        pressure_close(p);
    return rc;
}

void pressure_close(struct pressure *p)
{
    fairshare_close(&p->share);
    if (p->note_fd >= 0) {
        unlinkat(p->dir_fd, p->name, 0);
        close(p->note_fd);
    }
    if (p->dir_fd >= 0)
        close(p->dir_fd);
    p->note_fd = -1;
    p->dir_fd = -1;
}

void pressure_count(struct pressure *p, bool op, uint64_t bytes,
                    uint64_t ns)
{
    atomic_fetch_add_explicit(&p->backend_calls, 1, memory_order_relaxed);
    if (p->note.target_ns && ns > p->note.target_ns)
        atomic_fetch_add_explicit(&p->slow_calls, 1, memory_order_relaxed);
    if (op)
        atomic_fetch_add_explicit(&p->ops_charged, 1, memory_order_relaxed);
    if (bytes)
        atomic_fetch_add_explicit(&p->bytes_charged, bytes,
                                  memory_order_relaxed);
    fairshare_count(&p->share,
                    (struct admission_cost){op, (uint32_t)bytes}, ns);
}

/* This pool's note for the window just ended. */
static void write_note(struct pressure *p, struct deadlines *ds,
                       uint64_t calls, uint64_t slow, uint64_t now)
{
    uint64_t oldest = deadlines_oldest_ns(ds, now);
    if (calls > 0 || oldest > 0)
        p->note.active_until_ns = now + ACTIVE_HOLD_MS * ms;
    if ((calls > 0 && slow * 10 >= calls) || oldest > p->note.target_ns)
        p->note.missed_until_ns = now + MISS_HOLD_MS * ms;
    /* A note that cannot be written leaves the last one, which expires. */
    (void)!pwrite(p->note_fd, &p->note, sizeof p->note, 0);
}

/* Whether this pool holds back for the pool of note n: a pool without a
 * target for any, one with a target for a tighter one, and for one of the
 * same target that made fewer calls (pressure.h). */
static bool holds_back_for(const struct pressure *p,
                           const struct pressure_note *n)
{
    if (n->target_ns == 0)
        return false;
    uint64_t own = p->note.target_ns;
    if (own == 0 || n->target_ns < own)
        return true;
    return n->target_ns == own &&
           n->calls_per_second < p->note.calls_per_second;
}

/* The state the notes of the pools this one holds back for are in at now.
 * Anything in the directory that is not a note of the right size is
 * passed over. */
static enum pressure_state read_notes(struct pressure *p, uint64_t now)
{
    enum pressure_state state = PRESSURE_NONE;
    int fd = dup(p->dir_fd);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return state;
    }
    rewinddir(dir);
    for (struct dirent *e; state != PRESSURE_MISSED && (e = readdir(dir));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, p->name) == 0)
            continue;
        int note_fd = openat(p->dir_fd, e->d_name,
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (note_fd < 0)
            continue;
        struct pressure_note n;
        if (pread(note_fd, &n, sizeof n, 0) == (ssize_t)sizeof n &&
            holds_back_for(p, &n)) {
            if (n.missed_until_ns > now)
                state = PRESSURE_MISSED;
            else if (n.active_until_ns > now)
                state = PRESSURE_MET;
        }
        close(note_fd);
    }
    closedir(dir);
    return state;
}

/* One rate's next ceiling; below 2^32, as admission's rates are. */
static uint64_t next_one(uint64_t last, uint64_t used, uint64_t floor,
                         enum pressure_state state)
{
    uint64_t next = 0;
    if (state == PRESSURE_MISSED) {
        uint64_t from = last && last < used ? last : used;
        next = from / 2 > floor ? from / 2 : floor;
    } else if (state == PRESSURE_MET && last) {
        next = last + last / 16 + floor;
    }
    return next < UINT32_MAX ? next : UINT32_MAX;
}

struct pressure_ceiling pressure_next(struct pressure_ceiling last,
                                      struct pressure_ceiling used,
                                      enum pressure_state state)
{
    return (struct pressure_ceiling){
        next_one(last.ops, used.ops, PRESSURE_FLOOR_OPS, state),
        next_one(last.bytes, used.bytes, PRESSURE_FLOOR_BYTES, state),
    };
}

/* n counted over span_ns (a window: 100 ms or more), per second; in whole
 * milliseconds, so that a window's bytes times 1,000 stay in 64 bits. */
static uint64_t per_second(uint64_t n, uint64_t span_ns)
{
    return n * 1000 / (span_ns / ms);
}

/* The lower of two rates, 0 meaning none. */
static uint64_t lower(uint64_t a, uint64_t b)
{
    return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

void pressure_tick(struct pressure *p, struct admission *a,
                   struct deadlines *ds, uint64_t now_ns)
{
    if (!pressure_on(p))
        return;
    if (p->window_ns == 0)
        p->window_ns = now_ns;
    if (now_ns - p->window_ns < PRESSURE_WINDOW_MS * ms)
        return;
    uint64_t span = now_ns - p->window_ns;
    p->window_ns = now_ns;
    uint64_t calls = atomic_exchange(&p->backend_calls, 0);
    uint64_t slow = atomic_exchange(&p->slow_calls, 0);
    p->note.calls_per_second = per_second(calls, span);
    struct pressure_ceiling used = {
        per_second(atomic_exchange(&p->ops_charged, 0), span),
        per_second(atomic_exchange(&p->bytes_charged, 0), span),
    };
    if (p->note_fd >= 0)
        write_note(p, ds, calls, slow, now_ns);
    p->ceiling = pressure_next(p->ceiling, used, read_notes(p, now_ns));
    admission_set_rates(a, lower(p->fixed_ops, p->ceiling.ops),
                        lower(p->fixed_bytes, p->ceiling.bytes));
    fairshare_tick(&p->share, a, ds, now_ns, span);
}
