/*
 * tar_stream.c - tar archives in and out of danaus cp (tar_stream.h).
 *
 * In: a tar archive is a flat list of paths in any order; the tree
 * stream is nested (a directory's entries between its DIR and END). The
 * reader keeps the chain of directories it has opened in the stream and,
 * for each member, closes those not on the member's path and opens the
 * missing ones as TREE_KEEP directories (made 0755 if absent, else left
 * as they are). Every name is cleaned here ('.' and empty components
 * dropped, ".." taken back, never above the top) and checked again by
 * the receiver, which makes each entry by one plain component and never
 * through a link, so a member cannot reach past the directory given
 * whatever order the archive lists things in.
 *
 * Out: a file's size comes before its data in tar, and the sender's
 * file may change while it is read; each file is first taken whole into
 * a temporary file, so the header says what follows.
 */
#include "tar_stream.h"
#include "fail.h"
#include "tree_stream.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 512
#define DEPTH_MAX 128   /* directories below the top, as tree_stream.c */
#define PAX_MAX 65536   /* bytes of a pax extended header we read */
#define ZERO_BLOCKS 2   /* the end of an archive */

/* The ustar header (POSIX.1-2001 pax, "ustar Interchange Format"). */
struct header {
    char name[100], mode[8], uid[8], gid[8], size[12], mtime[12],
        chksum[8], typeflag, linkname[100], magic[6], version[2],
        uname[32], gname[32], devmajor[8], devminor[8], prefix[155],
        pad[12];
};
_Static_assert(sizeof(struct header) == BLOCK, "a tar header is a block");

/* 1: len bytes read; 0: none, the end; -1 (fail.h): an error, or the
 * end inside them. */
static int read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail_errno("cp: cannot read the archive");
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return got == len ? 1
           : got == 0 ? 0
                      : fail("cp: the archive ends inside a block");
}

static int write_full(int fd, const void *buf, size_t len)
{
    for (const char *p = buf; len;) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail_errno("cp: cannot write the archive");
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* A numeric field: octal digits (space or NUL ended), or GNU's base-256
 * for a positive number (the first byte 0x80). -1 when it is neither. */
static int64_t number(const char *field, size_t width)
{
    const unsigned char *f = (const unsigned char *)field;
    uint64_t v = 0;
    size_t i = 0;
    if (f[0] == 0x80) {
        for (i = 1; i < width; i++) {
            if (v >> 55)
                return -1;
            v = v << 8 | f[i];
        }
        return (int64_t)v;
    }
    while (i < width && f[i] == ' ')
        i++;
    for (; i < width && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 60)
            return -1;
        v = v * 8 + (f[i] - '0');
    }
    if (i < width && f[i] != ' ' && f[i] != '\0')
        return -1;
    return (int64_t)v;
}

static unsigned checksum(const struct header *h)
{
    const unsigned char *b = (const unsigned char *)h;
    unsigned sum = 0;
    for (size_t i = 0; i < BLOCK; i++)
        sum += i >= offsetof(struct header, chksum) &&
                       i < offsetof(struct header, chksum) + sizeof h->chksum
                   ? ' '
                   : b[i];
    return sum;
}

/* ---- in: an archive read, sent as a tree ---- */

/* What a member is, its extended headers applied. */
struct member {
    char type;
    char name[PATH_MAX], link[PATH_MAX];
    int64_t size, mtime;
    uint32_t mode, uid, gid;
};

/* Overrides the next member takes from pax or GNU long-name headers. */
struct pending {
    char name[PATH_MAX], link[PATH_MAX];
    int64_t size, mtime, uid, gid; /* -1: none */
};

struct reader {
    int in, sock;
    unsigned depth; /* directories open in the stream below the top */
    char open[DEPTH_MAX][NAME_MAX + 1];
};

/* A name cleaned into its components (in c, *n of them, pointing into
 * copy): "", "." dropped, ".." taking back the one before; -1 (fail.h)
 * when one climbs above the top or is too long. */
static int components(const char *name, char *copy, size_t size,
                      char *c[DEPTH_MAX + 1], int *n)
{
    snprintf(copy, size, "%s", name);
    *n = 0;
    for (char *save = NULL, *p = strtok_r(copy, "/", &save); p;
         p = strtok_r(NULL, "/", &save)) {
        if (strcmp(p, ".") == 0)
            continue;
        if (strcmp(p, "..") == 0 && (*n)-- == 0)
            return fail("cp: the archive's '%s' is outside the directory",
                        name);
        if (strcmp(p, "..") == 0)
            continue;
        if (*n > DEPTH_MAX || strlen(p) > NAME_MAX)
            return fail("cp: the archive's '%s': too deep or too long a "
                        "name", name);
        c[(*n)++] = p;
    }
    return 0;
}

/* A symbolic link's relative target, from the member's directory
 * (depth components below the top), must not climb above the top, as
 * docker's extraction checks; an absolute one is the container's. */
static int check_target(const char *name, const char *target, int depth)
{
    char copy[PATH_MAX];
    if (target[0] == '/')
        return 0;
    snprintf(copy, sizeof copy, "%s", target);
    for (char *save = NULL, *p = strtok_r(copy, "/", &save); p;
         p = strtok_r(NULL, "/", &save))
        if (strcmp(p, "..") == 0 && --depth < 0)
            return fail("cp: the archive's link '%s' points outside the "
                        "directory (%s)", name, target);
        else if (strcmp(p, "..") && strcmp(p, "."))
            depth++;
    return 0;
}

static int put(struct reader *r, enum tree_kind kind,
               const struct member *m, unsigned flags, const void *payload,
               size_t len)
{
    struct tree_record h = {.kind = kind, .len = (uint32_t)len,
                            .flags = flags};
    if (m) {
        h.mode = m->mode & 07777;
        h.uid = m->uid;
        h.gid = m->gid;
        h.mtime = m->mtime;
    }
    return tree_put(r->sock, &h, payload);
}

/* Closes the stream's directories down to the first depth components of
 * c, then opens c[depth..n) as directories it only names. */
static int walk_to(struct reader *r, char **c, int count)
{
    unsigned n = count > 0 ? (unsigned)count : 0, k = 0;
    while (k < r->depth && k < n && strcmp(r->open[k], c[k]) == 0)
        k++;
    for (; r->depth > k; r->depth--)
        if (put(r, TREE_END, NULL, 0, NULL, 0) < 0)
            return -1;
    for (; r->depth < n; r->depth++) {
        if (r->depth == DEPTH_MAX)
            return fail("cp: the archive is more than %d directories deep",
                        DEPTH_MAX);
        snprintf(r->open[r->depth], sizeof r->open[0], "%s", c[r->depth]);
        if (put(r, TREE_DIR, NULL, TREE_KEEP, c[r->depth],
                strlen(c[r->depth])) < 0)
            return -1;
    }
    return 0;
}

/* Reads and drops n bytes of the archive. */
static int discard(int in, uint64_t n)
{
    static char buf[TREE_DATA_MAX];
    while (n) {
        size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
        if (read_full(in, buf, k) != 1)
            return fail_message() ? -1 : fail("cp: the archive ends inside "
                                              "a member");
        n -= k;
    }
    return 0;
}

/* What pads len bytes of data to a whole block. */
static uint64_t padding(int64_t len)
{
    return (uint64_t)((BLOCK - len % BLOCK) % BLOCK);
}

/* Skips a member's len bytes of data and their padding. */
static int skip(int in, int64_t len)
{
    return discard(in, (uint64_t)len + padding(len));
}

/* A file's data, as DATA records, then an empty one and the padding. */
static int send_data(struct reader *r, int64_t size)
{
    static char buf[TREE_DATA_MAX];
    for (int64_t left = size; left > 0;) {
        size_t n = left < (int64_t)sizeof buf ? (size_t)left : sizeof buf;
        if (read_full(r->in, buf, n) != 1)
            return fail_message() ? -1 : fail("cp: the archive ends inside "
                                              "a member");
        if (put(r, TREE_DATA, NULL, 0, buf, n) < 0)
            return -1;
        left -= (int64_t)n;
    }
    return put(r, TREE_DATA, NULL, 0, "", 0) < 0 ||
                   discard(r->in, padding(size)) < 0
               ? -1
               : 0;
}

static int send_member(struct reader *r, struct member *m)
{
    char copy[PATH_MAX], *c[DEPTH_MAX + 1];
    int n;
    if (components(m->name, copy, sizeof copy, c, &n) < 0)
        return -1;
    if (n == 0 && m->type == '5')
        return skip(r->in, m->size); /* the top itself: it stays */
    if (n == 0)
        return fail("cp: the archive names a file '%s'", m->name);
    if (walk_to(r, c, n - 1) < 0)
        return -1;
    const char *last = c[n - 1];
    size_t len = strlen(last);
    switch (m->type) {
    case '5': /* open in the stream until a member lies elsewhere */
        if (r->depth == DEPTH_MAX)
            return fail("cp: the archive is more than %d directories deep",
                        DEPTH_MAX);
        snprintf(r->open[r->depth++], sizeof r->open[0], "%s", last);
        return skip(r->in, m->size) < 0 || put(r, TREE_DIR, m, 0, last, len) < 0
                   ? -1
                   : 0;
    case '0': case '\0': case '7':
        return put(r, TREE_FILE, m, 0, last, len) < 0 ? -1
                                                      : send_data(r, m->size);
    case '2':
    case '1': {
        char body[NAME_MAX + 1 + PATH_MAX], tcopy[PATH_MAX];
        char *t[DEPTH_MAX + 1], target[PATH_MAX] = "";
        int tn;
        if (m->type == '2' && check_target(m->name, m->link, n - 1) < 0)
            return -1;
        if (m->type == '1') { /* a path from the top, cleaned as a name */
            if (components(m->link, tcopy, sizeof tcopy, t, &tn) < 0)
                return -1;
            for (int i = 0; i < tn; i++)
                snprintf(target + strlen(target),
                         sizeof target - strlen(target), "%s%s",
                         i ? "/" : "", t[i]);
        }
        int bn = snprintf(body, sizeof body, "%s%c%s", last, '\0',
                          m->type == '2' ? m->link : target);
        if (bn >= (int)sizeof body)
            return fail("cp: the archive's link '%s' is too long", m->name);
        return put(r, m->type == '2' ? TREE_LINK : TREE_HARDLINK, m, 0,
                   body, (size_t)bn) < 0 ||
                       skip(r->in, m->size) < 0
                   ? -1
                   : 0;
    }
    case '3': case '4': case '6':
        fprintf(stderr, "danaus: cp: left out %s (a device node or FIFO)\n",
                m->name);
        return skip(r->in, m->size);
    default:
        return fail("cp: the archive's '%s' is of a kind cp does not copy "
                    "(type '%c')", m->name, m->type);
    }
}

/* A pax extended header's records ("LEN key=value\n") into p. */
static int pax_records(char *data, size_t len, struct pending *p)
{
    size_t at = 0;
    while (at < len) {
        char *end;
        unsigned long n = strtoul(data + at, &end, 10);
        if (*end != ' ' || n == 0 || n > len - at || data[at + n - 1] != '\n')
            return fail("cp: the archive has a broken pax header");
        data[at + n - 1] = '\0';
        char *key = end + 1, *eq = strchr(key, '=');
        if (!eq)
            return fail("cp: the archive has a broken pax header");
        *eq = '\0';
        const char *v = eq + 1;
        if ((strcmp(key, "path") == 0 || strcmp(key, "linkpath") == 0) &&
            strlen(v) >= PATH_MAX)
            return fail("cp: the archive has a name of more than %d bytes",
                        PATH_MAX - 1);
        if (strcmp(key, "path") == 0)
            snprintf(p->name, sizeof p->name, "%s", v);
        else if (strcmp(key, "linkpath") == 0)
            snprintf(p->link, sizeof p->link, "%s", v);
        else if (strcmp(key, "size") == 0)
            p->size = strtoll(v, NULL, 10);
        else if (strcmp(key, "mtime") == 0)
            p->mtime = strtoll(v, NULL, 10);
        else if (strcmp(key, "uid") == 0)
            p->uid = strtoll(v, NULL, 10);
        else if (strcmp(key, "gid") == 0)
            p->gid = strtoll(v, NULL, 10);
        at += n;
    }
    return 0;
}

/* The data of an extended header (pax 'x', GNU 'L' or 'K'), at most max
 * bytes, NUL ended in buf. */
static int extended(int in, int64_t size, char *buf, size_t max)
{
    if (size < 0 || (uint64_t)size > max)
        return fail("cp: the archive has an extended header of %lld bytes",
                    (long long)size);
    if (read_full(in, buf, (size_t)size) != 1 && size > 0)
        return fail_message() ? -1 : fail("cp: the archive ends inside a "
                                          "header");
    buf[size] = '\0';
    return discard(in, padding(size));
}

/* The header's member, with what p holds applied. */
static int member_of(const struct header *h, const struct pending *p,
                     struct member *m)
{
    int64_t mode = number(h->mode, sizeof h->mode),
            uid = number(h->uid, sizeof h->uid),
            gid = number(h->gid, sizeof h->gid),
            size = p->size >= 0 ? p->size : number(h->size, sizeof h->size),
            mtime = p->mtime >= 0 ? p->mtime
                                  : number(h->mtime, sizeof h->mtime);
    uid = p->uid >= 0 ? p->uid : uid;
    gid = p->gid >= 0 ? p->gid : gid;
    if (mode < 0 || uid < 0 || uid > UINT32_MAX || gid < 0 ||
        gid > UINT32_MAX || size < 0 || mtime < 0)
        return fail("cp: the archive has a broken header");
    *m = (struct member){.type = h->typeflag, .size = size, .mtime = mtime,
                         .mode = (uint32_t)mode, .uid = (uint32_t)uid,
                         .gid = (uint32_t)gid};
    if (p->name[0])
        snprintf(m->name, sizeof m->name, "%s", p->name);
    else if (memcmp(h->magic, "ustar", 5) == 0 && h->prefix[0])
        snprintf(m->name, sizeof m->name, "%.155s/%.100s", h->prefix,
                 h->name);
    else
        snprintf(m->name, sizeof m->name, "%.100s", h->name);
    if (p->link[0])
        snprintf(m->link, sizeof m->link, "%s", p->link);
    else
        snprintf(m->link, sizeof m->link, "%.100s", h->linkname);
    return 0;
}

static int read_archive(struct reader *r)
{
    static char pax[PAX_MAX + 1];
    static struct member m;
    struct pending p = {.size = -1, .mtime = -1, .uid = -1, .gid = -1};
    struct header h;
    static const char zero[BLOCK];
    for (;;) {
        int got = read_full(r->in, &h, sizeof h);
        if (got < 0)
            return -1;
        if (got == 0 || memcmp(&h, zero, BLOCK) == 0)
            break; /* the end (the second zero block is not needed) */
        if ((int64_t)checksum(&h) != number(h.chksum, sizeof h.chksum))
            return fail("cp: not a tar archive (a header's checksum is "
                        "wrong)");
        int64_t size = number(h.size, sizeof h.size);
        int rc;
        switch (h.typeflag) {
        case 'x':
            rc = extended(r->in, size, pax, PAX_MAX) < 0 ||
                         pax_records(pax, (size_t)size, &p) < 0
                     ? -1
                     : 0;
            break;
        case 'g': /* global pax records: none we take */
            rc = size < 0 ? fail("cp: the archive has a broken header")
                          : skip(r->in, size);
            break;
        case 'L':
            rc = extended(r->in, size, p.name, sizeof p.name - 1);
            break;
        case 'K':
            rc = extended(r->in, size, p.link, sizeof p.link - 1);
            break;
        default:
            rc = member_of(&h, &p, &m) < 0 ? -1 : send_member(r, &m);
            p = (struct pending){.size = -1, .mtime = -1, .uid = -1,
                                 .gid = -1};
        }
        if (rc < 0)
            return -1;
    }
    return walk_to(r, NULL, 0) < 0 || put(r, TREE_END, NULL, 0, NULL, 0) < 0
               ? -1
               : 0;
}

int tar_send(int in, int sock)
{
    static struct reader r;
    r = (struct reader){.in = in, .sock = sock};
    int rc = put(&r, TREE_DIR, NULL, TREE_KEEP, "-", 1) < 0
                 ? -1
                 : read_archive(&r);
    return tree_send_end(sock, rc);
}

/* ---- out: a tree received, written as an archive ---- */

struct writer {
    int sock, out;
    char path[PATH_MAX]; /* of the directory being received, "" at top */
    int depth;
    char data[TREE_DATA_MAX + 1];
};

/* A pax record "LEN key=value\n" appended to buf (of size, used *used);
 * LEN counts itself. */
static int pax_add(char *buf, size_t size, size_t *used, const char *key,
                   const char *value)
{
    size_t body = strlen(key) + strlen(value) + 3, len = body + 1;
    while (len != body + (size_t)snprintf(NULL, 0, "%zu", len))
        len = body + (size_t)snprintf(NULL, 0, "%zu", len);
    if (*used + len >= size)
        return fail("cp: a name too long for the archive");
    *used += (size_t)snprintf(buf + *used, size - *used, "%zu %s=%s\n", len,
                              key, value);
    return 0;
}

static void fill(struct header *h, const char *name, char type,
                 uint32_t mode, int64_t size, const struct tree_record *r,
                 const char *link)
{
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%.99s", name);
    snprintf(h->mode, sizeof h->mode, "%07o", mode & 0777);
    snprintf(h->uid, sizeof h->uid, "%07o", r->uid & 07777777);
    snprintf(h->gid, sizeof h->gid, "%07o", r->gid & 07777777);
    snprintf(h->size, sizeof h->size, "%011llo",
             (unsigned long long)size & 077777777777ull);
    snprintf(h->mtime, sizeof h->mtime, "%011llo",
             (unsigned long long)(r->mtime > 0 ? r->mtime : 0) &
                 077777777777ull);
    h->typeflag = type;
    if (link)
        snprintf(h->linkname, sizeof h->linkname, "%.99s", link);
    memcpy(h->magic, "ustar", 6);
    memcpy(h->version, "00", 2);
    snprintf(h->chksum, sizeof h->chksum, "%06o", checksum(h));
    h->chksum[7] = ' ';
}

/* One member's header: a pax header first when a name, link, id, size
 * or time does not fit ustar's fields. */
static int write_header(struct writer *w, const char *name, char type,
                        int64_t size, const struct tree_record *r,
                        const char *link)
{
    static char pax[3 * PATH_MAX];
    char uid[16], gid[16], bytes[32];
    snprintf(uid, sizeof uid, "%u", r->uid);
    snprintf(gid, sizeof gid, "%u", r->gid);
    snprintf(bytes, sizeof bytes, "%lld", (long long)size);
    size_t used = 0;
    if ((strlen(name) > 99 &&
         pax_add(pax, sizeof pax, &used, "path", name) < 0) ||
        (link && strlen(link) > 99 &&
         pax_add(pax, sizeof pax, &used, "linkpath", link) < 0) ||
        (r->uid > 07777777 &&
         pax_add(pax, sizeof pax, &used, "uid", uid) < 0) ||
        (r->gid > 07777777 &&
         pax_add(pax, sizeof pax, &used, "gid", gid) < 0) ||
        (size > 077777777777ll &&
         pax_add(pax, sizeof pax, &used, "size", bytes) < 0))
        return -1;
    struct header h;
    static const char zero[BLOCK];
    if (used) {
        fill(&h, "PaxHeader", 'x', 0644, (int64_t)used, r, NULL);
        if (write_full(w->out, &h, sizeof h) < 0 ||
            write_full(w->out, pax, used) < 0 ||
            write_full(w->out, zero, (size_t)padding((int64_t)used)) < 0)
            return -1;
    }
    fill(&h, name, type, r->mode, size, r, link);
    return write_full(w->out, &h, sizeof h);
}

/* The file's data, taken whole into a temporary file, then written. */
static int write_file(struct writer *w, const char *name,
                      const struct tree_record *fh)
{
    FILE *tmp = tmpfile();
    if (!tmp)
        return fail_errno("cp: cannot make a temporary file");
    struct tree_record h;
    int64_t size = 0;
    int rc = 0;
    while (rc == 0 &&
           (rc = tree_get(w->sock, &h, w->data, TREE_DATA_MAX)) == 0) {
        if (h.kind == TREE_FAIL) /* the sender's reason */
            rc = fail("%.1024s", w->data);
        else if (h.kind != TREE_DATA)
            rc = fail("cp: %s: expected its data", name);
        else if (h.len == 0)
            break;
        else if (fwrite(w->data, 1, h.len, tmp) != h.len)
            rc = fail_errno("cp: cannot keep %s", name);
        size += h.len;
    }
    static const char zero[BLOCK];
    if (rc == 0 && (fflush(tmp) != 0 || fseek(tmp, 0, SEEK_SET) != 0))
        rc = fail_errno("cp: cannot keep %s", name);
    if (rc == 0)
        rc = write_header(w, name, '0', size, fh, NULL);
    size_t n;
    while (rc == 0 && (n = fread(w->data, 1, TREE_DATA_MAX, tmp)) > 0)
        rc = write_full(w->out, w->data, n);
    if (rc == 0 && ferror(tmp))
        rc = fail_errno("cp: cannot read back %s", name);
    if (rc == 0)
        rc = write_full(w->out, zero, (size_t)padding(size));
    fclose(tmp);
    return rc;
}

/* One record and all it brings; *done once the top entry is whole. */
static int write_entry(struct writer *w, int *done)
{
    struct tree_record h;
    if (tree_get(w->sock, &h, w->data, TREE_DATA_MAX) < 0)
        return -1;
    if (h.kind == TREE_FAIL)
        return fail("%.1024s", w->data);
    if (h.kind == TREE_END) {
        char *slash = strrchr(w->path, '/');
        if (w->depth == 0 || h.len != 0)
            return fail("cp: a broken end of directory");
        *(slash ? slash : w->path) = '\0';
        *done = --w->depth == 0;
        return 0;
    }
    int linked = h.kind == TREE_LINK;
    if (h.kind != TREE_DIR && h.kind != TREE_FILE && !linked)
        return fail("cp: an entry of unknown kind %u", h.kind);
    size_t sent = linked ? strnlen(w->data, h.len) : h.len;
    if (tree_check_name(w->data, sent) < 0)
        return -1;
    const char *target = linked ? w->data + sent + 1 : NULL;
    if (linked && (sent + 1 >= h.len || strlen(target) >= PATH_MAX))
        return fail("cp: a link without a target");
    char name[PATH_MAX + NAME_MAX + 2];
    snprintf(name, sizeof name, "%s%s%.*s", w->path, *w->path ? "/" : "",
             NAME_MAX, w->data);
    if (strlen(name) >= PATH_MAX)
        return fail("cp: a path longer than %d bytes", PATH_MAX);
    *done = w->depth == 0;
    if (h.kind == TREE_LINK)
        return write_header(w, name, '2', 0, &h, target);
    if (h.kind == TREE_FILE)
        return write_file(w, name, &h);
    if (w->depth == DEPTH_MAX)
        return fail("cp: more than %d directories deep", DEPTH_MAX);
    *done = 0;
    w->depth++;
    snprintf(w->path, sizeof w->path, "%.*s", PATH_MAX - 1, name);
    strcat(name, "/");
    return write_header(w, name, '5', 0, &h, NULL);
}

int tar_receive(int sock, int out)
{
    static struct writer w;
    static const char zero[ZERO_BLOCKS * BLOCK];
    w.sock = sock;
    w.out = out;
    w.path[0] = '\0';
    w.depth = 0;
    int done = 0, rc = 0;
    while (rc == 0 && !done)
        rc = write_entry(&w, &done);
    if (rc == 0)
        rc = write_full(out, zero, sizeof zero);
    struct tree_record answer = {.kind = rc < 0 ? TREE_FAIL : TREE_OK};
    const char *message = rc < 0 ? fail_message() : "";
    answer.len = (uint32_t)strnlen(message, 1024);
    tree_put(sock, &answer, message);
    return rc;
}
