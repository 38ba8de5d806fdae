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
#include <unistd.h>

#define DEPTH_MAX 128     /* directories below the top: one fd each */
#define DATA_MAX 65536    /* bytes in a TREE_DATA record */
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

static int send_record(int sock, enum tree_kind kind, mode_t mode,
                       const void *buf, size_t len)
{
    struct tree_record h = {kind, (uint32_t)mode, (uint32_t)len};
    return send_all(sock, &h, sizeof h) < 0 || send_all(sock, buf, len) < 0
               ? -1
               : 0;
}

void tree_fail(int sock, const char *message)
{
    size_t len = strnlen(message, MESSAGE_MAX);
    send_record(sock, TREE_FAIL, 0, message, len);
}

/* ---- sending ---- */

static int send_entry(int sock, int dirfd, const char *name, const char *as,
                      int depth);

static int send_link(int sock, int dirfd, const char *name, const char *as)
{
    char buf[NAME_MAX + 1 + PATH_MAX];
    size_t n = strlen(as) + 1;
    memcpy(buf, as, n);
    ssize_t len = readlinkat(dirfd, name, buf + n, PATH_MAX);
    if (len < 0 || len == PATH_MAX)
        return fail_errno("cp: cannot read the link %s", as);
    return send_record(sock, TREE_LINK, 0, buf, n + (size_t)len);
}

static int send_file(int sock, int fd, const char *as, mode_t mode)
{
    static char data[DATA_MAX];
    if (send_record(sock, TREE_FILE, mode, as, strlen(as)) < 0)
        return -1;
    for (;;) {
        ssize_t n = read(fd, data, sizeof data);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail_errno("cp: cannot read %s", as);
        if (send_record(sock, TREE_DATA, 0, data, (size_t)n) < 0 || n == 0)
            return n == 0 ? 0 : -1;
    }
}

static int send_dir(int sock, int fd, const char *as, mode_t mode, int depth)
{
    if (depth == DEPTH_MAX)
        return fail("cp: %s: more than %d directories deep", as, DEPTH_MAX);
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return fail_errno("cp: cannot list %s", as);
    }
    int rc = send_record(sock, TREE_DIR, mode, as, strlen(as));
    struct dirent *e;
    while (rc == 0 && (errno = 0, e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            rc = send_entry(sock, dirfd(d), e->d_name, e->d_name, depth + 1);
    if (rc == 0 && errno)
        rc = fail_errno("cp: cannot list %s", as);
    closedir(d);
    return rc < 0 ? -1 : send_record(sock, TREE_END, 0, NULL, 0);
}

/* The entry is opened, not its name trusted: the type is the open
 * file's, so an entry swapped meanwhile is sent as what was opened. */
static int send_entry(int sock, int dirfd, const char *name, const char *as,
                      int depth)
{
    int fd = openat(dirfd, name,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ELOOP)
        return send_link(sock, dirfd, name, as);
    if (fd < 0)
        return fail_errno("cp: cannot open %s", as);
    struct stat st;
    int rc;
    if (fstat(fd, &st) < 0)
        rc = fail_errno("cp: cannot stat %s", as);
    else if (S_ISDIR(st.st_mode))
        return send_dir(sock, fd, as, st.st_mode & 07777, depth);
    else if (S_ISREG(st.st_mode))
        rc = send_file(sock, fd, as, st.st_mode & 07777);
    else
        rc = fail("cp: %s is not a file, directory or symbolic link", as);
    close(fd);
    return rc;
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
int tree_send(int sock, int dirfd, const char *name, const char *as)
{
    char mine[MESSAGE_MAX] = "";
    if (send_entry(sock, dirfd, name, as, 0) < 0) {
        snprintf(mine, sizeof mine, "%s", fail_message());
        tree_fail(sock, mine);
        fail_clear();
    }
    int rc = answer(sock);
    if (rc == -1 || (rc == 0 && !*mine))
        return rc;
    fail_clear();
    return fail("%s", *mine ? mine : "cp: the other end of the copy stopped");
}

/* ---- receiving ---- */

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

/* One plain component: no '/', not "." or "..", not empty, no NUL. */
static int check_name(const char *name, size_t len)
{
    if (len == 0 || strlen(name) != len || strchr(name, '/') ||
        strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return fail("cp: refused the name '%s' sent for an entry", name);
    return 0;
}

static int receive_entry(int sock, int dirfd, const char *name, int depth,
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
static int receive_file(int sock, int dirfd, const char *name, mode_t mode)
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
    while (rc == 0 && (rc = recv_all(sock, &h, sizeof h)) == 0) {
        if (h.kind != TREE_DATA) {
            rc = fail("cp: %s: expected its data", name);
        } else if ((rc = payload(sock, &h, data, DATA_MAX)) == 0) {
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
    if (rc == 0 && fchmod(fd, mode & 0777) < 0)
        rc = fail_errno("cp: cannot set the mode of %s", name);
    if (close(fd) < 0 && rc == 0)
        rc = fail_errno("cp: cannot write %s", name);
    return rc;
}

static int receive_dir(int sock, int dirfd, const char *name, mode_t mode,
                       int depth)
{
    if (depth == DEPTH_MAX)
        return fail("cp: %s: more than %d directories deep", name, DEPTH_MAX);
    if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
        return fail_errno("cp: cannot make %s", name);
    int fd =
        openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return fail_errno("cp: cannot enter %s", name);
    struct tree_record h;
    int rc = 0;
    while (rc == 0 && (rc = recv_all(sock, &h, sizeof h)) == 0 &&
           h.kind != TREE_END)
        rc = receive_entry(sock, fd, NULL, depth + 1, &h);
    if (rc == 0 && h.len != 0)
        rc = fail("cp: %s: a broken end of directory", name);
    if (rc == 0 && fchmod(fd, mode & 0777) < 0)
        rc = fail_errno("cp: cannot set the mode of %s", name);
    close(fd);
    return rc;
}

static int receive_link(int sock, int dirfd, const char *name, char *rest,
                        size_t len)
{
    /* rest: the link's name (checked by the caller), '\0', its target. */
    size_t n = strlen(rest) + 1;
    if (n >= len + 1 || rest[n] == '\0')
        return fail("cp: a link without a target");
    if (clear_way(dirfd, name, 0) < 0)
        return -1;
    if (symlinkat(rest + n, dirfd, name) < 0)
        return fail_errno("cp: cannot make the link %s", name);
    return 0;
}

/* h is read; its payload is next. name NULL: the one sent. */
static int receive_entry(int sock, int dirfd, const char *name, int depth,
                         const struct tree_record *h)
{
    static char buf[NAME_MAX + 1 + PATH_MAX + 1];
    if (h->kind == TREE_FAIL) {
        char message[MESSAGE_MAX + 1];
        return payload(sock, h, message, MESSAGE_MAX) < 0
                   ? -1
                   : fail("%s", message);
    }
    if (h->kind != TREE_DIR && h->kind != TREE_FILE && h->kind != TREE_LINK)
        return fail("cp: an entry of unknown kind %u", h->kind);
    size_t max = h->kind == TREE_LINK ? sizeof buf - 1 : NAME_MAX;
    if (payload(sock, h, buf, max) < 0)
        return -1;
    size_t sent = h->kind == TREE_LINK ? strnlen(buf, h->len) : h->len;
    if (check_name(buf, sent) < 0)
        return -1;
    const char *as = name ? name : buf;
    if (h->kind == TREE_LINK)
        return receive_link(sock, dirfd, as, buf, h->len);
    char own[NAME_MAX + 1];
    snprintf(own, sizeof own, "%s", as);
    return h->kind == TREE_DIR ? receive_dir(sock, dirfd, own, h->mode, depth)
                           : receive_file(sock, dirfd, own, h->mode);
}

int tree_receive(int sock, int dirfd, const char *name)
{
    struct tree_record h;
    int rc = recv_all(sock, &h, sizeof h) < 0
                 ? -1
                 : receive_entry(sock, dirfd, name, 0, &h);
    if (rc < 0)
        tree_fail(sock, fail_message());
    else
        send_record(sock, TREE_OK, 0, NULL, 0);
    return rc;
}
