/*
 * cephfs.h - the CephFS libservice's own calls, for its tests and its
 * registration (backend.c): the service reaches it only as the
 * registry's "ceph" (libservice.h). Errors go to err (a line for the
 * operator) and return NULL.
 */
#ifndef DANAUS_CEPHFS_H
#define DANAUS_CEPHFS_H

#include "fsservice/libservice/libservice.h"

struct cephfs_client; /* one Ceph mount per service, shared by instances */
struct cephfs_client_options {
    const char *conf_path;   /* ceph.conf */
    const char *client_id;   /* cephx id, NULL for "admin" */
    const char *fs_name;     /* NULL: the default file system */
    const char *keyring;     /* the id's key, NULL: the conf's keyring */
    /* The directory the client mounts, NULL for "/": a client whose caps
     * allow one path only may mount nothing above it. Every instance's
     * root lies at or below it. */
    const char *root;
    const char *cache_size;  /* client_cache_size (inodes), NULL: default */
    const char *oc_size;     /* client_oc_size (bytes), NULL: default */
    /* Names this client's Ceph session across restarts: a session the
     * previous process of the same uuid left is reset at mount, so the
     * files it held are free at once. NULL: no uuid, no reset. */
    const char *uuid;
    /* Keep the conf's client-side debug levels; otherwise they are 0/0
     * (see client.c). */
    int keep_debug_levels;
    /* No object cache (client_oc off): a write returns once the cluster
     * has it, so a service that dies loses no written data. */
    int write_through;
};
struct cephfs_client *cephfs_client_new(const struct cephfs_client_options *,
                                        char *err, size_t errlen);
void cephfs_client_free(struct cephfs_client *);
/* Lets the client's files be cached (cache_hold), announcing their changes
 * to sink: read delegations (deleg.c). Before serving; 0 or -errno. */
int cephfs_client_enable_cache(struct cephfs_client *,
                               const struct ls_change_sink *sink);
/* Sets the object cache's size while mounted (client_oc_size, which
 * Ceph applies at run time): 0 or -errno. */
int cephfs_client_resize_cache(struct cephfs_client *, uint64_t bytes);
/* root is a directory in CephFS, created if absent, named from the top of
 * the file system (not from the client's mount root). */
struct ls_instance *cephfs_instance_new(struct cephfs_client *,
                                        const char *root, char *err,
                                        size_t errlen);
int cephfs_cred_init(struct cephfs_client *, struct ls_cred *);
void cephfs_cred_release(struct ls_cred *);

#endif
