/*
 * start.c - start and restart (start.h): run's options rebuilt from the
 * container's record and saved configuration, then run again.
 */
#include "start.h"
#include "container.h"
#include "cp.h"
#include "fail.h"
#include "query.h"
#include "runinfo.h"
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The strings of array a (member key of object o), NULL-ended, pointing
 * into a; their count in *n. NULL when out of memory. */
static char **strings(const struct json *o, const char *key, int *n)
{
    const struct json *a = NULL;
    if (json_get("config.json", o, key, &a) < 0)
        return NULL;
    *n = 0;
    for (const struct json *i = a ? a->first : NULL; i; i = i->next)
        (*n)++;
    char **list = calloc((size_t)*n + 1, sizeof *list);
    int k = 0;
    for (const struct json *i = a ? a->first : NULL; list && i; i = i->next)
        if (i->type == JSON_STRING)
            list[k++] = i->text;
    *n = k;
    return list;
}

/* A string member of o, NULL when absent or empty. */
static const char *text(const struct json *o, const char *key)
{
    const struct json *v = NULL;
    json_get("config.json", o, key, &v);
    return v && v->type == JSON_STRING && v->text[0] ? v->text : NULL;
}

/* -p as run was given them, from the record's "ports" (net.h). NULL when
 * out of memory. */
static struct net_port *ports(const struct record *rec, int *n)
{
    struct net_port *p = calloc(NET_PORTS_MAX, sizeof *p);
    *n = p ? net_ports_of(rec, p) : 0;
    return p;
}

/* Runs it again with o filled from rec and info. */
static int run_again(const char *name, const struct record *rec,
                     const struct json *info)
{
    const struct json *config = NULL;
    json_get("config.json", info, "Config", &config);
    if (!config)
        return fail("container '%s': its saved configuration is broken",
                    name);
    struct run_options o = {
        .pool = record_get(rec, "pool"), .image = record_get(rec, "image"),
        .name = name, .detach = 1, .again = 1, .entrypoint = "",
        .read_only = (int)record_num(rec, "read_only", 0),
        .host_network = strcmp(record_get(rec, "network") ?: "", "host") == 0,
        .bridge_network =
            strcmp(record_get(rec, "network") ?: "", "bridge") == 0,
        .new_privileges = !record_num(rec, "no_new_privileges", 1),
        .pids_limit = (long)record_num(rec, "pids_limit", 2048),
        .user = text(config, "User"), .workdir = text(config, "WorkingDir")};
    int nargv = 0;
    o.env = strings(config, "Env", &o.nenv);
    o.argv = strings(config, "Cmd", &nargv);
    o.volumes = runinfo_binds(info, &o.nvolumes);
    o.ports = ports(rec, &o.nports);
    int rc = !o.env || !o.argv || !o.volumes || !o.ports
                 ? fail("out of memory")
             : nargv == 0 ? fail("container '%s' has no command", name)
             : container_run(&o) == 0 ? 0
                                      : -1;
    free(o.env);
    free(o.argv);
    free(o.volumes);
    free(o.ports);
    return rc;
}

int container_start(const char *name)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    const char *status = record_get(&rec, "status");
    int up = status && strcmp(status, "running") == 0 && service_alive(&rec);
    if (!up && cp_check_idle(name) < 0)
        return record_free(&rec), -1;
    struct json *info = up ? NULL : runinfo_load(name);
    if (info)
        container_unmount_root(name, &rec); /* what a killed cp left */
    int rc = up     ? printf("%s\n", name) * 0
             : info ? run_again(name, &rec, info)
                    : fail("container '%s' was run before its configuration "
                           "was saved: it cannot be started again", name);
    json_free(info);
    record_free(&rec);
    return rc;
}

int container_restart(const char *name, int grace_s)
{
    return container_stop(name, grace_s) < 0 ? -1 : container_start(name);
}
