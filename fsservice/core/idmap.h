/*
 * idmap.h - a pool's user namespace, seen from its service: the ids a
 * client has on the host mapped to the ids its pool stores, and back.
 *
 * A pool's containers run in a user namespace whose map is
 * "INSIDE OUTSIDE COUNT" (user_namespaces(7)): pool id INSIDE + n is host
 * id OUTSIDE + n. The backend holds pool ids (image layers keep their
 * owners; 0 is the containers' root), so layers can be shared by pools.
 * The kernel tells the doors host ids (SO_PEERCRED, SO_PEERGROUPS, the
 * FUSE request's header, /proc/TID/status): each door maps them in before
 * any permission check or ownership decision, and the FUSE door maps the
 * owners of its replies out, so the kernel shows them right inside the
 * container. Host root, which runs the service and the engine, is the
 * pool's root; any other host id outside the range is IDMAP_OVERFLOW, an
 * "other" to every file. A map of COUNT 0 is the identity (no
 * `idmap` line in danausd.conf).
 */
#ifndef DANAUS_IDMAP_H
#define DANAUS_IDMAP_H

#include "fsservice/libservice/libservice.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define IDMAP_OVERFLOW 65534 /* the kernel's overflowuid and overflowgid */

struct idmap {
    uint32_t inside, outside, count;
};

/* Parses "INSIDE:OUTSIDE:COUNT" into m: 0, or -1 when text is not three
 * numbers, COUNT is 0, or a range reaches (uint32_t)-1. */
int idmap_parse(const char *text, struct idmap *m);

/* The pool id of host id host. */
uint32_t idmap_in(const struct idmap *m, uint32_t host);
/* The host id of pool id id; IDMAP_OVERFLOW when it has none. */
uint32_t idmap_out(const struct idmap *m, uint32_t id);
/* Whether host id host belongs to the pool: host root or an id of the
 * range (every id, for the identity map). The socket door attaches no
 * one else. */
bool idmap_admits(const struct idmap *m, uint32_t host);
/* cred's uid, gid and groups, from host ids to pool ids. */
void idmap_cred_in(const struct idmap *m, struct ls_cred *cred);

/* Extended attributes whose values name ids, mapped as the kernel maps
 * them across an idmapped mount: the POSIX ACLs system.posix_acl_access
 * and system.posix_acl_default (the ids of their named user and group
 * entries) and a v3 file capability, security.capability (its root id).
 * Other names, and values that are not well formed, are left as they
 * are (the backend judges them). The value is the caller's own copy. */
void idmap_xattr_in(const struct idmap *m, const char *name,
                    unsigned char *value, size_t size);
void idmap_xattr_out(const struct idmap *m, const char *name,
                     unsigned char *value, size_t size);
/* Whether name is one of those: its value must be copied to be mapped. */
bool idmap_xattr_names_ids(const struct idmap *m, const char *name);

#endif
