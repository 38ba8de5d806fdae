/*
 * lookup.c - resolving a path through the branches of a union.
 *
 * The walk goes component by component. For each directory on the way it
 * knows the set of branches merged into it (its "dirs" mask): a name is
 * looked up in those branches top-down, and the first branch that has the
 * name, or a whiteout for it, decides. A directory found in branch b merges
 * the same-named directories of the branches below b until one of them is
 * opaque, has a whiteout for it, or has a non-directory under that name.
 *
 * Symlinks are followed at the union level (their target is resolved
 * through the union again, an absolute target from the union root), so a
 * link in a read-only layer reaches files copied up since. At most 40 are
 * followed, as Linux does (ELOOP).
 *
 * Fast path: a name that the top branch has as a non-directory is the
 * union's answer, found with one stat of the whole path in the top branch
 * (whatever the top branch holds is never hidden, and its symlinks resolve
 * the same way inside it as through the union when they lead to entries of
 * the top branch). Callers that need the merge masks do not ask for it.
 *
 * Memo: a thread keeps the walk to the directory of its last lookup, and
 * the next lookup of a name in that same directory starts there (find,
 * ls -l, tar and make look up one directory's names one after another).
 * It counts only for the same union and the same caller (the walk checked
 * that caller's search permission on every directory), for a path of
 * plain components (no ".", "..", empty ones or symlinks followed), and
 * while no change since touched a directory on its path (union_changed_at
 * names the directory a call changed, union_changed any: after the call).
 */
#include "internal.h"

#include "fsservice/libservice/dirchanges.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void union_split(const char *path, char dir[DANAUS_LONG_PATH_MAX],
                 const char **name)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        dir[0] = '\0';
        *name = path;
        return;
    }
    size_t len = (size_t)(slash - path);
    memcpy(dir, path, len);
    dir[len] = '\0';
    *name = slash + 1;
}

int union_join(char out[DANAUS_LONG_PATH_MAX], const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    if (dl + 1 + nl + 1 > DANAUS_LONG_PATH_MAX)
        return -ENAMETOOLONG;
    memcpy(out, dir, dl);
    size_t at = dl;
    if (dl)
        out[at++] = '/';
    memcpy(out + at, name, nl + 1);
    return 0;
}

/* The branches of dirs, below b, after b has the directory `path`: b and
 * then each lower branch with a directory there, until one stops the merge. */
static union_mask merge_below(struct union_instance *u,
                              const struct ls_cred *cred, union_mask parent,
                              int b, const char *dir, const char *name,
                              const char *path)
{
    union_mask m = 1u << b;
    for (;;) {
        int next = union_next_branch(parent, b + 1);
        if (next < 0 || union_is_opaque(u, cred, b, path) != 0)
            return m;
        struct danaus_stat st;
        struct ls_instance *in = union_branch_inst(u, next);
        int rc = in->ops->stat(in, cred, path, AT_SYMLINK_NOFOLLOW, &st);
        if (rc == 0 && !S_ISDIR(st.mode))
            return m;
        if (rc == 0)
            m |= 1u << next;
        else if (rc != -ENOENT || union_next_branch(parent, next + 1) < 0 ||
                 union_whiteout_exists(u, cred, next, dir, name) != 0)
            return m; /* (a whiteout in the last branch hides nothing) */
        b = next;
    }
}

/* What the fast path's stat of the whole path in the top branch told a
 * walk of the same path: nothing, that the name is not there, or (found)
 * its lstat. */
struct top_told {
    bool lacks;
    const struct danaus_stat *found;
};

/* Looks name up in dir (merged from `dirs`): the branch that shows it, its
 * lstat and, for a directory, its own merge mask. -ENOENT if absent or
 * whited out. The top branch is not asked what `top` says already. */
static int lookup_name(struct union_instance *u, const struct ls_cred *cred,
                       union_mask dirs, const char *dir, const char *name,
                       const char *path, struct top_told top,
                       struct union_node *out)
{
    out->top_whiteout = false;
    for (int b = union_next_branch(dirs, 0); b >= 0; b = union_next_branch(dirs, b + 1)) {
        int rc;
        if (b == 0 && top.found) {
            out->st = *top.found;
            rc = 0;
        } else if ((b == 0 && top.lacks) ||
                   union_branch_has(u, cred, b, dir, name) == 0) {
            rc = -ENOENT;
        } else {
            rc = union_branch_stat(u, cred, b, dir, name, path, &out->st);
        }
        if (rc == 0) {
            out->branch = b;
            out->dirs = S_ISDIR(out->st.mode)
                            ? merge_below(u, cred, dirs, b, dir, name, path)
                            : 0;
            return 0;
        }
        if (rc != -ENOENT)
            return rc;
        /* A whiteout hides the name in the branches below b: none, no
         * question. */
        if (union_next_branch(dirs, b + 1) < 0)
            break;
        rc = union_whiteout_exists(u, cred, b, dir, name);
        if (rc < 0)
            return rc;
        if (rc > 0) {
            out->top_whiteout = b == 0;
            return -ENOENT;
        }
    }
    return -ENOENT;
}

/* The walk's position: the resolved directory and its merge mask, with a
 * stack so ".." returns to the parent's. */
struct walk {
    char path[DANAUS_LONG_PATH_MAX];
    size_t len[DANAUS_PATH_MAX / 2];
    union_mask dirs[DANAUS_PATH_MAX / 2];
    int depth;
};

static void walk_reset(struct walk *w, union_mask root)
{
    w->path[0] = '\0';
    w->len[0] = 0;
    w->dirs[0] = root;
    w->depth = 0;
}

/* What a walk's directories depend on changed: noted after the change,
 * the count read before a walk, so a walk that saw part of a change of a
 * directory on its path is stale. */
static struct dir_changes changes = DIR_CHANGES_INIT;
static _Atomic uint64_t last_id;

void union_changed(void)
{
    dir_changes_note(&changes, NULL, 0);
}

void union_changed_at(const char *dir)
{
    dir_changes_note(&changes, dir, strlen(dir));
}

uint64_t union_generation(void)
{
    return dir_changes_now(&changes);
}

uint64_t union_new_id(void)
{
    return atomic_fetch_add_explicit(&last_id, 1, memory_order_relaxed) + 1;
}

struct walk_memo {
    uint64_t union_id, generation;
    uid_t uid;
    gid_t gid;
    int ngroups;
    gid_t groups[DANAUS_MAX_GROUPS];
    size_t dir_len; /* the path's text up to its last '/' */
    char dir[DANAUS_LONG_PATH_MAX];
    struct walk w;
};

static void walk_copy(struct walk *to, const struct walk *from)
{
    strcpy(to->path, from->path);
    memcpy(to->len, from->len, (size_t)(from->depth + 1) * sizeof *to->len);
    memcpy(to->dirs, from->dirs, (size_t)(from->depth + 1) * sizeof *to->dirs);
    to->depth = from->depth;
}

/* Whether path's components are all plain names, and it has a directory
 * part: its length (up to the last '/') in *dir_len. */
static bool memo_path(const char *path, size_t *dir_len)
{
    const char *slash = strrchr(path, '/');
    if (!slash || union_path_has_reserved(path))
        return false;
    for (const char *c = path;; c++) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') ||
            (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += n;
        if (!*c)
            break;
    }
    *dir_len = (size_t)(slash - path);
    return true;
}

static _Thread_local struct walk_memo memo;

/* Whether the memo's walk was made in union u by cred, and no change
 * since touched a directory on it. */
static bool memo_valid(struct walk_memo *m, const struct union_instance *u,
                       const struct ls_cred *cred)
{
    return m->union_id == u->id && m->uid == cred->uid &&
           m->gid == cred->gid && m->ngroups == cred->ngroups &&
           memcmp(m->groups, cred->groups,
                  (size_t)cred->ngroups * sizeof *cred->groups) == 0 &&
           dir_changes_spare(&changes, &m->generation, m->dir, m->dir_len);
}

/* The length of the leading directories path's directory (its first
 * dir_len bytes) shares with the memo's, whole components only. */
static size_t memo_shared(const struct walk_memo *m, const char *path,
                          size_t dir_len)
{
    size_t n = m->dir_len < dir_len ? m->dir_len : dir_len, at = 0;
    while (at < n && m->dir[at] == path[at])
        at++;
    if ((at == m->dir_len || m->dir[at] == '/') &&
        (at == dir_len || path[at] == '/'))
        return at;
    /* A component differs: back to the '/' before it, which both have. */
    while (at > 0 && path[--at] != '/')
        ;
    return at;
}

/* What the memo offers one lookup, looked at once: the generation the
 * lookup's walk belongs to, whether path may be memoized (dir_len, its
 * directory's length), and how much of its directory's walk the memo
 * holds: the leading shared bytes (whole components, a depth of the
 * memo's walk). A walk down a tree (find's) looks up each directory's
 * names, then a sibling's: the shared parents are not walked again. */
struct memo_look {
    uint64_t gen;
    size_t dir_len, shared;
    int depth; /* the shared directories */
    bool usable;
};

static struct memo_look memo_look(const struct union_instance *u,
                                  const struct ls_cred *cred,
                                  const char *path)
{
    struct memo_look l = {
        .gen = union_generation()};
    l.usable = memo_path(path, &l.dir_len);
    if (!l.usable || !memo_valid(&memo, u, cred))
        return l;
    l.shared = memo_shared(&memo, path, l.dir_len);
    for (size_t i = 0; i < l.shared; i++)
        l.depth += path[i] == '/';
    l.depth += l.shared > 0;
    return l;
}

static void memo_keep(struct walk_memo *m, const struct union_instance *u,
                      const struct ls_cred *cred, uint64_t gen,
                      const char *path, size_t dir_len, const struct walk *w)
{
    m->union_id = u->id;
    m->generation = gen;
    m->uid = cred->uid;
    m->gid = cred->gid;
    m->ngroups = cred->ngroups;
    memcpy(m->groups, cred->groups,
           (size_t)cred->ngroups * sizeof *cred->groups);
    m->dir_len = dir_len;
    memcpy(m->dir, path, dir_len);
    walk_copy(&m->w, w);
}

/* Rewrites the rest of the walk as target, then "/" + rest if any rest. */
static int splice_link(char *todo, const char *target, const char *rest)
{
    char joined[DANAUS_LONG_PATH_MAX];
    size_t tl = strlen(target), rl = strlen(rest);
    if (tl + 1 + rl + 1 > DANAUS_LONG_PATH_MAX)
        return -ENAMETOOLONG;
    memcpy(joined, target, tl);
    size_t at = tl;
    if (rl)
        joined[at++] = '/';
    memcpy(joined + at, rest, rl + 1);
    memcpy(todo, joined, at + rl + 1);
    return 0;
}

/* told: what the fast path's stat of path in the top branch said. */
static int lookup_slow(struct union_instance *u, const struct ls_cred *cred,
                       const char *path, int flags,
                       const struct memo_look *look, struct top_told told,
                       struct union_node *out)
{
    static _Thread_local struct walk w;
    char todo[DANAUS_LONG_PATH_MAX];
    if (strlen(path) >= sizeof todo)
        return -ENAMETOOLONG;
    strcpy(todo, path);
    walk_reset(&w, u->root_dirs);
    int links = 0;

    char *p = todo;
    if (look->depth > 0) {
        walk_copy(&w, &memo.w);
        if (look->depth < w.depth) {
            w.path[w.len[look->depth + 1]] = '\0';
            w.depth = look->depth;
        }
        p = todo + look->shared + 1;
    }
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        char *end = strchr(p, '/');
        char *rest = end ? end + 1 : p + strlen(p);
        if (end)
            *end = '\0';
        while (*rest == '/')
            rest++;
        int last = *rest == '\0';
        /* A trailing slash asks for a directory, through a symlink. */
        int must_dir = last && end != NULL;
        const char *name = p;

        if (strcmp(name, ".") == 0) {
            p = rest;
            continue;
        }
        if (strcmp(name, "..") == 0) {
            if (w.depth > 0)
                w.path[w.len[w.depth--]] = '\0';
            p = rest;
            continue;
        }
        if (union_is_reserved_name(name))
            return -ENOENT;

        if (last && look->usable && links == 0)
            memo_keep(&memo, u, cred, look->gen, path, look->dir_len, &w);
        char child[DANAUS_LONG_PATH_MAX];
        int rc = union_join(child, w.path, name);
        if (rc < 0)
            return rc;
        if (last && !must_dir && (flags & UNION_PARENT)) {
            strcpy(out->path, child);
            out->top_whiteout = false; /* not looked at */
            out->branch = -1;
            out->dirs = 0;
            out->parent_dirs = w.dirs[w.depth];
            return 0;
        }
        /* What the fast path's stat found at path in the top branch (or
         * that it found nothing there): not asked again for the same
         * name. */
        bool same = last && links == 0 && strcmp(child, path) == 0;
        rc = lookup_name(u, cred, w.dirs[w.depth], w.path, name, child,
                         same ? told : (struct top_told){0}, out);
        if (rc == -ENOENT && last && (flags & UNION_MAY_BE_ABSENT)) {
            strcpy(out->path, child);
            out->branch = -1;
            out->dirs = 0;
            out->parent_dirs = w.dirs[w.depth];
            return 0;
        }
        if (rc < 0)
            return rc;

        if (S_ISLNK(out->st.mode) &&
            (!last || must_dir || (flags & UNION_FOLLOW))) {
            if (++links > DANAUS_MAX_SYMLINKS)
                return -ELOOP;
            char target[DANAUS_PATH_MAX];
            struct ls_instance *in = union_branch_inst(u, out->branch);
            ssize_t n = in->ops->readlink(in, cred, child, target,
                                          sizeof target - 1);
            if (n < 0)
                return (int)n;
            target[n] = '\0';
            if (n == 0)
                return -ENOENT;
            /* A trailing slash still asks the target for a directory. */
            char rest_copy[DANAUS_LONG_PATH_MAX];
            strcpy(rest_copy, must_dir ? "/" : rest);
            if (target[0] == '/')
                walk_reset(&w, u->root_dirs);
            rc = splice_link(todo, target, rest_copy);
            if (rc < 0)
                return rc;
            p = todo;
            continue;
        }
        if (last && !must_dir) {
            strcpy(out->path, child);
            out->parent_dirs = w.dirs[w.depth];
            return 0;
        }
        if (!S_ISDIR(out->st.mode))
            return -ENOTDIR;
        if (last) {
            strcpy(out->path, child);
            out->parent_dirs = w.dirs[w.depth];
            return 0;
        }
        if (w.depth + 1 >= (int)(sizeof w.len / sizeof w.len[0]))
            return -ENAMETOOLONG;
        w.len[++w.depth] = strlen(w.path);
        strcpy(w.path, child);
        w.dirs[w.depth] = out->dirs;
        p = rest;
    }

    /* The path named the root (or walked back to it). */
    strcpy(out->path, w.path);
    int top = union_next_branch(w.dirs[w.depth], 0);
    if (top == 0 && links == 0 && told.found && strcmp(path, out->path) == 0) {
        out->st = *told.found; /* the fast path's stat of the same root */
    } else {
        struct ls_instance *in = union_branch_inst(u, top);
        int rc = in->ops->stat(in, cred, out->path, AT_SYMLINK_NOFOLLOW,
                               &out->st);
        if (rc < 0)
            return rc;
    }
    out->branch = top;
    out->dirs = w.dirs[w.depth];
    out->parent_dirs = w.depth > 0 ? w.dirs[w.depth - 1] : w.dirs[0];
    return 0;
}

int union_lookup(struct union_instance *u, const struct ls_cred *cred,
                 const char *path, int flags, struct union_node *out)
{
    struct memo_look look = memo_look(u, cred, path);
    /* The memo may know that one of path's directories is not in the top
     * branch, which then holds nothing below it: the fast path's stat
     * there would only fail. */
    bool top_absent = look.depth > 0 && !(memo.w.dirs[look.depth] & 1u);
    struct danaus_stat found;
    struct top_told told = {0};
    if ((flags & UNION_FAST) && !union_path_has_reserved(path) &&
        strlen(path) < sizeof out->path && !top_absent) {
        struct ls_instance *top = union_branch_inst(u, 0);
        /* The name's own lstat first, also for a lookup that follows: it
         * is the walk's answer for the last name (ENOENT: the top branch
         * has no such entry; a directory: its lstat), where a followed
         * link's ENOENT could be its target's. Only a symlink to follow
         * takes a second stat. Kept apart: the walk writes out->st. */
        int rc = top->ops->stat(top, cred, path, AT_SYMLINK_NOFOLLOW,
                                &out->st);
        if (rc == -ENOENT) {
            told.lacks = true;
        } else if (rc == 0 && S_ISDIR(out->st.mode)) {
            found = out->st;
            told.found = &found;
        } else if (rc == 0 && S_ISLNK(out->st.mode) &&
                   (flags & UNION_FOLLOW)) {
            rc = top->ops->stat(top, cred, path, 0, &out->st);
        }
        if (rc == 0 && !S_ISDIR(out->st.mode)) {
            strcpy(out->path, path);
            out->branch = 0;
            out->dirs = 0;
            out->parent_dirs = 0;
            return 0;
        }
    }
    return lookup_slow(u, cred, path, flags, &look, told, out);
}

int union_in_top_only_dir(struct union_instance *u,
                          const struct ls_cred *cred, const char *path,
                          struct union_node *n)
{
    int rc = union_lookup(u, cred, path, UNION_PARENT, n);
    return rc < 0 ? rc : n->branch == -1 && n->parent_dirs == 1u;
}

int union_lower_has(struct union_instance *u, const struct ls_cred *cred,
                    const struct union_node *node, int below)
{
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(node->path, dir, &name);
    for (int b = union_next_branch(node->parent_dirs, below + 1); b >= 0;
         b = union_next_branch(node->parent_dirs, b + 1)) {
        struct danaus_stat st;
        int rc = union_branch_has(u, cred, b, dir, name) == 0
                     ? -ENOENT
                     : union_branch_stat(u, cred, b, dir, name, node->path,
                                         &st);
        if (rc == 0)
            return 1;
        if (rc != -ENOENT || union_next_branch(node->parent_dirs, b + 1) < 0)
            return rc == -ENOENT ? 0 : rc;
        rc = union_whiteout_exists(u, cred, b, dir, name);
        if (rc != 0)
            return rc < 0 ? rc : 0;
    }
    return 0;
}
