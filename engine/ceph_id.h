/*
 * ceph_id.h - the cephx client of a pool on a Ceph backend: its caps reach
 * the pool's directory only, and the pool's danausd mounts as it.
 */
#ifndef ENGINE_CEPH_ID_H
#define ENGINE_CEPH_ID_H

#include "record.h"

#include <stddef.h>

/* 0 if this engine makes pools on Ceph; -1 (fail.h) naming BACKEND if it
 * was built without libcephfs (DANAUS_CEPH), whose ceph_id_none.c refuses
 * them. */
int ceph_id_available(const char *backend);
/* For a pool whose record has a ceph backend: makes its directory, gives
 * it a RADOS namespace (unless it has one) and makes its client, allowed
 * that directory and namespace, with the identity the pool's ceph.conf
 * gives (the operator's); writes the client's key to pools/POOL/ceph.keyring
 * (mode 0600) and records the client as ceph_id. Other pools: nothing. 0,
 * or -1 (fail.h). */
int ceph_id_create(const char *pool, struct record *rec);
/* Deletes the pool's client, if it has one; says on stderr when the
 * cluster refuses. */
void ceph_id_remove(const char *pool, const struct record *rec);

#endif
