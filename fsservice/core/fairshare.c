/*
 * fairshare.c - the pools of a host share their backend by weight
 * (fairshare.h).
 *
 * Each pool computes every active pool's share from the same notes, and
 * holds only itself: no pool writes another's rate, and a pool that stops
 * (or is killed) leaves a note that expires with its active time.
 */
#include "fairshare.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WAIT_HOLD_NS (200 * 1000000ull)    /* two windows, as pressure.c */
#define ACTIVE_HOLD_NS (1000 * 1000000ull)
#define DIR_NAME "shares"

int fairshare_init(struct fairshare *f, int pressure_dir_fd,
                   const char *name, const struct fairshare_config *c,
                   uint32_t cpus)
{
    memset(f, 0, sizeof *f);
    f->dir_fd = -1;
    f->note_fd = -1;
    if (!c || !c->on || pressure_dir_fd < 0)
        return 0;
    if (strlen(name) > NAME_MAX)
        return -ENAMETOOLONG;
    strcpy(f->name, name);
    uint32_t weight = c->weight ? c->weight : cpus ? cpus : 1;
    f->note = (struct fairshare_note){
        .magic = FAIRSHARE_MAGIC,
        .weight = weight < FAIRSHARE_MAX_WEIGHT ? weight
                                                : FAIRSHARE_MAX_WEIGHT,
        .reservation = (uint64_t)c->reservation_ops * ADMISSION_OP_TOKENS,
    };
    f->slow_ns = (uint64_t)(c->target_ms ? c->target_ms : FAIRSHARE_SLOW_MS) *
                 1000000;
    if (mkdirat(pressure_dir_fd, DIR_NAME, 0700) < 0 && errno != EEXIST)
        return -errno;
    f->dir_fd = openat(pressure_dir_fd, DIR_NAME,
                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (f->dir_fd < 0)
        return -errno;
    f->note_fd = openat(f->dir_fd, name,
                        O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (f->note_fd < 0 ||
        pwrite(f->note_fd, &f->note, sizeof f->note, 0) !=
            (ssize_t)sizeof f->note) {
        int err = errno;
        fairshare_close(f);
        return -err;
    }
    return 0;
}

void fairshare_close(struct fairshare *f)
{
    if (f->note_fd >= 0) {
        unlinkat(f->dir_fd, f->name, 0);
        close(f->note_fd);
    }
    if (f->dir_fd >= 0)
        close(f->dir_fd);
    f->note_fd = -1;
    f->dir_fd = -1;
}

void fairshare_count(struct fairshare *f, struct admission_cost cost,
                     uint64_t ns)
{
    if (f->dir_fd < 0)
        return;
    atomic_fetch_add_explicit(&f->calls, 1, memory_order_relaxed);
    if (ns > f->slow_ns)
        atomic_fetch_add_explicit(&f->slow_calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&f->tokens, admission_tokens(cost),
                              memory_order_relaxed);
}

bool fairshare_waiting(uint64_t calls, uint64_t slow, uint64_t oldest_ns,
                       uint64_t slow_ns, bool held)
{
    if (held)
        return false;
    return (calls > 0 && slow * 10 >= calls) || oldest_ns > slow_ns;
}

uint64_t fairshare_smooth(uint64_t last, uint64_t rate)
{
    uint64_t s = last - last / FAIRSHARE_SMOOTH + rate / FAIRSHARE_SMOOTH;
    return s < UINT32_MAX ? s : UINT32_MAX;
}

uint64_t fairshare_capacity(uint64_t last, uint64_t total)
{
    uint64_t kept = last - last / FAIRSHARE_DECAY;
    uint64_t c = total > kept ? total : kept;
    return c < UINT32_MAX ? c : UINT32_MAX;
}

void fairshare_shares(const struct fairshare_pool *pools, size_t n,
                      uint64_t capacity, uint64_t *share)
{
    bool open[FAIRSHARE_MAX_POOLS];
    uint64_t rest = capacity;
    if (n > FAIRSHARE_MAX_POOLS)
        n = FAIRSHARE_MAX_POOLS;
    /* A waiting pool's reservation first, whatever is left. */
    for (size_t i = 0; i < n; i++) {
        share[i] = pools[i].waiting ? pools[i].reservation : 0;
        rest = rest > share[i] ? rest - share[i] : 0;
        open[i] = true;
    }
    /* Then the rest by weight, in rounds: a pool that does not wait and
     * uses less than its part leaves the round with what it uses, and the
     * next round divides what it left among the others. */
    for (;;) {
        uint64_t weights = 0;
        for (size_t i = 0; i < n; i++)
            if (open[i])
                weights += pools[i].weight;
        if (weights == 0)
            return;
        bool closed = false;
        uint64_t left = rest;
        for (size_t i = 0; i < n; i++) {
            if (!open[i] || pools[i].waiting)
                continue;
            uint64_t part = rest * pools[i].weight / weights;
            if (pools[i].used <= share[i] + part) {
                uint64_t more = pools[i].used > share[i]
                                    ? pools[i].used - share[i] : 0;
                share[i] += more;
                left -= more;
                open[i] = false;
                closed = true;
            }
        }
        if (!closed) {
            for (size_t i = 0; i < n; i++)
                if (open[i])
                    share[i] += rest * pools[i].weight / weights;
            return;
        }
        rest = left;
    }
}

uint64_t fairshare_ceiling(const struct fairshare_pool *pools, size_t n,
                           size_t self, uint64_t capacity, uint64_t last)
{
    if (n < 2 || self >= n || n > FAIRSHARE_MAX_POOLS)
        return 0;
    uint64_t share[FAIRSHARE_MAX_POOLS];
    fairshare_shares(pools, n, capacity, share);
    bool denied = false;
    for (size_t j = 0; j < n; j++)
        if (j != self && pools[j].waiting && pools[j].used < share[j])
            denied = true;
    uint64_t mine = share[self];
    if (mine < pools[self].reservation)
        mine = pools[self].reservation;
    if (mine < FAIRSHARE_FLOOR)
        mine = FAIRSHARE_FLOOR;
    if (mine > UINT32_MAX)
        mine = UINT32_MAX;
    if (denied)
        return last || pools[self].used > mine ? mine : 0;
    if (last == 0)
        return 0;
    uint64_t next = last + last / 16 + FAIRSHARE_FLOOR;
    return next >= capacity || next > UINT32_MAX ? 0 : next;
}

/* Reads the active pools' notes into pools[1..], this pool at 0; returns
 * how many. Anything that is not a note is passed over. */
static size_t read_notes(struct fairshare *f, struct fairshare_pool *pools,
                         uint64_t now)
{
    size_t n = 1;
    int fd = dup(f->dir_fd);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return n;
    }
    rewinddir(dir);
    for (struct dirent *e; n < FAIRSHARE_MAX_POOLS && (e = readdir(dir));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, f->name) == 0)
            continue;
        int note_fd = openat(f->dir_fd, e->d_name,
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (note_fd < 0)
            continue;
        struct fairshare_note o;
        if (pread(note_fd, &o, sizeof o, 0) == (ssize_t)sizeof o &&
            o.magic == FAIRSHARE_MAGIC && o.active_until_ns > now &&
            o.weight > 0 && o.weight <= FAIRSHARE_MAX_WEIGHT)
            pools[n++] = (struct fairshare_pool){
                o.weight,
                o.reservation < UINT32_MAX ? o.reservation : UINT32_MAX,
                o.used < UINT32_MAX ? o.used : UINT32_MAX,
                o.waiting_until_ns > now,
            };
        close(note_fd);
    }
    closedir(dir);
    return n;
}

void fairshare_tick(struct fairshare *f, struct admission *a,
                    struct deadlines *ds, uint64_t now_ns, uint64_t span_ns)
{
    if (f->dir_fd < 0 || span_ns < 1000000)
        return;
    uint64_t calls = atomic_exchange(&f->calls, 0);
    uint64_t slow = atomic_exchange(&f->slow_calls, 0);
    uint64_t tokens = atomic_exchange(&f->tokens, 0);
    uint64_t held = atomic_load(&a->held);
    uint64_t paced = atomic_load(&a->paced);
    uint64_t oldest = deadlines_oldest_ns(ds, now_ns);
    /* In whole ms, so that a window's tokens times 1,000 stay in 64 bits;
     * smoothed, so that one window of writes a cache took at once does
     * not count as the backend's capacity. */
    uint64_t rate = tokens * 1000 / (span_ns / 1000000);
    f->note.used = fairshare_smooth(f->note.used, rate);
    /* A call waiting for the share is not running yet, but the pool is
     * active: held below its use, it would otherwise look idle and let
     * go. */
    if (calls > 0 || oldest > 0 || paced != f->note.paced)
        f->note.active_until_ns = now_ns + ACTIVE_HOLD_NS;
    if (fairshare_waiting(calls, slow, oldest, f->slow_ns,
                          held != f->held_before))
        f->note.waiting_until_ns = now_ns + WAIT_HOLD_NS;
    f->held_before = held;

    struct fairshare_pool pools[FAIRSHARE_MAX_POOLS];
    pools[0] = (struct fairshare_pool){
        f->note.weight, f->note.reservation,
        f->note.used < UINT32_MAX ? f->note.used : UINT32_MAX,
        f->note.waiting_until_ns > now_ns,
    };
    size_t n = read_notes(f, pools, now_ns);
    /* The capacity as this pool sees it: what the active pools use now,
     * or what it used itself lately, if more. Another pool's past use is
     * in units that pool's mix weighs, not this one's. */
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += pools[i].used;
    f->capacity = fairshare_capacity(f->capacity, pools[0].used);
    uint64_t capacity = total > f->capacity ? total : f->capacity;
    bool active = f->note.active_until_ns > now_ns;
    f->note.ceiling = active ? fairshare_ceiling(pools, n, 0, capacity,
                                                 f->note.ceiling)
                             : 0;
    f->note.paced = paced;
    admission_set_share(a, f->note.ceiling);
    /* A note that cannot be written leaves the last one, which expires. */
    (void)!pwrite(f->note_fd, &f->note, sizeof f->note, 0);
}
