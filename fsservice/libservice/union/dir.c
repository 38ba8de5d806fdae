/*
 * dir.c - merged directory listings.
 *
 * A directory of the union is the merge of the same-named directories of
 * the branches in its mask, top-down: a name shows once, from the topmost
 * branch that has it; a whiteout ".wh.NAME" in branch b hides NAME in the
 * branches below b (not in b itself, as in OCI layers); whiteouts, the
 * opaque marker and copy-up temporaries never show. d_ino is the st_ino
 * the union's stat reports: a copy's origin (origin.c) for entries of a
 * top branch's directory marked as holding copies, and "." and ".." as
 * stat says of the directory and its parent.
 *
 * An open directory of the union takes a snapshot of this listing when it
 * is read from cookie 0 (open or rewind) and hands out its entries by
 * index, so cookies stay valid and no entry shows twice or goes missing
 * while others are added or removed; a rewind sees the changes, as POSIX
 * asks of rewinddir.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define READ_BUF 65536

/* Names already decided (shown, or hidden by a whiteout above): an
 * open-addressing hash set of offsets into the merge's name storage, which
 * moves when it grows (slot 0 is empty, so offsets are stored plus one). */
struct name_set {
    size_t *slot;
    size_t cap, used;
};

static size_t set_find(const struct name_set *set, const char *base,
                       const char *name)
{
    size_t i = union_hash(name) & (set->cap - 1);
    while (set->slot[i] && strcmp(base + set->slot[i] - 1, name) != 0)
        i = (i + 1) & (set->cap - 1);
    return i;
}

static int set_has(const struct name_set *set, const char *base,
                   const char *name)
{
    return set->cap && set->slot[set_find(set, base, name)] != 0;
}

static int set_add(struct name_set *set, const char *base, size_t off)
{
    if ((set->used + 1) * 2 > set->cap) {
        struct name_set bigger = {.cap = set->cap ? set->cap * 2 : 64};
        bigger.slot = calloc(bigger.cap, sizeof *bigger.slot);
        if (!bigger.slot)
            return -ENOMEM;
        for (size_t i = 0; i < set->cap; i++)
            if (set->slot[i])
                bigger.slot[set_find(&bigger, base,
                                     base + set->slot[i] - 1)] = set->slot[i];
        bigger.used = set->used;
        free(set->slot);
        *set = bigger;
    }
    size_t i = set_find(set, base, base + off);
    if (!set->slot[i]) {
        set->slot[i] = off + 1;
        set->used++;
    }
    return 0;
}

/* Everything a merge builds: names are kept as offsets into one growing
 * buffer (it moves when it grows), turned into pointers at the end. */
struct merge {
    struct union_dirent *entries;
    size_t n, cap;
    char *names;
    size_t names_len, names_cap;
    size_t *name_off;
};

static int keep_name(struct merge *m, const char *name, size_t *off)
{
    size_t len = strlen(name) + 1;
    if (m->names_len + len > m->names_cap) {
        size_t cap = m->names_cap ? m->names_cap * 2 : 4096;
        while (cap < m->names_len + len)
            cap *= 2;
        char *grown = realloc(m->names, cap);
        if (!grown)
            return -ENOMEM;
        m->names = grown;
        m->names_cap = cap;
    }
    memcpy(m->names + m->names_len, name, len);
    *off = m->names_len;
    m->names_len += len;
    return 0;
}

static int add_entry(struct merge *m, const struct danaus_dirent *d)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        struct union_dirent *e = realloc(m->entries, cap * sizeof *e);
        if (!e)
            return -ENOMEM;
        m->entries = e;
        size_t *o = realloc(m->name_off, cap * sizeof *o);
        if (!o)
            return -ENOMEM;
        m->name_off = o;
        m->cap = cap;
    }
    int rc = keep_name(m, d->d_name, &m->name_off[m->n]);
    if (rc < 0)
        return rc;
    m->entries[m->n].ino = d->d_ino;
    m->entries[m->n].type = d->d_type;
    m->n++;
    return 0;
}

/* d_ino of an entry of the top branch: the st_ino the union reports for
 * it, which a copy-up keeps (origin.c). */
static int top_ino(struct union_instance *u, const char *dir,
                   const char *name, struct union_dirent *e)
{
    char path[DANAUS_LONG_PATH_MAX];
    int rc = union_join(path, dir, name);
    if (rc < 0)
        return rc;
    struct danaus_stat st = {.ino = e->ino};
    union_origin_stat(u, path, &st);
    e->ino = st.ino;
    return 0;
}

/* The st_ino the union reports for node. */
static uint64_t node_ino(struct union_instance *u, const struct union_node *n)
{
    struct danaus_stat st = n->st;
    if (n->branch == 0)
        union_origin_stat(u, n->path, &st);
    return st.ino;
}

/* Whether ".." as the directory's topmost branch listed it is already
 * what stat reports for the parent: the parent's topmost branch is that
 * same branch, a read-only one (no copies, so no origins). Not when the
 * branch gave ".." the directory's own number, as libcephfs does for a
 * directory whose parent it does not know. */
static bool dotdot_as_listed(const struct union_node *node,
                             const struct merge *m)
{
    if (node->branch <= 0 ||
        union_next_branch(node->parent_dirs, 0) != node->branch)
        return false;
    uint64_t dot = 0, dotdot = 0;
    for (size_t i = 0; i < m->n; i++) {
        const char *e = m->names + m->name_off[i];
        if (strcmp(e, ".") == 0)
            dot = m->entries[i].ino;
        else if (strcmp(e, "..") == 0)
            dotdot = m->entries[i].ino;
    }
    return dotdot != 0 && dotdot != dot;
}

/* "." and ".." name the directory and its parent as stat does (the root's
 * ".." is left as its branch says: outside the union). */
static int fix_dots(struct union_instance *u, const struct ls_cred *cred,
                    const struct union_node *node, struct merge *m)
{
    struct union_node *parent = NULL;
    if (node->path[0] && !dotdot_as_listed(node, m)) {
        char dir[DANAUS_LONG_PATH_MAX];
        const char *name;
        union_split(node->path, dir, &name);
        parent = malloc(sizeof *parent);
        if (!parent)
            return -ENOMEM;
        if (union_lookup(u, cred, dir, UNION_FAST, parent) < 0) {
            free(parent); /* gone meanwhile: its branch's number stays */
            parent = NULL;
        }
    }
    for (size_t i = 0; i < m->n; i++) {
        const char *e = m->names + m->name_off[i];
        if (strcmp(e, ".") == 0)
            m->entries[i].ino = node_ino(u, node);
        else if (strcmp(e, "..") == 0 && parent)
            m->entries[i].ino = node_ino(u, parent);
    }
    free(parent);
    return 0;
}

/* One branch's part of a merge, record by record: its names join the
 * merge, its whiteouts are noted apart (they join `decided` only after the
 * branch is read). */
struct branch_part {
    struct union_instance *u;
    const char *path;
    struct merge *m;
    size_t *whiteouts, *nwhite;
    int first;  /* the topmost branch: its "." and ".." are the merge's */
    int impure; /* a top branch's directory holding copies (origin.c) */
};

static int merge_record(const struct danaus_dirent *d, void *arg)
{
    struct branch_part *p = arg;
    const char *name = d->d_name;
    int rc = 0;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        if (p->first)
            rc = add_entry(p->m, d);
    } else if (union_is_reserved_name(name)) {
        if (strcmp(name, ".wh..wh..opq") != 0 &&
            strncmp(name, ".wh..wh.", 8) != 0) {
            if (*p->nwhite == READ_BUF / 16)
                return -ENOMEM; /* more whiteouts than one pass can hold */
            rc = keep_name(p->m, name + 4, &p->whiteouts[*p->nwhite]);
            if (rc == 0)
                (*p->nwhite)++;
        }
    } else {
        rc = add_entry(p->m, d);
        if (rc == 0 && p->impure)
            rc = top_ino(p->u, p->path, name, &p->m->entries[p->m->n - 1]);
    }
    return rc;
}

/* Reads one branch's directory into the merge, through held when the
 * caller has it open, else opened here. A read-only branch's directory
 * listed before (branch_listing.c) is not read again: its records come
 * from the listing, for a client that may read it. */
static int merge_branch(struct union_instance *u, const struct ls_cred *cred,
                        int b, int first, const char *path,
                        struct ls_file *held, struct merge *m,
                        size_t *whiteouts, size_t *nwhite, char *buf)
{
    struct ls_instance *in = union_branch_inst(u, b);
    struct branch_part part = {
        .u = u, .path = path, .m = m, .whiteouts = whiteouts,
        .nwhite = nwhite, .first = first,
        .impure = b == 0 && union_origin_impure(u, path)};
    int rc = union_branch_listing_each(u, b, path, merge_record, &part);
    if (rc != 0) {
        /* The records count only for a client that may read the
         * directory, which an open through held checked already; if it
         * may not, the merge fails and they go with it. */
        if (rc > 0 && !held && (rc = union_branch_may_read(u, cred, b,
                                                         path)) > 0)
            rc = in->ops->access(in, cred, path, R_OK, AT_EACCESS);
        return rc < 0 ? rc : 0;
    }
    struct ls_file *f = held;
    if (!f && (rc = in->ops->open(in, cred, path, O_RDONLY | O_DIRECTORY, 0,
                                  &f)) < 0)
        return rc;
    off_t pos = 0;
    ssize_t got;
    /* A read-only branch's records, read whole here, also answer later
     * lookups and listings of it (branch_listing.c) without reading it
     * again. */
    struct branch_listing *kept = union_branch_listing_begin(u, b, path);
    while ((got = in->ops->getdents(f, cred, buf, READ_BUF, &pos)) > 0) {
        for (ssize_t at = 0; at < got && rc == 0;) {
            const struct danaus_dirent *d =
                (const struct danaus_dirent *)(buf + at);
            at += d->d_reclen;
            if (kept && union_branch_listing_add(kept, d) < 0) {
                union_branch_listing_drop(kept);
                kept = NULL;
            }
            rc = merge_record(d, &part);
        }
        if (rc < 0)
            break;
    }
    if (rc == 0 && got < 0)
        rc = (int)got;
    if (rc == 0 && kept) {
        union_branch_listing_keep(u, b, kept);
        kept = NULL;
    }
    union_branch_listing_drop(kept);
    if (!held)
        in->ops->close(f);
    return rc;
}

/* A name's cookie: 1 and 2 for "." and "..", else a 62-bit FNV-1a hash
 * of the name kept above them (positive as an off_t). Two names of one
 * directory with the same hash (as in ext4's hashed directories, rare
 * enough to ignore) could make a listing resumed between them skip the
 * second. */
static uint64_t name_cookie(const char *name)
{
    if (strcmp(name, ".") == 0)
        return 1;
    if (strcmp(name, "..") == 0)
        return 2;
    uint64_t h = union_hash(name) & ((1ull << 62) - 1);
    return h < 3 ? h + 3 : h;
}

static int by_cookie(const void *a, const void *b)
{
    const struct union_dirent *x = a, *y = b;
    if (x->cookie != y->cookie)
        return x->cookie < y->cookie ? -1 : 1;
    return strcmp(x->name, y->name);
}

int union_list(struct union_instance *u, const struct ls_cred *cred,
               const struct union_node *node, struct union_listing *out)
{
    return union_list_held(u, cred, node, -1, NULL, out);
}

int union_list_held(struct union_instance *u, const struct ls_cred *cred,
                    const struct union_node *node, int held_branch,
                    struct ls_file *held, struct union_listing *out)
{
    struct merge m = {0};
    struct name_set decided = {0};
    char *buf = malloc(READ_BUF);
    size_t *whiteouts = malloc(READ_BUF / 16 * sizeof *whiteouts);
    int rc = buf && whiteouts ? 0 : -ENOMEM;
    int first = 1;

    for (int b = 0; rc == 0 && b < u->nbranches; b++) {
        if (!(node->dirs & (1u << b)))
            continue;
        size_t start = m.n, nwhite = 0;
        rc = merge_branch(u, cred, b, first, node->path,
                          b == held_branch ? held : NULL, &m, whiteouts,
                          &nwhite, buf);
        if (rc < 0)
            break;
        /* Drop this branch's names decided above, then decide the rest
         * and this branch's whiteouts, which hide only lower branches. */
        size_t kept = start;
        for (size_t i = start; i < m.n; i++) {
            const char *name = m.names + m.name_off[i];
            int dot = strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
            if (!dot && set_has(&decided, m.names, name))
                continue;
            m.entries[kept] = m.entries[i];
            m.name_off[kept] = m.name_off[i];
            kept++;
        }
        m.n = kept;
        for (size_t i = start; rc == 0 && i < m.n; i++)
            rc = set_add(&decided, m.names, m.name_off[i]);
        for (size_t i = 0; rc == 0 && i < nwhite; i++)
            rc = set_add(&decided, m.names, whiteouts[i]);
        first = 0;
    }
    free(decided.slot);
    free(whiteouts);
    free(buf);
    if (rc == 0)
        rc = fix_dots(u, cred, node, &m);
    if (rc < 0) {
        free(m.entries);
        free(m.names);
        free(m.name_off);
        return rc;
    }
    for (size_t i = 0; i < m.n; i++) {
        m.entries[i].name = m.names + m.name_off[i];
        m.entries[i].cookie = name_cookie(m.entries[i].name);
    }
    free(m.name_off);
    qsort(m.entries, m.n, sizeof *m.entries, by_cookie);
    out->entries = m.entries;
    out->n = m.n;
    out->names = m.names;
    return 0;
}

void union_listing_free(struct union_listing *l)
{
    free(l->entries);
    free(l->names);
    memset(l, 0, sizeof *l);
}

ssize_t union_listing_getdents(const struct union_listing *l, void *buf,
                               size_t n, off_t *pos)
{
    size_t used = 0;
    /* The first entry of a cookie above *pos. */
    size_t i = 0, end = l->n;
    while (i < end) {
        size_t mid = i + (end - i) / 2;
        if (l->entries[mid].cookie <= (uint64_t)*pos)
            i = mid + 1;
        else
            end = mid;
    }
    if (*pos < 0)
        i = l->n;
    off_t last = *pos;
    for (; i < l->n; i++) {
        const struct union_dirent *e = &l->entries[i];
        size_t len = strlen(e->name);
        size_t reclen =
            (offsetof(struct danaus_dirent, d_name) + len + 1 + 7) & ~(size_t)7;
        if (used + reclen > n)
            break;
        struct danaus_dirent *d = (struct danaus_dirent *)((char *)buf + used);
        d->d_ino = e->ino;
        d->d_off = (int64_t)e->cookie;
        last = (off_t)e->cookie;
        d->d_reclen = (uint16_t)reclen;
        d->d_type = e->type;
        memcpy(d->d_name, e->name, len + 1);
        memset(d->d_name + len + 1, 0,
               reclen - offsetof(struct danaus_dirent, d_name) - len - 1);
        used += reclen;
    }
    if (used == 0 && i < l->n)
        return -EINVAL; /* not even one record fits, as getdents64 says */
    *pos = last;
    return (ssize_t)used;
}
