/*
 * files.c - reading image sources, which the engine does not trust
 * (files.h): a member is opened only as a regular file beneath its
 * archive's directory, never through a symbolic link (a link to a host
 * file would be read as root), and is checked against its digest and
 * size while it is read.
 */
#include "files.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SMALL_MAX (1 << 20)

/* The member opened for reading, or -1 (fail.h). It is opened O_PATH
 * first so that a device or a FIFO is refused before an open could act
 * on it; a symbolic link as the last component gives an O_PATH fd of the
 * link itself, one anywhere before it ELOOP (openat2(2)). */
static int open_member(int dirfd, const struct member *m)
{
    struct open_how how = {
        .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
    };
    int path_fd = (int)syscall(SYS_openat2, dirfd, m->name, &how, sizeof how);
    if (path_fd < 0 && errno == ELOOP)
        return fail("%s: member %s lies under a symlink", m->what, m->name);
    if (path_fd < 0 && errno == EXDEV)
        return fail("%s: member %s leaves the archive", m->what, m->name);
    if (path_fd < 0)
        return fail_errno("%s: member %s", m->what, m->name);
    struct stat st;
    int fd = -1;
    if (fstat(path_fd, &st) < 0) {
        fail_errno("%s: member %s", m->what, m->name);
    } else if (S_ISLNK(st.st_mode)) {
        fail("%s: member %s is a symlink, not a file", m->what, m->name);
    } else if (!S_ISREG(st.st_mode)) {
        fail("%s: member %s is not a regular file", m->what, m->name);
    } else {
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", path_fd);
        fd = open(self, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            fail_errno("%s: member %s", m->what, m->name);
    }
    close(path_fd);
    return fd;
}

/* The digest's hash function: sha256 or sha512, the two a descriptor may
 * name (manifest.h). */
static const EVP_MD *hash_of(const char *digest)
{
    return strncmp(digest, "sha512:", 7) == 0 ? EVP_sha512() : EVP_sha256();
}

/* Reads in to its end, into out (a file) when out >= 0, else into text
 * (at most SMALL_MAX - 1 bytes); then checks the size and digest that m
 * declares. 0 or -1 (fail.h). */
static int read_checked(int in, int out, char *text, const struct member *m)
{
    const EVP_MD *md = m->digest ? hash_of(m->digest) : NULL;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (md)
        EVP_DigestInit_ex(ctx, md, NULL);
    static char buf[1 << 20];
    long long total = 0;
    int rc = 0;
    ssize_t n;
    while (rc == 0 && (n = read(in, buf, sizeof buf)) > 0) {
        if (md)
            EVP_DigestUpdate(ctx, buf, (size_t)n);
        if (out < 0 && total + n >= SMALL_MAX)
            rc = fail("%s: member %s is larger than %d bytes", m->what,
                      m->name, SMALL_MAX - 1);
        else if (out < 0)
            memcpy(text + total, buf, (size_t)n);
        else if (write(out, buf, (size_t)n) != n)
            rc = fail_errno("cannot copy %s", m->name);
        total += n;
    }
    if (rc == 0 && n < 0)
        rc = fail_errno("%s: cannot read member %s", m->what, m->name);
    if (rc == 0 && m->size >= 0 && total != m->size)
        rc = fail("%s: member %s is %lld bytes, the manifest says %lld",
                  m->what, m->name, total, m->size);
    unsigned char sum[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (rc == 0 && md) {
        EVP_DigestFinal_ex(ctx, sum, &len);
        char hex[2 * EVP_MAX_MD_SIZE + 1];
        for (unsigned int i = 0; i < len; i++)
            snprintf(hex + 2 * i, 3, "%02x", sum[i]);
        if (strcmp(strchr(m->digest, ':') + 1, hex) != 0)
            rc = fail("%s: member %s does not match its digest (its %.6s "
                      "is %s)", m->what, m->name, m->digest, hex);
    }
    EVP_MD_CTX_free(ctx);
    return rc;
}

char *file_read_member(int dirfd, const struct member *m)
{
    int in = open_member(dirfd, m);
    if (in < 0)
        return NULL;
    char *text = calloc(1, SMALL_MAX);
    if (read_checked(in, -1, text, m) < 0) {
        free(text);
        text = NULL;
    }
    close(in);
    return text;
}

/* Copies in into a new file to; 0 or -1 (fail.h). */
static int copy_checked(int in, const char *to, const struct member *m)
{
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0)
        return fail_errno("cannot create %s", to);
    int rc = read_checked(in, out, NULL, m);
    if (close(out) < 0 && rc == 0)
        rc = fail_errno("cannot write %s", to);
    return rc;
}

int file_copy_member(int dirfd, const struct member *m, const char *to)
{
    int in = open_member(dirfd, m);
    if (in < 0)
        return -1;
    int rc = copy_checked(in, to, m);
    close(in);
    return rc;
}

int file_copy(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return fail_errno("cannot open %s", from);
    struct member m = {"image source", from, NULL, -1};
    int rc = copy_checked(in, to, &m);
    close(in);
    return rc;
}
