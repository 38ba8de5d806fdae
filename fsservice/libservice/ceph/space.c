/*
 * space.c - the room a Ceph client's writes have left (space.h).
 *
 * Service threads write concurrently, so the counts are atomics, not a
 * lock on the write path. A thread that finds its second's slot holding
 * an older second claims it (compare-and-swap on the second) and zeroes
 * its bytes; a write another thread counts in that slot between the claim
 * and the zeroing is lost, which undercounts one write in a second.
 */
#include "space.h"

void space_init(struct ceph_space *s)
{
    atomic_store(&s->left, SPACE_UNKNOWN);
    for (int i = 0; i < SPACE_WINDOW_S; i++) {
        atomic_store(&s->written[i].second, 0);
        atomic_store(&s->written[i].bytes, 0);
    }
}

void space_set_left(struct ceph_space *s, uint64_t left)
{
    atomic_store(&s->left, left);
}

/* Seconds are counted from 1, so that a slot's 0 means never used. */
static uint64_t second_of(uint64_t ns)
{
    return ns / 1000000000u + 1;
}

static uint64_t written_lately(struct ceph_space *s, uint64_t now_ns)
{
    uint64_t now = second_of(now_ns), sum = 0;
    for (int i = 0; i < SPACE_WINDOW_S; i++) {
        uint64_t second = atomic_load(&s->written[i].second);
        if (second != 0 && now - second < SPACE_WINDOW_S)
            sum += atomic_load(&s->written[i].bytes);
    }
    return sum;
}

uint64_t space_room(struct ceph_space *s, uint64_t now_ns)
{
    uint64_t left = atomic_load(&s->left);
    if (left == SPACE_UNKNOWN)
        return SPACE_UNKNOWN;
    uint64_t lately = written_lately(s, now_ns);
    return left > lately ? left - lately : 0;
}

bool space_full(struct ceph_space *s)
{
    return atomic_load(&s->left) == 0;
}

void space_wrote(struct ceph_space *s, uint64_t n, uint64_t now_ns)
{
    uint64_t now = second_of(now_ns);
    struct space_second *slot = &s->written[now % SPACE_WINDOW_S];
    uint64_t second = atomic_load(&slot->second);
    if (second != now &&
        atomic_compare_exchange_strong(&slot->second, &second, now))
        atomic_store(&slot->bytes, 0);
    atomic_fetch_add(&slot->bytes, n);
}
