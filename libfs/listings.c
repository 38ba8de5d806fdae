/*
 * listings.c - records a directory's open answered, kept for its first
 * reader (see listings.h).
 *
 * A few places, each a buffer of LISTINGS_MAX bytes, under one mutex:
 * they are taken and filled once per directory open and emptied by its
 * first readdir, so the lock is never held long or often, and a process
 * that opens directories faster than it reads them simply stops asking.
 */
#include "listings.h"
#include "call.h"

#include <danaus/wire.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLACES 16

struct kept {
    bool used;            /* reserved or filled */
    bool filled;
    struct fd_info h;     /* the open file the records are of */
    unsigned char *buf;   /* LISTINGS_MAX bytes */
    size_t at, len;       /* records not yet taken: buf[at, len) */
    bool end;             /* nothing follows them in the listing */
    int64_t after;        /* the service's offset after them */
    int64_t taken;        /* the offset after the last record taken */
};

static struct kept places[PLACES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Places filled: lseek, on every file, looks no further while it is 0. */
static _Atomic int filled;
/* Listings a reader took, and listings closed or given back unread (a
 * directory opened to be fsync'd, or as the base of *at calls): asking
 * pays while readers take most. Under lock. */
static uint32_t listings_read_count, listings_unread;

/* Under lock. */
static bool asking_pays(void)
{
    if (listings_unread > 1024) {
        listings_read_count /= 2;
        listings_unread /= 2;
    }
    return listings_unread < 8 || listings_read_count >= listings_unread;
}

int listings_reserve(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; asking_pays() && i < PLACES; i++) {
        if (!places[i].used) {
            places[i].used = true;
            pthread_mutex_unlock(&lock);
            return i;
        }
    }
    pthread_mutex_unlock(&lock);
    return -1;
}

/* Under lock. */
static void empty(struct kept *k)
{
    if (k->filled)
        atomic_fetch_sub_explicit(&filled, 1, memory_order_relaxed);
    if (k->filled && k->at == 0)
        listings_unread++;
    free(k->buf);
    *k = (struct kept){0};
}

void listings_cancel(int place)
{
    pthread_mutex_lock(&lock);
    empty(&places[place]);
    pthread_mutex_unlock(&lock);
}

static void give_back(const struct fd_info *h, int64_t taken);

void listings_fill(int place, const struct fd_info *h, const void *records,
                   size_t len, bool end, int64_t after)
{
    unsigned char *buf = malloc(LISTINGS_MAX);
    pthread_mutex_lock(&lock);
    struct kept *k = &places[place];
    if (!buf) {
        empty(k);
        pthread_mutex_unlock(&lock);
        give_back(h, 0);
        return;
    }
    atomic_fetch_add_explicit(&filled, 1, memory_order_relaxed);
    *k = (struct kept){.used = true, .filled = true, .h = *h, .buf = buf,
                       .len = len, .end = end, .after = after};
    memcpy(k->buf, records, len);
    pthread_mutex_unlock(&lock);
}

/* The place filled for h, under lock, or NULL. */
static struct kept *find(const struct fd_info *h)
{
    for (int i = 0; i < PLACES; i++) {
        struct kept *k = &places[i];
        if (k->filled && k->h.handle == h->handle &&
            k->h.epoch == h->epoch && k->h.mount == h->mount)
            return k;
    }
    return NULL;
}

unsigned char *listings_take(int fd, const struct fd_info *h, size_t *pos,
                             size_t *len, bool *end)
{
    pthread_mutex_lock(&lock);
    struct kept *k = find(h);
    unsigned char *buf = NULL;
    if (k) {
        buf = k->buf;
        *pos = k->at;
        *len = k->len;
        *end = k->end;
        /* The stream now holds them as glibc's buffer would: the offset a
         * restart restores is the service's, past them. */
        fdtable_note_pos(fd, k->after);
        if (k->at == 0)
            listings_read_count++;
        k->buf = NULL;
        k->at = k->len;
        empty(k);
    }
    pthread_mutex_unlock(&lock);
    return buf;
}

bool listings_read(int fd, const struct fd_info *h, void *buf, size_t count,
                   ssize_t *got)
{
    pthread_mutex_lock(&lock);
    struct kept *k = find(h);
    if (!k) {
        pthread_mutex_unlock(&lock);
        return false;
    }
    size_t n = 0;
    while (k->at + n < k->len) {
        struct danaus_dirent rec;
        size_t left = k->len - k->at - n;
        if (left < DANAUS_DIRENT_NAME_AT)
            break;
        memcpy(&rec, k->buf + k->at + n, DANAUS_DIRENT_NAME_AT);
        if (rec.d_reclen <= DANAUS_DIRENT_NAME_AT || rec.d_reclen > left ||
            n + rec.d_reclen > count)
            break;
        n += rec.d_reclen;
        k->taken = rec.d_off;
    }
    if (n == 0 && k->at < k->len) {
        *got = -1;
        errno = EINVAL; /* the kernel's answer to a buffer too small */
    } else {
        memcpy(buf, k->buf + k->at, n);
        if (k->at == 0)
            listings_read_count++;
        k->at += n;
        *got = (ssize_t)n;
    }
    /* Once all are taken the service's offset is the reader's. */
    fdtable_note_pos(fd, k->at >= k->len ? k->after : k->taken);
    if (k->at >= k->len)
        empty(k);
    pthread_mutex_unlock(&lock);
    return true;
}

void listings_forget(const struct fd_info *h)
{
    pthread_mutex_lock(&lock);
    struct kept *k = find(h);
    if (k)
        empty(k);
    pthread_mutex_unlock(&lock);
}

/* Puts h's offset back to where its readers stopped (taken), on the
 * service h belongs to while it is still there: a successor opened h's
 * descriptors again at the offset noted for them, which is taken. */
static void give_back(const struct fd_info *h, int64_t taken)
{
    const struct service *svc = service_peek();
    struct call c;
    if (!svc || svc->epoch != h->epoch ||
        call_begin(&c, DANAUS_CALL_LSEEK, h->mount, h->handle) < 0)
        return;
    c.desc.arg[0] = taken;
    c.desc.arg[1] = SEEK_SET;
    int saved = errno;
    call_send(&c);
    errno = saved;
}

void listings_settle(int fd, int whence)
{
    struct fd_info h;
    if (atomic_load_explicit(&filled, memory_order_relaxed) == 0 ||
        !fdtable_lookup(fd, &h))
        return;
    pthread_mutex_lock(&lock);
    struct kept *k = find(&h);
    if (!k) {
        pthread_mutex_unlock(&lock);
        return;
    }
    int64_t taken = k->taken;
    empty(k);
    pthread_mutex_unlock(&lock);
    if (whence != SEEK_SET)
        give_back(&h, taken);
}

void listings_give_back_all(void)
{
    for (int i = 0; i < PLACES; i++) {
        pthread_mutex_lock(&lock);
        struct kept *k = &places[i];
        if (!k->filled) {
            pthread_mutex_unlock(&lock);
            continue;
        }
        struct fd_info h = k->h;
        int64_t taken = k->taken;
        empty(k);
        pthread_mutex_unlock(&lock);
        give_back(&h, taken);
    }
}

void listings_hold(void)
{
    pthread_mutex_lock(&lock);
}

void listings_release(void)
{
    pthread_mutex_unlock(&lock);
}
