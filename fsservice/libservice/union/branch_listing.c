/*
 * branch_listing.c - the names of a read-only branch's directories,
 * listed once.
 *
 * Lookups in a union ask each branch below the one that answers whether it
 * holds a name, and then whether it holds a whiteout of it: on CephFS, every
 * such miss in a directory the client has not cached whole is a round trip
 * to the MDS. Read-only branches do not change once a union has served from
 * them (as overlayfs requires of its lower layers; the engine's image layers
 * never do), so a directory's names, listed on first need (or kept from a
 * merged listing that read the directory whole), answer every later
 * question about it without asking the backend.
 *
 * A listing is read with the copy-up credential, so it is complete. Its
 * "here" only sends the caller on to the branch; its "not here" answers a
 * client only after the client's own search permission on the directory
 * was checked, so an answer never differs from what the branch would give
 * (EACCES stays the branch's to report).
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#define LISTINGS_MAX 4096          /* directories listed per union */
#define LISTING_BYTES_MAX (1 << 20) /* names of one directory */

struct branch_listing {
    struct branch_listing *next;
    int branch;
    size_t n;
    char **names; /* sorted, pointing into store; NULL while being read */
    char *store;
    size_t used, cap; /* of store */
    char dir[];
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void union_branch_listing_drop(struct branch_listing *l)
{
    if (l) {
        free(l->names);
        free(l->store);
        free(l);
    }
}

static struct branch_listing *listing_new(int b, const char *dir)
{
    struct branch_listing *l = calloc(1, sizeof *l + strlen(dir) + 1);
    if (l) {
        l->branch = b;
        strcpy(l->dir, dir);
    }
    return l;
}

/* Adds one name as read; -1 (the listing then unusable) past the bound
 * or without memory. */
int union_branch_listing_add(struct branch_listing *l, const char *name)
{
    size_t len = strlen(name) + 1;
    if (len > LISTING_BYTES_MAX - l->used)
        return -1;
    if (l->used + len > l->cap) {
        size_t cap = l->cap ? l->cap : 4096;
        while (cap < l->used + len)
            cap *= 2;
        char *grown = realloc(l->store, cap);
        if (!grown)
            return -1;
        l->store = grown;
        l->cap = cap;
    }
    memcpy(l->store + l->used, name, len);
    l->used += len;
    l->n++;
    return 0;
}

/* Sorts the names read, for bsearch, their store cut to its size (a
 * listing is kept as long as the union); -1 without memory. */
static int listing_finish(struct branch_listing *l)
{
    char *kept = realloc(l->store, l->used ? l->used : 1);
    if (!kept)
        return -1;
    l->store = kept;
    l->cap = l->used;
    l->names = malloc((l->n ? l->n : 1) * sizeof *l->names);
    if (!l->names)
        return -1;
    for (size_t i = 0, at = 0; i < l->n; i++, at += strlen(l->store + at) + 1)
        l->names[i] = l->store + at;
    qsort(l->names, l->n, sizeof *l->names, by_name);
    return 0;
}

/* Reads the names of dir in branch b; NULL when it cannot (or is too big
 * to) be listed. */
static struct branch_listing *list_dir(struct union_instance *u, int b,
                                      const char *dir)
{
    struct ls_instance *in = union_branch_inst(u, b);
    struct ls_file *f;
    if (in->ops->open(in, &u->copyup_cred, dir, O_RDONLY | O_DIRECTORY, 0,
                      &f) < 0)
        return NULL;
    struct branch_listing *l = listing_new(b, dir);
    char buf[16384];
    off_t pos = 0;
    ssize_t got = -1;
    int ok = l != NULL;
    while (ok && (got = in->ops->getdents(f, &u->copyup_cred, buf, sizeof buf,
                                          &pos)) > 0) {
        for (ssize_t off = 0; ok && off < got;) {
            struct danaus_dirent *d = (struct danaus_dirent *)(buf + off);
            off += d->d_reclen;
            ok = union_branch_listing_add(l, d->d_name) == 0;
        }
    }
    in->ops->close(f);
    if (ok && got == 0 && listing_finish(l) == 0)
        return l;
    union_branch_listing_drop(l);
    return NULL;
}

/* The chain of branch b's dir. */
static struct branch_listing **chain(struct union_instance *u, int b,
                                     const char *dir)
{
    return &u->listings[(union_hash(dir) ^ (uint64_t)b) %
                        UNION_LISTING_BUCKETS];
}

static struct branch_listing *find(struct branch_listing *l, int b,
                                  const char *dir)
{
    for (; l; l = l->next)
        if (l->branch == b && strcmp(l->dir, dir) == 0)
            return l;
    return NULL;
}

int union_branch_has(struct union_instance *u, const struct ls_cred *cred,
                     int b, const char *dir, const char *name)
{
    if (u->branch[b].writable || !u->listings_on)
        return -1;
    pthread_mutex_lock(&u->listing_lock);
    struct branch_listing **head = chain(u, b, dir);
    struct branch_listing *l = find(*head, b, dir);
    if (!l && u->nlistings < LISTINGS_MAX && (l = list_dir(u, b, dir))) {
        l->next = *head;
        *head = l;
        u->nlistings++;
    }
    int has = -1;
    if (l) {
        const char *key = name;
        has = bsearch(&key, l->names, l->n, sizeof *l->names, by_name) != NULL;
    }
    pthread_mutex_unlock(&u->listing_lock);
    /* "Here" sends the caller on to the branch, which checks the client's
     * permissions itself; "not here" must be what the branch would tell
     * this client too, so it goes only to a client that may search dir. */
    if (has == 0) {
        struct ls_instance *in = union_branch_inst(u, b);
        if (in->ops->access(in, cred, dir, X_OK, AT_EACCESS) < 0)
            has = -1;
    }
    return has;
}

struct branch_listing *union_branch_listing_begin(struct union_instance *u,
                                                  int b, const char *dir)
{
    if (u->branch[b].writable || !u->listings_on)
        return NULL;
    pthread_mutex_lock(&u->listing_lock);
    int wanted = u->nlistings < LISTINGS_MAX && !find(*chain(u, b, dir), b, dir);
    pthread_mutex_unlock(&u->listing_lock);
    return wanted ? listing_new(b, dir) : NULL;
}

void union_branch_listing_keep(struct union_instance *u,
                               struct branch_listing *l)
{
    if (listing_finish(l) < 0) {
        union_branch_listing_drop(l);
        return;
    }
    pthread_mutex_lock(&u->listing_lock);
    struct branch_listing **head = chain(u, l->branch, l->dir);
    /* Another thread may have listed it meanwhile: the same names. */
    if (u->nlistings < LISTINGS_MAX && !find(*head, l->branch, l->dir)) {
        l->next = *head;
        *head = l;
        u->nlistings++;
        l = NULL;
    }
    pthread_mutex_unlock(&u->listing_lock);
    union_branch_listing_drop(l);
}

void union_branch_listings_free(struct union_instance *u)
{
    for (int i = 0; i < UNION_LISTING_BUCKETS; i++)
        while (u->listings[i]) {
            struct branch_listing *l = u->listings[i];
            u->listings[i] = l->next;
            union_branch_listing_drop(l);
        }
    u->nlistings = 0;
}
