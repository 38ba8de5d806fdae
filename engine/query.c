/*
 * query.c - records of pools, images and containers, read for any command
 * (query.h).
 */
#include "query.h"
#include "fail.h"
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void query_pool_path(const char *name, char *out)
{
    state_path(out, "pools/%s/pool", name);
}

void query_image_path(const char *name, char *out)
{
    state_path(out, "images/%s/image", name);
}

void query_container_path(const char *name, char *out)
{
    state_path(out, "containers/%s/container", name);
}

/* The record of an existing thing of kind what ("pool", ...). */
static int load(const char *what, const char *name,
                void (*path_of)(const char *, char *), struct record *rec)
{
    char path[STATE_PATH_MAX];
    if (state_check_name(what, name) < 0)
        return -1;
    path_of(name, path);
    if (record_load(path, rec) < 0)
        return errno == ENOENT ? fail("unknown %s '%s'", what, name)
                               : fail_errno("cannot read %s", path);
    return 0;
}

int query_pool(const char *name, struct record *rec)
{
    return load("pool", name, query_pool_path, rec);
}

int query_container(const char *name, struct record *rec)
{
    return load("container", name, query_container_path, rec);
}

int query_image(const char *name, struct record *rec)
{
    if (load("image", name, query_image_path, rec) < 0)
        return -1;
    if (record_num(rec, "layers", 0) > 0)
        return 0;
    record_free(rec);
    return fail("image '%s': broken record", name);
}

const char *query_image_id(const struct record *rec, const char *name)
{
    const char *id = record_get(rec, "id");
    return id ? id : name;
}

int query_each_pool(int (*fn)(const char *pool, struct record *rec))
{
    int n, rc = 0;
    char **pools = state_list("pools", &n);
    for (int i = 0; i < n; i++) {
        struct record rec;
        char path[STATE_PATH_MAX];
        query_pool_path(pools[i], path);
        if (record_load(path, &rec) < 0)
            continue;
        if (fn(pools[i], &rec) < 0)
            rc = -1;
        record_free(&rec);
    }
    state_list_free(pools, n);
    return rc;
}

int query_container_users(const char *field, const char *value, char *out,
                          size_t size)
{
    int n, users = 0;
    char **cs = state_list("containers", &n);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        char path[STATE_PATH_MAX];
        struct record rec;
        query_container_path(cs[i], path);
        if (record_load(path, &rec) < 0)
            continue;
        const char *v = record_get(&rec, field);
        if (v && strcmp(v, value) == 0) {
            size_t used = strlen(out);
            snprintf(out + used, size - used, "%s%s", users ? ", " : "",
                     cs[i]);
            users++;
        }
        record_free(&rec);
    }
    state_list_free(cs, n);
    return users;
}
