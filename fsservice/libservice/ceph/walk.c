/*
 * walk.c - path resolution inside a CephFS instance.
 *
 * Paths are walked one component at a time with ceph_ll_lookup from the
 * instance's root inode, never with Ceph's own path walk, so that the
 * instance root acts as a chroot: ".." is taken from our own stack of the
 * directories walked (popping it; at the root it stays), and a symlink whose
 * target is absolute restarts at the instance root, past the mount point
 * when the target lies under it (link_prefix, libservice.h). Linux's rules are kept:
 * at most 40 symlinks per walk (ELOOP), ENAMETOOLONG for a component longer
 * than NAME_MAX or a path of DANAUS_LONG_PATH_MAX bytes or more (the walk,
 * one name at a time, takes paths longer than the kernel's PATH_MAX, as
 * the kernel's walk from a deep current directory does), ENOTDIR when a
 * non-directory is walked through or named with a trailing slash, and, as
 * Linux, "." and ".." need search permission on the directory they leave.
 *
 * Each inode on the stack except the root holds one reference from
 * ceph_ll_lookup, given back with ceph_ll_put when it is popped.
 */
#include "ceph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* WALK_CREATE: as WALK_PARENT, but a last component that is a symlink is
 * followed, as open(O_CREAT) does. */
enum walk_mode { WALK_FOLLOW, WALK_NOFOLLOW, WALK_PARENT, WALK_CREATE };

/* Most walks fit the inline stack and never expand a link: such a walk
 * allocates nothing. */
#define INLINE_DEPTH 16

struct walk {
    struct ceph_instance *ci;
    const struct ls_cred *cred;
    struct Inode **stack; /* stack[0] is the instance root (not owned) */
    size_t depth, cap;    /* depth >= 1 */
    char *path;           /* owned: what is left once a link was expanded */
    const char *p;        /* the next component: in path or the caller's */
    int links;
    /* Where the last component's stat goes, asked of its lookup (NULL: not
     * wanted), and whether the inode walked to came with it. */
    struct ceph_statx *last_stx;
    unsigned last_want;
    bool last_stx_valid;
    struct Inode *inline_stack[INLINE_DEPTH];
};

void ceph_inode_put(struct ceph_instance *ci, struct Inode *in)
{
    if (in != ci->root)
        ceph_ll_put(ci->client->cmount, in);
}

int ceph_name_is_special(const char *name)
{
    return name[0] == '\0' || strcmp(name, ".") == 0 ||
           strcmp(name, "..") == 0;
}

static int push(struct walk *w, struct Inode *in)
{
    if (w->depth == w->cap) {
        size_t cap = w->cap * 2;
        struct Inode **s = malloc(cap * sizeof(*s));
        if (s == NULL)
            return -ENOMEM;
        memcpy(s, w->stack, w->depth * sizeof(*s));
        if (w->stack != w->inline_stack)
            free(w->stack);
        w->stack = s;
        w->cap = cap;
    }
    w->stack[w->depth++] = in;
    return 0;
}

static void pop(struct walk *w)
{
    if (w->depth > 1)
        ceph_ll_put(w->ci->client->cmount, w->stack[--w->depth]);
}

/* The current directory, its reference handed to the caller. */
static struct Inode *take_top(struct walk *w)
{
    if (w->depth == 1)
        return w->ci->root;
    return w->stack[--w->depth];
}

static void walk_end(struct walk *w)
{
    while (w->depth > 1)
        pop(w);
    if (w->stack != w->inline_stack)
        free(w->stack);
    free(w->path);
}

/*
 * Replaces a symlink component by its target: what is left to walk becomes
 * target + rest, where rest starts at the '/' after the link's name (or is
 * empty), so a trailing slash stays a trailing slash.
 */
static int expand_link(struct walk *w, struct Inode *link, const char *rest)
{
    if (++w->links > DANAUS_MAX_SYMLINKS)
        return -ELOOP;
    char target[DANAUS_PATH_MAX];
    int n = ceph_ll_readlink(w->ci->client->cmount, link, target,
                             sizeof(target), ceph_perm(w->cred));
    if (n < 0)
        return n;
    if (n == 0)
        return -ENOENT;
    if ((size_t)n >= sizeof(target))
        return -ENAMETOOLONG;
    target[n] = '\0';
    const char *from = ls_link_target(w->ci->base.link_prefix, target);
    size_t len = strlen(from);
    size_t restlen = strlen(rest);
    char *next = malloc(len + restlen + 1);
    if (next == NULL)
        return -ENOMEM;
    memcpy(next, from, len);
    memcpy(next + len, rest, restlen + 1);
    free(w->path);
    w->path = next;
    w->p = next;
    if (target[0] == '/')
        while (w->depth > 1)
            pop(w);
    return 0;
}

/* "." or ".." (the component is not NUL-terminated). */
static int is_dots(const char *c, size_t len)
{
    return c[0] == '.' && (len == 1 || (len == 2 && c[1] == '.'));
}

/* Linux checks search permission on a directory before it takes "." or ".."
 * in it; Ceph's lookup of "." makes that check and gives the directory. */
static int may_search(struct walk *w)
{
    struct ceph_mount_info *cm = w->ci->client->cmount;
    struct Inode *self;
    struct ceph_statx stx;
    int r = ceph_ll_lookup(cm, w->stack[w->depth - 1], ".", &self, &stx, 0,
                           0, ceph_perm(w->cred));
    if (r == 0)
        ceph_ll_put(cm, self);
    return r;
}

/* The parent-walk result: the current directory and the last component. */
static int give_last(struct walk *w, const char *c, size_t len, int slash,
                     struct Inode **out, struct ceph_last *last)
{
    memcpy(last->name, c, len);
    last->name[len] = '\0';
    last->slash = slash;
    *out = take_top(w);
    return 0;
}

static int walk_run(struct walk *w, enum walk_mode mode, struct Inode **out,
                    struct ceph_last *last_out)
{
    struct ceph_mount_info *cm = w->ci->client->cmount;
    for (;;) {
        while (*w->p == '/')
            w->p++;
        if (*w->p == '\0') {
            /* Nothing left: the result is the directory reached. */
            if (mode == WALK_PARENT || mode == WALK_CREATE)
                return give_last(w, "", 0, 0, out, last_out);
            *out = take_top(w);
            return 0;
        }
        const char *c = w->p;
        size_t len = strcspn(c, "/");
        const char *after = c + len;
        const char *q = after;
        while (*q == '/')
            q++;
        int last = *q == '\0';
        int slash = *after == '/';
        if (len > NAME_MAX)
            return -ENAMETOOLONG;
        int dots = is_dots(c, len);
        if (dots) {
            int r = may_search(w);
            if (r < 0)
                return r;
        }
        if (last && (mode == WALK_PARENT ||
                     (mode == WALK_CREATE && (slash || dots))))
            return give_last(w, c, len, slash, out, last_out);
        if (dots) {
            if (len == 2)
                pop(w);
            w->p = after;
            continue;
        }
        char name[NAME_MAX + 1];
        memcpy(name, c, len);
        name[len] = '\0';
        struct Inode *in;
        struct ceph_statx own;
        bool whole = last && w->last_stx;
        struct ceph_statx *stx = whole ? w->last_stx : &own;
        int r = ceph_ll_lookup(cm, w->stack[w->depth - 1], name, &in, stx,
                               whole ? w->last_want : CEPH_STATX_MODE, 0,
                               ceph_perm(w->cred));
        if (last && mode == WALK_CREATE &&
            (r == -ENOENT || (r == 0 && !S_ISLNK(stx->stx_mode)))) {
            /* The name to create or open is reached: give its directory. */
            if (r == 0)
                ceph_ll_put(cm, in);
            return give_last(w, c, len, slash, out, last_out);
        }
        if (r < 0)
            return r;
        if (S_ISLNK(stx->stx_mode) &&
            (!last || slash || mode == WALK_FOLLOW || mode == WALK_CREATE)) {
            r = expand_link(w, in, after);
            ceph_ll_put(cm, in);
            if (r < 0)
                return r;
            continue;
        }
        if (last && !(slash && !S_ISDIR(stx->stx_mode))) {
            *out = in;
            w->last_stx_valid = whole;
            return 0;
        }
        if (!S_ISDIR(stx->stx_mode)) {
            ceph_ll_put(cm, in);
            return -ENOTDIR;
        }
        r = push(w, in);
        if (r < 0) {
            ceph_ll_put(cm, in);
            return r;
        }
        w->p = after;
    }
}

static int walk(struct ceph_instance *ci, const struct ls_cred *cred,
                const char *path, enum walk_mode mode, struct Inode **out,
                struct ceph_last *last, unsigned last_want,
                struct ceph_statx *last_stx, bool *last_stx_valid)
{
    if (ceph_perm(cred) == NULL)
        return -EINVAL;
    if (strnlen(path, DANAUS_LONG_PATH_MAX) >= DANAUS_LONG_PATH_MAX)
        return -ENAMETOOLONG;
    struct walk w = {.ci = ci, .cred = cred, .depth = 1,
                     .cap = INLINE_DEPTH, .p = path, .last_stx = last_stx,
                     .last_want = last_want | CEPH_STATX_MODE};
    w.stack = w.inline_stack;
    w.stack[0] = ci->root;
    int r = walk_run(&w, mode, out, last);
    walk_end(&w);
    if (last_stx_valid)
        *last_stx_valid = r == 0 && w.last_stx_valid;
    return r;
}

int ceph_walk_stat(struct ceph_instance *ci, const struct ls_cred *cred,
                   const char *path, int follow, unsigned want,
                   struct Inode **out, struct ceph_statx *stx, bool *stx_valid)
{
    return walk(ci, cred, path, follow ? WALK_FOLLOW : WALK_NOFOLLOW, out,
                NULL, want, stx, stx_valid);
}

int ceph_walk(struct ceph_instance *ci, const struct ls_cred *cred,
              const char *path, int follow, struct Inode **out)
{
    return ceph_walk_stat(ci, cred, path, follow, 0, out, NULL, NULL);
}

int ceph_walk_parent(struct ceph_instance *ci, const struct ls_cred *cred,
                     const char *path, int follow_last,
                     struct ceph_last *last)
{
    return walk(ci, cred, path, follow_last ? WALK_CREATE : WALK_PARENT,
                &last->dir, last, 0, NULL, NULL);
}
