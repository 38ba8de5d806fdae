/*
 * namecache.h - this process's cache of names and attributes: what STAT
 * calls were answered (a file's attributes, or ENOENT / ENOTDIR), kept by
 * mount, path as sent and whether the last link is followed, and used
 * again without a round trip while the service's announcements (ipc.h)
 * say nothing it depends on has changed, for at most the page's timeout
 * (changes made to the backend outside the service).
 *
 * fstat's answers are kept the same way (NAMECACHE_FSTAT).
 *
 * The cache is the process's own memory: what it holds was answered to
 * this process, with its credentials, so a cached name is only served to
 * a process that could look it up; a change of credentials drops it all
 * (namecache_drop), and any change of a directory's attributes (the
 * search permission that guards the names below it) is a change of names.
 * It lives while the service that answered it is seen alive
 * (service_seen_alive) and its page is the one the answers were kept
 * under.
 */
#ifndef LIBFS_NAMECACHE_H
#define LIBFS_NAMECACHE_H

#include "service.h"

#include <danaus/wire.h>
#include <stdbool.h>
#include <stdint.h>

/* Paths longer than this are not kept. */
#define NAMECACHE_PATH 192

/* The flags of an fstat's answer, kept under the descriptor's handle
 * written as a path: never those of a STAT by path (0 or
 * AT_SYMLINK_NOFOLLOW), so the two never meet. A handle names one open
 * file of one process (the service changes a handle's generation with
 * every open); a child, whose own opens could take handles its parent had
 * before the fork, starts with nothing (namecache_drop). */
#define NAMECACHE_FSTAT (-1)

/* What a lookup that missed read before the call, for namecache_keep. */
struct namecache_fill {
    bool usable;
    const struct ipc_announce *page;
    uint64_t names, attrs, drops, born_ns;
    uint32_t mount;
    int flags;
    uint16_t len;
    bool listing; /* the answer came with a listing (namecache_begin: no) */
    bool no_xattrs; /* the listing said the name has no extended attributes
                       (namecache_begin: no) */
    char path[NAMECACHE_PATH];
};

/* The cached answer to STAT of path (instance-relative, as sent) on mount
 * with flags (AT_SYMLINK_NOFOLLOW or 0): 1 with *st, -ENOENT or -ENOTDIR,
 * or 0 when there is none (then *fill is what namecache_keep needs, to be
 * called with the call's answer). Call it before sending the call. */
int namecache_lookup(const struct service *svc, uint32_t mount,
                     const char *path, int flags, struct danaus_stat *st,
                     struct namecache_fill *fill);

/* The same for an fstat of the descriptor whose handle is handle: 1 with
 * *st, or 0. */
int namecache_lookup_fstat(const struct service *svc, uint32_t mount,
                           uint64_t handle, struct danaus_stat *st,
                           struct namecache_fill *fill);

/* For attributes that come with another call (an open's): what
 * namecache_keep needs, read before the call (namecache_begin), and the
 * key to keep them under, set once the answer tells it. */
void namecache_begin(const struct service *svc, struct namecache_fill *fill);
void namecache_key(struct namecache_fill *fill, uint32_t mount,
                   const char *path, int flags);
void namecache_key_fstat(struct namecache_fill *fill, uint32_t mount,
                         uint64_t handle);

/* After the STAT a lookup missed: its answer, err (0 with *st, or an
 * errno), kept when nothing announced since the lookup makes it stale. */
void namecache_keep(const struct namecache_fill *fill, int err,
                    const struct danaus_stat *st);

/* Which attributes a listing should bring (DANAUS_LISTING_ATTRS_ALL,
 * _XATTRS or _DIRS), or 0 for none: those of a kind of name (directories,
 * or the others) while this process looks up enough of the names of that
 * kind its listings kept, and whether each has extended attributes while
 * it asks for them as often. */
int namecache_want_listings(void);
/* The process asked an extended attribute of a name by path. */
void namecache_xattr_probe(void);
/* Whether the listing that kept path's (as namecache_lookup's) answer
 * said the name has no extended attributes, and the answer still holds. */
bool namecache_no_xattrs(const struct service *svc, uint32_t mount,
                         const char *path, int flags);
/* A listing came (with its attributes or not), for the one in so many
 * that asks for all. */
void namecache_listing_came(void);

/* Forgets every answer: the process's credentials changed. */
void namecache_drop(void);

#endif
