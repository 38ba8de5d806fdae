/*
 * tree_stream.h - a file, directory tree or symbolic link sent over a
 * socket between two processes that trust nothing of each other, for
 * danaus cp (cp.h).
 */
#ifndef ENGINE_TREE_STREAM_H
#define ENGINE_TREE_STREAM_H

#include <stdint.h>

/* The stream is records, each a header, then len bytes:
 *   TREE_DIR   name              the entries below it follow, then END
 *   TREE_FILE  name              then DATA records, an empty one last
 *   TREE_LINK  name '\0' target
 *   TREE_FAIL  message           from either end: the copy stops there
 *   TREE_OK                      the receiver's answer: all is made */
enum tree_kind {
    TREE_DIR, TREE_END, TREE_FILE, TREE_DATA, TREE_LINK, TREE_FAIL, TREE_OK
};

struct tree_record {
    uint32_t kind;
    uint32_t mode; /* permission bits of a DIR or FILE */
    uint32_t len;
};

/* Sends the entry name under dirfd, named as, with all below it; symbolic
 * links are sent as links, never followed. Then waits for the receiver's
 * answer. 0, or -1 (fail.h: this side's error, sent to the receiver too,
 * or the receiver's). */
int tree_send(int sock, int dirfd, const char *name, const char *as);

/* Makes what the sender sends under dirfd, named name (NULL: the name it
 * was sent as), and answers. Regular files, directories and symbolic
 * links only, without their setuid, setgid and sticky bits, each made
 * by a name checked to be one component and never through a symbolic
 * link. 0, or -1 (fail.h: this side's error, sent to the sender too, or
 * the sender's). */
int tree_receive(int sock, int dirfd, const char *name);

/* Tells the other end that this one failed with message, in place of
 * what it would have sent. */
void tree_fail(int sock, const char *message);

#endif
