/*
 * threadshares.c - fair shares of the service threads inside long calls
 * (threadshares.h).
 *
 * One mutex over the shares and the line, so that a call refused its
 * share is in the line before the call that holds the share can leave and
 * look there: no waiting call is left behind without a thread that will
 * come for it. The shares' own mutexes are taken inside it.
 */
#include "threadshares.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void thread_shares_init(struct thread_shares *t, uid_t owner,
                        uint32_t threads)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    uint32_t per_uid = threads / 2 ? threads / 2 : 1;
    shares_init(&t->uids, owner);
    shares_bound(&t->uids, SHARE_THREADS, threads, per_uid,
                 (threads - per_uid) / 4);
}

void thread_shares_free(struct thread_shares *t)
{
    while (t->first) {
        struct long_call *call = t->first;
        t->first = call->next;
        client_request_end(call->c, call->b.slot);
        client_put(call->c);
        free(call);
    }
    t->last = NULL;
    shares_free(&t->uids);
    pthread_mutex_destroy(&t->lock);
}

/* A share for c's uid (t's lock held). */
static bool take(struct thread_shares *t, const struct client *c)
{
    return share_take(&t->uids, SHARE_THREADS, c->cred.uid) == 0;
}

int thread_shares_enter(struct thread_shares *t, const struct long_call *call)
{
    int rc = 1;
    pthread_mutex_lock(&t->lock);
    if (!take(t, call->c)) {
        struct long_call *copy = malloc(sizeof *copy);
        if (!copy) {
            rc = -ENOMEM;
        } else {
            *copy = *call;
            copy->since = ipc_now_ns();
            copy->next = NULL;
            if (t->last)
                t->last->next = copy;
            else
                t->first = copy;
            t->last = copy;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

struct long_call *thread_shares_leave(struct thread_shares *t,
                                      const struct client *c)
{
    pthread_mutex_lock(&t->lock);
    share_give(&t->uids, SHARE_THREADS, c->cred.uid);
    struct long_call **p = &t->first, *prev = NULL;
    while (*p && !take(t, (*p)->c)) {
        prev = *p;
        p = &(*p)->next;
    }
    struct long_call *call = *p;
    if (call) {
        *p = call->next;
        if (t->last == call)
            t->last = prev;
    }
    pthread_mutex_unlock(&t->lock);
    return call;
}

struct long_call *thread_shares_expire(struct thread_shares *t,
                                       const struct deadlines *ds,
                                       uint64_t now)
{
    struct long_call *expired = NULL, **tail = &expired;
    pthread_mutex_lock(&t->lock);
    struct long_call **p = &t->first, *prev = NULL;
    while (*p) {
        struct long_call *call = *p;
        if (now - call->since < ds->limit_ns ||
            deadline_exempt(ds, call->d.call)) {
            prev = call;
            p = &call->next;
            continue;
        }
        *p = call->next;
        if (t->last == call)
            t->last = prev;
        call->next = NULL;
        *tail = call;
        tail = &call->next;
    }
    pthread_mutex_unlock(&t->lock);
    return expired;
}
