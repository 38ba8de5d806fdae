/*
 * tree_stream.h - a file, directory tree or symbolic link sent over a
 * socket between two processes that trust nothing of each other, for
 * danaus cp (cp.h).
 */
#ifndef ENGINE_TREE_STREAM_H
#define ENGINE_TREE_STREAM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* The stream is records, each a header, then len bytes:
 *   TREE_DIR   name              the entries below it follow, then END
 *   TREE_FILE  name              then DATA records, an empty one last
 *   TREE_LINK  name '\0' target
 *   TREE_HARDLINK name '\0' path another name for the entry at path,
 *                                 relative to the receiver's directory
 *   TREE_FAIL  message           from either end: the copy stops there
 *   TREE_OK                      the receiver's answer: all is made */
enum tree_kind {
    TREE_DIR, TREE_END, TREE_FILE, TREE_DATA, TREE_LINK, TREE_FAIL, TREE_OK,
    TREE_HARDLINK
};

#define TREE_DATA_MAX 65536 /* bytes in a TREE_DATA record */
#define TREE_PAYLOAD_MAX (NAME_MAX + 1 + PATH_MAX) /* in a (HARD)LINK */

/* flags of a record: a directory named only by what is below it (a tar
 * member "a/b" without "a/"): made 0755 when missing, else left as it
 * is, its mode, owner and time unsent. */
#define TREE_KEEP 1u

struct tree_record {
    uint32_t kind;
    uint32_t mode; /* permission bits of a DIR or FILE */
    uint32_t len;
    uint32_t uid, gid; /* the owner, as the sender sees it */
    uint32_t flags;
    int64_t mtime; /* seconds */
};

/* tree_receive's flags: */
#define TREE_ARCHIVE 1  /* owners as sent (cp -a), else the receiver's */
#define TREE_CONTENTS 2 /* the top entry is a directory whose entries are
                           made in dirfd itself (a tar stream's members) */

/* Sends the entry name under dirfd, named as, with all below it; symbolic
 * links are sent as links, never followed. Then waits for the receiver's
 * answer. 0, or -1 (fail.h: this side's error, sent to the receiver too,
 * or the receiver's). */
int tree_send(int sock, int dirfd, const char *name, const char *as);
/* tree_send of the entry open at fd (taken: closed here), e.g. the
 * target of a link its caller followed. */
int tree_send_fd(int sock, int fd, const char *as);

/* Makes what the sender sends under dirfd, named name (NULL: the name it
 * was sent as), and answers. Regular files, directories, symbolic and
 * hard links only, without their setuid, setgid and sticky bits, each
 * made by a name checked to be one component and never through a
 * symbolic link, with the sent modification times; flags above. 0, or
 * -1 (fail.h: this side's error, sent to the sender too, or the
 * sender's). */
int tree_receive(int sock, int dirfd, const char *name, unsigned flags);

/* Tells the other end that this one failed with message, in place of
 * what it would have sent. */
void tree_fail(int sock, const char *message);

/* For ends that are not a file tree (tar_stream.h): one record (h->len
 * bytes of payload), and one record read, its payload NUL-ended in buf
 * of max + 1 bytes (longer is refused); 0 or -1 (fail.h). */
int tree_put(int sock, const struct tree_record *h, const void *payload);
int tree_get(int sock, struct tree_record *h, char *buf, size_t max);
/* Whether name (len bytes) is one plain component: 0, or -1 (fail.h). */
int tree_check_name(const char *name, size_t len);
/* A sender's end: rc its own result (-1: its failure, in fail.h, is sent
 * to the receiver), then the receiver's answer. 0 or -1 (fail.h). */
int tree_send_end(int sock, int rc);

#endif
