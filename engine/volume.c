/*
 * volume.c - a pool's named volumes (volume.h).
 *
 * A volume is only its directory in the pool's backend: the engine keeps
 * no record of its own, so a volume made by a run's -v before these
 * commands existed is listed like one made by volume create. The
 * backend is read and written through the pool's danausd (helper.h), as
 * for every backend; which containers use a volume comes from the -v
 * each saved at run (runinfo.h).
 */
#include "volume.h"
#include "fail.h"
#include "helper.h"
#include "json_write.h"
#include "query.h"
#include "record.h"
#include "runinfo.h"
#include "service.h"
#include "state.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VOLUMES_MAX 4096 /* listed per pool */

/* The pool's volume names, sorted by ls, into names (malloc'ed, *n of
 * them; free with state_list_free). 0 or -1 (fail.h). */
static int volume_names(const char *pool, char ***names, int *n)
{
    char store[STATE_PATH_MAX], dir[STATE_PATH_MAX], line[512];
    service_store_mount(pool, store, sizeof store);
    snprintf(dir, sizeof dir, "%.4000s/volumes", store);
    /* No volumes/ yet: no volume. */
    const char *const ls[] = {"sh", "-c", "[ ! -d \"$1\" ] || ls -1A \"$1\"",
                              "sh", dir, NULL};
    FILE *out = tmpfile();
    *n = 0;
    *names = calloc(VOLUMES_MAX + 1, sizeof **names);
    if (!out || !*names) {
        if (out)
            fclose(out);
        return fail_errno("cannot list the volumes of pool %s", pool);
    }
    int rc = helper_run_to(pool, ls, fileno(out));
    rewind(out);
    while (rc == 0 && *n < VOLUMES_MAX && fgets(line, sizeof line, out)) {
        line[strcspn(line, "\n")] = '\0';
        if (state_check_name("volume", line) < 0) {
            fail_clear(); /* not one the engine could have made */
            continue;
        }
        if (!((*names)[(*n)++] = strdup(line)))
            rc = fail_errno("strdup");
    }
    fclose(out);
    return rc;
}

/* Whether the pool has the volume: 1, 0, or -1 (fail.h). */
static int volume_exists(const char *pool, const char *name)
{
    char **names;
    int n, found = 0;
    if (volume_names(pool, &names, &n) < 0) {
        state_list_free(names, n);
        return -1;
    }
    for (int i = 0; i < n; i++)
        found |= strcmp(names[i], name) == 0;
    state_list_free(names, n);
    return found;
}

/* Whether the container's saved -v name a volume name. */
static int container_uses(const char *container, const char *name)
{
    struct json *info = runinfo_load(container);
    const struct json *mounts = NULL;
    int uses = 0;
    fail_clear(); /* (one run before configurations were saved: none) */
    if (info)
        json_get("config.json", info, "Mounts", &mounts);
    for (const struct json *m = mounts ? mounts->first : NULL; m && !uses;
         m = m->next) {
        const struct json *type = NULL, *volume = NULL;
        json_get("config.json", m, "Type", &type);
        json_get("config.json", m, "Name", &volume);
        uses = type && volume && type->text && volume->text &&
               strcmp(type->text, "volume") == 0 &&
               strcmp(volume->text, name) == 0;
    }
    json_free(info);
    return uses;
}

/* The containers of the pool whose -v name the volume, added to users
 * (a JSON array, or NULL) and listed as "a, b" in out; their count. */
static int volume_users(const char *pool, const char *name,
                        struct json *users, char *out, size_t size)
{
    int n, count = 0;
    char **cs = state_list("containers", &n);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        struct record rec;
        char path[STATE_PATH_MAX];
        query_container_path(cs[i], path);
        if (record_load(path, &rec) < 0)
            continue;
        const char *p = record_get(&rec, "pool");
        if (p && strcmp(p, pool) == 0 && container_uses(cs[i], name)) {
            size_t used = strlen(out);
            snprintf(out + used, size - used, "%s%s", count++ ? ", " : "",
                     cs[i]);
            if (users)
                json_add_string(users, NULL, cs[i]);
        }
        record_free(&rec);
    }
    state_list_free(cs, n);
    return count;
}

int volume_create(const char *pool, const char *name)
{
    struct record rec;
    if (state_check_name("volume", name) < 0 || query_pool(pool, &rec) < 0)
        return -1;
    record_free(&rec);
    if (store_volume_create(pool, name) < 0)
        return -1;
    printf("%s\n", name);
    return 0;
}

static const char *list_quiet; /* volume_list's -q, for list_pool */

/* Whether the pool's danausd runs; if not, says its volumes are not
 * done (listed, pruned). */
static int pool_serves(const char *pool, struct record *rec,
                       const char *done)
{
    if (service_alive(rec))
        return 1;
    fprintf(stderr, "danaus: pool %s: danausd is down; its volumes are not "
                    "%s\n", pool, done);
    return 0;
}

static int list_pool(const char *pool, struct record *rec)
{
    char **names;
    int n;
    if (!pool_serves(pool, rec, "listed"))
        return 0;
    int rc = volume_names(pool, &names, &n);
    for (int i = 0; rc == 0 && i < n; i++)
        if (list_quiet)
            printf("%s\n", names[i]);
        else
            printf("%-12s %-8s %s\n", pool, record_get(rec, "backend_kind"),
                   names[i]);
    state_list_free(names, n);
    return rc;
}

int volume_list(const char *pool, int quiet)
{
    list_quiet = quiet ? "" : NULL;
    if (!quiet)
        printf("%-12s %-8s %s\n", "POOL", "DRIVER", "VOLUME NAME");
    struct record rec;
    if (!pool)
        return query_each_pool(list_pool);
    if (query_pool(pool, &rec) < 0)
        return -1;
    int rc = list_pool(pool, &rec);
    record_free(&rec);
    return rc;
}

/* Removes the volume's directory and what it holds. 0 or -1 (fail.h). */
static int remove_volume(const char *pool, const char *name)
{
    char store[STATE_PATH_MAX], dir[STATE_PATH_MAX];
    service_store_mount(pool, store, sizeof store);
    snprintf(dir, sizeof dir, "%.4000s/volumes/%s", store, name);
    const char *const rm[] = {"rm", "-rf", dir, NULL};
    return helper_run(pool, rm);
}

int volume_remove(const char *pool, const char *name)
{
    char users[1024];
    struct record rec;
    if (state_check_name("volume", name) < 0 || query_pool(pool, &rec) < 0)
        return -1;
    record_free(&rec);
    int found = volume_exists(pool, name);
    if (found <= 0)
        return found < 0 ? -1
                         : fail("no volume '%s' in pool %s", name, pool);
    if (volume_users(pool, name, NULL, users, sizeof users) > 0)
        return fail("volume '%s' of pool %s is in use by %s (remove it "
                    "first)", name, pool, users);
    if (remove_volume(pool, name) < 0)
        return -1;
    printf("%s\n", name);
    return 0;
}

/* The volumes of one pool that no container names, removed. */
static int prune_pool(const char *pool, struct record *rec)
{
    char **names, users[1024];
    int n;
    if (!pool_serves(pool, rec, "pruned"))
        return 0;
    int rc = volume_names(pool, &names, &n);
    for (int i = 0; rc == 0 && i < n; i++) {
        if (volume_users(pool, names[i], NULL, users, sizeof users) > 0)
            continue;
        rc = remove_volume(pool, names[i]);
        if (rc == 0)
            printf("%s\n", names[i]);
    }
    state_list_free(names, n);
    return rc;
}

/* docker's question before a prune: whether a line of stdin says yes. */
static int confirmed(const char *pool)
{
    char answer[64] = "";
    fprintf(stderr, "WARNING! This will remove all volumes%s%s not used by "
            "at least one container.\nAre you sure you want to continue? "
            "[y/N] ", pool ? " of pool " : "", pool ? pool : "");
    if (!fgets(answer, sizeof answer, stdin))
        return 0;
    answer[strcspn(answer, "\n")] = '\0';
    return strcasecmp(answer, "y") == 0 || strcasecmp(answer, "yes") == 0;
}

int volume_prune(const char *pool, int force)
{
    struct record rec;
    if (pool && query_pool(pool, &rec) < 0)
        return -1;
    int rc = 0;
    if (force || confirmed(pool))
        rc = pool ? prune_pool(pool, &rec) : query_each_pool(prune_pool);
    if (pool)
        record_free(&rec);
    return rc;
}

int volume_inspect(const char *pool, char **names, int n)
{
    struct record rec;
    if (query_pool(pool, &rec) < 0)
        return -1;
    struct json *docs = json_new(JSON_ARRAY, NULL, NULL);
    int rc = docs ? 0 : fail("out of memory");
    for (int i = 0; rc == 0 && i < n; i++) {
        char source[STATE_PATH_MAX], users[1024];
        int found = state_check_name("volume", names[i]) < 0
                        ? -1
                        : volume_exists(pool, names[i]);
        if (found <= 0) {
            rc = found < 0 ? -1
                           : fail("no volume '%s' in pool %s", names[i], pool);
            break;
        }
        struct json *v = json_add(docs, JSON_OBJECT, NULL);
        struct json *by = json_new(JSON_ARRAY, "UsedBy", NULL);
        if (!v || !by) {
            json_free(by);
            rc = fail("out of memory");
            break;
        }
        snprintf(source, sizeof source, "%.3000s/volumes/%s",
                 record_get(&rec, "backend_dir"), names[i]);
        json_add_string(v, "Name", names[i]);
        json_add_string(v, "Driver", record_get(&rec, "backend_kind"));
        json_add_string(v, "Mountpoint", source);
        json_add_string(v, "Scope", "local");
        json_add_string(v, "Pool", pool);
        volume_users(pool, names[i], by, users, sizeof users);
        json_append(v, by);
    }
    if (rc == 0)
        json_write_indented(stdout, docs);
    json_free(docs);
    record_free(&rec);
    return rc;
}
