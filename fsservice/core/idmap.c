/*
 * idmap.c - host ids to a pool's ids and back (idmap.h).
 */
#include "idmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
