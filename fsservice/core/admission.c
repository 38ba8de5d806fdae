/*
 * admission.c - token buckets on a pool's calls that load its backend's
 * servers (admission.h).
 *
 * One mutex per bucket: a bucket is looked at only by calls that go to
 * the backend's servers anyway (hundreds of microseconds or more each),
 * never by the cached ones, and only when a limit is set.
 */
#include "admission.h"

#include "blocking.h"
#include "ipc/ipc.h"

#include <time.h>

#define MICRO 1000000
#define BURST_PER_SECOND 10 /* a burst is a tenth of a second's rate */
#define MAX_GAP_S 60 /* the longest wait, and the longest gap counted */

/* A tenth of a second's rate, at least one call's worth. */
static int64_t burst_of(uint64_t rate)
{
    int64_t burst = (int64_t)(rate / BURST_PER_SECOND) * MICRO;
    return burst < MICRO ? MICRO : burst;
}

void bucket_init(struct bucket *b, uint64_t rate, uint64_t now_ns)
{
    pthread_mutex_init(&b->lock, NULL);
    atomic_init(&b->rate, rate);
    b->burst = burst_of(rate);
    b->micro = b->burst;
    b->at_ns = now_ns;
}

/* Brings b->micro up to now_ns at rate (b's lock held). */
static void earn(struct bucket *b, uint64_t rate, uint64_t now_ns)
{
    if (now_ns <= b->at_ns)
        return;
    /* rate * elapsed time in micro-tokens, in whole seconds and the rest,
     * so that neither product leaves 64 bits (rate < 2^32); a gap of
     * MAX_GAP_S or more counts as that, which pays any debt. */
    uint64_t gap = now_ns - b->at_ns, s = gap / 1000000000;
    if (s > MAX_GAP_S)
        s = MAX_GAP_S;
    int64_t earned = (int64_t)(rate * MICRO * s +
                               rate * (gap % 1000000000) / 1000);
    b->micro = earned > b->burst - b->micro ? b->burst : b->micro + earned;
    b->at_ns = now_ns;
}

uint64_t bucket_take(struct bucket *b, uint64_t n, uint64_t now_ns)
{
    if (n == 0 ||
        atomic_load_explicit(&b->rate, memory_order_relaxed) == 0)
        return 0;
    pthread_mutex_lock(&b->lock);
    uint64_t rate = atomic_load_explicit(&b->rate, memory_order_relaxed);
    if (rate == 0) {
        pthread_mutex_unlock(&b->lock);
        return 0;
    }
    earn(b, rate, now_ns);
    /* n is a request's bytes at most (< 2^32), and the debt is kept
     * within MAX_GAP_S seconds of the rate (callers beyond it wait that
     * long, not longer), so nothing overflows. */
    int64_t floor = -(int64_t)(rate * MICRO * MAX_GAP_S);
    int64_t cost = (int64_t)n * MICRO;
    b->micro = b->micro - cost < floor ? floor : b->micro - cost;
    uint64_t wait = 0;
    if (b->micro < 0) {
        uint64_t debt = (uint64_t)-b->micro;
        wait = debt / rate * 1000 + debt % rate * 1000 / rate;
    }
    pthread_mutex_unlock(&b->lock);
    return wait;
}

void bucket_set_rate(struct bucket *b, uint64_t rate, uint64_t now_ns)
{
    pthread_mutex_lock(&b->lock);
    uint64_t old = atomic_load_explicit(&b->rate, memory_order_relaxed);
    if (rate != old) {
        if (old)
            earn(b, old, now_ns);
        b->burst = burst_of(rate);
        /* From no limit, the bucket starts full; a debt stays owed. */
        if (!old || b->micro > b->burst)
            b->micro = b->burst;
        b->at_ns = now_ns;
        atomic_store_explicit(&b->rate, rate, memory_order_relaxed);
    }
    pthread_mutex_unlock(&b->lock);
}

void admission_init(struct admission *a, uint64_t ops_per_second,
                    uint64_t write_bytes_per_second)
{
    uint64_t now = ipc_now_ns();
    bucket_init(&a->ops, ops_per_second, now);
    bucket_init(&a->bytes, write_bytes_per_second, now);
    bucket_init(&a->share, 0, now);
    atomic_init(&a->paced, 0);
    atomic_init(&a->held, 0);
}

struct admission_cost admission_cost_of(const struct danaus_desc *d,
                                        uint32_t max_bytes)
{
    struct admission_cost cost = {
        call_may_block(d) && !call_is_bulk_transfer(d),
        0,
    };
    if (call_is_write(d))
        cost.bytes = d->buf_len < max_bytes ? d->buf_len : max_bytes;
    return cost;
}

uint64_t admission_tokens(struct admission_cost cost)
{
    return (cost.op ? ADMISSION_OP_TOKENS : 0) +
           ((uint64_t)cost.bytes + ADMISSION_TOKEN_BYTES - 1) /
               ADMISSION_TOKEN_BYTES;
}

uint64_t admission_charge_cost(struct admission *a,
                               struct admission_cost cost)
{
    if (atomic_load_explicit(&a->ops.rate, memory_order_relaxed) == 0 &&
        atomic_load_explicit(&a->bytes.rate, memory_order_relaxed) == 0 &&
        atomic_load_explicit(&a->share.rate, memory_order_relaxed) == 0)
        return 0;
    uint64_t now = ipc_now_ns();
    uint64_t wait_ops = cost.op ? bucket_take(&a->ops, 1, now) : 0;
    uint64_t wait_bytes = bucket_take(&a->bytes, cost.bytes, now);
    uint64_t wait = wait_ops > wait_bytes ? wait_ops : wait_bytes;
    if (wait > 0)
        atomic_fetch_add_explicit(&a->held, 1, memory_order_relaxed);
    uint64_t wait_share = bucket_take(&a->share, admission_tokens(cost), now);
    if (wait_share > 0)
        atomic_fetch_add_explicit(&a->paced, 1, memory_order_relaxed);
    return wait > wait_share ? wait : wait_share;
}

uint64_t admission_charge(struct admission *a, const struct danaus_desc *d,
                          uint32_t max_bytes)
{
    return admission_charge_cost(a, admission_cost_of(d, max_bytes));
}

void admission_set_rates(struct admission *a, uint64_t ops_per_second,
                         uint64_t write_bytes_per_second)
{
    uint64_t now = ipc_now_ns();
    bucket_set_rate(&a->ops, ops_per_second, now);
    bucket_set_rate(&a->bytes, write_bytes_per_second, now);
}

void admission_set_share(struct admission *a, uint64_t tokens_per_second)
{
    bucket_set_rate(&a->share, tokens_per_second, ipc_now_ns());
}

void admission_wait(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}
