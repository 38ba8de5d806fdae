/*
 * branch_listing.c - the records of a read-only branch's directories,
 * listed once for every union over the branch.
 *
 * Lookups in a union ask each branch below the one that answers whether it
 * holds a name, and then whether it holds a whiteout of it: on CephFS, every
 * such miss in a directory the client has not cached whole is a round trip
 * to the MDS. Read-only branches do not change once a union has served from
 * them (as overlayfs requires of its lower layers; the engine's image layers
 * never do), so a directory's records, listed on first need (or kept from a
 * merged listing that read the directory whole), answer every later
 * question about it, and every later merged listing of it, without asking
 * the backend. They are kept in the branch's layer (union.h), which the
 * service shares between the unions over one branch instance (the
 * containers of one image in a pool), so a container's first walk finds
 * what another's listed.
 *
 * A listing is read with the copy-up credential, so it is complete. Its
 * "here" only sends the caller on to the branch; its "not here" answers a
 * client only after the client's own search permission on the directory
 * was checked, and its records go into a merged listing only for a client
 * that may read the directory (dir.c), so an answer never differs from
 * what the branch would give (EACCES stays the branch's to report).
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define LISTINGS_MAX 16384          /* directories listed per layer */
#define LAYER_BYTES_MAX (64u << 20) /* kept per layer */
#define LAYERS_BYTES_MAX (256u << 20) /* kept by all layers of the process */
#define LISTING_BYTES_MAX (1u << 20) /* records of one directory */
#define LAYER_BUCKETS 4096          /* of a layer's hash table */

#define SEEN_CREDS 4 /* credentials remembered per directory */

/* What a credential was seen to be allowed in a directory of the branch
 * (uid, gid and groups alike: the same answer from the branch). */
enum { MAY_SEARCH = 1, MAY_READ = 2 };
struct seen_cred {
    uid_t uid;
    gid_t gid;
    int ngroups;
    gid_t *groups;
    unsigned may;
};

struct branch_listing {
    struct branch_listing *next;
    size_t n;
    const struct danaus_dirent **by_name; /* sorted, pointing into store */
    char *store; /* the records, 8-byte aligned, as getdents gives them */
    size_t used, cap; /* of store */
    /* Each name's lstat, by_name's order, once a stat of it was answered
     * (known[i]); NULL until the first. */
    struct danaus_stat *attrs;
    bool *known;
    /* Who was seen to search the directory in the branch (its names'
     * attributes and absences are theirs to have) or to read it. */
    struct seen_cred *seen;
    int nseen;
    char dir[];
};

/* Every directory of one read-only branch listed so far. Readers of a
 * listing hold the lock shared while they use its records; forgetting
 * takes it exclusive. */
struct union_layer {
    pthread_rwlock_t lock;
    struct branch_listing *chain[LAYER_BUCKETS];
    int nlistings;
    size_t bytes;
};

struct union_layer *union_layer_new(void)
{
    struct union_layer *l = calloc(1, sizeof *l);
    if (l)
        pthread_rwlock_init(&l->lock, NULL);
    return l;
}

void union_branch_listing_drop(struct branch_listing *l)
{
    if (l) {
        free(l->attrs);
        free(l->known);
        for (int i = 0; i < l->nseen; i++)
            free(l->seen[i].groups);
        free(l->seen);
        free(l->by_name);
        free(l->store);
        free(l);
    }
}

/* What all layers keep, against LAYERS_BYTES_MAX. */
static _Atomic size_t layers_bytes;

/* Counts n more bytes kept in layer, if both bounds leave room: whether
 * they may be kept. Called with the layer's lock held exclusive. */
static bool charge(struct union_layer *layer, size_t n)
{
    if (n > LAYER_BYTES_MAX - layer->bytes)
        return false;
    size_t all = atomic_load(&layers_bytes);
    do {
        if (n > LAYERS_BYTES_MAX - all)
            return false;
    } while (!atomic_compare_exchange_weak(&layers_bytes, &all, all + n));
    layer->bytes += n;
    return true;
}

static void uncharge(struct union_layer *layer, size_t n)
{
    layer->bytes -= n;
    atomic_fetch_sub(&layers_bytes, n);
}

static void forget_all(struct union_layer *layer)
{
    for (int i = 0; i < LAYER_BUCKETS; i++)
        while (layer->chain[i]) {
            struct branch_listing *l = layer->chain[i];
            layer->chain[i] = l->next;
            union_branch_listing_drop(l);
        }
    layer->nlistings = 0;
    atomic_fetch_sub(&layers_bytes, layer->bytes);
    layer->bytes = 0;
}

void union_layer_forget(struct union_layer *layer)
{
    if (layer) {
        pthread_rwlock_wrlock(&layer->lock);
        forget_all(layer);
        pthread_rwlock_unlock(&layer->lock);
    }
}

void union_layer_free(struct union_layer *layer)
{
    if (layer) {
        forget_all(layer);
        pthread_rwlock_destroy(&layer->lock);
        free(layer);
    }
}

static int by_name(const void *a, const void *b)
{
    const struct danaus_dirent *x = *(const struct danaus_dirent *const *)a;
    const struct danaus_dirent *y = *(const struct danaus_dirent *const *)b;
    return strcmp(x->d_name, y->d_name);
}

/* bsearch's comparison of a name with a record. */
static int name_of_record(const void *name, const void *rec)
{
    return strcmp(name, (*(const struct danaus_dirent *const *)rec)->d_name);
}

static struct branch_listing *listing_new(const char *dir)
{
    struct branch_listing *l = calloc(1, sizeof *l + strlen(dir) + 1);
    if (l)
        strcpy(l->dir, dir);
    return l;
}

/* Adds one record as read (its length taken from its name, not from the
 * backend's d_reclen); -1 (the listing then unusable) past the bound or
 * without memory. */
int union_branch_listing_add(struct branch_listing *l,
                             const struct danaus_dirent *d)
{
    size_t len = (DANAUS_DIRENT_NAME_AT + strlen(d->d_name) + 1 + 7) &
                 ~(size_t)7;
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
    struct danaus_dirent *kept = (struct danaus_dirent *)(l->store + l->used);
    memset(kept, 0, len);
    kept->d_ino = d->d_ino;
    kept->d_reclen = (uint16_t)len;
    kept->d_type = d->d_type;
    strcpy(kept->d_name, d->d_name);
    l->used += len;
    l->n++;
    return 0;
}

static const struct danaus_dirent *record(const struct branch_listing *l,
                                          size_t at)
{
    return (const struct danaus_dirent *)(l->store + at);
}

/* Sorts the records read by name, for bsearch, their store cut to its
 * size; -1 without memory. */
static int listing_finish(struct branch_listing *l)
{
    char *kept = realloc(l->store, l->used ? l->used : 8);
    if (!kept)
        return -1;
    l->store = kept;
    l->cap = l->used;
    l->by_name = malloc((l->n ? l->n : 1) * sizeof *l->by_name);
    if (!l->by_name)
        return -1;
    for (size_t i = 0, at = 0; i < l->n; i++, at += record(l, at)->d_reclen)
        l->by_name[i] = record(l, at);
    qsort(l->by_name, l->n, sizeof *l->by_name, by_name);
    return 0;
}

/* Reads the records of dir in branch b; NULL when it cannot (or is too
 * big to) be listed. */
static struct branch_listing *list_dir(struct union_instance *u, int b,
                                      const char *dir)
{
    struct ls_instance *in = union_branch_inst(u, b);
    struct ls_file *f;
    if (in->ops->open(in, &u->copyup_cred, dir, O_RDONLY | O_DIRECTORY, 0,
                      &f) < 0)
        return NULL;
    struct branch_listing *l = listing_new(dir);
    char buf[16384];
    off_t pos = 0;
    ssize_t got = -1;
    int ok = l != NULL;
    while (ok && (got = in->ops->getdents(f, &u->copyup_cred, buf, sizeof buf,
                                          &pos)) > 0) {
        for (ssize_t off = 0; ok && off < got;) {
            const struct danaus_dirent *d =
                (const struct danaus_dirent *)(buf + off);
            off += d->d_reclen;
            ok = union_branch_listing_add(l, d) == 0;
        }
    }
    in->ops->close(f);
    if (ok && got == 0 && listing_finish(l) == 0)
        return l;
    union_branch_listing_drop(l);
    return NULL;
}

static struct branch_listing **chain(struct union_layer *layer,
                                     const char *dir)
{
    return &layer->chain[union_hash(dir) % LAYER_BUCKETS];
}

static struct branch_listing *find(struct branch_listing *l, const char *dir)
{
    for (; l; l = l->next)
        if (strcmp(l->dir, dir) == 0)
            return l;
    return NULL;
}

/* Puts l in the layer unless it is full or holds dir already (another
 * thread listed it meanwhile: the same records); l is the layer's then,
 * else the caller's to drop. Called with the lock held exclusive. */
static bool keep(struct union_layer *layer, struct branch_listing *l)
{
    struct branch_listing **head = chain(layer, l->dir);
    size_t bytes = sizeof *l + strlen(l->dir) + 1 + l->used +
                   l->n * sizeof *l->by_name;
    if (layer->nlistings >= LISTINGS_MAX || find(*head, l->dir) ||
        !charge(layer, bytes))
        return false;
    l->next = *head;
    *head = l;
    layer->nlistings++;
    return true;
}

/* The layer of read-only branch b, once the union is made; NULL for a
 * writable branch, which has none (union_instance_new). */
static struct union_layer *layer_of(struct union_instance *u, int b)
{
    return u->listings_on ? u->branch[b].layer : NULL;
}

/* The index of name's record in l's by_name, or -1. */
static ssize_t index_of(const struct branch_listing *l, const char *name)
{
    const struct danaus_dirent *const *at =
        bsearch(name, l->by_name, l->n, sizeof *l->by_name, name_of_record);
    return at ? at - l->by_name : -1;
}

static bool same_cred(const struct seen_cred *s, const struct ls_cred *cred)
{
    return s->uid == cred->uid && s->gid == cred->gid &&
           s->ngroups == cred->ngroups &&
           memcmp(s->groups, cred->groups,
                  (size_t)cred->ngroups * sizeof *cred->groups) == 0;
}

/* What l's directory was seen to allow cred: MAY_ bits. */
static unsigned seen_may(const struct branch_listing *l,
                         const struct ls_cred *cred)
{
    for (int i = 0; i < l->nseen; i++)
        if (same_cred(&l->seen[i], cred))
            return l->seen[i].may;
    return 0;
}

/* The seen_cred of cred in l, made if there is room; NULL past the bounds
 * or without memory. Called with the layer's lock held exclusive. */
static struct seen_cred *seen_cred(struct union_layer *layer,
                                   struct branch_listing *l,
                                   const struct ls_cred *cred)
{
    for (int i = 0; i < l->nseen; i++)
        if (same_cred(&l->seen[i], cred))
            return &l->seen[i];
    if (l->nseen == SEEN_CREDS)
        return NULL;
    if (!l->seen && charge(layer, sizeof *l->seen * SEEN_CREDS) &&
        !(l->seen = calloc(SEEN_CREDS, sizeof *l->seen)))
        uncharge(layer, sizeof *l->seen * SEEN_CREDS);
    size_t groups = (size_t)cred->ngroups * sizeof *cred->groups;
    struct seen_cred *s = l->seen ? &l->seen[l->nseen] : NULL;
    if (!s || !charge(layer, groups))
        return NULL;
    if (!(s->groups = malloc(groups ? groups : 1))) {
        uncharge(layer, groups);
        return NULL;
    }
    s->uid = cred->uid;
    s->gid = cred->gid;
    s->ngroups = cred->ngroups;
    memcpy(s->groups, cred->groups, groups);
    s->may = 0;
    l->nseen++;
    return s;
}

/* Notes, in dir's listing if the layer holds one, what cred may do there
 * (MAY_ bits) and, with name, what name's lstat answered; past the bounds,
 * or without memory, it is not noted (the branch is asked again). */
static void note_seen(struct union_layer *layer, const char *dir,
                      const struct ls_cred *cred, unsigned may,
                      const char *name, const struct danaus_stat *st)
{
    pthread_rwlock_wrlock(&layer->lock);
    struct branch_listing *l = find(*chain(layer, dir), dir);
    struct seen_cred *s = l ? seen_cred(layer, l, cred) : NULL;
    if (s)
        s->may |= may;
    ssize_t i = l && name ? index_of(l, name) : -1;
    size_t need = l ? l->n * (sizeof *l->attrs + sizeof *l->known) : 0;
    if (i >= 0 && !l->attrs && charge(layer, need)) {
        l->attrs = malloc(l->n * sizeof *l->attrs);
        l->known = calloc(l->n, sizeof *l->known);
        if (!l->attrs || !l->known) {
            free(l->attrs);
            free(l->known);
            l->attrs = NULL;
            l->known = NULL;
            uncharge(layer, need);
        }
    }
    if (i >= 0 && l->attrs) {
        l->attrs[i] = *st;
        l->known[i] = true;
    }
    pthread_rwlock_unlock(&layer->lock);
}

int union_branch_has(struct union_instance *u, const struct ls_cred *cred,
                     int b, const char *dir, const char *name)
{
    struct union_layer *layer = layer_of(u, b);
    if (!layer)
        return -1;
    pthread_rwlock_rdlock(&layer->lock);
    bool wanted = layer->nlistings < LISTINGS_MAX &&
                  !find(*chain(layer, dir), dir);
    pthread_rwlock_unlock(&layer->lock);
    struct branch_listing *l = wanted ? list_dir(u, b, dir) : NULL;
    if (l) {
        pthread_rwlock_wrlock(&layer->lock);
        if (!keep(layer, l))
            union_branch_listing_drop(l);
        pthread_rwlock_unlock(&layer->lock);
    }
    int has = -1;
    bool searches = false;
    pthread_rwlock_rdlock(&layer->lock);
    /* Looked up again: a forget may have come between. */
    if ((l = find(*chain(layer, dir), dir))) {
        has = index_of(l, name) >= 0;
        searches = seen_may(l, cred) & MAY_SEARCH;
    }
    pthread_rwlock_unlock(&layer->lock);
    /* "Here" sends the caller on to the branch, which checks the client's
     * permissions itself; "not here" must be what the branch would tell
     * this client too, so it goes only to a client that may search dir. */
    if (has == 0 && !searches) {
        struct ls_instance *in = union_branch_inst(u, b);
        if (in->ops->access(in, cred, dir, X_OK, AT_EACCESS) < 0)
            has = -1;
        else
            note_seen(layer, dir, cred, MAY_SEARCH, NULL, NULL);
    }
    return has;
}

int union_branch_stat(struct union_instance *u, const struct ls_cred *cred,
                      int b, const char *dir, const char *name,
                      const char *path, struct danaus_stat *st)
{
    struct union_layer *layer = layer_of(u, b);
    bool answered = false;
    if (layer) {
        pthread_rwlock_rdlock(&layer->lock);
        const struct branch_listing *l = find(*chain(layer, dir), dir);
        ssize_t i = l ? index_of(l, name) : -1;
        if (i >= 0 && l->known && l->known[i] &&
            (seen_may(l, cred) & MAY_SEARCH)) {
            *st = l->attrs[i];
            answered = true;
        }
        pthread_rwlock_unlock(&layer->lock);
    }
    if (answered)
        return 0;
    struct ls_instance *in = union_branch_inst(u, b);
    int rc = in->ops->stat(in, cred, path, AT_SYMLINK_NOFOLLOW, st);
    /* Answered, the stat shows cred may search dir. */
    if (rc == 0 && layer)
        note_seen(layer, dir, cred, MAY_SEARCH, name, st);
    return rc;
}

int union_branch_may_read(struct union_instance *u, const struct ls_cred *cred,
                          int b, const char *dir)
{
    struct union_layer *layer = layer_of(u, b);
    if (!layer)
        return 1;
    pthread_rwlock_rdlock(&layer->lock);
    const struct branch_listing *l = find(*chain(layer, dir), dir);
    bool listed = l != NULL, reads = l && (seen_may(l, cred) & MAY_READ);
    pthread_rwlock_unlock(&layer->lock);
    if (!listed)
        return 1;
    if (reads)
        return 0;
    struct ls_instance *in = union_branch_inst(u, b);
    int rc = in->ops->access(in, cred, dir, R_OK, AT_EACCESS);
    if (rc == 0)
        note_seen(layer, dir, cred, MAY_READ, NULL, NULL);
    return rc;
}

int union_branch_listing_each(struct union_instance *u, int b,
                              const char *dir,
                              int (*each)(const struct danaus_dirent *,
                                          void *),
                              void *arg)
{
    struct union_layer *layer = layer_of(u, b);
    if (!layer)
        return 0;
    pthread_rwlock_rdlock(&layer->lock);
    const struct branch_listing *l = find(*chain(layer, dir), dir);
    int rc = l ? 1 : 0;
    for (size_t at = 0; l && at < l->used && rc == 1;
         at += record(l, at)->d_reclen) {
        int r = each(record(l, at), arg);
        if (r < 0)
            rc = r;
    }
    pthread_rwlock_unlock(&layer->lock);
    return rc;
}

struct branch_listing *union_branch_listing_begin(struct union_instance *u,
                                                  int b, const char *dir)
{
    struct union_layer *layer = layer_of(u, b);
    if (!layer)
        return NULL;
    pthread_rwlock_rdlock(&layer->lock);
    bool wanted = layer->nlistings < LISTINGS_MAX &&
                  !find(*chain(layer, dir), dir);
    pthread_rwlock_unlock(&layer->lock);
    return wanted ? listing_new(dir) : NULL;
}

void union_branch_listing_keep(struct union_instance *u, int b,
                               struct branch_listing *l)
{
    struct union_layer *layer = layer_of(u, b);
    if (!layer || listing_finish(l) < 0) {
        union_branch_listing_drop(l);
        return;
    }
    pthread_rwlock_wrlock(&layer->lock);
    bool kept = keep(layer, l);
    pthread_rwlock_unlock(&layer->lock);
    if (!kept)
        union_branch_listing_drop(l);
}
