/*
 * shares.c - per-uid fair shares (shares.h).
 *
 * A hash of the uids that hold anything: an entry goes as soon as its uid
 * holds nothing, so a tenant that cycles through many uids costs at most
 * one entry per thing it holds.
 */
#include "shares.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct share {
    uid_t uid;
    uint32_t held[SHARE_KINDS];
    struct share *next;
};

static struct share **slot_of(struct shares *s, uid_t uid)
{
    uint32_t h = (uint32_t)uid * 2654435761u;
    return &s->bucket[h >> 24];
}

static struct share *find(const struct shares *s, uid_t uid)
{
    struct share *const *head = slot_of((struct shares *)s, uid);
    for (struct share *e = *head; e; e = e->next)
        if (e->uid == uid)
            return e;
    return NULL;
}

void shares_init(struct shares *s, uid_t owner)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    s->owner = owner;
}

void shares_free(struct shares *s)
{
    for (int i = 0; i < SHARE_BUCKETS; i++)
        while (s->bucket[i]) {
            struct share *e = s->bucket[i];
            s->bucket[i] = e->next;
            free(e);
        }
    for (int k = 0; k < SHARE_KINDS; k++)
        s->used[k] = 0;
    pthread_mutex_destroy(&s->lock);
}

void shares_bound(struct shares *s, enum share_kind k, uint32_t total,
                  uint32_t per_uid, uint32_t reserve)
{
    s->bound[k] = (struct share_bound){
        .total = total,
        .per_uid = per_uid < total ? per_uid : total,
        .reserve = reserve < total ? reserve : total,
    };
}

static uint32_t held_by(const struct shares *s, enum share_kind k, uid_t uid)
{
    const struct share *e = find(s, uid);
    return e ? e->held[k] : 0;
}

uint32_t share_held(const struct shares *s, enum share_kind k, uid_t uid)
{
    pthread_mutex_lock((pthread_mutex_t *)&s->lock);
    uint32_t held = held_by(s, k, uid);
    pthread_mutex_unlock((pthread_mutex_t *)&s->lock);
    return held;
}

/* What must stay free of kind k for privileged uid p, unless p takes. */
static uint32_t kept_for(const struct shares *s, enum share_kind k, uid_t p,
                         uid_t taker)
{
    uint32_t held = held_by(s, k, p);
    uint32_t reserve = s->bound[k].reserve;
    return p == taker || held >= reserve ? 0 : reserve - held;
}

/* How many more of kind k uid may take; *full: the uid's own bound is
 * what stops it. Lock held. */
static uint32_t room_of(const struct shares *s, enum share_kind k, uid_t uid,
                        bool *full)
{
    const struct share_bound *b = &s->bound[k];
    uint32_t held = held_by(s, k, uid);
    uint64_t kept = kept_for(s, k, 0, uid);
    if (s->owner != 0)
        kept += kept_for(s, k, s->owner, uid);
    uint64_t used = (uint64_t)s->used[k] + kept;
    uint64_t free = used < b->total ? b->total - used : 0;
    uint32_t own = held < b->per_uid ? b->per_uid - held : 0;
    *full = own == 0;
    return (uint32_t)(own < free ? own : free);
}

uint32_t share_room(struct shares *s, enum share_kind k, uid_t uid)
{
    bool full;
    pthread_mutex_lock(&s->lock);
    uint32_t room = room_of(s, k, uid, &full);
    pthread_mutex_unlock(&s->lock);
    return room;
}

int share_take(struct shares *s, enum share_kind k, uid_t uid)
{
    bool full;
    int rc = 0;
    pthread_mutex_lock(&s->lock);
    struct share *e = find(s, uid);
    if (room_of(s, k, uid, &full) == 0) {
        rc = full ? -EUSERS : -EAGAIN;
    } else if (!e && !(e = calloc(1, sizeof *e))) {
        rc = -ENOMEM;
    } else {
        if (!find(s, uid)) {
            struct share **head = slot_of(s, uid);
            e->uid = uid;
            e->next = *head;
            *head = e;
        }
        e->held[k]++;
        s->used[k]++;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void share_give(struct shares *s, enum share_kind k, uid_t uid)
{
    pthread_mutex_lock(&s->lock);
    struct share **p = slot_of(s, uid);
    while (*p && (*p)->uid != uid)
        p = &(*p)->next;
    struct share *e = *p;
    if (e && e->held[k] > 0) {
        e->held[k]--;
        s->used[k]--;
        bool empty = true;
        for (int i = 0; i < SHARE_KINDS; i++)
            empty = empty && e->held[i] == 0;
        if (empty) {
            *p = e->next;
            free(e);
        }
    }
    pthread_mutex_unlock(&s->lock);
}
