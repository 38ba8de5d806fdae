/*
 * branch_listing.c - the names of a read-only branch's directories,
 * listed once.
 *
 * Lookups in a union ask each branch below the one that answers whether it
 * holds a name, and then whether it holds a whiteout of it: on CephFS, every
 * such miss in a directory the client has not cached whole is a round trip
 * to the MDS. Read-only branches do not change once a union has served from
 * them (as overlayfs requires of its lower layers; the engine's image layers
 * never do), so a directory's names, listed on first need, answer every
 * later question about it without asking the backend.
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
    char **names; /* sorted, pointing into store */
    char *store;
    char dir[];
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
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
    struct branch_listing *l = calloc(1, sizeof *l + strlen(dir) + 1);
    char *store = malloc(LISTING_BYTES_MAX);
    size_t used = 0, n = 0;
    char buf[16384];
    off_t pos = 0;
    ssize_t got = -1;
    int ok = l && store;
    while (ok && (got = in->ops->getdents(f, &u->copyup_cred, buf, sizeof buf,
                                          &pos)) > 0) {
        for (ssize_t off = 0; off < got;) {
            struct danaus_dirent *d = (struct danaus_dirent *)(buf + off);
            off += d->d_reclen;
            size_t len = strlen(d->d_name) + 1;
            if (len > LISTING_BYTES_MAX - used) {
                ok = 0;
                break;
            }
            memcpy(store + used, d->d_name, len);
            used += len;
            n++;
        }
    }
    in->ops->close(f);
    /* The names only: a listing is kept as long as the union. */
    char *kept = ok && got == 0 ? realloc(store, used ? used : 1) : NULL;
    if (kept)
        store = kept;
    if (kept && (l->names = malloc((n ? n : 1) * sizeof *l->names))) {
        for (size_t i = 0, at = 0; i < n; i++, at += strlen(store + at) + 1)
            l->names[i] = store + at;
        qsort(l->names, n, sizeof *l->names, by_name);
        l->n = n;
        l->store = store;
        l->branch = b;
        strcpy(l->dir, dir);
        return l;
    }
    free(store);
    free(l);
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

void union_branch_listings_free(struct union_instance *u)
{
    for (int i = 0; i < UNION_LISTING_BUCKETS; i++)
        while (u->listings[i]) {
            struct branch_listing *l = u->listings[i];
            u->listings[i] = l->next;
            free(l->names);
            free(l->store);
            free(l);
        }
    u->nlistings = 0;
}
