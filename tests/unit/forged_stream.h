/*
 * forged_stream.h - a tree stream (engine/tree_stream.h) as a lying
 * sender writes it, fed to the end under test by a child process, for
 * test_tree_stream.c and test_tar_stream.c.
 */
#ifndef DANAUS_TEST_FORGED_STREAM_H
#define DANAUS_TEST_FORGED_STREAM_H

#include "tree_stream.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

struct forged {
    char bytes[8192];
    size_t len;
};

/* A record whose header claims claimed bytes of payload, len of them
 * given. */
static void forged_put(struct forged *f, enum tree_kind kind, unsigned mode,
                       const void *payload, size_t len, size_t claimed)
{
    struct tree_record h = {.kind = kind, .mode = mode,
                            .len = (uint32_t)claimed, .uid = 1234,
                            .gid = 4321, .mtime = 1000000000};
    memcpy(f->bytes + f->len, &h, sizeof h);
    memcpy(f->bytes + f->len + sizeof h, payload, len);
    f->len += sizeof h + len;
}

/* A child writes f on a socket and ends (the answer is read by nobody);
 * the other end's fd, or -1. The child's pid in *pid. */
static int forged_feed(const struct forged *f, pid_t *pid)
{
    int sock[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock) < 0)
        return -1;
    if ((*pid = fork()) == 0) {
        close(sock[1]);
        _exit(write(sock[0], f->bytes, f->len) == (ssize_t)f->len ? 0 : 1);
    }
    close(sock[0]);
    return sock[1];
}

#endif
