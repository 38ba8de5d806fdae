/*
 * pool.c - pool create, ls, rm, and the restart of a dead danausd
 * (pool.h).
 *
 * A pool is made in this order: its directory, its cgroup, its danausd (in
 * a new IPC namespace pinned in the directory), its record last; a failure
 * anywhere unmakes what was made, so a pool either exists whole or not at
 * all. The record is what says that a pool exists.
 */
#include "pool.h"
#include "ceph_id.h"
#include "cgroup.h"
#include "cpulist.h"
#include "fail.h"
#include "helper.h"
#include "net.h"
#include "ns.h"
#include "query.h"
#include "record.h"
#include "service.h"
#include "size.h"
#include "store.h"
#include "state.h"
#include "userns.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A backend directory is checked the way names are: absolute, no "." or
 * ".." component, no empty one, and none of the characters that separate
 * fields where it is written (':' in union branch lists, white space in
 * danausd.conf, a newline in records). So local:DIR/../../etc is refused
 * rather than resolved into the host's /etc. */
static int check_backend_dir(const char *text, const char *dir)
{
    if (dir[0] != '/')
        return fail("backend '%s': the directory must be absolute", text);
    for (const char *p = dir; *p; p++)
        if (*p == ':' || *p == ' ' || *p == '\t' || *p == '\n')
            return fail("backend '%s': the directory may not contain ':' "
                        "or white space", text);
    if (!state_plain_path(dir))
        return fail("backend '%s': the directory may not have '.', "
                    "'..' or empty components", text);
    return 0;
}

/* backend local:DIR or ceph:CONF:DIR into the record. A local directory
 * is recorded resolved (symbolic links followed), and may not be "/". */
static int parse_backend(const char *text, struct record *rec)
{
    struct stat st;
    if (strncmp(text, "local:", 6) == 0) {
        const char *dir = text + 6;
        char real[PATH_MAX];
        if (check_backend_dir(text, dir) < 0)
            return -1;
        if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !realpath(dir, real))
            return fail("backend '%s': %s is not a directory", text, dir);
        if (strcmp(real, "/") == 0 || check_backend_dir(text, real) < 0)
            return fail("backend '%s': resolves to %s, which cannot be a "
                        "pool's backend", text, real);
        record_set(rec, "backend_kind", "local");
        record_set(rec, "backend_dir", "%s", real);
        return 0;
    }
    if (strncmp(text, "ceph:", 5) == 0) {
        if (ceph_id_available(text) < 0)
            return -1;
        const char *conf = text + 5;
        const char *colon = strrchr(conf, ':');
        if (!colon || colon == conf || colon[1] != '/')
            return fail("backend '%s': expected ceph:CONF:/DIR", text);
        if (check_backend_dir(text, colon + 1) < 0)
            return -1;
        char path[STATE_PATH_MAX];
        snprintf(path, sizeof path, "%.*s", (int)(colon - conf), conf);
        if (access(path, R_OK) < 0)
            return fail_errno("backend '%s': cannot read %s", text, path);
        record_set(rec, "backend_kind", "ceph");
        record_set(rec, "ceph_conf", "%s", path);
        record_set(rec, "backend_dir", "%s", colon + 1);
        return 0;
    }
    return fail("backend '%s': expected local:DIR or ceph:CONF:DIR", text);
}

/* The cpus must be online and belong to no other pool. */
static int check_cpus(const char *name, const cpu_set_t *want)
{
    cpu_set_t online, missing;
    if (cpulist_online(&online) < 0)
        return -1;
    CPU_AND(&missing, want, &online);
    CPU_XOR(&missing, &missing, want);
    if (CPU_COUNT(&missing)) {
        char list[256];
        ipc_cpulist_format(&missing, list, sizeof list);
        return fail("cpus %s do not exist on this host", list);
    }
    int n;
    char **pools = state_list("pools", &n);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct record other;
        char path[STATE_PATH_MAX];
        query_pool_path(pools[i], path);
        if (strcmp(pools[i], name) == 0 || record_load(path, &other) < 0)
            continue;
        cpu_set_t theirs, both;
        fail_clear();
        if (cpulist_parse(record_get(&other, "cpus"), &theirs) == 0) {
            CPU_AND(&both, &theirs, want);
            if (CPU_COUNT(&both)) {
                char list[256];
                ipc_cpulist_format(&both, list, sizeof list);
                rc = fail("cpus %s already belong to pool '%s'", list,
                          pools[i]);
            }
        }
        record_free(&other);
    }
    state_list_free(pools, n);
    return rc;
}

/* Option `option` given as value (NULL: not given), on or off, into
 * rec's key. 0, or -1 (said). */
static int on_off(const char *option, const char *value, struct record *rec,
                  const char *key)
{
    if (!value)
        return 0;
    if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
        return fail("%s %s: expected on or off", option, value);
    record_set(rec, key, "%s", value);
    return 0;
}

/* --backend-ops N (a count, at most 2^32 - 1), --backend-write-rate SIZE
 * (bytes per second, below 4G), --backend-latency-target MS (1 to
 * 60000), --backend-weight N, --backend-reservation N and
 * --backend-fair-share on|off, --fuse-io-uring on|off: what danausd.conf
 * can hold; and
 * --pids-limit N, the pool's tasks, its danausd's threads and every
 * container's together. */
static int parse_limits(const struct pool_options *o,
                                struct record *rec)
{
    unsigned long long n;
    if (o->backend_ops) {
        if (!count_parse(o->backend_ops, UINT32_MAX, &n))
            return fail("backend-ops %s: expected a number of calls per "
                        "second, 1 to %u", o->backend_ops, UINT32_MAX);
        record_set(rec, "backend_ops", "%llu", n);
    }
    if (o->backend_write_rate) {
        uint64_t rate;
        if (size_parse("backend-write-rate", o->backend_write_rate, &rate) <
            0)
            return -1;
        if (rate == 0 || rate > UINT32_MAX)
            return fail("backend-write-rate %s: expected 1 to 4095M bytes "
                        "per second", o->backend_write_rate);
        record_set(rec, "backend_write_rate", "%llu",
                   (unsigned long long)rate);
    }
    if (o->pids_limit && !count_parse(o->pids_limit, POOL_PIDS_MAX, &n))
        return fail("pids-limit %s: expected a number of tasks, 1 to %d",
                    o->pids_limit, POOL_PIDS_MAX);
    record_set(rec, "pids_limit", "%llu",
               o->pids_limit ? n : (unsigned long long)POOL_PIDS_DEFAULT);
    if (o->backend_latency_target) {
        if (!count_parse(o->backend_latency_target, 60000, &n))
            return fail("backend-latency-target %s: expected a number of "
                        "milliseconds, 1 to 60000",
                        o->backend_latency_target);
        record_set(rec, "backend_latency_target", "%llu", n);
    }
    if (o->backend_weight) {
        if (!count_parse(o->backend_weight, 10000, &n))
            return fail("backend-weight %s: expected a weight, 1 to 10000",
                        o->backend_weight);
        record_set(rec, "backend_weight", "%llu", n);
    }
    if (o->backend_reservation) {
        if (!count_parse(o->backend_reservation, 1000000, &n))
            return fail("backend-reservation %s: expected a number of calls "
                        "per second, 1 to 1000000", o->backend_reservation);
        record_set(rec, "backend_reservation", "%llu", n);
    }
    if (on_off("backend-fair-share", o->backend_fair_share, rec,
               "backend_fair_share") < 0 ||
        on_off("fuse-io-uring", o->fuse_io_uring, rec, "fuse_io_uring") < 0)
        return -1;
    return 0;
}

uint64_t pool_cache_default(uint64_t memory)
{
    return memory > POOL_SERVICE_MEMORY ? (memory - POOL_SERVICE_MEMORY) / 4
                                        : 0;
}

uint64_t pool_inode_cache(uint64_t cache)
{
    return cache / (16u << 10) > 16384 ? cache / (16u << 10) : 16384;
}

static int parse_options(const char *name, const struct pool_options *o,
                         struct record *rec)
{
    cpu_set_t cpus;
    uint64_t memory, cache = 0;
    bool cache_auto = o->cache && strcmp(o->cache, "auto") == 0;
    if (!o->cpus || !o->memory || !o->backend)
        return fail("pool create needs --cpus, --memory and --backend");
    if (cpulist_parse(o->cpus, &cpus) < 0 || check_cpus(name, &cpus) < 0 ||
        size_parse("memory", o->memory, &memory) < 0 ||
        (o->cache && !cache_auto &&
         size_parse("cache", o->cache, &cache) < 0) ||
        parse_backend(o->backend, rec) < 0)
        return -1;
    if (cache_auto && strcmp(record_get(rec, "backend_kind"), "ceph"))
        return fail("--cache auto: a local pool's file data is in the "
                    "kernel's page cache, bounded by --memory");
    if (o->write_through && strcmp(record_get(rec, "backend_kind"), "ceph"))
        return fail("--write-through: only a ceph backend buffers writes in "
                    "danausd (a local backend's are in the kernel)");
    uint64_t host = size_host_memory();
    if (host && memory > host)
        return fail("memory %s: the host has only %llu MiB", o->memory,
                    (unsigned long long)(host >> 20));
    if (memory < POOL_SERVICE_MEMORY)
        return fail("memory %s: a pool needs at least 16M", o->memory);
    if (cache_auto && memory < (32u << 20))
        return fail("--cache auto: memory %s leaves the cache no room; "
                    "give the pool at least 32M", o->memory);
    /* The cache is the service's own memory, charged to the pool: one as
     * large as the limit would have the limit kill the pool's danausd. */
    if (o->cache && cache > memory - POOL_SERVICE_MEMORY)
        return fail("cache %s: does not fit in the pool's memory %s with "
                    "16M left for danausd and the containers (the limit "
                    "would kill the pool's own service)", o->cache,
                    o->memory);
    char list[256];
    ipc_cpulist_format(&cpus, list, sizeof list);
    record_set(rec, "cpus", "%s", list);
    record_set(rec, "memory", "%llu", (unsigned long long)memory);
    record_set(rec, "backend", "%s", o->backend);
    if (cache_auto) /* the knees of its containers' curves, up to this */
        record_set(rec, "cache_auto", "%llu",
                   (unsigned long long)(memory - POOL_SERVICE_MEMORY));
    else if (o->cache)
        record_set(rec, "cache", "%llu", (unsigned long long)cache);
    if (o->write_through)
        record_set(rec, "write_through", "on");
    if (o->nosuid)
        record_set(rec, "nosuid", "on");
    if (o->userns && strcmp(o->userns, "host") &&
        strcmp(o->userns, "private"))
        return fail("--userns %s: expected host or private", o->userns);
    if ((!o->userns || strcmp(o->userns, "host")) &&
        userns_allocate(name, rec) < 0)
        return -1;
    return parse_limits(o, rec);
}

/* Unmakes whatever part of the pool exists; keeps the first error. */
static void unmake(const char *name, struct record *rec)
{
    char dir[STATE_PATH_MAX], ipc[STATE_PATH_MAX];
    state_path(dir, "pools/%s", name);
    state_path(ipc, "pools/%s/ipc", name);
    char store[STATE_PATH_MAX];
    service_store_mount(name, store, sizeof store);
    service_stop(name, rec);
    /* A danausd that died leaves its FUSE door's mount behind. */
    umount2(store, MNT_DETACH);
    cgroup_remove(name);
    ceph_id_remove(name, rec);
    net_pool_remove(rec);
    ns_ipc_release(ipc);
    remove_tree(dir);
}

int pool_create(const char *name, const struct pool_options *o)
{
    char dir[STATE_PATH_MAX], sub[STATE_PATH_MAX];
    struct record rec = {0};
    if (state_check_name("pool", name) < 0)
        return -1;
    state_path(dir, "pools/%s", name);
    if (access(dir, F_OK) == 0)
        return fail("pool '%s' already exists", name);
    if (parse_options(name, o, &rec) < 0) {
        record_free(&rec);
        return -1;
    }
    state_path(sub, "pools/%s/layers", name);
    int rc = -1;
    if (mkdir(dir, 0700) < 0) {
        fail_errno("cannot create %s", dir);
    } else if (mkdir(sub, 0700) == 0 && ceph_id_create(name, &rec) == 0 &&
               cgroup_create(name, record_get(&rec, "cpus"),
                             (uint64_t)record_num(&rec, "memory", 0),
                             (long)record_num(&rec, "pids_limit",
                                              POOL_PIDS_DEFAULT)) == 0 &&
               service_start(name, &rec, 1, SERVICE_START_TIMEOUT_S) == 0) {
        query_pool_path(name, sub);
        rc = record_save(sub, &rec) < 0 ? fail_errno("cannot save %s", sub)
                                        : 0;
    }
    if (rc < 0 && access(dir, F_OK) == 0)
        unmake(name, &rec);
    record_free(&rec);
    return rc;
}

/* One line of pool ls. */
static int list_pool(const char *pool, struct record *rec)
{
    char mem[32];
    snprintf(mem, sizeof mem, "%lldM", record_num(rec, "memory", 0) >> 20);
    printf("%-16s %-10s %-10s %-8s %-8lld %s\n", pool, record_get(rec, "cpus"),
           mem, service_alive(rec) ? "running" : "dead",
           record_num(rec, "pid", 0), record_get(rec, "backend"));
    return 0;
}

int pool_list(void)
{
    printf("%-16s %-10s %-10s %-8s %-8s %s\n", "POOL", "CPUS", "MEMORY",
           "SERVICE", "PID", "BACKEND");
    return query_each_pool(list_pool);
}

int pool_remove(const char *name)
{
    struct record rec;
    if (query_pool(name, &rec) < 0)
        return -1;
    char users[1024];
    if (query_container_users("pool", name, users, sizeof users)) {
        record_free(&rec);
        return fail("pool '%s' still has containers: %s (rm them first)",
                    name, users);
    }
    /* The layer copies in the backend are the pool's (images/: those of
     * images imported before layers were shared); its other data is the
     * tenant's and stays. */
    char store[STATE_PATH_MAX], layers[STATE_PATH_MAX], images[STATE_PATH_MAX];
    service_store_mount(name, store, sizeof store);
    if (snprintf(layers, sizeof layers, "%s/layers", store) >=
            (int)sizeof layers ||
        snprintf(images, sizeof images, "%s/images", store) >=
            (int)sizeof images)
        return fail("pool '%s': state path too long", name);
    int rc = 0;
    if (service_alive(&rec)) {
        const char *const rm[] = {"rm", "-rf", layers, images, NULL};
        rc = helper_run(name, rm);
    } else {
        fprintf(stderr, "danaus: pool %s: danausd is down; the image copies "
                        "stay in its backend (%s/layers)\n",
                name, record_get(&rec, "backend_dir"));
    }
    unmake(name, &rec);
    record_free(&rec);
    return rc;
}

/* A dead service is restarted at most once per back-off period: after n
 * failed restarts in a row the next waits RESTART_BACKOFF_S << n seconds
 * (at most RESTART_BACKOFF_MAX_S), so commands run while a backend is
 * unreachable do not each start (and wait for) another danausd. */
#define RESTART_BACKOFF_S 5
#define RESTART_BACKOFF_MAX_S 300

static int restart(const char *name, struct record *rec)
{
    char ipc[STATE_PATH_MAX];
    state_path(ipc, "pools/%s/ipc", name);
    long long failed = record_num(rec, "restarts_failed", 0);
    long long now = (long long)time(NULL);
    long long retry_at = record_num(rec, "retry_at", 0);
    if (now < retry_at) {
        fprintf(stderr, "danaus: pool %s: danausd is down; the next restart "
                        "is tried in %lld s\n", name, retry_at - now);
        return 0;
    }
    if (!ns_ipc_pinned(ipc))
        unlink(ipc);
    fprintf(stderr, "danaus: pool %s: danausd (pid %lld) is gone; "
                    "restarting it\n", name, record_num(rec, "pid", 0));
    int ok = (cgroup_exists(name) ||
              cgroup_create(name, record_get(rec, "cpus"),
                            (uint64_t)record_num(rec, "memory", 0),
                            (long)record_num(rec, "pids_limit",
                                             POOL_PIDS_DEFAULT)) == 0) &&
             service_start(name, rec, !ns_ipc_pinned(ipc),
                           SERVICE_RESTART_TIMEOUT_S) == 0;
    if (ok) {
        record_set(rec, "restarts_failed", "0");
        record_set(rec, "retry_at", "0");
    } else {
        long long wait = RESTART_BACKOFF_S << (failed < 6 ? failed : 6);
        if (wait > RESTART_BACKOFF_MAX_S)
            wait = RESTART_BACKOFF_MAX_S;
        record_set(rec, "restarts_failed", "%lld", failed + 1);
        record_set(rec, "retry_at", "%lld", now + wait);
    }
    char path[STATE_PATH_MAX];
    query_pool_path(name, path);
    if (record_save(path, rec) < 0 && ok)
        return fail_errno("cannot save %s", path);
    return ok ? 0 : -1;
}

/* A dead danausd whose keeper is restarting it (fuse_keeper.h): waits a
 * moment for the successor and takes it into the record; 1 when it runs.
 * The engine starts none of its own meanwhile: two would race for the
 * kept mounts. */
static int successor(const char *name, struct record *rec)
{
    for (int i = 0; i < 40; i++) {
        if (service_successor(name, rec)) {
            char path[STATE_PATH_MAX];
            query_pool_path(name, path);
            if (record_save(path, rec) < 0)
                return fail_errno("cannot save %s", path);
            return 1;
        }
        if (!service_keeper(name))
            return 0;
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    fprintf(stderr, "danaus: pool %s: danausd is down; its keeper is "
                    "restarting it\n", name);
    return -1;
}

/* A pool's danausd noticed dead is restarted (or its successor taken),
 * then the pool swept; a failure is said here, and the command goes on. */
static int check_pool(const char *pool, struct record *rec)
{
    int alive = service_alive(rec);
    int next = alive ? 0 : successor(pool, rec);
    alive = alive || next == 1;
    int rc = 0;
    if (!alive && next == 0 && restart(pool, rec) < 0)
        rc = -1;
    else if ((alive || service_alive(rec)) && store_sweep(pool, rec) < 0)
        rc = -1;
    if (rc < 0 && fail_message()) {
        fprintf(stderr, "danaus: %s\n", fail_message());
        fail_clear();
    }
    return rc;
}

int pool_check_all(void)
{
    return query_each_pool(check_pool);
}
