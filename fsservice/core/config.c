/*
 * config.c - parsing danausd's configuration file.
 *
 * One setting per line, "key value...", '#' to the end of a line is a
 * comment. Every problem is reported with the line it is on; nothing is
 * guessed.
 */
#include "config.h"

#include "ipc/ipc.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 6

struct parse {
    const char *name;
    int line;
    char *err;
    size_t errlen;
};

static int fail(struct parse *p, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "%s:%d: ", p->name, p->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->errlen)
        vsnprintf(p->err + n, p->errlen - n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Splits line in place into whitespace-separated words; -1 if too many. */
static int split(char *line, char *words[MAX_WORDS])
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(line, " \t\r", &save); w;
         w = strtok_r(NULL, " \t\r", &save)) {
        if (n == MAX_WORDS)
            return -1;
        words[n++] = w;
    }
    return n;
}

/* A size with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    uint64_t mult = 1;
    switch (*end) {
    case 'K': mult = 1ull << 10; end++; break;
    case 'M': mult = 1ull << 20; end++; break;
    case 'G': mult = 1ull << 30; end++; break;
    }
    if (*end || v > max / mult)
        return -1;
    *out = v * mult;
    return 0;
}

static int parse_u32(struct parse *p, const char *key, const char *s,
                     uint64_t lo, uint64_t hi, uint32_t *out)
{
    uint64_t v;
    if (parse_size(s, hi, &v) < 0 || v < lo)
        return fail(p, "%s must be a number from %llu to %llu, not '%s'",
                    key, (unsigned long long)lo, (unsigned long long)hi, s);
    *out = (uint32_t)v;
    return 0;
}

/* Normalizes an absolute path lexically into out: no ".", "..", repeated or
 * trailing '/'. */
static int normalize_mountpoint(const char *in, char *out, size_t outlen)
{
    if (in[0] != '/' || strlen(in) >= outlen)
        return -1;
    size_t n = 0;
    for (const char *s = in; *s;) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        size_t len = (size_t)(e - s);
        if (len == 0)
            break;
        if ((len == 1 && s[0] == '.') || (len == 2 && !strncmp(s, "..", 2)))
            return -1; /* a mount point names a place plainly */
        out[n++] = '/';
        memcpy(out + n, s, len);
        n += len;
        s = e;
    }
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    return 0;
}

static int inside(const char *a, const char *b)
{
    size_t lb = strlen(b);
    if (strcmp(b, "/") == 0)
        return 1;
    return strncmp(a, b, lb) == 0 && (a[lb] == '/' || a[lb] == '\0');
}

static int set_string(struct parse *p, char **slot, const char *key,
                      const char *value)
{
    if (*slot)
        return fail(p, "%s is set twice", key);
    *slot = strdup(value);
    if (!*slot)
        return fail(p, "out of memory");
    return 0;
}

const char *config_backend_setting(const struct config *cfg, const char *key)
{
    struct ls_settings s = {cfg->backend_settings, cfg->nbackend_settings,
                            NULL};
    return ls_setting(&s, key);
}

/* A backend's line; a key already set fails unless it may be set again
 * (flags: the last one counts). */
static int set_backend_setting(struct parse *p, struct config *cfg,
                               const char *key, const char *value, int again)
{
    struct ls_setting *s = cfg->backend_settings;
    int i = 0;
    while (i < cfg->nbackend_settings && strcmp(s[i].key, key) != 0)
        i++;
    if (i < cfg->nbackend_settings && !again)
        return fail(p, "%s is set twice", key);
    if (i == CONFIG_MAX_BACKEND_SETTINGS)
        return fail(p, "more than %d backend settings",
                    CONFIG_MAX_BACKEND_SETTINGS);
    char *v = strdup(value);
    char *k = i < cfg->nbackend_settings ? (char *)s[i].key : strdup(key);
    if (!v || !k) {
        free(v);
        if (i == cfg->nbackend_settings)
            free(k);
        return fail(p, "out of memory");
    }
    if (i < cfg->nbackend_settings)
        free((char *)s[i].value);
    else
        cfg->nbackend_settings++;
    s[i] = (struct ls_setting){k, v};
    return 0;
}

static int parse_owner(struct parse *p, const char *s, struct config *cfg)
{
    char *end;
    errno = 0;
    unsigned long uid = strtoul(s, &end, 10);
    unsigned long gid = uid;
    if (errno || end == s || uid >= UINT_MAX)
        return fail(p, "owner must be UID or UID:GID, not '%s'", s);
    if (*end == ':') {
        const char *g = end + 1;
        gid = strtoul(g, &end, 10);
        if (errno || end == g || gid >= UINT_MAX)
            return fail(p, "owner must be UID or UID:GID, not '%s'", s);
    }
    if (*end)
        return fail(p, "owner must be UID or UID:GID, not '%s'", s);
    cfg->owner_uid = (uid_t)uid;
    cfg->owner_gid = (gid_t)gid;
    return 0;
}

/* mount MOUNTPOINT BACKEND SOURCE, or
 * union MOUNTPOINT BACKEND WRITABLE_DIR RO_DIR[:RO_DIR...] [volatile];
 * what a source must be is the backend's to say, when the mount is
 * made. */
static int parse_mount(struct parse *p, char **w, int n, struct config *cfg)
{
    int is_union = strcmp(w[0], "union") == 0;
    if (is_union && !(n == 5 || (n == 6 && strcmp(w[5], "volatile") == 0)))
        return fail(p, "union takes MOUNTPOINT BACKEND WRITABLE_DIR "
                       "RO_DIR[:RO_DIR...] [volatile]");
    if (!is_union && n != 4)
        return fail(p, "mount takes MOUNTPOINT BACKEND SOURCE");
    if (cfg->nmounts == DANAUS_MAX_MOUNTS)
        return fail(p, "more than %d mounts", DANAUS_MAX_MOUNTS);
    char mp[DANAUS_PATH_MAX];
    if (normalize_mountpoint(w[1], mp, sizeof mp) < 0)
        return fail(p, "mount point '%s' must be an absolute path without "
                       "'.' or '..'", w[1]);
    for (int i = 0; i < cfg->nmounts; i++) {
        const char *other = cfg->mounts[i].mountpoint;
        if (inside(mp, other) || inside(other, mp))
            return fail(p, "mount point %s overlaps %s", mp, other);
    }
    struct config_mount *m = &cfg->mounts[cfg->nmounts];
    if (!ls_backend_find(w[2])) {
        char names[256];
        ls_backend_names(names, sizeof names);
        return fail(p, "unknown backend '%s' (%s)", w[2], names);
    }
    m->mountpoint = strdup(mp);
    m->backend = strdup(w[2]);
    m->source = strdup(w[3]);
    m->union_lower = is_union ? strdup(w[4]) : NULL;
    m->volatile_writes = n == 6;
    if (!m->mountpoint || !m->backend || !m->source ||
        (is_union && !m->union_lower))
        return fail(p, "out of memory");
    cfg->nmounts++;
    return 0;
}

/*
 * The settings, as libfuse's fuse_opt: one row per key, with the function
 * that checks its value and the field it fills (offset, and a range for
 * numbers). A line no row has may be a backend's (ls_backend.settings):
 * checked by its kind, it is kept for the backend (ls_settings).
 */
struct key;
typedef int (*key_setter)(struct parse *p, const struct key *k,
                          const char *v, struct config *cfg);

struct key {
    const char *name;
    key_setter set;
    size_t offset;      /* of the field in struct config */
    uint64_t lo, hi;    /* a number's range */
};

static void *field(struct config *cfg, const struct key *k)
{
    return (char *)cfg + k->offset;
}

static int set_u32(struct parse *p, const struct key *k, const char *v,
                   struct config *cfg)
{
    return parse_u32(p, k->name, v, k->lo, k->hi, field(cfg, k));
}

/* A size in bytes (K, M or G allowed) within the key's range. */
static int set_size(struct parse *p, const struct key *k, const char *v,
                    struct config *cfg)
{
    uint64_t *n = field(cfg, k);
    if (parse_size(v, k->hi, n) < 0 || *n < k->lo)
        return fail(p, "%s must be a size from %lluM, not '%s'", k->name,
                    (unsigned long long)(k->lo >> 20), v);
    return 0;
}

/* A number within the key's range and a power of two (or 0 when lo is). */
static int set_power_of_two(struct parse *p, const struct key *k,
                            const char *v, struct config *cfg)
{
    uint32_t *n = field(cfg, k);
    if (set_u32(p, k, v, cfg) < 0)
        return -1;
    if (*n & (*n - 1))
        return k->lo ? fail(p, "%s must be a power of two, not %s", k->name,
                            v)
                     : fail(p, "%s must be 0 or a power of two", k->name);
    return 0;
}

static int set_slot_buffer(struct parse *p, const struct key *k,
                           const char *v, struct config *cfg)
{
    if (set_u32(p, k, v, cfg) < 0)
        return -1;
    if (cfg->slot_buffer % 4096)
        return fail(p, "slot_buffer must be a multiple of 4096");
    return 0;
}

static int set_flag(struct parse *p, const struct key *k, const char *v,
                    struct config *cfg)
{
    if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
        return fail(p, "%s must be on or off, not '%s'", k->name, v);
    *(int *)field(cfg, k) = strcmp(v, "on") == 0;
    return 0;
}

static int set_text(struct parse *p, const struct key *k, const char *v,
                    struct config *cfg)
{
    return set_string(p, field(cfg, k), k->name, v);
}

static int set_absolute(struct parse *p, const struct key *k, const char *v,
                        struct config *cfg)
{
    if (v[0] != '/')
        return fail(p, "%s '%s' must be an absolute path", k->name, v);
    return set_text(p, k, v, cfg);
}

static int set_service(struct parse *p, const struct key *k, const char *v,
                       struct config *cfg)
{
    if (strchr(v, '/'))
        return fail(p, "service name '%s' must not contain '/'", v);
    return set_text(p, k, v, cfg);
}

static int set_owner(struct parse *p, const struct key *k, const char *v,
                     struct config *cfg)
{
    return parse_owner(p, v, cfg);
}

static int set_idmap(struct parse *p, const struct key *k, const char *v,
                     struct config *cfg)
{
    return idmap_parse(v, &cfg->idmap) < 0
               ? fail(p, "idmap must be INSIDE:OUTSIDE:COUNT, not '%s'", v)
               : 0;
}

static int set_nice(struct parse *p, const struct key *k, const char *v,
                    struct config *cfg)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end || n < -20 || n > 19)
        return fail(p, "nice must be a number from -20 to 19, not '%s'", v);
    cfg->nice = (int)n;
    return 0;
}

static int set_core_groups(struct parse *p, const struct key *k,
                           const char *v, struct config *cfg)
{
    if (strcmp(v, "auto") == 0)
        cfg->core_group_level = 0;
    else if (strcmp(v, "l2") == 0)
        cfg->core_group_level = 2;
    else if (strcmp(v, "l3") == 0)
        cfg->core_group_level = 3;
    else if (strcmp(v, "cpu") == 0)
        cfg->core_group_level = -1;
    else
        return fail(p, "core_groups must be auto, l2, l3 or cpu, not '%s'",
                    v);
    return 0;
}

static int set_cpus(struct parse *p, const struct key *k, const char *v,
                    struct config *cfg)
{
    if (cfg->cpus_line)
        return fail(p, "cpus is set twice");
    if (ipc_cpulist_parse(v, &cfg->cpus) < 0 || CPU_COUNT(&cfg->cpus) == 0)
        return fail(p, "cpus must be a cpu list such as 0-3,8, not '%s'", v);
    cfg->cpus_line = p->line;
    return 0;
}

/* A backend's line, checked as its kind says (libservice.h). Flags and
 * log levels: the last line counts; the others are set once. */
static int backend_line(struct parse *p, const struct ls_setting_key *k,
                        const char *v, struct config *cfg)
{
    char bytes[24];
    uint64_t size;
    switch (k->kind) {
    case LS_SETTING_ABSOLUTE:
        if (v[0] != '/')
            return fail(p, "%s '%s' must be an absolute path", k->name, v);
        break;
    case LS_SETTING_SIZE:
        if (parse_size(v, UINT64_MAX, &size) < 0)
            return fail(p, "%s must be a number, not '%s'", k->name, v);
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)size);
        v = bytes;
        break;
    case LS_SETTING_FLAG:
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
            return fail(p, "%s must be on or off, not '%s'", k->name, v);
        return set_backend_setting(p, cfg, k->name, v, 1);
    case LS_SETTING_LOG:
        if (strcmp(v, "quiet") != 0 && strcmp(v, "keep") != 0)
            return fail(p, "%s must be quiet or keep, not '%s'", k->name, v);
        return set_backend_setting(p, cfg, k->name, v, 1);
    case LS_SETTING_TEXT:
        break;
    }
    return set_backend_setting(p, cfg, k->name, v, 0);
}

#define AT(f) offsetof(struct config, f)
#define U32(name, f, lo, hi) {name, set_u32, AT(f), lo, hi}
#define FLAG(name, f) {name, set_flag, AT(f), 0, 0}
#define TEXT(name, f) {name, set_text, AT(f), 0, 0}
#define CALL(name, fn) {name, fn, 0, 0, 0}

static const struct key keys[] = {
    {"service", set_service, AT(service), 0, 0},
    TEXT("rundir", rundir),
    TEXT("door_dir", door_dir),
    CALL("owner", set_owner),
    CALL("idmap", set_idmap),
    {"queue_cells", set_power_of_two, AT(queue_cells), 2, 65536},
    U32("slots", slots, 1, 1u << 16),
    U32("client_slots", client_slots, 1, 1u << 16),
    U32("uid_slots", uid_slots, 1, 1u << 16),
    U32("uid_clients", uid_clients, 1, 4096),
    CALL("nice", set_nice),
    U32("client_locks", client_locks, 1, 1u << 24),
    U32("uid_locks", uid_locks, 1, 1u << 28),
    U32("uid_handles", uid_handles, 1, 1u << 30),
    {"slot_buffer", set_slot_buffer, AT(slot_buffer), 4096, 64u << 20},
    {"read_cache_blocks", set_power_of_two, AT(read_cache_blocks), 0,
     IPC_MAX_CACHE_BLOCKS},
    U32("write_back_pages", write_back_pages, 0, IPC_MAX_DIRTY_PAGES),
    U32("writeback_flushers", writeback_flushers, 1, 64),
    U32("threads_per_queue", threads_per_queue, 1, 64),
    U32("stalled_threads_per_queue", stalled_threads_per_queue, 0, 1024),
    U32("long_calls_cpu_shares", long_calls_cpu_shares, 0, 262144),
    U32("fuse_keep", fuse_keep_s, 0, 86400),
    U32("fuse_cache_timeout_ms", fuse_cache_timeout_ms, 0, 3600000),
    U32("request_deadline_ms", request_deadline_ms, 0, 86400000),
    U32("backend_ops_per_second", backend_ops_per_second, 0, UINT32_MAX),
    U32("backend_write_bytes_per_second", backend_write_bytes_per_second, 0,
        UINT32_MAX),
    {"backend_pressure_dir", set_absolute, AT(backend_pressure_dir), 0, 0},
    U32("backend_latency_target_ms", backend_latency_target_ms, 1, 60000),
    U32("backend_weight", backend_weight, 1, 10000),
    U32("backend_reservation_ops", backend_reservation_ops, 0, 1000000),
    FLAG("backend_fair_share", backend_fair_share),
    {"cache_auto", set_size, AT(cache_auto), 1u << 20, 1ull << 50},
    CALL("core_groups", set_core_groups),
    CALL("cpus", set_cpus),
    FLAG("fuse", fuse),
    FLAG("fuse_direct_io", fuse_direct_io),
    FLAG("fuse_revalidate", fuse_revalidate),
    FLAG("fuse_io_uring", fuse_io_uring),
    FLAG("request_deadline_fsync", request_deadline_fsync),
    FLAG("fuse_allow_other", fuse_allow_other),
    FLAG("nosuid", nosuid),
    FLAG("restart", restart),
};

static int parse_line(struct parse *p, char **w, int n, struct config *cfg)
{
    const char *k = w[0];
    if (strcmp(k, "mount") == 0 || strcmp(k, "union") == 0)
        return parse_mount(p, w, n, cfg);
    if (n != 2)
        return fail(p, "%s takes exactly one value", k);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(k, keys[i].name) == 0)
            return keys[i].set(p, &keys[i], w[1], cfg);
    const struct ls_setting_key *bk = ls_backend_setting(k);
    if (bk)
        return backend_line(p, bk, w[1], cfg);
    /* A setting of a backend this danausd was built without lands here:
     * the list says which backends it has. */
    char names[256];
    ls_backend_names(names, sizeof names);
    return fail(p, "unknown setting '%s' (backends built in: %s)", k, names);
}

static void set_defaults(struct config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->owner_uid = (uid_t)-1;
    cfg->owner_gid = (gid_t)-1;
    cfg->queue_cells = 256;
    cfg->slots = 256;
    cfg->client_slots = 64;
    cfg->uid_clients = 256;
    cfg->client_locks = 4096;
    cfg->nice = -10;
    cfg->slot_buffer = 256u << 10;
    cfg->read_cache_blocks = 4096;
    cfg->write_back_pages = 256;
    cfg->writeback_flushers = 4;
    cfg->threads_per_queue = 4;
    cfg->fuse_keep_s = 30;
    cfg->fuse_cache_timeout_ms = 1000;
    cfg->stalled_threads_per_queue = 32;
    cfg->long_calls_cpu_shares = 1024;
    cfg->fuse = 1;
    cfg->backend_fair_share = 1;
}

int config_parse(const char *name, const char *text, struct config *cfg,
                 char *err, size_t errlen)
{
    struct parse p = {.name = name, .line = 0, .err = err, .errlen = errlen};
    set_defaults(cfg);
    char *copy = strdup(text);
    if (!copy)
        return fail(&p, "out of memory");
    char *save = NULL;
    int rc = 0;
    /* strtok_r would skip empty lines and lose the count: walk by hand. */
    for (char *line = copy; line && rc == 0; line = save) {
        save = strchr(line, '\n');
        if (save)
            *save++ = '\0';
        p.line++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *words[MAX_WORDS];
        int n = split(line, words);
        if (n < 0)
            rc = fail(&p, "too many words");
        else if (n > 0)
            rc = parse_line(&p, words, n, cfg);
    }
    free(copy);
    if (rc == 0) {
        p.line = 0;
        if (!cfg->service)
            rc = fail(&p, "no 'service NAME' line");
        else if (cfg->nmounts == 0)
            rc = fail(&p, "no 'mount' line: nothing to serve");
        if (rc == 0 && cfg->backend_latency_target_ms &&
            !cfg->backend_pressure_dir)
            rc = fail(&p, "backend_latency_target_ms needs a "
                      "backend_pressure_dir where the other pools see it");
    }
    if (rc == 0 && !cfg->rundir && !(cfg->rundir = strdup(DANAUS_DEFAULT_RUNDIR)))
        rc = fail(&p, "out of memory");
    if (rc == 0 && !cfg->door_dir && !(cfg->door_dir = strdup(cfg->rundir)))
        rc = fail(&p, "out of memory");
    if (rc < 0)
        config_free(cfg);
    return rc;
}

int config_load(const char *path, struct config *cfg, char *err,
                size_t errlen)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t cap = 0;
    ssize_t len = getdelim(&text, &cap, '\0', f);
    int read_error = ferror(f);
    fclose(f);
    if (len < 0 && read_error) {
        snprintf(err, errlen, "%s: cannot read", path);
        free(text);
        return -1;
    }
    if (len >= 0 && (size_t)len != strlen(text)) {
        snprintf(err, errlen, "%s: contains a NUL byte", path);
        free(text);
        return -1;
    }
    int rc = config_parse(path, len < 0 ? "" : text, cfg, err, errlen);
    free(text);
    return rc;
}

void config_free(struct config *cfg)
{
    free(cfg->service);
    free(cfg->rundir);
    free(cfg->door_dir);
    free(cfg->backend_pressure_dir);
    for (int i = 0; i < cfg->nbackend_settings; i++) {
        free((char *)cfg->backend_settings[i].key);
        free((char *)cfg->backend_settings[i].value);
    }
    for (int i = 0; i < cfg->nmounts; i++) {
        free(cfg->mounts[i].mountpoint);
        free(cfg->mounts[i].backend);
        free(cfg->mounts[i].source);
        free(cfg->mounts[i].union_lower);
        free(cfg->mounts[i].lower_backend);
    }
    memset(cfg, 0, sizeof *cfg);
}
