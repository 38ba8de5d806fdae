/*
 * copyup.c - copying a lower entry up to the writable branch before
 * it changes.
 *
 * A file is copied to a temporary name in its directory of the top branch
 * (reserved, so it never shows), given the original's owner, mode, xattrs,
 * identity (origin.c) and times, then renamed over its final name, so a
 * reader of the union sees either the lower file or the whole copy. A
 * regular file's copy is partial (partial.c): a sparse file and a record
 * of its origin, made in the same time whatever its size; its data is
 * copied only where the top branch cannot hold the record. Missing parent
 * directories are made first, with their own attributes copied the same
 * way.
 *
 * Concurrent first writers of one file copy it once: a copy-up under way
 * is listed in the instance's table; a second writer waits for it and then
 * finds the copy in the top branch. Copies of different files run at once.
 *
 * The copy runs with the copy-up identity (the service's), which may set
 * any owner; the caller has already checked the client's right to change
 * the file.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define COPY_CHUNK (1 << 20)

/* Errors of xattr namespaces the copy-up identity may not write or the
 * top branch may not hold; the copy goes on without them. */
static int xattr_skippable(int rc)
{
    return rc == -EOPNOTSUPP || rc == -EPERM || rc == -EACCES;
}

static int copy_xattrs(struct union_instance *u, int b, const char *from,
                       const char *to)
{
    struct ls_instance *src = union_branch_inst(u, b);
    struct ls_instance *top = union_branch_inst(u, 0);
    const struct ls_cred *c = &u->copyup_cred;
    ssize_t len = src->ops->listxattr(src, c, from, NULL, 0,
                                      AT_SYMLINK_NOFOLLOW);
    if (len <= 0)
        return len == -EOPNOTSUPP ? 0 : (int)len;
    char *names = malloc((size_t)len);
    char *value = malloc(65536);
    int rc = names && value ? 0 : -ENOMEM;
    if (rc == 0)
        len = src->ops->listxattr(src, c, from, names, (size_t)len,
                                  AT_SYMLINK_NOFOLLOW);
    if (rc == 0 && len < 0)
        rc = (int)len;
    for (ssize_t at = 0; rc == 0 && at < len; at += strlen(names + at) + 1) {
        const char *name = names + at;
        if (union_is_private_xattr(name))
            continue; /* a union's own, meaningless here */
        ssize_t vlen = src->ops->getxattr(src, c, from, name, value, 65536,
                                          AT_SYMLINK_NOFOLLOW);
        if (vlen < 0) {
            rc = (int)vlen;
            break;
        }
        rc = top->ops->setxattr(top, c, to, name, value, (size_t)vlen, 0,
                                AT_SYMLINK_NOFOLLOW);
        if (xattr_skippable(rc))
            rc = 0;
    }
    free(value);
    free(names);
    return rc;
}

/* Owner, mode, xattrs and the origin (origin.c), then times (the other
 * changes would move ctime only, but writing xattrs may touch mtime on
 * some backends). */
static int copy_attrs(struct union_instance *u, int b, const char *from,
                      const char *to, const struct danaus_stat *st)
{
    struct ls_instance *top = union_branch_inst(u, 0);
    const struct ls_cred *c = &u->copyup_cred;
    int rc = top->ops->chown(top, c, to, st->uid, st->gid,
                             AT_SYMLINK_NOFOLLOW);
    if (rc == 0 && !S_ISLNK(st->mode))
        rc = top->ops->chmod(top, c, to, st->mode & 07777, 0);
    if (rc == 0)
        rc = copy_xattrs(u, b, from, to);
    if (rc == 0 && xattr_skippable(rc = union_origin_record(u, to, st)))
        rc = 0; /* the copy keeps its own st_ino */
    if (rc == 0) {
        struct timespec ts[2] = {
            {.tv_sec = st->atime_sec, .tv_nsec = st->atime_nsec},
            {.tv_sec = st->mtime_sec, .tv_nsec = st->mtime_nsec},
        };
        rc = top->ops->utimens(top, c, to, ts, AT_SYMLINK_NOFOLLOW);
    }
    return rc;
}

int union_copyup_parent(struct union_instance *u, const struct ls_cred *cred,
                        const struct union_node *n, const char *dir)
{
    return n->parent_dirs & 1u ? 0 : union_copyup_dirs(u, cred, dir);
}

int union_copyup_dirs(struct union_instance *u, const struct ls_cred *cred,
                      const char *dir)
{
    struct ls_instance *top = union_branch_inst(u, 0);
    char prefix[DANAUS_LONG_PATH_MAX];
    size_t len = strlen(dir);
    /* A directory of the top branch has its ancestors there: one stat for
     * the common case, a name made where its directory is up already. */
    struct danaus_stat here;
    if (len == 0 || (top->ops->stat(top, &u->copyup_cred, dir,
                                    AT_SYMLINK_NOFOLLOW, &here) == 0 &&
                     S_ISDIR(here.mode)))
        return 0;
    for (size_t at = 0; at <= len; at++) {
        if (at < len && dir[at] != '/')
            continue;
        if (at == 0)
            continue; /* the root of every branch exists */
        memcpy(prefix, dir, at);
        prefix[at] = '\0';
        struct danaus_stat st;
        int rc = top->ops->stat(top, &u->copyup_cred, prefix,
                                AT_SYMLINK_NOFOLLOW, &st);
        if (rc == 0 && S_ISDIR(st.mode))
            continue;
        if (rc != -ENOENT)
            return rc == 0 ? -ENOTDIR : rc;
        struct union_node *node = malloc(sizeof *node);
        if (!node)
            return -ENOMEM;
        rc = union_lookup(u, cred, prefix, 0, node);
        if (rc == 0 && !S_ISDIR(node->st.mode))
            rc = -ENOTDIR;
        if (rc == 0) {
            rc = top->ops->mkdir(top, &u->copyup_cred, prefix, 0700);
            if (rc == 0) {
                rc = copy_attrs(u, node->branch, prefix, prefix, &node->st);
                /* The top branch merges into the directory now, with its
                 * attributes (lookup.c's memo). */
                union_changed_at(prefix);
            } else if (rc == -EEXIST)
                rc = 0; /* another copy-up made it */
        }
        free(node);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int copy_data(struct union_instance *u, const struct union_node *node,
                     const char *to, off_t keep_len)
{
    struct ls_instance *src = union_branch_inst(u, node->branch);
    struct ls_instance *top = union_branch_inst(u, 0);
    const struct ls_cred *c = &u->copyup_cred;
    struct ls_file *in, *out;
    int rc = top->ops->open(top, c, to, O_WRONLY | O_CREAT | O_EXCL, 0600,
                            &out);
    if (rc < 0)
        return rc;
    off_t len = node->st.size;
    if (keep_len >= 0 && keep_len < len)
        len = keep_len;
    if (len == 0) {
        top->ops->close(out);
        return 0;
    }
    rc = src->ops->open(src, c, node->path, O_RDONLY, 0, &in);
    if (rc < 0) {
        top->ops->close(out);
        return rc;
    }
    char *buf = malloc(COPY_CHUNK);
    if (!buf)
        rc = -ENOMEM;
    for (off_t off = 0; rc == 0 && off < len;) {
        size_t want = len - off < COPY_CHUNK ? (size_t)(len - off) : COPY_CHUNK;
        ssize_t got = src->ops->pread(in, c, buf, want, off);
        if (got <= 0) {
            rc = got < 0 ? (int)got : 0;
            break; /* the file got shorter: copy what there is */
        }
        for (ssize_t done = 0; rc == 0 && done < got;) {
            ssize_t put = top->ops->pwrite(out, c, buf + done,
                                           (size_t)(got - done), off + done,
                                           NULL);
            if (put < 0)
                rc = (int)put;
            else
                done += put;
        }
        off += got;
    }
    free(buf);
    src->ops->close(in);
    top->ops->close(out);
    return rc;
}

static int copy_one(struct union_instance *u, const struct union_node *node,
                    off_t keep_len)
{
    struct ls_instance *src = union_branch_inst(u, node->branch);
    struct ls_instance *top = union_branch_inst(u, 0);
    const struct ls_cred *c = &u->copyup_cred;
    char dir[DANAUS_LONG_PATH_MAX], tmp_name[48], tmp[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(node->path, dir, &name);
    snprintf(tmp_name, sizeof tmp_name, ".wh..wh.copyup.%u",
             atomic_fetch_add(&u->tmp_seq, 1));
    int rc = union_join(tmp, dir, tmp_name);
    if (rc < 0)
        return rc;

    if (S_ISREG(node->st.mode)) {
        off_t len = node->st.size;
        if (keep_len >= 0 && keep_len < len)
            len = keep_len;
        rc = len > 0 ? union_partial_make(u, node, tmp, len) : -EAGAIN;
        if (rc < 0) { /* empty, or no room for the record: copy */
            top->ops->unlink(top, c, tmp);
            rc = copy_data(u, node, tmp, len);
        }
    } else if (S_ISLNK(node->st.mode)) {
        char target[DANAUS_PATH_MAX];
        ssize_t n = src->ops->readlink(src, c, node->path, target,
                                       sizeof target - 1);
        if (n < 0)
            return (int)n;
        target[n] = '\0';
        rc = top->ops->symlink(top, c, target, tmp);
    } else {
        /* FIFOs, devices, sockets: the same node, made anew. */
        rc = top->ops->mknod(top, c, tmp, node->st.mode & (S_IFMT | 07777),
                             node->st.rdev);
    }
    if (rc == 0)
        rc = copy_attrs(u, node->branch, node->path, tmp, &node->st);
    if (rc == 0)
        rc = top->ops->rename(top, c, tmp, node->path, 0);
    if (rc < 0)
        top->ops->unlink(top, c, tmp);
    return rc;
}

static struct union_copying *find_copying(struct union_instance *u,
                                          const char *path)
{
    for (struct union_copying *c = u->copying; c; c = c->next)
        if (strcmp(c->path, path) == 0)
            return c;
    return NULL;
}

int union_copyup(struct union_instance *u, const struct ls_cred *cred,
                 const struct union_node *node, off_t keep_len)
{
    if (!u->branch[0].writable)
        return -EROFS;
    if (S_ISDIR(node->st.mode))
        return union_copyup_dirs(u, cred, node->path);
    char dir[DANAUS_LONG_PATH_MAX];
    const char *name;
    union_split(node->path, dir, &name);
    int rc = union_copyup_dirs(u, cred, dir);
    if (rc < 0)
        return rc;

    struct union_copying *mine = malloc(sizeof *mine);
    if (!mine)
        return -ENOMEM;
    strcpy(mine->path, node->path);
    struct ls_instance *top = union_branch_inst(u, 0);
    pthread_mutex_lock(&u->copy_lock);
    while (find_copying(u, node->path))
        pthread_cond_wait(&u->copy_done, &u->copy_lock);
    struct danaus_stat st;
    rc = top->ops->stat(top, &u->copyup_cred, node->path,
                        AT_SYMLINK_NOFOLLOW, &st);
    if (rc == 0) {
        /* Another writer copied it while this one waited. */
        pthread_mutex_unlock(&u->copy_lock);
        free(mine);
        return 0;
    }
    mine->next = u->copying;
    u->copying = mine;
    pthread_mutex_unlock(&u->copy_lock);

    rc = copy_one(u, node, keep_len);

    pthread_mutex_lock(&u->copy_lock);
    struct union_copying **p = &u->copying;
    while (*p != mine)
        p = &(*p)->next;
    *p = mine->next;
    pthread_cond_broadcast(&u->copy_done);
    pthread_mutex_unlock(&u->copy_lock);
    free(mine);
    return rc;
}

int union_copyup_tree(struct union_instance *u, const struct ls_cred *cred,
                      const struct union_node *node)
{
    int rc = union_copyup_dirs(u, cred, node->path);
    if (rc < 0)
        return rc;
    struct union_listing list;
    rc = union_list(u, cred, node, &list);
    if (rc < 0)
        return rc;
    struct union_node *child = malloc(sizeof *child);
    if (!child)
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < list.n; i++) {
        const char *name = list.entries[i].name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        char path[DANAUS_LONG_PATH_MAX];
        rc = union_join(path, node->path, name);
        if (rc == 0)
            rc = union_lookup(u, cred, path, 0, child);
        if (rc < 0)
            break;
        if (S_ISDIR(child->st.mode))
            rc = union_copyup_tree(u, cred, child);
        else if (child->branch != 0)
            rc = union_copyup(u, cred, child, -1);
    }
    free(child);
    union_listing_free(&list);
    return rc;
}
