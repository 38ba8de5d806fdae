/*
 * branches.c - making the unions of the configuration and sharing
 * their branch instances (see branches.h).
 *
 * A branch instance is found again by backend and directory. Writable
 * branches are registered too (so they are destroyed with the rest) but a
 * union's writable branch is its own: reusing one would merge two
 * containers' changes, so a directory named writable twice is refused.
 * Each entry counts the mounted unions that use it, so that one no union
 * uses can be forgotten (union_branches_forget); a forgotten or retired
 * entry is no longer found, but its instance lives on with the others,
 * since an unmounted union may still be serving a request over it.
 */
#include "branches.h"

#include "fsservice/libservice/union/union.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct branch_entry {
    struct branch_entry *next;
    char *backend;
    int writable;
    int retired;  /* no longer found: its union was unmounted (writable),
                     or the engine had it forgotten */
    unsigned users; /* mounted unions over it */
    struct ls_instance *inst;
    struct union_layer *layer; /* a read-only branch's, for its unions */
    char dir[];
};

struct union_branches {
    struct branch_entry *entries;
    struct ls_cred copyup_cred; /* root, with the backends' state */
    int have_cred;
};

static struct branch_entry *find(struct union_branches *reg,
                                 const char *backend, const char *dir)
{
    for (struct branch_entry *e = reg->entries; e; e = e->next)
        if (!e->retired && strcmp(e->backend, backend) == 0 &&
            strcmp(e->dir, dir) == 0)
            return e;
    return NULL;
}

static struct branch_entry *branch(struct union_branches *reg,
                                   const char *backend, const char *dir,
                                   int writable, char *err, size_t errlen)
{
    struct branch_entry *e = find(reg, backend, dir);
    if (e) {
        if (e->writable || writable) {
            snprintf(err, errlen, "union: %s is a writable branch and "
                                  "cannot be shared", dir);
            return NULL;
        }
        return e;
    }
    e = calloc(1, sizeof *e + strlen(dir) + 1);
    if (!e) {
        snprintf(err, errlen, "union: out of memory");
        return NULL;
    }
    e->backend = strdup(backend);
    e->layer = writable ? NULL : union_layer_new();
    e->inst = e->backend && (writable || e->layer)
                  ? ls_instance_new(backend, dir, err, errlen)
                  : NULL;
    if (!e->inst) {
        if (!e->backend || (!writable && !e->layer))
            snprintf(err, errlen, "union: out of memory");
        union_layer_free(e->layer);
        free(e->backend);
        free(e);
        return NULL;
    }
    /* A read-only branch is only ever read: sealed, its files may be
     * read by clients through descriptors of their own (ls_ops.seal).
     * Where the backend cannot, they are read through the service. */
    if (!writable && e->inst->ops->seal)
        (void)e->inst->ops->seal(e->inst);
    e->writable = writable;
    strcpy(e->dir, dir);
    e->next = reg->entries;
    reg->entries = e;
    return e;
}

struct ls_instance *union_branches_mount(struct union_branches **regp,
                                         const struct config_mount *m,
                                         char *err, size_t errlen)
{
    if (!*regp && !(*regp = calloc(1, sizeof **regp))) {
        snprintf(err, errlen, "union: out of memory");
        return NULL;
    }
    struct union_branches *reg = *regp;
    if (!reg->have_cred) {
        if (ls_cred_init(&reg->copyup_cred) < 0) {
            snprintf(err, errlen, "union: cannot make the root credential");
            return NULL;
        }
        reg->have_cred = 1;
    }

    /* The read-only branches' backend, the writable one's unless the
     * mount names another. */
    const char *lower_backend = m->lower_backend ? m->lower_backend
                                                 : m->backend;
    struct union_branch br[UNION_MAX_BRANCHES];
    int n = 0;
    struct branch_entry *e = branch(reg, m->backend, m->source, 1, err, errlen);
    if (!e)
        return NULL;
    br[n++] = (struct union_branch){.inst = e->inst, .writable = 1,
                                    .volatile_writes = m->volatile_writes};
    char *list = strdup(m->union_lower);
    if (!list) {
        snprintf(err, errlen, "union: out of memory");
        return NULL;
    }
    char *save = NULL;
    for (char *dir = strtok_r(list, ":", &save); dir;
         dir = strtok_r(NULL, ":", &save)) {
        if (n == UNION_MAX_BRANCHES) {
            snprintf(err, errlen, "union %s: more than %d branches",
                     m->mountpoint, UNION_MAX_BRANCHES);
            free(list);
            return NULL;
        }
        if (!(e = branch(reg, lower_backend, dir, 0, err, errlen))) {
            free(list);
            return NULL;
        }
        br[n++] = (struct union_branch){.inst = e->inst, .layer = e->layer};
    }
    free(list);
    struct ls_instance *u =
        union_instance_new(br, n, &reg->copyup_cred, err, errlen);
    for (e = u ? reg->entries : NULL; e; e = e->next)
        for (int i = 0; i < n; i++)
            if (e->inst == br[i].inst)
                e->users++;
    return u;
}

void union_branches_unmounted(struct union_branches *reg,
                              struct ls_instance *inst)
{
    struct ls_instance *used[UNION_MAX_BRANCHES];
    int n = union_branch_instances(inst, used);
    for (struct branch_entry *e = reg && n ? reg->entries : NULL; e;
         e = e->next)
        for (int i = 0; i < n; i++)
            if (e->inst == used[i]) {
                e->users--;
                e->retired |= e->writable;
            }
}

int union_branches_forget(struct union_branches *reg, const char *backend,
                          const char *dir)
{
    struct branch_entry *e = reg ? find(reg, backend, dir) : NULL;
    if (e && e->users > 0)
        return -EBUSY;
    if (e) {
        e->retired = 1;
        /* Its directory is removed and may be made again: what its
         * listings said is nobody's to read (a union unmounted but still
         * serving a request reads the directory itself). */
        union_layer_forget(e->layer);
    }
    return 0;
}

void union_branches_free(struct union_branches *reg)
{
    if (!reg)
        return;
    while (reg->entries) {
        struct branch_entry *e = reg->entries;
        reg->entries = e->next;
        e->inst->ops->destroy(e->inst);
        union_layer_free(e->layer);
        free(e->backend);
        free(e);
    }
    if (reg->have_cred)
        ls_cred_release(&reg->copyup_cred);
    free(reg);
}
