/*
 * partial.c - partial copy-up: the first change to a lower regular file
 * costs the same whatever its size.
 *
 * The copy-up (copyup.c) makes the upper file sparse, of the lower file's
 * size, and gives it the xattr COPYUP_XATTR: the lower file it came from
 * (branch and path, which stay valid: lower branches never change) and the
 * extent map of the ranges written since (extent_map.h). Reads merge the
 * two files by the map; writes go to the upper file and extend the map
 * (by whole granules when they grow a copied range: GRANULE); a range
 * punched or zeroed by fallocate joins the map as a write does, and a
 * collapse or insert, which moves the data, merges the file first.
 * Metadata changes (chmod, chown, times, xattrs) act on the upper file and
 * copy no data. The record travels with the inode, so renames and hard
 * links of a partial file keep it. Opens of one upper inode share one
 * struct union_partial (the instance's table, by inode number), whose lock
 * orders merged reads against writes and truncates.
 *
 * The file becomes an ordinary upper file (the xattr removed) when no byte
 * comes from below any more: written over or truncated away, or merged -
 * the remaining lower ranges copied in - when the map would pass
 * EXTENT_MAP_MAX extents or on union_copyup_whole (export).
 *
 * Crash consistency. A write stores its data in the upper file first and
 * then, if the map grew, the map; the reply follows both. Between the two
 * the map still sends reads of those bytes below, but the write was not
 * acknowledged. Before storing a grown map the upper file is fdatasync'ed,
 * so a stored map never names data that a crash of the machine or the
 * death of a caching client (libcephfs buffers writes in the service)
 * could still lose: after any crash, every byte the map sends above holds
 * what was written there, and every other byte below lower_len reads the
 * lower file. Writes into ranges already mapped, appends and extensions
 * past lower_len store no map and have the backend's own guarantee, as any
 * file: an acknowledged write survives the service's death on the local
 * backend (it is in the kernel), and fsync makes it survive the machine's
 * on both. A truncate cuts the upper file before it lowers lower_len in
 * the stored map; a map found longer than its file is cut when loaded.
 */
#include "internal.h"
#include "le.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#define COPYUP_XATTR "trusted.danaus.copyup"
#define RECORD_MAGIC 0x31554344u /* "DCU1" */
#define RECORD_MAX (8 + EXTENT_MAP_BYTES + DANAUS_PATH_MAX)
#define COPY_CHUNK (1 << 20)
/* A write that grows a copied range copies the rest of its granule up
 * with it, so rewriting a file in small pieces stores the map once per
 * granule, not once per write; a first write copies only itself. */
#define GRANULE (128 << 10)

struct union_partial {
    struct union_partial *next;
    uint64_t ino;
    int refs;
    /* Shared by merged reads; held alone by writes, truncates, merges. */
    pthread_rwlock_t lock;
    int branch;            /* the lower file: branch and path */
    char *origin;
    struct ls_file *lower; /* opened by the copy-up identity */
    /* The upper file opened O_RDWR by the copy-up identity, for the
     * union's own writes (a client's file may be O_APPEND or read-only). */
    struct ls_file *own;
    int whole;             /* merged: everything is in the upper file */
    struct extent_map map;
};

int union_partial_is_record(const char *name)
{
    return strcmp(name, COPYUP_XATTR) == 0;
}

/* The record: magic, branch (u32 each), the map, then the origin path. */
static size_t record_encode(uint8_t *out, int branch, const char *origin,
                            const struct extent_map *m)
{
    le_put32(out, RECORD_MAGIC);
    le_put32(out + 4, (uint32_t)branch);
    size_t len = 8 + extent_map_encode(m, out + 8);
    size_t pl = strlen(origin);
    memcpy(out + len, origin, pl);
    return len + pl;
}

static int record_decode(struct union_instance *u, const uint8_t *in,
                         size_t len, int *branch, char *origin,
                         struct extent_map *m)
{
    if (len < 24 || le_get32(in) != RECORD_MAGIC)
        return -EIO;
    uint32_t b = le_get32(in + 4);
    uint64_t n = le_get64(in + 16);
    if (b == 0 || b >= (uint32_t)u->nbranches || n > EXTENT_MAP_MAX)
        return -EIO;
    size_t maplen = 16 + 16 * (size_t)n;
    size_t pl = len - 8 - maplen;
    if (len < 8 + maplen || pl == 0 || pl >= DANAUS_PATH_MAX ||
        memchr(in + 8 + maplen, '\0', pl) ||
        extent_map_decode(m, in + 8, maplen) < 0)
        return -EIO;
    memcpy(origin, in + 8 + maplen, pl);
    origin[pl] = '\0';
    *branch = (int)b;
    return 0;
}

int union_partial_make(struct union_instance *u, const struct union_node *node,
                       const char *tmp, off_t len)
{
    struct ls_instance *top = union_branch_inst(u, 0);
    const struct ls_cred *c = &u->copyup_cred;
    /* The record keeps origins below PATH_MAX; a deeper file is copied
     * whole (copyup.c). */
    if (strlen(node->path) >= DANAUS_PATH_MAX)
        return -ENAMETOOLONG;
    uint8_t *rec = malloc(RECORD_MAX);
    if (!rec)
        return -ENOMEM;
    struct extent_map *m = malloc(sizeof *m);
    struct ls_file *out = NULL;
    int rc = m ? top->ops->open(top, c, tmp, O_WRONLY | O_CREAT | O_EXCL,
                                0600, &out)
               : -ENOMEM;
    if (rc == 0)
        rc = top->ops->ftruncate(out, c, len);
    if (rc == 0) {
        extent_map_init(m, (uint64_t)len);
        size_t rl = record_encode(rec, node->branch, node->path, m);
        rc = top->ops->fsetxattr(out, c, COPYUP_XATTR, rec, rl,
                                 XATTR_CREATE);
    }
    if (out)
        top->ops->close(out);
    free(m);
    free(rec);
    return rc;
}

/* Stores p's map, grown to m, after the data it names. */
static int store_map(struct union_instance *u, struct union_partial *p,
                     const struct extent_map *m)
{
    struct ls_file *upper = p->own;
    const struct ls_ops *ops = upper->inst->ops;
    const struct ls_cred *c = &u->copyup_cred;
    uint8_t *rec = malloc(RECORD_MAX);
    if (!rec)
        return -ENOMEM;
    int rc = union_sync_top(u, upper, c, 1);
    if (rc == 0) {
        size_t rl = record_encode(rec, p->branch, p->origin, m);
        rc = ops->fsetxattr(upper, c, COPYUP_XATTR, rec, rl, XATTR_REPLACE);
    }
    free(rec);
    return rc;
}

/* Copies into the upper file the bytes of [from, to) that the map still
 * sends below. The caller holds p's lock alone. */
static int copy_below(struct union_instance *u, struct union_partial *p,
                      uint64_t from, uint64_t to)
{
    struct ls_file *upper = p->own;
    const struct ls_ops *ops = upper->inst->ops;
    const struct ls_ops *lops = p->lower->inst->ops;
    const struct ls_cred *c = &u->copyup_cred;
    char *buf = NULL;
    int rc = 0;
    for (uint64_t off = from; rc == 0 && off < to;) {
        uint64_t run;
        int above = extent_map_where(&p->map, off, &run);
        if (run > to - off)
            run = to - off;
        if (above) {
            off += run;
            continue;
        }
        if (!buf && !(buf = malloc(COPY_CHUNK))) {
            rc = -ENOMEM;
            break;
        }
        size_t want = run < COPY_CHUNK ? (size_t)run : COPY_CHUNK;
        ssize_t got = lops->pread(p->lower, c, buf, want, (off_t)off);
        if (got < 0) {
            rc = (int)got;
            break;
        }
        memset(buf + got, 0, want - (size_t)got); /* a shorter origin */
        for (size_t done = 0; rc == 0 && done < want;) {
            ssize_t put = ops->pwrite(upper, c, buf + done, want - done,
                                      (off_t)(off + done), NULL);
            if (put < 0)
                rc = (int)put;
            else
                done += (size_t)put;
        }
        off += want;
    }
    free(buf);
    return rc;
}

/* Makes the upper file whole: the lower bytes it still lacks copied in,
 * made durable, then the record removed. fresh, if not NULL, was just
 * written above though the map does not say so yet. The caller holds p's
 * lock alone. */
static int merge(struct union_instance *u, struct union_partial *p,
                 const struct extent *fresh)
{
    struct ls_file *upper = p->own;
    const struct ls_ops *ops = upper->inst->ops;
    const struct ls_cred *c = &u->copyup_cred;
    uint64_t end = p->map.lower_len;
    int rc = fresh ? copy_below(u, p, 0, fresh->off) : 0;
    if (rc == 0)
        rc = copy_below(u, p, fresh ? fresh->off + fresh->len : 0, end);
    if (rc == 0)
        rc = union_sync_top(u, upper, c, 1);
    if (rc == 0)
        rc = ops->fremovexattr(upper, c, COPYUP_XATTR);
    if (rc == 0)
        p->whole = 1;
    return rc;
}

/* The upper file was cut to len: lower_len follows, stored after the cut.
 * The caller holds p's lock alone. */
static int cut_to(struct union_instance *u, struct union_partial *p,
                  uint64_t len)
{
    struct extent_map m = p->map;
    if (p->whole || !extent_map_truncate(&m, len))
        return 0;
    p->map = m;
    return extent_map_complete(&m) ? merge(u, p, NULL) : store_map(u, p, &m);
}

/* An open with O_TRUNC cuts the upper file in the backend, before the
 * union sees it: the map of a copy already open follows the file's size. */
static int follow_size(struct union_instance *u, struct union_partial *p)
{
    struct danaus_stat st;
    pthread_rwlock_wrlock(&p->lock);
    int rc = p->own->inst->ops->fstat(p->own, &u->copyup_cred, &st);
    if (rc == 0)
        rc = cut_to(u, p, (uint64_t)st.size);
    pthread_rwlock_unlock(&p->lock);
    return rc;
}

static struct union_partial *find(struct union_instance *u, uint64_t ino)
{
    for (struct union_partial *p = u->partials; p; p = p->next)
        if (p->ino == ino)
            return p;
    return NULL;
}

/* A new entry for inode ino, at path in the top branch (which may name it
 * through symlinks of the top branch), from its record. */
static int load(struct union_instance *u, const char *path,
                const uint8_t *rec, size_t len, uint64_t ino,
                struct union_partial **out)
{
    struct ls_instance *top = union_branch_inst(u, 0);
    struct union_partial *p = calloc(1, sizeof *p);
    char *origin = malloc(DANAUS_PATH_MAX);
    int rc = p && origin ? record_decode(u, rec, len, &p->branch, origin,
                                         &p->map)
                         : -ENOMEM;
    struct danaus_stat st;
    if (rc == 0)
        rc = top->ops->open(top, &u->copyup_cred, path,
                            O_RDWR, 0, &p->own);
    if (rc == 0)
        rc = top->ops->fstat(p->own, &u->copyup_cred, &st);
    if (rc == 0 && st.ino != ino)
        rc = -ESTALE; /* renamed over since the client opened it */
    if (rc == 0) {
        /* A truncate cut the file but died before storing the map. */
        extent_map_truncate(&p->map, (uint64_t)st.size);
        struct ls_instance *in = union_branch_inst(u, p->branch);
        rc = in->ops->open(in, &u->copyup_cred, origin, O_RDONLY, 0,
                           &p->lower);
        if (rc == -ENOENT)
            rc = -EIO; /* the lower branch lost the file */
    }
    if (rc < 0) {
        if (p && p->own)
            top->ops->close(p->own);
        free(origin);
        free(p);
        return rc;
    }
    p->origin = origin;
    p->ino = ino;
    p->refs = 1;
    pthread_rwlock_init(&p->lock, NULL);
    /* Nothing left below (an O_TRUNC open cut it): drop the record. If
     * that fails the complete map still sends every read above. */
    if (extent_map_complete(&p->map))
        merge(u, p, NULL);
    *out = p;
    return 0;
}

int union_partial_get(struct union_instance *u, struct ls_file *upper,
                      const char *path, struct union_partial **out)
{
    const struct ls_ops *ops = upper->inst->ops;
    const struct ls_cred *c = &u->copyup_cred;
    *out = NULL;
    uint8_t *rec = malloc(RECORD_MAX);
    if (!rec)
        return -ENOMEM;
    ssize_t len = ops->fgetxattr(upper, c, COPYUP_XATTR, rec, RECORD_MAX);
    struct danaus_stat st;
    int rc = len >= 0 ? ops->fstat(upper, c, &st)
                      : (len == -ENODATA || len == -EOPNOTSUPP ? 0
                                                               : (int)len);
    if (len >= 0 && rc == 0) {
        pthread_mutex_lock(&u->partial_lock);
        struct union_partial *p = find(u, st.ino);
        int shared = p != NULL;
        if (p) {
            p->refs++;
        } else if ((rc = load(u, path, rec, (size_t)len, st.ino, &p)) ==
                   0) {
            p->next = u->partials;
            u->partials = p;
        }
        pthread_mutex_unlock(&u->partial_lock);
        if (shared && (rc = follow_size(u, p)) < 0) {
            union_partial_put(u, p);
            p = NULL;
        }
        *out = p;
    }
    free(rec);
    return rc;
}

void union_partial_put(struct union_instance *u, struct union_partial *p)
{
    pthread_mutex_lock(&u->partial_lock);
    int last = --p->refs == 0;
    if (last) {
        struct union_partial **at = &u->partials;
        while (*at != p)
            at = &(*at)->next;
        *at = p->next;
    }
    pthread_mutex_unlock(&u->partial_lock);
    if (!last)
        return;
    p->lower->inst->ops->close(p->lower);
    p->own->inst->ops->close(p->own);
    pthread_rwlock_destroy(&p->lock);
    free(p->origin);
    free(p);
}

ssize_t union_partial_read(struct union_instance *u, struct union_partial *p,
                           struct ls_file *upper, const struct ls_cred *cred,
                           void *buf, size_t n, off_t off)
{
    const struct ls_ops *ops = upper->inst->ops;
    pthread_rwlock_rdlock(&p->lock);
    if (p->whole) {
        pthread_rwlock_unlock(&p->lock);
        return ops->pread(upper, cred, buf, n, off);
    }
    const struct ls_ops *lops = p->lower->inst->ops;
    size_t done = 0;
    ssize_t rc = 0;
    while (done < n) {
        uint64_t at = (uint64_t)off + done, run;
        int above = extent_map_where(&p->map, at, &run);
        size_t want = run < n - done ? (size_t)run : n - done;
        char *to = (char *)buf + done;
        ssize_t got = above ? ops->pread(upper, cred, to, want, (off_t)at)
                            : lops->pread(p->lower, &u->copyup_cred, to, want,
                                          (off_t)at);
        if (got < 0) {
            rc = got;
            break;
        }
        if (!above) { /* below lower_len, which the upper file reaches */
            memset(to + got, 0, want - (size_t)got);
            got = (ssize_t)want;
        }
        done += (size_t)got;
        if ((size_t)got < want)
            break; /* the end of the file */
    }
    pthread_rwlock_unlock(&p->lock);
    return done > 0 ? (ssize_t)done : rc;
}

/* m is p's map with fresh added, rc what extent_map_add answered: the
 * map stored, or the file merged when nothing is left below or the map
 * cannot grow (too many extents, or too big for the xattr). 0 or -errno.
 * The caller holds p's lock alone. */
static int keep_map(struct union_instance *u, struct union_partial *p,
                    const struct extent_map *m, int rc,
                    const struct extent *fresh)
{
    if (rc == 1 && extent_map_complete(m)) {
        p->map = *m;
        return merge(u, p, NULL);
    }
    if (rc == 1 && (rc = store_map(u, p, m)) == 0)
        p->map = *m;
    else if (rc < 0)
        rc = merge(u, p, fresh);
    return rc;
}

ssize_t union_partial_write(struct union_instance *u, struct union_partial *p,
                            struct ls_file *upper, const struct ls_cred *cred,
                            const void *buf, size_t n, off_t off, off_t *end)
{
    const struct ls_ops *ops = upper->inst->ops;
    off_t e;
    pthread_rwlock_wrlock(&p->lock);
    ssize_t w = ops->pwrite(upper, cred, buf, n, off, &e);
    if (w > 0 && !p->whole) {
        struct extent fresh = {.off = (uint64_t)(e - w), .len = (uint64_t)w};
        struct extent_map m = p->map;
        int rc = extent_map_add(&m, fresh.off, fresh.len);
        if (rc == 1 && m.n <= p->map.n) {
            /* It grew a copied range: a sequential writer. The rest of
             * its granules go up with it (merging, never adding a range). */
            uint64_t from = fresh.off / GRANULE * GRANULE;
            uint64_t to = (fresh.off + fresh.len + GRANULE - 1) / GRANULE *
                          GRANULE;
            extent_map_add(&m, from, to - from);
            rc = copy_below(u, p, from, fresh.off);
            if (rc == 0)
                rc = copy_below(u, p, fresh.off + fresh.len,
                                m.lower_len < to ? m.lower_len : to);
            if (rc == 0)
                rc = 1;
        }
        rc = keep_map(u, p, &m, rc, &fresh);
        if (rc < 0)
            w = rc; /* not acknowledged: reads may still see the old bytes */
    }
    pthread_rwlock_unlock(&p->lock);
    if (w > 0 && end)
        *end = e;
    return w;
}

int union_partial_truncate(struct union_instance *u, struct union_partial *p,
                           struct ls_file *upper, const struct ls_cred *cred,
                           off_t len)
{
    const struct ls_ops *ops = upper->inst->ops;
    pthread_rwlock_wrlock(&p->lock);
    int rc = ops->ftruncate(upper, cred, len);
    if (rc == 0)
        rc = cut_to(u, p, (uint64_t)len);
    pthread_rwlock_unlock(&p->lock);
    return rc;
}

/* Modes that make a range read zeros, and modes that move the data. */
#define ZEROES (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)
#define SHIFTS (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)

/* Zeroing a range makes it the upper file's: the map sends its reads
 * above, stored after the upper file has the zeros, so the lower bytes
 * never show there again. Moving data is done on a merged file: the map
 * cannot follow a shift. Other modes change no byte. */
int union_partial_fallocate(struct union_instance *u, struct union_partial *p,
                            struct ls_file *upper, const struct ls_cred *cred,
                            int mode, off_t off, off_t len)
{
    const struct ls_ops *ops = upper->inst->ops;
    pthread_rwlock_wrlock(&p->lock);
    int rc = !p->whole && (mode & SHIFTS) ? merge(u, p, NULL) : 0;
    if (rc == 0)
        rc = ops->fallocate(upper, cred, mode, off, len);
    if (rc == 0 && !p->whole && (mode & ZEROES)) {
        struct extent fresh = {.off = (uint64_t)off, .len = (uint64_t)len};
        struct extent_map m = p->map;
        rc = keep_map(u, p, &m, extent_map_add(&m, fresh.off, fresh.len),
                      &fresh);
    }
    pthread_rwlock_unlock(&p->lock);
    return rc;
}

int union_partial_merge(struct union_instance *u, struct union_partial *p)
{
    pthread_rwlock_wrlock(&p->lock);
    int rc = p->whole ? 0 : merge(u, p, NULL);
    pthread_rwlock_unlock(&p->lock);
    return rc;
}

void union_partial_blocks(struct union_instance *u, struct union_partial *p,
                          struct danaus_stat *st)
{
    struct danaus_stat lst;
    pthread_rwlock_rdlock(&p->lock);
    if (!p->whole &&
        p->lower->inst->ops->fstat(p->lower, &u->copyup_cred, &lst) == 0 &&
        lst.blocks > st->blocks)
        st->blocks = lst.blocks;
    pthread_rwlock_unlock(&p->lock);
}

void union_partial_stat(struct union_instance *u, const char *path,
                        struct danaus_stat *st)
{
    struct ls_instance *top = union_branch_inst(u, 0);
    struct ls_file *f;
    struct union_partial *p;
    if (top->ops->open(top, &u->copyup_cred, path, O_RDONLY, 0,
                       &f) < 0)
        return;
    if (union_partial_get(u, f, path, &p) == 0 && p) {
        union_partial_blocks(u, p, st);
        union_partial_put(u, p);
    }
    top->ops->close(f);
}
