/*
 * dirs.h - a service thread's O_PATH handles of the directories it resolved
 * lately, so that an operation on a name (unlink, mkdir, a stat) costs the
 * one *at call on its parent's handle instead of a walk from the root, as
 * libfuse's passthrough_ll keeps a handle per inode.
 *
 * A handle stands for a path as the client sent it. It is used only by the
 * thread that resolved it, while the thread has the identity it had then
 * (the handle skips the search permission of every directory above it),
 * and only while nothing that could make the path lead elsewhere or be
 * searched under other permissions happened since: local.c reports each
 * such change (local_dirs_changed) after it took effect and before its
 * answer goes out, so a client that learns of a change never meets a
 * handle from before it. Changes made to the host directory outside the
 * service are seen within LOCAL_DIRS_TTL_MS, as through the FUSE door's
 * caches.
 */
#ifndef DANAUS_LOCAL_DIRS_H
#define DANAUS_LOCAL_DIRS_H

#include <stdbool.h>

/* What the last component of a path is. */
enum local_last {
    LOCAL_LAST_NAME,   /* an ordinary name */
    LOCAL_LAST_DOT,    /* "." */
    LOCAL_LAST_DOTDOT, /* ".." */
    LOCAL_LAST_ROOT,   /* no component at all: the path is the root */
};

struct dir_entry;

/* A path split for an operation on a name (mkdir, unlink, rename, ...):
 * the parent directory, resolved, and the last component. */
struct local_name {
    int dir_fd;         /* O_PATH fd of the parent; -1 for LOCAL_LAST_ROOT */
    struct dir_entry *held; /* the cache's entry dir_fd is, kept open
                               until release; NULL: dir_fd is the
                               caller's */
    enum local_last kind;
    const char *name;   /* last component in the caller's path, trailing
                           slashes kept so the kernel gives them their
                           meaning ("must be a directory") */
};

/* Resolve the parent of path (in-root, as path.c resolves it) in the
 * instance whose root is root_fd, from the calling thread's handles when
 * it has it. 0 or -errno; on success the caller releases out with
 * local_name_release. */
int local_name_resolve(int root_fd, const char *link_prefix, const char *path,
                       struct local_name *out);
void local_name_release(struct local_name *name);

/* A rename, or change of permissions, owner or xattrs (ACLs) took
 * effect: every thread's handles become stale. */
void local_dirs_changed(void);

/* The directory at path was removed: the handles of it and below it, and
 * those resolved through a symbolic link, become stale. */
void local_dirs_removed(const char *path);

/* An unlink took effect: it may have removed a symbolic link that a
 * handle's path went through, so such handles become stale. */
void local_dirs_unlinked(void);

/* The instance of root_fd goes away: the calling thread's handles of it
 * are closed, every other thread's become stale. */
void local_dirs_forget(int root_fd);

#endif
