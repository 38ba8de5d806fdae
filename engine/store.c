/*
 * store.c - image layers and writable branches in a pool's backend
 * (store.h).
 *
 * The backend's layers/, containers/ and volumes/ are 0700, root's: the
 * files under them (an image's setuid programs and device nodes, whatever
 * a container makes) then reach host users only through a container's
 * view, which danausd serves; danausd opens the branches as root.
 */
#include "store.h"
#include "door_client.h"
#include "fail.h"
#include "helper.h"
#include "query.h"
#include "record.h"
#include "service.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* STORE/rest: the path through the pool's danausd. */
static void store_path(const char *pool, char *out, size_t size,
                       const char *kind, const char *name)
{
    char store[STATE_PATH_MAX];
    service_store_mount(pool, store, sizeof store);
    snprintf(out, size, "%.4000s/%s/%s", store, kind, name);
}

/* STORE/kind made or made private again (a pool made before stays
 * open to host users until then). */
static int private_kind_dir(const char *pool, const char *kind)
{
    char store[STATE_PATH_MAX], dir[STATE_PATH_MAX];
    service_store_mount(pool, store, sizeof store);
    snprintf(dir, sizeof dir, "%.4000s/%s", store, kind);
    const char *const install[] = {"install", "-d", "-m", "0700", dir, NULL};
    return helper_run(pool, install);
}

/* Unpacks layer into dst; in a nosuid pool, what the service refused
 * to make (device nodes) is counted in *refused. */
static int unpack(const char *pool, const char *layer, const char *dst,
                  int nosuid, int *refused)
{
    const char *const untar[] = {"tar", "--numeric-owner", "--xattrs",
                                 "--xattrs-include=*", "-xpf", layer,
                                 "-C", dst, NULL};
    int n = 0;
    int rc = helper_run_tolerating(
        pool, untar,
        nosuid ? "Cannot mknod: Operation not permitted" : NULL, &n);
    *refused += n;
    return rc;
}

/* pools/POOL/layers/HEX, a record: the pool's copy of the layer is
 * complete; once no image names it, kept_by is "PID START" of the
 * danausd that may hold it open. */
static void layer_mark(const char *pool, const char *hex, char *out)
{
    state_path(out, "pools/%s/layers/%s", pool, hex);
}

/* The mark saying kept_by (NULL: in use). 0 or -1 (fail.h). */
static int mark_save(const char *mark, const char *kept_by)
{
    struct record r = {0};
    if (kept_by)
        record_set(&r, "kept_by", "%s", kept_by);
    int rc = record_save(mark, &r) < 0 ? fail_errno("cannot save %s", mark)
                                       : 0;
    record_free(&r);
    return rc;
}

/* Unpacks one layer into BACKEND/layers/HEX, or takes a kept copy back;
 * nosuid and refused as unpack's. */
static int publish_layer(const char *pool, const char *hex, int nosuid,
                         int *refused)
{
    char mark[STATE_PATH_MAX], top[STATE_PATH_MAX], archive[STATE_PATH_MAX];
    struct record r;
    layer_mark(pool, hex, mark);
    if (record_load(mark, &r) == 0) {
        int kept = record_get(&r, "kept_by") != NULL;
        record_free(&r);
        return kept ? mark_save(mark, NULL) : 0;
    }
    store_path(pool, top, sizeof top, "layers", hex);
    layer_archive_path(hex, archive);
    const char *const clear[] = {"rm", "-rf", top, NULL};
    const char *const mk[] = {"mkdir", "-p", top, NULL};
    int rc = helper_run(pool, clear) < 0 || helper_run(pool, mk) < 0 ||
                     unpack(pool, archive, top, nosuid, refused) < 0
                 ? -1
                 : mark_save(mark, NULL);
    if (rc < 0)
        helper_run(pool, clear);
    return rc;
}

int store_publish(const char *pool, const struct layer_list *layers,
                  int nosuid)
{
    char marks[STATE_PATH_MAX];
    state_path(marks, "pools/%s/layers", pool);
    if (mkdir(marks, 0700) < 0 && errno != EEXIST)
        return fail_errno("cannot create %s", marks);
    if (private_kind_dir(pool, "layers") < 0)
        return -1;
    int refused = 0;
    for (int i = 0; i < layers->n; i++)
        if (publish_layer(pool, layers->hex[i], nosuid, &refused) < 0)
            return -1;
    if (refused)
        fprintf(stderr, "danaus: pool %s is nosuid: %d device node(s) of "
                "the image left out\n", pool, refused);
    return 0;
}

int store_unpublish_everywhere(const char *id)
{
    int n, rc = 0;
    char **pools = state_list("pools", &n);
    for (int i = 0; i < n; i++) {
        char mark[STATE_PATH_MAX], top[STATE_PATH_MAX];
        state_path(mark, "pools/%s/images/%s", pools[i], id);
        if (access(mark, F_OK) < 0)
            continue;
        store_path(pools[i], top, sizeof top, "images", id);
        const char *const rm[] = {"rm", "-rf", top, NULL};
        if (helper_run(pools[i], rm) < 0)
            rc = -1;
        else
            unlink(mark);
    }
    state_list_free(pools, n);
    return rc;
}

/* A container's branch is made and removed by this process through the
 * store's FUSE mount, which the pool's danausd serves as it serves the
 * helpers (host root is the pool's root at both doors): a container's
 * start and removal then start no helper process. A tree the walk cannot
 * remove (paths past PATH_MAX, which nftw cannot name) is left to a
 * helper's rm, which walks with *at calls. */
int store_branch_remove(const char *pool, const char *container)
{
    char dir[STATE_PATH_MAX], mark[STATE_PATH_MAX];
    store_path(pool, dir, sizeof dir, "containers", container);
    const char *const rm[] = {"rm", "-rf", dir, NULL};
    if (remove_tree(dir) < 0 && helper_run(pool, rm) < 0)
        return -1;
    state_path(mark, "pools/%s/stale/%s", pool, container);
    unlink(mark);
    return 0;
}

int store_branch_create(const char *pool, const char *container)
{
    char kind[STATE_PATH_MAX], dir[STATE_PATH_MAX];
    store_path(pool, kind, sizeof kind, "containers", "");
    store_path(pool, dir, sizeof dir, "containers", container);
    /* containers/ made private again, as private_kind_dir does. */
    if ((mkdir(kind, 0700) < 0 && errno != EEXIST) || chmod(kind, 0700) < 0)
        return fail_errno("cannot create %s", kind);
    if (store_branch_remove(pool, container) < 0)
        return -1;
    return mkdir(dir, 0755) < 0 ? fail_errno("cannot create %s", dir) : 0;
}

int store_volume_create(const char *pool, const char *name)
{
    char dir[STATE_PATH_MAX];
    store_path(pool, dir, sizeof dir, "volumes", name);
    const char *const mk[] = {"mkdir", "-p", dir, NULL};
    return private_kind_dir(pool, "volumes") < 0 ? -1 : helper_run(pool, mk);
}

int store_branch_defer(const char *pool, const char *container)
{
    char mark[STATE_PATH_MAX];
    state_path(mark, "pools/%s/stale", pool);
    if (mkdir(mark, 0700) < 0 && errno != EEXIST)
        return fail_errno("cannot create %s", mark);
    state_path(mark, "pools/%s/stale/%s", pool, container);
    int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail_errno("cannot create %s", mark);
    close(fd);
    return 0;
}

/* A copy no image names: removed at once when the pool's danausd lets
 * go of its branch instance (no mounted union uses it: a container that
 * outlived its image, or was handed over by the keeper, keeps it). Else
 * kept by the danausd running now (now), and removed under another one
 * that holds no instance of it either; a danausd that cannot be asked
 * (one of an older build) made no union over it if it is not the one
 * that kept it (an image naming it again would have taken it back
 * first). */
static int sweep_layer(const char *pool, const struct record *rec,
                       const char *hex, const char *now)
{
    char mark[STATE_PATH_MAX], top[STATE_PATH_MAX], dir[STATE_PATH_MAX];
    struct record r;
    layer_mark(pool, hex, mark);
    if (record_load(mark, &r) < 0)
        return 0;
    const char *kept_by = record_get(&r, "kept_by");
    snprintf(dir, sizeof dir, "%.3000s/layers/%s",
             record_get(rec, "backend_dir"), hex);
    int held = door_branch_forget(pool, record_get(rec, "backend_kind"),
                                  dir);
    if (held < 0)
        fail_clear();
    int keep = held == EBUSY ||
               (held < 0 && (!kept_by || strcmp(kept_by, now) == 0));
    int rc = keep && (!kept_by || strcmp(kept_by, now) != 0)
                 ? mark_save(mark, now)
                 : 0;
    record_free(&r);
    if (keep)
        return rc;
    /* The mark goes first: a copy without one is unpacked afresh when
     * used again, so a removal cut short (or failed) leaves no half copy
     * to be taken back. */
    store_path(pool, top, sizeof top, "layers", hex);
    const char *const rm[] = {"rm", "-rf", top, NULL};
    if (unlink(mark) < 0)
        return fail_errno("cannot remove %s", mark);
    return helper_run(pool, rm);
}

static int sweep_layers(const char *pool, const struct record *rec)
{
    char kind[STATE_PATH_MAX], now[64];
    snprintf(kind, sizeof kind, "pools/%s/layers", pool);
    snprintf(now, sizeof now, "%s %s", record_get(rec, "pid") ?: "",
             record_get(rec, "start") ?: "");
    int n, used_n, rc = 0;
    char **marks = state_list(kind, &n);
    char **used = layer_list_in_use(&used_n);
    for (int i = 0; i < n; i++)
        if (!layer_listed(used, used_n, marks[i]) &&
            sweep_layer(pool, rec, marks[i], now) < 0)
            rc = -1;
    state_list_free(used, used_n);
    state_list_free(marks, n);
    return rc;
}

int store_sweep(const char *pool, const struct record *rec)
{
    char kind[STATE_PATH_MAX];
    snprintf(kind, sizeof kind, "pools/%s/stale", pool);
    int n, rc = 0;
    char **stale = state_list(kind, &n);
    for (int i = 0; i < n; i++)
        if (store_branch_remove(pool, stale[i]) < 0)
            rc = -1;
    state_list_free(stale, n);
    return sweep_layers(pool, rec) < 0 ? -1 : rc;
}

/* store_sweep of a pool whose danausd runs. */
static int sweep_if_alive(const char *pool, struct record *rec)
{
    return service_alive(rec) ? store_sweep(pool, rec) : 0;
}

int store_sweep_everywhere(void)
{
    return query_each_pool(sweep_if_alive);
}
