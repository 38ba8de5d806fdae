/*
 * tree_stream.c - a file tree over a socket (tree_stream.h).
 *
 * The two ends of a cp live in different worlds, one in a container's
 * namespaces and one on the host, and each reads what the other sends as
 * an attacker's. The sender walks its tree without following a symbolic
 * link: each entry is opened O_NOFOLLOW under the descriptor of its
 * directory. The receiver makes each entry under the descriptor of the
 * directory it made itself, by a name it checked is one plain component,
 * again never following a link. So neither end can lead the other out of
 * the directory it was given.
 *
 * The stream is records (tree_stream.h): a header, then len bytes.
 */
#include "tree_stream.h"
#include "fail.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEPTH_MAX 128     /* directories below the top: one fd each */
#define DATA_MAX TREE_DATA_MAX
#define MESSAGE_MAX 1024  /* bytes in a TREE_FAIL record */

static int send_all(int sock, const void *buf, size_t len)
{
    for (const char *p = buf; len;) {
        ssize_t n = send(sock, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail("cp: the other end of the copy is gone");
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int recv_all(int sock, void *buf, size_t len)
{
    for (char *p = buf; len;) {
        ssize_t n = recv(sock, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail("cp: the other end of the copy stopped");
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int tree_put(int sock, const struct tree_record *h, const void *payload)
{
    return send_all(sock, h, sizeof *h) < 0 ||
                   send_all(sock, payload, h->len) < 0
               ? -1
               : 0;
}

/* A record of kind about the entry st (NULL: none). */
static int send_record(int sock, enum tree_kind kind, const struct stat *st,
                       const void *buf, size_t len)
{
    struct tree_record h = {.kind = kind, .len = (uint32_t)len};
    if (st)
        h = (struct tree_record){kind, st->st_mode & 07777, (uint32_t)len,
                                 st->st_uid, st->st_gid, 0,
                                 (int64_t)st->st_mtim.tv_sec};
    return tree_put(sock, &h, buf);
}

void tree_fail(int sock, const char *message)
{
    size_t len = strnlen(message, MESSAGE_MAX);
    send_record(sock, TREE_FAIL, NULL, message, len);
}

/* ---- sending ---- */

static int send_entry(int sock, int dirfd, const char *name, const char *as,
                      int depth);

static int send_link(int sock, int dirfd, const char *name, const char *as)
{
    char buf[NAME_MAX + 1 + PATH_MAX];
    struct stat st;
    size_t n = strlen(as) + 1;
    memcpy(buf, as, n);
    ssize_t len = readlinkat(dirfd, name, buf + n, PATH_MAX);
    if (len < 0 || len == PATH_MAX ||
        fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return fail_errno("cp: cannot read the link %s", as);
    return send_record(sock, TREE_LINK, &st, buf, n + (size_t)len);
}

static int send_file(int sock, int fd, const char *as, const struct stat *st)
{
    static char data[DATA_MAX];
    if (send_record(sock, TREE_FILE, st, as, strlen(as)) < 0)
        return -1;
    for (;;) {
        ssize_t n = read(fd, data, sizeof data);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail_errno("cp: cannot read %s", as);
        if (send_record(sock, TREE_DATA, NULL, data, (size_t)n) < 0 ||
            n == 0)
            return n == 0 ? 0 : -1;
    }
}

static int send_dir(int sock, int fd, const char *as, const struct stat *st,
                    int depth)
{
    if (depth == DEPTH_MAX) {
        close(fd);
        return fail("cp: %s: more than %d directories deep", as, DEPTH_MAX);
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return fail_errno("cp: cannot list %s", as);
    }
    int rc = send_record(sock, TREE_DIR, st, as, strlen(as));
    struct dirent *e;
    while (rc == 0 && (errno = 0, e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            rc = send_entry(sock, dirfd(d), e->d_name, e->d_name, depth + 1);
    if (rc == 0 && errno)
        rc = fail_errno("cp: cannot list %s", as);
    closedir(d);
    return rc < 0 ? -1 : send_record(sock, TREE_END, NULL, NULL, 0);
}

/* The entry open at fd (taken): the type is the open file's, so an
 * entry swapped meanwhile is sent as what was opened. */
static int send_open(int sock, int fd, const char *as, int depth)
{
    struct stat st;
    int rc;
    if (fstat(fd, &st) < 0)
        rc = fail_errno("cp: cannot stat %s", as);
    else if (S_ISDIR(st.st_mode))
        return send_dir(sock, fd, as, &st, depth);
    else if (S_ISREG(st.st_mode))
        rc = send_file(sock, fd, as, &st);
    else
        rc = fail("cp: %s is not a file, directory or symbolic link", as);
    close(fd);
    return rc;
}

static int send_entry(int sock, int dirfd, const char *name, const char *as,
                      int depth)
{
    int fd = openat(dirfd, name,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ELOOP)
        return send_link(sock, dirfd, name, as);
    if (fd < 0)
        return fail_errno("cp: cannot open %s", as);
    return send_open(sock, fd, as, depth);
}

/* The receiver's answer: 0 for OK, -1 for its FAIL (fail.h), -2 for none
 * (it stopped, or answered nonsense). */
static int answer(int sock)
{
    struct tree_record h;
    char message[MESSAGE_MAX + 1];
    if (recv_all(sock, &h, sizeof h) < 0)
        return -2;
    if (h.kind == TREE_OK && h.len == 0)
        return 0;
    if (h.kind != TREE_FAIL || h.len > MESSAGE_MAX ||
        recv_all(sock, message, h.len) < 0)
        return -2;
    message[h.len] = '\0';
    return fail("%s", message);
}

/* A send fails when the receiver stopped first, and then its FAIL is the
 * reason to tell; on a failure of this side it answers with that. */
int tree_send_end(int sock, int rc)
{
    char mine[MESSAGE_MAX] = "";
    if (rc < 0) {
        snprintf(mine, sizeof mine, "%s", fail_message());
        tree_fail(sock, mine);
        fail_clear();
    }
    rc = answer(sock);
    if (rc == -1 || (rc == 0 && !*mine))
        return rc;
    fail_clear();
    return fail("%s", *mine ? mine : "cp: the other end of the copy stopped");
}

int tree_send(int sock, int dirfd, const char *name, const char *as)
{
    return tree_send_end(sock, send_entry(sock, dirfd, name, as, 0));
}

int tree_send_fd(int sock, int fd, const char *as)
{
    return tree_send_end(sock, send_open(sock, fd, as, 0));
}

/* ---- receiving ---- */

/* What a receive keeps: its top directory (where hard links' paths
 * start) and flags (tree_receive). */
struct receiver {
    int sock, top;
    unsigned flags;
};

/* The payload of a record with h's len, at most max bytes, NUL ended. */
static int payload(int sock, const struct tree_record *h, char *buf,
                   size_t max)
{
    if (h->len > max)
        return fail("cp: a record of %u bytes, more than %zu", h->len, max);
    if (recv_all(sock, buf, h->len) < 0)
        return -1;
    buf[h->len] = '\0';
    return 0;
}

int tree_get(int sock, struct tree_record *h, char *buf, size_t max)
{
    return recv_all(sock, h, sizeof *h) < 0 ? -1
                                            : payload(sock, h, buf, max);
}

/* One plain component: no '/', not "." or "..", not empty, no NUL, at
 * most NAME_MAX bytes. */
int tree_check_name(const char *name, size_t len)
{
    if (len == 0 || len > NAME_MAX || strlen(name) != len ||
        strchr(name, '/') ||
        strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return fail("cp: refused the name '%s' sent for an entry", name);
    return 0;
}

/* Owner (with -a), mode and time of the entry open at fd, as h says. */
static int settle(const struct receiver *r, int fd, const char *name,
                  const struct tree_record *h)
{
    struct timespec t[2] = {{h->mtime, 0}, {h->mtime, 0}};
    if ((r->flags & TREE_ARCHIVE) && fchown(fd, h->uid, h->gid) < 0)
        return fail_errno("cp: cannot give %s to %u:%u", name, h->uid,
                          h->gid);
    if (fchmod(fd, h->mode & 0777) < 0)
        return fail_errno("cp: cannot set the mode of %s", name);
    if (futimens(fd, t) < 0)
        return fail_errno("cp: cannot set the time of %s", name);
    return 0;
}

static int receive_entry(const struct receiver *r, int dirfd,
                         const char *name, int depth,
                         const struct tree_record *h);

/* What is in the way of name, but a directory, is removed: a link
 * itself, never what it points to. A regular file stays, to be written
 * over, when keep_file. */
static int clear_way(int dirfd, const char *name, int keep_file)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0;
    if (S_ISDIR(st.st_mode))
        return fail("cp: %s exists and is a directory", name);
    if ((keep_file && S_ISREG(st.st_mode)) || unlinkat(dirfd, name, 0) == 0)
        return 0;
    return fail_errno("cp: cannot replace %s", name);
}

/* A link put in the way since clear_way fails the open (O_NOFOLLOW). */
static int receive_file(const struct receiver *r, int dirfd,
                        const char *name, const struct tree_record *fh)
{
    struct stat st;
    if (clear_way(dirfd, name, 1) < 0)
        return -1;
    int fd = openat(dirfd, name,
                    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK |
                        O_NOCTTY | O_CLOEXEC,
                    0600);
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        int rc = fail_errno("cp: cannot write %s", name);
        if (fd >= 0)
            close(fd);
        return rc;
    }
    static char data[DATA_MAX + 1];
    struct tree_record h;
    int rc = 0;
    while (rc == 0 && (rc = recv_all(r->sock, &h, sizeof h)) == 0) {
        if (h.kind == TREE_FAIL) { /* the sender's reason, not ours */
            rc = payload(r->sock, &h, data, MESSAGE_MAX) < 0
                     ? -1
                     : fail("%s", data);
        } else if (h.kind != TREE_DATA) {
            rc = fail("cp: %s: expected its data", name);
        } else if ((rc = payload(r->sock, &h, data, DATA_MAX)) == 0) {
            if (h.len == 0)
                break;
            for (size_t off = 0; rc == 0 && off < h.len;) {
                ssize_t n = write(fd, data + off, h.len - off);
                if (n < 0 && errno != EINTR)
                    rc = fail_errno("cp: cannot write %s", name);
                off += n > 0 ? (size_t)n : 0;
            }
        }
    }
    if (rc == 0)
        rc = settle(r, fd, name, fh);
    if (close(fd) < 0 && rc == 0)
        rc = fail_errno("cp: cannot write %s", name);
    return rc;
}

/* The entries below the directory open at fd (taken), until its END;
 * then what h says of it, or, for one the stream only names (TREE_KEEP),
 * 0755 if made. */
static int receive_below(const struct receiver *r, int fd, const char *name,
                         const struct tree_record *dh, int depth, int made)
{
    struct tree_record h;
    int rc = 0;
    while (rc == 0 && (rc = recv_all(r->sock, &h, sizeof h)) == 0 &&
           h.kind != TREE_END)
        rc = receive_entry(r, fd, NULL, depth + 1, &h);
    if (rc == 0 && h.len != 0)
        rc = fail("cp: %s: a broken end of directory", name);
    if (rc == 0 && !(dh->flags & TREE_KEEP))
        rc = settle(r, fd, name, dh);
    else if (rc == 0 && made && fchmod(fd, 0755) < 0)
        rc = fail_errno("cp: cannot set the mode of %s", name);
    close(fd);
    return rc;
}

static int receive_dir(const struct receiver *r, int dirfd, const char *name,
                       const struct tree_record *h, int depth)
{
    if (depth == DEPTH_MAX)
        return fail("cp: %s: more than %d directories deep", name, DEPTH_MAX);
    int made = mkdirat(dirfd, name, 0700) == 0;
    if (!made && errno != EEXIST)
        return fail_errno("cp: cannot make %s", name);
    int fd =
        openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return fail_errno("cp: cannot enter %s", name);
    return receive_below(r, fd, name, h, depth, made);
}

/* rest: the link's name (checked by the caller), '\0', its target. */
static const char *link_target(const char *rest, size_t len)
{
    size_t n = strlen(rest) + 1;
    if (n >= len + 1 || rest[n] == '\0') {
        fail("cp: a link without a target");
        return NULL;
    }
    return rest + n;
}

static int receive_link(const struct receiver *r, int dirfd,
                        const char *name, const char *target,
                        const struct tree_record *h)
{
    struct timespec t[2] = {{h->mtime, 0}, {h->mtime, 0}};
    if (clear_way(dirfd, name, 0) < 0)
        return -1;
    if (symlinkat(target, dirfd, name) < 0)
        return fail_errno("cp: cannot make the link %s", name);
    if ((r->flags & TREE_ARCHIVE) &&
        fchownat(dirfd, name, h->uid, h->gid, AT_SYMLINK_NOFOLLOW) < 0)
        return fail_errno("cp: cannot give %s to %u:%u", name, h->uid,
                          h->gid);
    utimensat(dirfd, name, t, AT_SYMLINK_NOFOLLOW); /* (best effort) */
    return 0;
}

/* path's entry, from the top directory: each directory on the way
 * entered by a checked name without following a link, and the last
 * one linked itself (linkat without AT_SYMLINK_FOLLOW). */
static int receive_hardlink(const struct receiver *r, int dirfd,
                            const char *name, const char *path)
{
    char copy[PATH_MAX], *c = copy, *slash;
    snprintf(copy, sizeof copy, "%s", path);
    int at = dup(r->top), rc = at < 0 ? fail_errno("cp: dup") : 0;
    while (rc == 0 && (slash = strchr(c, '/'))) {
        *slash = '\0';
        int fd = -1;
        if (tree_check_name(c, strlen(c)) < 0)
            rc = -1;
        else if ((fd = openat(at, c, O_PATH | O_DIRECTORY | O_NOFOLLOW |
                                         O_CLOEXEC)) < 0)
            rc = fail_errno("cp: cannot link %s to %s", name, path);
        close(at);
        at = fd;
        c = slash + 1;
    }
    if (rc == 0 && (tree_check_name(c, strlen(c)) < 0 ||
                    clear_way(dirfd, name, 0) < 0))
        rc = -1;
    else if (rc == 0 && linkat(at, c, dirfd, name, 0) < 0)
        rc = fail_errno("cp: cannot link %s to %s", name, path);
    if (at >= 0)
        close(at);
    return rc;
}

/* h is read; its payload is next. name NULL: the one sent. */
static int receive_entry(const struct receiver *r, int dirfd,
                         const char *name, int depth,
                         const struct tree_record *h)
{
    static char buf[TREE_PAYLOAD_MAX + 1];
    if (h->kind == TREE_FAIL) {
        char message[MESSAGE_MAX + 1];
        return payload(r->sock, h, message, MESSAGE_MAX) < 0
                   ? -1
                   : fail("%s", message);
    }
    int linked = h->kind == TREE_LINK || h->kind == TREE_HARDLINK;
    if (h->kind != TREE_DIR && h->kind != TREE_FILE && !linked)
        return fail("cp: an entry of unknown kind %u", h->kind);
    if (payload(r->sock, h, buf, linked ? TREE_PAYLOAD_MAX : NAME_MAX) < 0)
        return -1;
    size_t sent = linked ? strnlen(buf, h->len) : h->len;
    if (tree_check_name(buf, sent) < 0)
        return -1;
    char own[NAME_MAX + 1];
    snprintf(own, sizeof own, "%.*s", NAME_MAX, name ? name : buf);
    const char *target = linked ? link_target(buf, h->len) : NULL;
    if (linked && !target)
        return -1;
    if (h->kind == TREE_LINK)
        return receive_link(r, dirfd, own, target, h);
    if (h->kind == TREE_HARDLINK)
        return receive_hardlink(r, dirfd, own, target);
    return h->kind == TREE_DIR ? receive_dir(r, dirfd, own, h, depth)
                               : receive_file(r, dirfd, own, h);
}

/* TREE_CONTENTS: the top directory's entries, made in dirfd itself,
 * which stays as it is. */
static int receive_contents(const struct receiver *r, int dirfd)
{
    static char name[MESSAGE_MAX + 1];
    struct tree_record h;
    if (tree_get(r->sock, &h, name, MESSAGE_MAX) < 0)
        return -1;
    if (h.kind == TREE_FAIL)
        return fail("%s", name);
    if (h.kind != TREE_DIR)
        return fail("cp: expected a directory's entries");
    int fd = dup(dirfd);
    h.flags |= TREE_KEEP;
    return fd < 0 ? fail_errno("cp: dup")
                  : receive_below(r, fd, ".", &h, 0, 0);
}

int tree_receive(int sock, int dirfd, const char *name, unsigned flags)
{
    struct receiver r = {sock, dirfd, flags};
    struct tree_record h;
    int rc = (flags & TREE_CONTENTS) ? receive_contents(&r, dirfd)
             : recv_all(sock, &h, sizeof h) < 0
                 ? -1
                 : receive_entry(&r, dirfd, name, 0, &h);
    if (rc < 0)
        tree_fail(sock, fail_message());
    else
        send_record(sock, TREE_OK, NULL, NULL, 0);
    return rc;
}
