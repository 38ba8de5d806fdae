/*
 * inspect.c - containers as docker inspect shows them (inspect.h): a
 * JSON document each, built as a tree, printed whole or through a
 * template.
 */
#include "inspect.h"
#include "cgroup.h"
#include "fail.h"
#include "query.h"
#include "format.h"
#include "json_write.h"
#include "net.h"
#include "runinfo.h"
#include "service.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The value of a "Key:\tvalue" line of /proc/PID/status, or "". */
static void status_field(int pid, const char *key, char *out, size_t size)
{
    char path[64], line[256];
    size_t len = strlen(key);
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "re");
    *out = '\0';
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0 && line[len] == ':') {
            char *v = line + len + 1;
            v += strspn(v, " \t");
            v[strcspn(v, "\n")] = '\0';
            snprintf(out, size, "%s", v);
            break;
        }
    if (f)
        fclose(f);
}

/* The first line of /proc/PID/WHICH (uid_map, gid_map) with its runs
 * of blanks made one: "0 1048576 65536", or "" when unreadable. */
static void id_map(int pid, const char *which, char *out, size_t size)
{
    char path[64], line[128] = "";
    snprintf(path, sizeof path, "/proc/%d/%s", pid, which);
    FILE *f = fopen(path, "re");
    if (f && !fgets(line, sizeof line, f))
        line[0] = '\0';
    if (f)
        fclose(f);
    size_t n = 0;
    for (char *w = strtok(line, " \t\n"); w && n < size;
         w = strtok(NULL, " \t\n"))
        n += (size_t)snprintf(out + n, size - n, "%s%s", n ? " " : "", w);
    if (n == 0)
        *out = '\0';
}

/* What the running container's pid 1 is held to: read from the kernel,
 * not from what the engine meant to set. */
static void add_security(struct json *top, int pid)
{
    static const char *const kinds[] = {"mnt", "pid", "uts", "ipc",
                                        "net", "cgroup", "user"};
    char eff[32], bnd[32], nnp[8], seccomp[8], uids[64], gids[64];
    status_field(pid, "CapEff", eff, sizeof eff);
    status_field(pid, "CapBnd", bnd, sizeof bnd);
    status_field(pid, "NoNewPrivs", nnp, sizeof nnp);
    status_field(pid, "Seccomp", seccomp, sizeof seccomp);
    struct json *sec = json_add(top, JSON_OBJECT, "Security");
    json_add_string(sec, "CapEff", eff);
    json_add_string(sec, "CapBnd", bnd);
    json_add_bool(sec, "NoNewPrivs", strcmp(nnp, "1") == 0);
    json_add_string(sec, "Seccomp", strcmp(seccomp, "2") == 0   ? "filter"
                                    : strcmp(seccomp, "1") == 0 ? "strict"
                                                                : "disabled");
    struct json *ns = json_add(sec, JSON_ARRAY, "Namespaces");
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        char theirs[64], ours[64];
        struct stat a, b;
        snprintf(theirs, sizeof theirs, "/proc/%d/ns/%s", pid, kinds[i]);
        snprintf(ours, sizeof ours, "/proc/self/ns/%s", kinds[i]);
        if (stat(theirs, &a) == 0 && stat(ours, &b) == 0 &&
            a.st_ino != b.st_ino)
            json_add_string(ns, NULL, kinds[i]);
    }
    /* Its user namespace's maps: inside, on the host, how many. */
    id_map(pid, "uid_map", uids, sizeof uids);
    id_map(pid, "gid_map", gids, sizeof gids);
    json_add_string(sec, "UidMap", uids);
    json_add_string(sec, "GidMap", gids);
}

/* The record's time field (seconds since the epoch) as RFC 3339, UTC;
 * docker's zero time when it has none. */
static void add_time(struct json *o, const char *key,
                     const struct record *rec, const char *field)
{
    time_t t = (time_t)record_num(rec, field, 0);
    char text[32] = "0001-01-01T00:00:00Z";
    struct tm tm;
    if (t > 0 && gmtime_r(&t, &tm))
        strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_add_string(o, key, text);
}

static void add_state(struct json *top, const struct record *rec, int up)
{
    const char *status = record_get(rec, "status");
    struct json *state = json_add(top, JSON_OBJECT, "State");
    json_add_string(state, "Status",
                    up ? "running"
                    : status && strcmp(status, "created") == 0 ? "created"
                                                               : "exited");
    json_add_bool(state, "Running", up);
    json_add_number(state, "Pid", up ? record_num(rec, "pid", 0) : 0);
    json_add_number(state, "ExitCode", up ? 0 : record_num(rec, "exit", -1));
    add_time(state, "StartedAt", rec, "started_at");
    add_time(state, "FinishedAt", rec, up ? "" : "finished_at");
}

/* Config and Mounts as run saved them (runinfo.h; empty for a container
 * run before), the image named in Config. */
static void add_runinfo(struct json *top, const char *name,
                        const struct record *rec)
{
    struct json *saved = runinfo_load(name), *config = NULL;
    if (!saved)
        fail_clear(); /* (unreadable: shown empty) */
    for (struct json *m = saved ? saved->first : NULL; m; m = m->next)
        if (strcmp(m->key, "Config") == 0 && m->type == JSON_OBJECT)
            config = m;
    if (config) { /* the saved members move to top */
        json_append(top, saved->first);
        saved->first = NULL;
    } else {
        config = json_add(top, JSON_OBJECT, "Config");
        json_add(top, JSON_ARRAY, "Mounts");
    }
    json_free(saved);
    json_add_string(config, "Image", record_get(rec, "image"));
}

static void add_limits(struct json *top, const char *name,
                       const struct record *rec, int up)
{
    const char *pool = record_get(rec, "pool");
    struct record prec;
    long long memory = 0, pool_pids = 0;
    if (query_pool(pool, &prec) == 0) {
        memory = record_num(&prec, "memory", 0);
        pool_pids = record_num(&prec, "pids_limit", 0);
        record_free(&prec);
    } else {
        fail_clear(); /* a container outlives its pool's record */
    }
    struct json *limits = json_add(top, JSON_OBJECT, "Limits");
    json_add_number(limits, "Memory", memory);
    json_add_number(limits, "PoolPids", pool_pids);
    json_add_number(limits, "Pids",
                    up ? cgroup_container_pids_max(pool, name)
                       : record_num(rec, "pids_limit", 0));
}

/* docker's NetworkSettings: the network, and on the bridge the
 * container's address, its gateway and the ports it publishes. */
static void add_network(struct json *top, const struct record *rec)
{
    const char *network = record_get(rec, "network");
    struct json *settings = json_add(top, JSON_OBJECT, "NetworkSettings");
    json_add_string(settings, "Network", network ? network : "none");
    const char *address = record_get(rec, "address");
    if (!network || strcmp(network, "bridge") != 0 || !address)
        return;
    char name[16], gateway[32], key[16], host[8];
    long long n = record_num(rec, "bridge", 0);
    snprintf(name, sizeof name, "danaus%lld", n);
    snprintf(gateway, sizeof gateway, "10.89.%lld.1", n);
    json_add_string(settings, "Bridge", name);
    json_add_string(settings, "IPAddress", address);
    json_add_string(settings, "Gateway", gateway);
    struct json *ports = json_add(settings, JSON_OBJECT, "Ports");
    struct net_port p[NET_PORTS_MAX];
    int count = net_ports_of(rec, p);
    for (int i = 0; i < count; i++) {
        snprintf(key, sizeof key, "%u/%s", p[i].container,
                 p[i].udp ? "udp" : "tcp");
        snprintf(host, sizeof host, "%u", p[i].host);
        struct json *bound =
            json_add(json_add(ports, JSON_ARRAY, key), JSON_OBJECT, NULL);
        json_add_string(bound, "HostIp", "");
        json_add_string(bound, "HostPort", host);
    }
}

/* Container name's document, or NULL (fail.h: unknown container). */
static struct json *container_doc(const char *name)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return NULL;
    const char *status = record_get(&rec, "status");
    int up = status && strcmp(status, "running") == 0 && service_alive(&rec);
    struct json *top = json_new(JSON_OBJECT, NULL, NULL);
    json_add_string(top, "Name", name);
    add_time(top, "Created", &rec, "created");
    add_state(top, &rec, up);
    json_add_string(top, "Pool", record_get(&rec, "pool"));
    json_add_string(top, "Image", record_get(&rec, "image"));
    json_add_string(top, "Command", record_get(&rec, "command"));
    add_runinfo(top, name, &rec);
    json_add_bool(top, "ReadonlyRootfs", record_num(&rec, "read_only", 0));
    add_network(top, &rec);
    if (up)
        add_security(top, (int)record_num(&rec, "pid", 0));
    add_limits(top, name, &rec, up);
    struct json *all = json_add(top, JSON_OBJECT, "Record");
    for (int i = 0; i < rec.n; i++)
        json_add_string(all, rec.key[i], rec.val[i]);
    record_free(&rec);
    return top;
}

/* A template's field (format.h): a path of member names in the
 * document; a string as it is, anything else as JSON. */
static int doc_field(const char *path, size_t len, const void *arg,
                     char *out, size_t cap)
{
    const struct json *j = arg;
    while (len) {
        size_t n = strcspn(path, ".");
        n = n < len ? n : len;
        const struct json *m = j->type == JSON_OBJECT ? j->first : NULL;
        while (m && (strlen(m->key) != n || strncmp(m->key, path, n) != 0))
            m = m->next;
        if (!m || n == 0)
            return -1;
        j = m;
        path += n + (n < len);
        len -= n + (n < len);
    }
    if (j->type == JSON_STRING)
        snprintf(out, cap, "%s", j->text);
    FILE *f = j->type == JSON_STRING ? NULL : fmemopen(out, cap, "w");
    if (f) {
        json_write(f, j);
        fclose(f);
    }
    return 0;
}

int inspect_containers(char *const *names, int n, const char *template)
{
    struct json *docs = json_new(JSON_ARRAY, NULL, NULL);
    int rc = docs ? 0 : fail("out of memory");
    for (int i = 0; i < n && docs; i++) {
        struct json *doc = container_doc(names[i]);
        char bad[256];
        if (!doc)
            rc = -1;
        else if (!template)
            json_append(docs, doc);
        else if (format_fields(template, doc_field, doc, stdout, bad,
                               sizeof bad) < 0)
            rc = fail("inspect --format: '%s' is not a field of container "
                      "'%s'", bad, names[i]);
        else
            putchar('\n');
        if (template)
            json_free(doc);
    }
    if (!template && docs)
        json_write_indented(stdout, docs);
    json_free(docs);
    return rc;
}
