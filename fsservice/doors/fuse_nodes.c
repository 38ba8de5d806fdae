/*
 * fuse_nodes.c - the FUSE door's node table (see fuse_nodes.h).
 *
 * A chained hash table from path to node. Renames rewrite the paths of the
 * moved node and of every node below it, found by a scan of the table: a
 * rename is rare next to the lookups, which cost one hash probe.
 */
#include "fuse_nodes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FUSE_ROOT_ID 1 /* fuse_lowlevel.h's */

struct fuse_node {
    struct fuse_node *next; /* in its bucket, while it has a path */
    char *path;             /* NULL once unlinked */
    uint64_t lookups;
    /* On the table's detached list once unlinked, so that freeing the
     * table frees nodes the kernel never forgot. */
    struct fuse_node *prev_detached, *next_detached;
};

static size_t hash(const char *s)
{
    size_t h = 14695981039346656037u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

int fuse_nodes_init(struct fuse_nodes *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    t->nbuckets = 256;
    t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
    t->root = calloc(1, sizeof *t->root);
    if (t->root)
        t->root->path = strdup("");
    if (!t->buckets || !t->root || !t->root->path) {
        fuse_nodes_free(t);
        return -ENOMEM;
    }
    return 0;
}

void fuse_nodes_free(struct fuse_nodes *t)
{
    for (size_t i = 0; t->buckets && i < t->nbuckets; i++)
        for (struct fuse_node *n = t->buckets[i], *next; n; n = next) {
            next = n->next;
            free(n->path);
            free(n);
        }
    free(t->buckets);
    for (struct fuse_node *n = t->detached, *next; n; n = next) {
        next = n->next_detached;
        free(n);
    }
    if (t->root)
        free(t->root->path);
    free(t->root);
    pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof *t);
}

struct fuse_node *fuse_nodes_get(struct fuse_nodes *t, uint64_t id)
{
    return id == FUSE_ROOT_ID ? t->root : (struct fuse_node *)(uintptr_t)id;
}

uint64_t fuse_node_id(const struct fuse_nodes *t, const struct fuse_node *n)
{
    return n == t->root ? FUSE_ROOT_ID : (uint64_t)(uintptr_t)n;
}

static int copy_path(const char *path, char *out, size_t size)
{
    if (!path)
        return -ESTALE;
    size_t n = strlen(path);
    if (n >= size)
        return -ENAMETOOLONG;
    memcpy(out, path, n + 1);
    return 0;
}

int fuse_node_path(struct fuse_nodes *t, const struct fuse_node *n,
                   char *out, size_t size)
{
    pthread_mutex_lock(&t->lock);
    int rc = copy_path(n->path, out, size);
    pthread_mutex_unlock(&t->lock);
    return rc;
}

int fuse_node_child_path(struct fuse_nodes *t, const struct fuse_node *parent,
                         const char *name, char *out, size_t size)
{
    int rc = fuse_node_path(t, parent, out, size);
    if (rc < 0)
        return rc;
    size_t used = strlen(out), len = strlen(name);
    size_t sep = used ? 1 : 0;
    if (used + sep + len >= size)
        return -ENAMETOOLONG;
    if (sep)
        out[used] = '/';
    memcpy(out + used + sep, name, len + 1);
    return 0;
}

/* Under the lock. */
static struct fuse_node **slot_of(struct fuse_nodes *t, const char *path)
{
    struct fuse_node **p = &t->buckets[hash(path) % t->nbuckets];
    while (*p && strcmp((*p)->path, path) != 0)
        p = &(*p)->next;
    return p;
}

static void insert(struct fuse_nodes *t, struct fuse_node *n)
{
    struct fuse_node **head = &t->buckets[hash(n->path) % t->nbuckets];
    n->next = *head;
    *head = n;
}

/* Doubles the buckets when they hold twice their number; a failed
 * allocation leaves longer chains. */
static void grow(struct fuse_nodes *t)
{
    if (t->count < 2 * t->nbuckets)
        return;
    struct fuse_node **old = t->buckets;
    size_t nold = t->nbuckets;
    struct fuse_node **bigger = calloc(2 * nold, sizeof *bigger);
    if (!bigger)
        return;
    t->buckets = bigger;
    t->nbuckets = 2 * nold;
    for (size_t i = 0; i < nold; i++)
        for (struct fuse_node *n = old[i], *next; n; n = next) {
            next = n->next;
            insert(t, n);
        }
    free(old);
}

struct fuse_node *fuse_nodes_lookup(struct fuse_nodes *t, const char *path)
{
    pthread_mutex_lock(&t->lock);
    struct fuse_node *n = path[0] ? *slot_of(t, path) : t->root;
    if (!n && (n = calloc(1, sizeof *n)) && !(n->path = strdup(path))) {
        free(n);
        n = NULL;
    } else if (n && n->lookups == 0 && n != t->root) {
        insert(t, n);
        t->count++;
        grow(t);
    }
    if (n)
        n->lookups++;
    pthread_mutex_unlock(&t->lock);
    return n;
}

/* Under the lock: n, out of its bucket, loses its name. */
static void nameless(struct fuse_nodes *t, struct fuse_node *n)
{
    free(n->path);
    n->path = NULL;
    t->count--;
    n->prev_detached = NULL;
    n->next_detached = t->detached;
    if (t->detached)
        t->detached->prev_detached = n;
    t->detached = n;
}

/* Under the lock: takes n out of its bucket and off its name. */
static void detach(struct fuse_nodes *t, struct fuse_node *n)
{
    struct fuse_node **p = slot_of(t, n->path);
    if (*p == n)
        *p = n->next;
    nameless(t, n);
}

void fuse_nodes_forget(struct fuse_nodes *t, uint64_t id, uint64_t count)
{
    struct fuse_node *n = fuse_nodes_get(t, id);
    pthread_mutex_lock(&t->lock);
    n->lookups = count < n->lookups ? n->lookups - count : 0;
    if (n->lookups == 0 && n != t->root) {
        if (n->path)
            detach(t, n);
        if (n->prev_detached)
            n->prev_detached->next_detached = n->next_detached;
        else
            t->detached = n->next_detached;
        if (n->next_detached)
            n->next_detached->prev_detached = n->prev_detached;
        free(n);
    }
    pthread_mutex_unlock(&t->lock);
}

void fuse_nodes_unlinked(struct fuse_nodes *t, const char *path)
{
    pthread_mutex_lock(&t->lock);
    struct fuse_node *n = path[0] ? *slot_of(t, path) : NULL;
    if (n)
        detach(t, n);
    pthread_mutex_unlock(&t->lock);
}

/* Whether path is under (or is) dir. */
static bool below(const char *path, const char *dir, size_t len)
{
    return strncmp(path, dir, len) == 0 &&
           (path[len] == '\0' || path[len] == '/');
}

void fuse_nodes_rename(struct fuse_nodes *t, const char *from,
                       const char *to)
{
    size_t lf = strlen(from), lt = strlen(to);
    pthread_mutex_lock(&t->lock);
    struct fuse_node *target = *slot_of(t, to);
    if (target)
        detach(t, target);
    /* Out of the table first, back in under their new paths after. */
    struct fuse_node *moved = NULL;
    for (size_t i = 0; i < t->nbuckets; i++)
        for (struct fuse_node **p = &t->buckets[i]; *p;) {
            struct fuse_node *n = *p;
            if (!below(n->path, from, lf)) {
                p = &n->next;
                continue;
            }
            *p = n->next;
            n->next = moved;
            moved = n;
        }
    while (moved) {
        struct fuse_node *n = moved;
        moved = n->next;
        size_t rest = strlen(n->path + lf);
        char *path = malloc(lt + rest + 1);
        if (!path) {
            /* Out of memory: the node loses its name rather than keep a
             * wrong one. */
            nameless(t, n);
            continue;
        }
        memcpy(path, to, lt);
        memcpy(path + lt, n->path + lf, rest + 1);
        free(n->path);
        n->path = path;
        insert(t, n);
    }
    pthread_mutex_unlock(&t->lock);
}
