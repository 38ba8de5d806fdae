/*
 * backend.c - the CephFS libservice in the registry (libservice.h): the
 * service's one Ceph client, mounted at start from the configuration's
 * ceph_* lines, shared by every instance, and a UserPerm per credential.
 */
#include "ceph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cephfs_client *client_of(struct ls_backend *b)
{
    return b->arg;
}

static bool setting_is(const struct ls_settings *s, const char *key,
                       const char *value)
{
    const char *v = ls_setting(s, key);
    return v && strcmp(v, value) == 0;
}

static int start(struct ls_backend *b, const struct ls_settings *s,
                 char *err, size_t errlen)
{
    if (!ls_setting(s, "ceph_conf")) {
        snprintf(err, errlen, "ceph: a ceph mount needs 'ceph_conf'");
        return -1;
    }
    struct cephfs_client_options o = {
        .conf_path = ls_setting(s, "ceph_conf"),
        .client_id = ls_setting(s, "ceph_client_id"),
        .fs_name = ls_setting(s, "ceph_fs_name"),
        .keyring = ls_setting(s, "ceph_keyring"),
        .root = ls_setting(s, "ceph_root"),
        .cache_size = ls_setting(s, "ceph_cache_size"),
        .oc_size = ls_setting(s, "ceph_oc_size"),
        .keep_debug_levels = setting_is(s, "ceph_client_log", "keep"),
        .write_through = setting_is(s, "ceph_write_through", "on"),
        .uuid = s ? s->session : NULL,
    };
    b->arg = cephfs_client_new(&o, err, errlen);
    return b->arg ? 0 : -1;
}

static struct ls_instance *instance_new(struct ls_backend *b,
                                        const char *source, char *err,
                                        size_t errlen)
{
    return cephfs_instance_new(client_of(b), source, err, errlen);
}

static int cred_init(struct ls_backend *b, struct ls_cred *cred)
{
    return cephfs_cred_init(client_of(b), cred);
}

static void cred_release(struct ls_backend *b, struct ls_cred *cred)
{
    cephfs_cred_release(cred);
}

static int enable_cache(struct ls_backend *b,
                        const struct ls_change_sink *sink)
{
    return cephfs_client_enable_cache(client_of(b), sink);
}

/* Without ceph_write_through the client's object cache holds written
 * data until it is flushed. */
static bool caches_writes(struct ls_backend *b)
{
    return !client_of(b)->write_through;
}

static int resize_cache(struct ls_backend *b, uint64_t bytes)
{
    return cephfs_client_resize_cache(client_of(b), bytes);
}

static void stop(struct ls_backend *b)
{
    cephfs_client_free(client_of(b));
    b->arg = NULL;
}

static const struct ls_setting_key settings[] = {
    {"ceph_conf", LS_SETTING_TEXT},
    {"ceph_client_id", LS_SETTING_TEXT},
    {"ceph_fs_name", LS_SETTING_TEXT},
    {"ceph_keyring", LS_SETTING_TEXT},
    {"ceph_root", LS_SETTING_ABSOLUTE},
    {"ceph_cache_size", LS_SETTING_SIZE},
    {"ceph_oc_size", LS_SETTING_SIZE},
    {"ceph_client_log", LS_SETTING_LOG},
    {"ceph_write_through", LS_SETTING_FLAG},
    {NULL, 0},
};

struct ls_backend cephfs_backend = {
    .name = "ceph",
    .settings = settings,
    .start = start,
    .instance_new = instance_new,
    .cred_init = cred_init,
    .cred_release = cred_release,
    .enable_cache = enable_cache,
    .caches_writes = caches_writes,
    .resize_cache = resize_cache,
    .stop = stop,
};
