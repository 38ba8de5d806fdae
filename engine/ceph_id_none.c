/*
 * ceph_id_none.c - ceph_id.h in an engine built without libcephfs
 * (DANAUS_CEPH off or not found): a pool on Ceph is refused before
 * anything of it is made. A pool made by a build with Ceph keeps its Ceph
 * client when this one removes it, and says so.
 */
#include "ceph_id.h"
#include "fail.h"

#include <stdio.h>
#include <string.h>

int ceph_id_available(const char *backend)
{
    return fail("backend '%s': this danaus was built without Ceph "
                "(libcephfs-dev; cmake -DDANAUS_CEPH=ON)", backend);
}

int ceph_id_create(const char *pool, struct record *rec)
{
    if (strcmp(record_get(rec, "backend_kind"), "ceph") == 0)
        return ceph_id_available(record_get(rec, "backend"));
    return 0;
}

void ceph_id_remove(const char *pool, const struct record *rec)
{
    const char *id = record_get(rec, "ceph_id");
    if (id)
        fprintf(stderr, "danaus: pool %s: this danaus was built without "
                "Ceph; its Ceph client stays (ceph auth del client.%s)\n",
                pool, id);
}
