/*
 * store.c - image layers and writable branches in a pool's backend
 * (store.h).
 *
 * The backend's images/, containers/ and volumes/ are 0700, root's: the
 * files under them (an image's setuid programs and device nodes, whatever
 * a container makes) then reach host users only through a container's
 * view, which danausd serves; danausd opens the branches as root.
 */
#include "store.h"
#include "fail.h"
#include "helper.h"
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

int store_publish(const char *pool, const char *image, const char *id,
                  int nlayers, int nosuid)
{
    char mark[STATE_PATH_MAX], dst[STATE_PATH_MAX], layer[STATE_PATH_MAX];
    state_path(mark, "pools/%s/images/%s", pool, id);
    if (access(mark, F_OK) == 0)
        return 0;
    char top[STATE_PATH_MAX];
    store_path(pool, top, sizeof top, "images", id);
    const char *const clear[] = {"rm", "-rf", top, NULL};
    int rc = private_kind_dir(pool, "images") < 0 ? -1
                                                   : helper_run(pool, clear);
    int refused = 0;
    for (int i = 0; i < nlayers && rc == 0; i++) {
        snprintf(dst, sizeof dst, "%.4000s/%d", top, i);
        state_path(layer, "images/%s/layer-%d.tar", image, i);
        const char *const mk[] = {"mkdir", "-p", dst, NULL};
        rc = helper_run(pool, mk) < 0 ||
                     unpack(pool, layer, dst, nosuid, &refused) < 0
                 ? -1
                 : 0;
    }
    if (rc == 0 && refused)
        fprintf(stderr, "danaus: pool %s is nosuid: image %s's %d device "
                "node(s) left out\n", pool, image, refused);
    if (rc == 0) {
        int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        rc = fd < 0 ? fail_errno("cannot create %s", mark) : 0;
        if (fd >= 0)
            close(fd);
    }
    if (rc < 0)
        helper_run(pool, clear);
    return rc;
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

int store_branch_remove(const char *pool, const char *container)
{
    char dir[STATE_PATH_MAX], mark[STATE_PATH_MAX];
    store_path(pool, dir, sizeof dir, "containers", container);
    const char *const rm[] = {"rm", "-rf", dir, NULL};
    if (helper_run(pool, rm) < 0)
        return -1;
    state_path(mark, "pools/%s/stale/%s", pool, container);
    unlink(mark);
    return 0;
}

int store_branch_create(const char *pool, const char *container)
{
    char dir[STATE_PATH_MAX];
    store_path(pool, dir, sizeof dir, "containers", container);
    const char *const mk[] = {"mkdir", "-p", dir, NULL};
    return store_branch_remove(pool, container) < 0 ||
                   private_kind_dir(pool, "containers") < 0
               ? -1
               : helper_run(pool, mk);
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

int store_sweep(const char *pool)
{
    char kind[STATE_PATH_MAX];
    snprintf(kind, sizeof kind, "pools/%s/stale", pool);
    int n, rc = 0;
    char **stale = state_list(kind, &n);
    for (int i = 0; i < n; i++)
        if (store_branch_remove(pool, stale[i]) < 0)
            rc = -1;
    state_list_free(stale, n);
    return rc;
}
