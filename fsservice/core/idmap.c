/*
 * idmap.c - host ids to a pool's ids and back (idmap.h).
 */
#include "idmap.h"

#include <endian.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_id(const char **s, char end, uint32_t *out)
{
    char *after;
    errno = 0;
    unsigned long long v = strtoull(*s, &after, 10);
    if (after == *s || **s < '0' || **s > '9' || *after != end || errno ||
        v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    *s = after + 1;
    return 0;
}

int idmap_parse(const char *text, struct idmap *m)
{
    struct idmap got;
    if (parse_id(&text, ':', &got.inside) < 0 ||
        parse_id(&text, ':', &got.outside) < 0 ||
        parse_id(&text, '\0', &got.count) < 0 || got.count == 0 ||
        (uint64_t)got.inside + got.count > UINT32_MAX ||
        (uint64_t)got.outside + got.count > UINT32_MAX)
        return -1;
    *m = got;
    return 0;
}

uint32_t idmap_in(const struct idmap *m, uint32_t host)
{
    if (m->count == 0)
        return host;
    if (host - m->outside < m->count)
        return m->inside + (host - m->outside);
    return host == 0 ? 0 : IDMAP_OVERFLOW;
}

uint32_t idmap_out(const struct idmap *m, uint32_t id)
{
    if (m->count == 0)
        return id;
    return id - m->inside < m->count ? m->outside + (id - m->inside)
                                     : IDMAP_OVERFLOW;
}

bool idmap_admits(const struct idmap *m, uint32_t host)
{
    return m->count == 0 || host == 0 || host - m->outside < m->count;
}

void idmap_cred_in(const struct idmap *m, struct ls_cred *cred)
{
    cred->uid = idmap_in(m, cred->uid);
    cred->gid = idmap_in(m, cred->gid);
    for (int i = 0; i < cred->ngroups; i++)
        cred->groups[i] = idmap_in(m, cred->groups[i]);
}

typedef uint32_t (*id_mapper)(const struct idmap *m, uint32_t id);

/* The little-endian 32-bit id at p, mapped in place. */
static void map_le32(const struct idmap *m, unsigned char *p, id_mapper map)
{
    uint32_t id;
    memcpy(&id, p, sizeof id);
    id = htole32(map(m, le32toh(id)));
    memcpy(p, &id, sizeof id);
}

/* posix_acl_xattr.h: a version word, then entries of tag, perm and id. */
static void map_acl(const struct idmap *m, unsigned char *v, size_t size,
                    id_mapper map)
{
    struct posix_acl_xattr_header h;
    struct posix_acl_xattr_entry e;
    if (size < sizeof h || (size - sizeof h) % sizeof e)
        return;
    memcpy(&h, v, sizeof h);
    if (le32toh(h.a_version) != POSIX_ACL_XATTR_VERSION)
        return;
    for (size_t at = sizeof h; at < size; at += sizeof e) {
        memcpy(&e, v + at, sizeof e);
        uint16_t tag = le16toh(e.e_tag);
        if (tag == ACL_USER || tag == ACL_GROUP)
            map_le32(m, v + at + offsetof(struct posix_acl_xattr_entry, e_id),
                     map);
    }
}

/* capability.h: only a v3 capability (vfs_ns_cap_data) names its root. */
static void map_caps(const struct idmap *m, unsigned char *v, size_t size,
                     id_mapper map)
{
    uint32_t magic;
    if (size != XATTR_CAPS_SZ_3)
        return;
    memcpy(&magic, v, sizeof magic);
    if ((le32toh(magic) & VFS_CAP_REVISION_MASK) == VFS_CAP_REVISION_3)
        map_le32(m, v + offsetof(struct vfs_ns_cap_data, rootid), map);
}

static bool is_acl(const char *name)
{
    return strcmp(name, "system.posix_acl_access") == 0 ||
           strcmp(name, "system.posix_acl_default") == 0;
}

bool idmap_xattr_names_ids(const struct idmap *m, const char *name)
{
    return m->count &&
           (is_acl(name) || strcmp(name, "security.capability") == 0);
}

static void map_xattr(const struct idmap *m, const char *name,
                      unsigned char *value, size_t size, id_mapper map)
{
    if (!idmap_xattr_names_ids(m, name))
        return;
    if (is_acl(name))
        map_acl(m, value, size, map);
    else
        map_caps(m, value, size, map);
}

void idmap_xattr_in(const struct idmap *m, const char *name,
                    unsigned char *value, size_t size)
{
    map_xattr(m, name, value, size, idmap_in);
}

void idmap_xattr_out(const struct idmap *m, const char *name,
                     unsigned char *value, size_t size)
{
    map_xattr(m, name, value, size, idmap_out);
}
