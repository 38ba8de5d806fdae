/*
 * fuse_nodes.c - the FUSE door's node table (see fuse_nodes.h).
 *
 * The records in the area are the table; what this process keeps beside
 * them is derived from them and rebuilt on adoption: an index from
 * (parent, name) to id for lookups, each node's count of named children,
 * chains of the nodes of each inode (hashed by inode number), and the
 * free ids. A path costs one index probe per component; a rename
 * moves one record, whatever lies below it.
 */
#include "fuse_nodes.h"

#include <errno.h>
#include <danaus/wire.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ROOT_ID 1 /* fuse_lowlevel.h's FUSE_ROOT_ID */
#define MAX_NODES (1ull << 24)
#define INO_BUCKET_BITS 14

enum { NODE_FREE, NODE_NAMED, NODE_DETACHED };

struct node_rec {
    uint64_t parent;     /* the directory it is named in (NAMED) */
    uint64_t lookups;    /* the kernel's */
    uint64_t generation; /* how often the id was given out */
    uint64_t ino;        /* the instance's inode it was last found to be */
    uint8_t state;
    uint8_t namelen;
    char name[NAME_MAX + 1];
};

/* What this process keeps per id beside its record. */
struct node_mem {
    uint32_t children; /* named nodes whose parent it is */
    uint64_t same_ino; /* the next node of its inode's chain; 0: none */
    uint64_t stamp;    /* fuse_nodes_lookup's; 0 in a table adopted */
};

static struct node_rec *rec(const struct fuse_nodes *t, uint64_t id)
{
    return record_area_at(&t->area, id);
}

static uint64_t *ino_chain(const struct fuse_nodes *t, uint64_t ino)
{
    return &t->ino_chains[(ino * 0x9e3779b97f4a7c15u) >>
                          (64 - INO_BUCKET_BITS)];
}

/* Puts id on its inode's chain (nodes of no known inode are on none). */
static void ino_link(struct fuse_nodes *t, uint64_t id)
{
    uint64_t ino = rec(t, id)->ino;
    if (!ino)
        return;
    uint64_t *head = ino_chain(t, ino);
    t->mem[id].same_ino = *head;
    *head = id;
}

static void ino_unlink(struct fuse_nodes *t, uint64_t id)
{
    uint64_t ino = rec(t, id)->ino;
    if (!ino)
        return;
    for (uint64_t *p = ino_chain(t, ino); *p; p = &t->mem[*p].same_ino)
        if (*p == id) {
            *p = t->mem[id].same_ino;
            return;
        }
}

static bool in_use(const struct fuse_nodes *t, uint64_t id)
{
    return id >= ROOT_ID && id < t->top && rec(t, id)->state != NODE_FREE;
}

static size_t hash(uint64_t parent, const char *name, size_t len)
{
    uint64_t h = 14695981039346656037u ^ (parent * 0x9e3779b97f4a7c15u);
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211u;
    return (size_t)h;
}

static bool is(const struct node_rec *r, uint64_t parent, const char *name,
               size_t len)
{
    return r->parent == parent && r->namelen == len &&
           memcmp(r->name, name, len) == 0;
}

/* The index position holding (parent, name), or the empty one where it
 * would go. */
static size_t index_pos(const struct fuse_nodes *t, uint64_t parent,
                        const char *name, size_t len)
{
    size_t mask = t->index_size - 1;
    size_t i = hash(parent, name, len) & mask;
    while (t->index[i] && !is(rec(t, t->index[i]), parent, name, len))
        i = (i + 1) & mask;
    return i;
}

static uint64_t find_child(const struct fuse_nodes *t, uint64_t parent,
                           const char *name, size_t len)
{
    return t->index[index_pos(t, parent, name, len)];
}

static int index_resize(struct fuse_nodes *t, size_t size)
{
    uint64_t *old = t->index;
    size_t nold = t->index_size;
    uint64_t *fresh = calloc(size, sizeof *fresh);
    if (!fresh)
        return -ENOMEM;
    t->index = fresh;
    t->index_size = size;
    for (size_t i = 0; i < nold; i++)
        if (old[i]) {
            const struct node_rec *r = rec(t, old[i]);
            t->index[index_pos(t, r->parent, r->name, r->namelen)] = old[i];
        }
    free(old);
    return 0;
}

/* Adds named node id; -ENOMEM only when the index is full and cannot
 * grow (at half full it tries to). */
static int index_add(struct fuse_nodes *t, uint64_t id)
{
    if (2 * (t->named + 1) > t->index_size &&
        index_resize(t, 2 * t->index_size) < 0 &&
        t->named + 1 >= t->index_size)
        return -ENOMEM;
    const struct node_rec *r = rec(t, id);
    size_t i = index_pos(t, r->parent, r->name, r->namelen);
    if (t->index[i])
        return -EEXIST;
    t->index[i] = id;
    t->named++;
    return 0;
}

/* Takes id out, moving later entries of its probe run back (linear
 * probing's deletion, no tombstones). */
static void index_remove(struct fuse_nodes *t, uint64_t id)
{
    const struct node_rec *r = rec(t, id);
    size_t mask = t->index_size - 1;
    size_t hole = index_pos(t, r->parent, r->name, r->namelen);
    if (t->index[hole] != id)
        return;
    t->index[hole] = 0;
    t->named--;
    for (size_t i = (hole + 1) & mask; t->index[i]; i = (i + 1) & mask) {
        const struct node_rec *o = rec(t, t->index[i]);
        size_t home = hash(o->parent, o->name, o->namelen) & mask;
        /* Moves back unless its home lies cyclically in (hole, i]. */
        bool stays = hole <= i ? (home > hole && home <= i)
                               : (home > hole || home <= i);
        if (!stays) {
            t->index[hole] = t->index[i];
            t->index[i] = 0;
            hole = i;
        }
    }
}

/* Makes the area and what is kept beside it hold ids below count. */
static int room_for(struct fuse_nodes *t, uint64_t count)
{
    void *mem = t->mem;
    int rc = record_area_make_room(&t->area, count, &mem, sizeof *t->mem);
    t->mem = mem;
    return rc;
}

/* A new named node (parent, name) with no lookups: its id, 0 when out of
 * memory or ids. */
static uint64_t make_named(struct fuse_nodes *t, uint64_t parent,
                           const char *name, size_t len)
{
    uint64_t id;
    if (!free_ids_pop(&t->free, &id)) {
        if (room_for(t, t->top + 1) < 0)
            return 0;
        id = t->top++;
    }
    struct node_rec *r = rec(t, id);
    r->parent = parent;
    r->lookups = 0;
    r->generation++;
    r->ino = 0;
    r->namelen = (uint8_t)len;
    memcpy(r->name, name, len);
    r->name[len] = '\0';
    t->mem[id].children = 0;
    t->mem[id].stamp = 0;
    r->state = NODE_NAMED;
    if (index_add(t, id) < 0) {
        r->state = NODE_FREE;
        free_ids_push(&t->free, id);
        return 0;
    }
    t->mem[parent].children++;
    return id;
}

/* Frees id if nothing holds it (no lookups, no named children), then its
 * directory if that was the last thing holding it, and so on up. */
static void release_unused(struct fuse_nodes *t, uint64_t id)
{
    while (id != ROOT_ID && in_use(t, id)) {
        struct node_rec *r = rec(t, id);
        if (r->lookups || t->mem[id].children)
            return;
        bool named = r->state == NODE_NAMED;
        uint64_t parent = r->parent;
        if (named) {
            index_remove(t, id);
            t->mem[parent].children--;
        }
        ino_unlink(t, id);
        r->state = NODE_FREE;
        free_ids_push(&t->free, id);
        if (!named)
            return;
        id = parent;
    }
}

/* id loses its name; it lives on while the kernel holds it. */
static void detach(struct fuse_nodes *t, uint64_t id)
{
    struct node_rec *r = rec(t, id);
    if (r->state != NODE_NAMED || id == ROOT_ID)
        return;
    index_remove(t, id);
    t->mem[r->parent].children--;
    r->state = NODE_DETACHED;
    release_unused(t, r->parent);
    release_unused(t, id);
}

/* The node at path, or 0; with create, the missing ones are made (with no
 * lookups: a child keeps them). */
static uint64_t walk(struct fuse_nodes *t, const char *path, bool create)
{
    uint64_t id = ROOT_ID;
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, "/");
        uint64_t child = len && len <= NAME_MAX ? find_child(t, id, p, len)
                                                : 0;
        if (!child && create && len && len <= NAME_MAX)
            child = make_named(t, id, p, len);
        if (!child) {
            release_unused(t, id);
            return 0;
        }
        id = child;
        p += len;
        if (*p == '/')
            p++;
    }
    return id;
}

static int init_derived(struct fuse_nodes *t)
{
    t->index_size = 1024;
    t->index = calloc(t->index_size, sizeof *t->index);
    t->mem = calloc(t->area.count, sizeof *t->mem);
    t->ino_chains = calloc(1u << INO_BUCKET_BITS, sizeof *t->ino_chains);
    return t->index && t->mem && t->ino_chains ? 0 : -ENOMEM;
}

/* The table over a new area (fd < 0) or the one in fd: 0 or -errno. */
static int open_table(struct fuse_nodes *t, int fd)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    int rc = fd < 0 ? record_area_create(&t->area, "danaus-fuse-nodes",
                                         sizeof(struct node_rec), MAX_NODES)
                    : record_area_adopt(&t->area, fd, sizeof(struct node_rec),
                                        MAX_NODES);
    if (rc == 0 && t->area.count <= ROOT_ID)
        rc = record_area_grow(&t->area, 1024);
    if (rc == 0)
        rc = init_derived(t);
    if (rc < 0)
        fuse_nodes_free(t);
    t->top = ROOT_ID + 1;
    return rc;
}

int fuse_nodes_init(struct fuse_nodes *t)
{
    int rc = open_table(t, -1);
    if (rc < 0)
        return rc;
    struct node_rec *root = rec(t, ROOT_ID);
    root->state = NODE_NAMED;
    root->generation = 1;
    return 0;
}

/* Whether record id, as a crash may have left it, names a child of a
 * node in use. */
static bool sound_name(const struct fuse_nodes *t, const struct node_rec *r)
{
    return r->namelen > 0 && memchr(r->name, '/', r->namelen) == NULL &&
           memchr(r->name, '\0', r->namelen) == NULL &&
           r->parent >= ROOT_ID && r->parent < t->top &&
           rec(t, r->parent)->state != NODE_FREE;
}

int fuse_nodes_adopt(struct fuse_nodes *t, int fd)
{
    int rc = open_table(t, fd);
    if (rc < 0)
        return rc;
    for (uint64_t id = ROOT_ID; id < t->area.count; id++) {
        struct node_rec *r = rec(t, id);
        if (r->state > NODE_DETACHED)
            r->state = NODE_FREE;
        if (r->state != NODE_FREE)
            t->top = id + 1;
    }
    struct node_rec *root = rec(t, ROOT_ID);
    root->state = NODE_NAMED;
    root->parent = 0;
    root->namelen = 0;
    for (uint64_t id = ROOT_ID + 1; id < t->top; id++) {
        struct node_rec *r = rec(t, id);
        if (r->state == NODE_NAMED &&
            (!sound_name(t, r) || index_add(t, id) < 0))
            r->state = NODE_DETACHED;
        if (r->state == NODE_NAMED)
            t->mem[r->parent].children++;
    }
    for (uint64_t id = ROOT_ID + 1; id < t->top; id++)
        if (rec(t, id)->state == NODE_FREE)
            free_ids_push(&t->free, id);
        else
            ino_link(t, id);
    for (uint64_t id = ROOT_ID + 1; id < t->top; id++)
        release_unused(t, id);
    return 0;
}

int fuse_nodes_fd(const struct fuse_nodes *t)
{
    return t->area.fd;
}

void fuse_nodes_free(struct fuse_nodes *t)
{
    record_area_free(&t->area);
    free(t->index);
    free(t->mem);
    free(t->ino_chains);
    free_ids_clear(&t->free);
    pthread_mutex_destroy(&t->lock);
    t->index = NULL;
    t->mem = NULL;
    t->ino_chains = NULL;
}

/* Under the lock. A chain of parents longer than a path can be, or one
 * through a node without a name, is a stale node (or a torn record). */
static int path_locked(struct fuse_nodes *t, uint64_t id, char *out,
                       size_t size)
{
    if (!in_use(t, id))
        return -ESTALE;
    size_t len = 0, depth = 0;
    for (uint64_t x = id; x != ROOT_ID; x = rec(t, x)->parent) {
        const struct node_rec *r = rec(t, x);
        if (r->state != NODE_NAMED || !in_use(t, r->parent) ||
            ++depth > DANAUS_LONG_PATH_MAX / 2)
            return -ESTALE;
        len += r->namelen + (len ? 1u : 0u);
    }
    if (len >= size)
        return -ENAMETOOLONG;
    out[len] = '\0';
    size_t pos = len;
    for (uint64_t x = id; x != ROOT_ID; x = rec(t, x)->parent) {
        const struct node_rec *r = rec(t, x);
        pos -= r->namelen;
        memcpy(out + pos, r->name, r->namelen);
        if (pos)
            out[--pos] = '/';
    }
    return 0;
}

int fuse_node_path(struct fuse_nodes *t, uint64_t id, char *out, size_t size)
{
    pthread_mutex_lock(&t->lock);
    int rc = path_locked(t, id, out, size);
    pthread_mutex_unlock(&t->lock);
    return rc;
}

int fuse_node_child_path(struct fuse_nodes *t, uint64_t id, const char *name,
                         char *out, size_t size)
{
    int rc = fuse_node_path(t, id, out, size);
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

uint64_t fuse_nodes_lookup(struct fuse_nodes *t, const char *path,
                           uint64_t ino, uint64_t stamp, uint64_t *generation)
{
    pthread_mutex_lock(&t->lock);
    uint64_t id = walk(t, path, true);
    /* Another inode under the name now (replaced behind the door's back,
     * perhaps under the same number): a node of its own, so that the
     * kernel mixes nothing of the two. */
    if (id && id != ROOT_ID && rec(t, id)->ino &&
        (rec(t, id)->ino != ino || t->mem[id].stamp != stamp)) {
        detach(t, id);
        id = walk(t, path, true);
    }
    if (id) {
        struct node_rec *r = rec(t, id);
        if (r->ino != ino) {
            ino_unlink(t, id);
            r->ino = ino;
            ino_link(t, id);
        }
        t->mem[id].stamp = stamp;
        r->lookups++;
        *generation = r->generation;
    }
    pthread_mutex_unlock(&t->lock);
    return id;
}

uint64_t fuse_nodes_find(struct fuse_nodes *t, const char *path,
                         uint64_t *ino)
{
    pthread_mutex_lock(&t->lock);
    uint64_t id = walk(t, path, false);
    *ino = id ? rec(t, id)->ino : 0;
    pthread_mutex_unlock(&t->lock);
    return id;
}

uint64_t fuse_nodes_ino(struct fuse_nodes *t, uint64_t id)
{
    pthread_mutex_lock(&t->lock);
    uint64_t ino = in_use(t, id) ? rec(t, id)->ino : 0;
    pthread_mutex_unlock(&t->lock);
    return ino;
}

size_t fuse_nodes_of_ino(struct fuse_nodes *t, uint64_t ino, uint64_t except,
                         uint64_t *ids, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&t->lock);
    for (uint64_t id = ino ? *ino_chain(t, ino) : 0; id && n < max;
         id = t->mem[id].same_ino)
        if (id != except && rec(t, id)->ino == ino)
            ids[n++] = id;
    pthread_mutex_unlock(&t->lock);
    return n;
}

void fuse_nodes_forget(struct fuse_nodes *t, uint64_t id, uint64_t n)
{
    pthread_mutex_lock(&t->lock);
    if (in_use(t, id) && id != ROOT_ID) {
        struct node_rec *r = rec(t, id);
        r->lookups = n < r->lookups ? r->lookups - n : 0;
        release_unused(t, id);
    }
    pthread_mutex_unlock(&t->lock);
}

void fuse_nodes_unlinked(struct fuse_nodes *t, const char *path)
{
    pthread_mutex_lock(&t->lock);
    uint64_t id = walk(t, path, false);
    if (id)
        detach(t, id);
    pthread_mutex_unlock(&t->lock);
}

/* Whether id is dir or lies below it. */
static bool below(const struct fuse_nodes *t, uint64_t id, uint64_t dir)
{
    for (size_t depth = 0; id != ROOT_ID && depth <= DANAUS_LONG_PATH_MAX / 2;
         depth++) {
        if (id == dir)
            return true;
        id = rec(t, id)->parent;
    }
    return id == dir;
}

void fuse_nodes_rename(struct fuse_nodes *t, const char *from,
                       const char *to)
{
    const char *slash = strrchr(to, '/');
    const char *base = slash ? slash + 1 : to;
    size_t len = strlen(base);
    char dir[DANAUS_LONG_PATH_MAX];
    size_t dirlen = slash ? (size_t)(slash - to) : 0;
    if (dirlen >= sizeof dir)
        return;
    memcpy(dir, to, dirlen);
    dir[dirlen] = '\0';
    pthread_mutex_lock(&t->lock);
    uint64_t id = walk(t, from, false);
    uint64_t target = walk(t, to, false);
    if (!id || id == ROOT_ID || id == target)
        goto out;
    if (target)
        detach(t, target);
    /* The new directory is found (or made) while the node still stands
     * where it was, so that its old directory is not freed meanwhile and
     * a directory below the node itself is seen for what it is. */
    uint64_t parent = len && len <= NAME_MAX ? walk(t, dir, true) : 0;
    if (!parent || below(t, parent, id)) {
        /* Out of memory (or a rename the backend would have refused): the
         * node loses its name rather than keep a wrong one. */
        detach(t, id);
        goto out;
    }
    struct node_rec *r = rec(t, id);
    uint64_t old_parent = r->parent;
    index_remove(t, id);
    t->mem[old_parent].children--;
    r->parent = parent;
    r->namelen = (uint8_t)len;
    memcpy(r->name, base, len + 1);
    if (index_add(t, id) < 0) {
        r->state = NODE_DETACHED;
        release_unused(t, parent);
    } else {
        t->mem[parent].children++;
    }
    release_unused(t, old_parent);
    release_unused(t, id);
out:
    pthread_mutex_unlock(&t->lock);
}

void fuse_nodes_exchange(struct fuse_nodes *t, const char *a, const char *b)
{
    /* Through a third name, so that neither set of nodes is taken for the
     * other's. */
    static const char swap[] = "\001danaus-exchange";
    fuse_nodes_rename(t, a, swap);
    fuse_nodes_rename(t, b, a);
    fuse_nodes_rename(t, swap, b);
}
