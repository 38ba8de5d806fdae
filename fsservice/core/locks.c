/*
 * locks.c - the record-lock table (locks.h).
 *
 * A hash table of files that have locks; each holds an unordered list of
 * its locks. An owner's ranges on one file never overlap: lock_set first
 * checks other owners' locks for a conflict, then cuts the owner's own
 * locks out of the new range (merging those of the same type that overlap
 * or touch it into the new one) and adds the result. Files with no lock
 * left leave the table. A second hash table counts each client's locks
 * (its charges); a client's entry goes when its count reaches zero.
 */
#include "locks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OFFSET_MAX INT64_MAX

/* A wait record lives this long after the retry that made it: longer than
 * the library's largest pause between retries, short enough that a process
 * which gave up waiting soon stops counting as waiting. */
#define WAIT_RECORD_NS 1000000000LL
/* Linux's bound on the chain of waiters it follows. */
#define DEADLOCK_HOPS 10

struct lock {
    struct lock *next;
    struct lock_owner owner; /* owner.client: who is charged for it */
    int type;
    int64_t start, end; /* inclusive */
};

struct lock_file {
    struct lock_file *next;
    struct lock_key key;
    struct lock *locks;
};

struct lock_charge {
    struct lock_charge *next;
    uint64_t client;
    uint32_t count;
};

/* A POSIX owner (client) retrying a wait, and the client it waits for. */
struct lock_waiter {
    struct lock_waiter *next;
    uint64_t client, blocker;
    int64_t expires;
};

void lock_table_init(struct lock_table *t, uint32_t client_limit)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mutex, NULL);
    t->client_limit = client_limit;
}

static void free_locks(struct lock *l)
{
    while (l) {
        struct lock *next = l->next;
        free(l);
        l = next;
    }
}

void lock_table_destroy(struct lock_table *t)
{
    for (int b = 0; b < LOCK_BUCKETS; b++) {
        struct lock_file *f = t->buckets[b];
        while (f) {
            struct lock_file *next = f->next;
            free_locks(f->locks);
            free(f);
            f = next;
        }
    }
    while (t->waiters) {
        struct lock_waiter *next = t->waiters->next;
        free(t->waiters);
        t->waiters = next;
    }
    for (int b = 0; b < LOCK_BUCKETS; b++) {
        while (t->charges[b]) {
            struct lock_charge *next = t->charges[b]->next;
            free(t->charges[b]);
            t->charges[b] = next;
        }
    }
    pthread_mutex_destroy(&t->mutex);
}

static unsigned bucket_of(const struct lock_key *k)
{
    uint64_t h = k->ino * 0x9e3779b97f4a7c15ull ^ k->dev ^
                 (uint64_t)(uintptr_t)k->inst;
    return (unsigned)(h >> 56) % LOCK_BUCKETS;
}

static struct lock_charge **charge_slot(struct lock_table *t, uint64_t client)
{
    struct lock_charge **p =
        &t->charges[(client * 0x9e3779b97f4a7c15ull >> 56) % LOCK_BUCKETS];
    while (*p && (*p)->client != client)
        p = &(*p)->next;
    return p;
}

/* Whether owner's client may create n more locks: within its limit and
 * its uid's share, and memory for its count (so charging the new locks
 * cannot fail afterwards: every lock is taken and given under the table's
 * mutex). */
static bool may_add(struct lock_table *t, const struct lock_owner *o,
                    uint32_t n)
{
    if (t->shares && share_room(t->shares, SHARE_LOCKS, o->uid) < n)
        return false;
    uint64_t client = o->client;
    struct lock_charge **p = charge_slot(t, client);
    if (!*p) {
        *p = calloc(1, sizeof **p);
        if (!*p)
            return false;
        (*p)->client = client;
    }
    return (*p)->count <= t->client_limit &&
           n <= t->client_limit - (*p)->count;
}

/* A lock of client joins the table (+1) or leaves it (-1): the table's
 * count and the client's. The client has an entry: may_add made it before
 * the lock was created, and it stays while the client's count is above
 * zero (so a request charges its new lock before cutting the owner's old
 * ones). */
static void charge(struct lock_table *t, const struct lock_owner *o,
                   int delta)
{
    struct lock_charge **p = charge_slot(t, o->client);
    if (t->shares && delta > 0)
        share_take(t->shares, SHARE_LOCKS, o->uid);
    else if (t->shares)
        share_give(t->shares, SHARE_LOCKS, o->uid);
    t->nlocks += delta;
    (*p)->count += delta;
    if ((*p)->count == 0) {
        struct lock_charge *c = *p;
        *p = c->next;
        free(c);
    }
}

/* Drops the client's count entry when may_add made it and nothing came. */
static void charge_trim(struct lock_table *t, uint64_t client)
{
    struct lock_charge **p = charge_slot(t, client);
    if (*p && (*p)->count == 0) {
        struct lock_charge *c = *p;
        *p = c->next;
        free(c);
    }
}

static bool same_key(const struct lock_key *a, const struct lock_key *b)
{
    return a->inst == b->inst && a->dev == b->dev && a->ino == b->ino;
}

/* The file's entry, or NULL; created when create is set (NULL then means
 * out of memory). */
static struct lock_file *file_of(struct lock_table *t,
                                 const struct lock_key *key, bool create)
{
    struct lock_file **head = &t->buckets[bucket_of(key)];
    for (struct lock_file *f = *head; f; f = f->next)
        if (same_key(&f->key, key))
            return f;
    if (!create)
        return NULL;
    struct lock_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->key = *key;
    f->next = *head;
    *head = f;
    return f;
}

/* Drops the file's entry once it holds no lock. */
static void file_trim(struct lock_table *t, struct lock_file *f)
{
    if (f->locks)
        return;
    struct lock_file **p = &t->buckets[bucket_of(&f->key)];
    while (*p != f)
        p = &(*p)->next;
    *p = f->next;
    free(f);
}

static bool same_owner(const struct lock_owner *a, const struct lock_owner *b)
{
    return a->kind == b->kind && a->id == b->id;
}

static bool is_flock(const struct lock_owner *o)
{
    return o->kind == DANAUS_LOCK_FLOCK;
}

/* The inclusive end of [start, start + len), checked as Linux checks the
 * range of a struct flock once l_whence is applied. */
static int range_end(int64_t start, int64_t len, int64_t *end)
{
    if (start < 0 || len < 0)
        return -EINVAL;
    if (len == 0) {
        *end = OFFSET_MAX;
        return 0;
    }
    if (len - 1 > OFFSET_MAX - start)
        return -EOVERFLOW;
    *end = start + (len - 1);
    return 0;
}

static bool valid_type(int type)
{
    return type == F_RDLCK || type == F_WRLCK || type == F_UNLCK;
}

/* The first (lowest start) lock of another owner, of the same family
 * (flock or range locks), that conflicts with type on [start, end]. */
static struct lock *conflict(struct lock_file *f, const struct lock_owner *o,
                             int type, int64_t start, int64_t end)
{
    struct lock *first = NULL;
    for (struct lock *l = f->locks; l; l = l->next) {
        if (same_owner(&l->owner, o) || is_flock(&l->owner) != is_flock(o))
            continue;
        if (l->end < start || l->start > end)
            continue;
        if (l->type != F_WRLCK && type != F_WRLCK)
            continue;
        if (!first || l->start < first->start)
            first = l;
    }
    return first;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The live wait record of client, or NULL; drops expired ones on the
 * way. */
static struct lock_waiter *waiter_of(struct lock_table *t, uint64_t client,
                                     int64_t now)
{
    struct lock_waiter **p = &t->waiters;
    while (*p) {
        struct lock_waiter *w = *p;
        if (w->expires <= now) {
            *p = w->next;
            free(w);
            continue;
        }
        if (w->client == client)
            return w;
        p = &w->next;
    }
    return NULL;
}

static void waiter_drop(struct lock_table *t, uint64_t client)
{
    for (struct lock_waiter **p = &t->waiters; *p; p = &(*p)->next) {
        if ((*p)->client == client) {
            struct lock_waiter *w = *p;
            *p = w->next;
            free(w);
            return;
        }
    }
}

/*
 * A POSIX owner found blocker (another POSIX owner) in its way and will
 * retry. -EDEADLK when blocker waits, through a chain of waiters, for
 * client; otherwise records that client waits for blocker and returns
 * -EAGAIN.
 */
static int wait_for(struct lock_table *t, uint64_t client, uint64_t blocker)
{
    int64_t now = now_ns();
    uint64_t who = blocker;
    for (int hop = 0; hop < DEADLOCK_HOPS; hop++) {
        if (who == client) {
            waiter_drop(t, client);
            return -EDEADLK;
        }
        struct lock_waiter *w = waiter_of(t, who, now);
        if (!w)
            break;
        who = w->blocker;
    }
    struct lock_waiter *w = waiter_of(t, client, now);
    if (!w) {
        w = malloc(sizeof *w);
        if (!w)
            return -EAGAIN; /* only the detection is lost */
        w->client = client;
        w->next = t->waiters;
        t->waiters = w;
    }
    w->blocker = blocker;
    w->expires = now + WAIT_RECORD_NS;
    return -EAGAIN;
}

static void unlink_lock(struct lock_table *t, struct lock **p)
{
    struct lock *l = *p;
    *p = l->next;
    charge(t, &l->owner, -1);
    free(l);
}

static bool touches(int64_t s1, int64_t e1, int64_t s2, int64_t e2)
{
    return (e1 == OFFSET_MAX || e1 + 1 >= s2) &&
           (e2 == OFFSET_MAX || e2 + 1 >= s1);
}

/* Whether cutting [start, end] out of the owner's locks splits one in two:
 * a lock of another type (cut_own merges one of the same type) strictly
 * around the range. */
static bool splits_own(struct lock_file *f, const struct lock_owner *o,
                       int type, int64_t start, int64_t end)
{
    for (struct lock *l = f->locks; l; l = l->next) {
        if (!same_owner(&l->owner, o) || (type != F_UNLCK && l->type == type))
            continue;
        if (l->start < start && l->end > end)
            return true;
    }
    return false;
}

/*
 * Cuts the owner's own locks out of [start, end] and merges those of type
 * (when it is a lock, not F_UNLCK) that overlap or touch it into *ns, *ne.
 * spare is a preallocated lock for the one case that needs a new node, the
 * split splits_own foresaw.
 */
static void cut_own(struct lock_table *t, struct lock_file *f,
                    const struct lock_owner *o, int type, int64_t start,
                    int64_t end, int64_t *ns, int64_t *ne, struct lock *spare)
{
    struct lock **p = &f->locks;
    while (*p) {
        struct lock *l = *p;
        if (!same_owner(&l->owner, o)) {
            p = &l->next;
            continue;
        }
        if (type != F_UNLCK && l->type == type &&
            touches(l->start, l->end, start, end)) {
            *ns = l->start < *ns ? l->start : *ns;
            *ne = l->end > *ne ? l->end : *ne;
            unlink_lock(t, p);
            continue;
        }
        if (l->end < start || l->start > end) {
            p = &l->next;
            continue;
        }
        if (l->start < start && l->end > end) {
            *spare = *l;
            spare->owner.client = o->client;
            spare->owner.uid = o->uid;
            spare->start = end + 1;
            spare->next = l->next;
            l->next = spare;
            l->end = start - 1;
            charge(t, &spare->owner, +1);
            p = &spare->next;
        } else if (l->start < start) {
            l->end = start - 1;
            p = &l->next;
        } else if (l->end > end) {
            l->start = end + 1;
            p = &l->next;
        } else {
            unlink_lock(t, p);
        }
    }
}

/* flock: the owner's lock, if any, goes before anything else is tried
 * (Linux drops it even when the new one then conflicts); a request for the
 * type already held changes nothing. */
static int set_flock(struct lock_table *t, struct lock_file *f,
                     const struct lock_owner *o, int type)
{
    for (struct lock **p = &f->locks; *p; p = &(*p)->next) {
        if (!same_owner(&(*p)->owner, o))
            continue;
        if ((*p)->type == type)
            return 0;
        unlink_lock(t, p);
        break;
    }
    if (type == F_UNLCK || conflict(f, o, type, 0, OFFSET_MAX))
        return type == F_UNLCK ? 0 : -EAGAIN;
    struct lock *l = may_add(t, o, 1) ? malloc(sizeof *l) : NULL;
    if (!l)
        return -ENOLCK;
    *l = (struct lock){f->locks, *o, type, 0, OFFSET_MAX};
    f->locks = l;
    charge(t, o, +1);
    return 0;
}

static int set_range(struct lock_table *t, struct lock_file *f,
                     const struct lock_owner *o, int type, int64_t start,
                     int64_t end, bool wait)
{
    if (type != F_UNLCK) {
        struct lock *c = conflict(f, o, type, start, end);
        if (c) {
            if (wait && o->kind == DANAUS_LOCK_POSIX &&
                c->owner.kind == DANAUS_LOCK_POSIX)
                return wait_for(t, o->id, c->owner.id);
            return -EAGAIN;
        }
    }
    /* The new nodes are counted against the client's limit and taken before
     * anything changes, so a refusal leaves the owner's locks as they
     * were. */
    bool split = splits_own(f, o, type, start, end);
    uint32_t added = (type != F_UNLCK) + split;
    if (added && !may_add(t, o, added))
        return -ENOLCK;
    struct lock *fresh = type == F_UNLCK ? NULL : malloc(sizeof *fresh);
    struct lock *spare = split ? malloc(sizeof *spare) : NULL;
    if ((type != F_UNLCK && !fresh) || (split && !spare)) {
        free(fresh);
        free(spare);
        return -ENOLCK;
    }
    int64_t ns = start, ne = end;
    if (fresh)
        charge(t, o, +1);
    cut_own(t, f, o, type, start, end, &ns, &ne, spare);
    if (fresh) {
        *fresh = (struct lock){f->locks, *o, type, ns, ne};
        f->locks = fresh;
    }
    return 0;
}

int lock_set(struct lock_table *t, const struct lock_key *key,
             const struct lock_owner *owner, int type, int64_t start,
             int64_t len, bool wait)
{
    int64_t end;
    int rc = range_end(start, len, &end);
    if (rc < 0)
        return rc;
    if (!valid_type(type))
        return -EINVAL;
    pthread_mutex_lock(&t->mutex);
    struct lock_file *f = file_of(t, key, type != F_UNLCK);
    if (!f) {
        rc = type == F_UNLCK ? 0 : -ENOLCK;
    } else {
        rc = is_flock(owner) ? set_flock(t, f, owner, type)
                             : set_range(t, f, owner, type, start, end, wait);
        file_trim(t, f);
        charge_trim(t, owner->client);
    }
    if (owner->kind == DANAUS_LOCK_POSIX && rc != -EAGAIN && t->waiters)
        waiter_drop(t, owner->id);
    pthread_mutex_unlock(&t->mutex);
    return rc;
}

int lock_test(struct lock_table *t, const struct lock_key *key,
              const struct lock_owner *owner, int type, int64_t start,
              int64_t len, struct danaus_lock *out)
{
    int64_t end;
    int rc = range_end(start, len, &end);
    if (rc < 0)
        return rc;
    if (type != F_RDLCK && type != F_WRLCK)
        return -EINVAL;
    out->type = F_UNLCK;
    pthread_mutex_lock(&t->mutex);
    struct lock_file *f = file_of(t, key, false);
    struct lock *c = f ? conflict(f, owner, type, start, end) : NULL;
    if (c) {
        out->type = c->type;
        out->pid = c->owner.kind == DANAUS_LOCK_POSIX ? c->owner.pid : -1;
        out->start = c->start;
        out->len = c->end == OFFSET_MAX ? 0 : c->end - c->start + 1;
    }
    pthread_mutex_unlock(&t->mutex);
    return 0;
}

/* Removes owner's locks on f, and f itself if none is left. */
static void drop_matching(struct lock_table *t, struct lock_file *f,
                          const struct lock_owner *owner)
{
    struct lock **p = &f->locks;
    while (*p) {
        if (same_owner(&(*p)->owner, owner))
            unlink_lock(t, p);
        else
            p = &(*p)->next;
    }
    file_trim(t, f);
}

void lock_release(struct lock_table *t, const struct lock_key *key,
                  const struct lock_owner *owner)
{
    pthread_mutex_lock(&t->mutex);
    struct lock_file *f = file_of(t, key, false);
    if (f)
        drop_matching(t, f, owner);
    pthread_mutex_unlock(&t->mutex);
}

bool lock_owner_holds(struct lock_table *t, const struct lock_owner *owner)
{
    bool holds = false;
    pthread_mutex_lock(&t->mutex);
    for (int b = 0; b < LOCK_BUCKETS && t->nlocks && !holds; b++)
        for (struct lock_file *f = t->buckets[b]; f && !holds; f = f->next)
            for (struct lock *l = f->locks; l && !holds; l = l->next)
                holds = same_owner(&l->owner, owner);
    pthread_mutex_unlock(&t->mutex);
    return holds;
}

void lock_release_client(struct lock_table *t, uint64_t client_id)
{
    struct lock_owner owner = {.kind = DANAUS_LOCK_POSIX, .id = client_id};
    pthread_mutex_lock(&t->mutex);
    for (int b = 0; b < LOCK_BUCKETS && t->nlocks; b++) {
        struct lock_file *f = t->buckets[b];
        while (f) {
            struct lock_file *next = f->next;
            drop_matching(t, f, &owner);
            f = next;
        }
    }
    waiter_drop(t, client_id);
    pthread_mutex_unlock(&t->mutex);
}
