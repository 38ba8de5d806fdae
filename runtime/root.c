/*
 * root.c - a runc container's root from a Danaus pool (root.h).
 *
 * The engine does the work: its command makes the default pool and
 * restarts a dead danausd, door_client.c adds the union and the view. The
 * runtime decides what goes where, and makes and removes the writable
 * branch: itself in a local pool, whose backend is a host directory;
 * through the pool's danausd (store.h) in a Ceph pool, whose unions stack
 * that branch over the root podman prepared, a local one.
 */
#include "root.h"
#include "cpulist.h"
#include "door_client.h"
#include "fail.h"
#include "program.h"
#include "query.h"
#include "record.h"
#include "service.h"
#include "state.h"
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ID_MAX_LEN 128

int root_check_id(const char *id)
{
    size_t len = strlen(id);
    if (len == 0 || len > ID_MAX_LEN || id[0] == '.' || id[0] == '-')
        return fail("container id '%s': use 1 to %d letters, digits, '_', "
                    "'+', '.' or '-', not starting with '.' or '-'", id,
                    ID_MAX_LEN);
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '+' ||
              *p == '.' || *p == '-'))
            return fail("container id '%s': character '%c' is not allowed",
                        id, *p);
    return 0;
}

void root_dir(const char *id, char *out)
{
    state_path(out, "runtime/%s", id);
}

/* The online cpus no pool has (a pool's cpus are its own) into set.
 * 0, or -1 (fail.h) when there are none. */
static int free_cpus(cpu_set_t *set)
{
    if (cpulist_online(set) < 0)
        return -1;
    int n;
    char **pools = state_list("pools", &n);
    for (int i = 0; i < n; i++) {
        struct record rec;
        cpu_set_t theirs;
        if (query_pool(pools[i], &rec) < 0)
            continue;
        if (cpulist_parse(record_get(&rec, "cpus"), &theirs) == 0)
            for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &theirs))
                    CPU_CLR(c, set);
        record_free(&rec);
    }
    state_list_free(pools, n);
    fail_clear();
    if (CPU_COUNT(set) == 0)
        return fail("every cpu belongs to a pool: make pool '%s' (danaus "
                    "pool create), or name a pool with the annotation %s",
                    ROOT_DEFAULT_POOL, BUNDLE_POOL_ANNOTATION);
    return 0;
}

/* Runs the engine's command on the state directory with args; its
 * output to out_fd (-1: none). 0, or -1 (fail.h: what it said last). */
static int engine_run(const char *const *args, int out_fd)
{
    const char *argv[16] = {service_engine(), "--state", state_root()};
    int n = 3;
    while (*args && n < 15)
        argv[n++] = *args++;
    argv[n] = NULL;
    return program_run("danaus", argv, out_fd, NULL, NULL);
}

/* Whether pool has a record and its danausd runs. */
static int pool_up(const char *pool, int *known)
{
    struct record rec;
    *known = query_pool(pool, &rec) == 0;
    int up = *known && service_alive(&rec);
    if (*known)
        record_free(&rec);
    return up;
}

/* The pool, with its danausd running. When it is not, the engine's own
 * command does the work, once: pool create for the default pool (the
 * online cpus no other pool has, ROOT_DEFAULT_MEMORY, a local backend in
 * the state directory), else any command, since each first restarts the
 * danausd of every pool whose service died. The runtime links none of
 * the pool code, whose Ceph library takes longer to load than a
 * container takes to start. The lock is not held (the engine takes it).
 * 0, or -1 (fail.h). */
static int pool_ready(const char *pool, int make)
{
    int known;
    if (pool_up(pool, &known))
        return 0;
    if (!known && !make)
        return -1; /* query_pool's "unknown pool" */
    fail_clear();
    int rc;
    if (!known) {
        char backend[STATE_PATH_MAX], spec[STATE_PATH_MAX + 8], cpus[256];
        cpu_set_t set;
        if (free_cpus(&set) < 0)
            return -1;
        ipc_cpulist_format(&set, cpus, sizeof cpus);
        state_path(backend, "backends/%s", pool);
        if (make_dirs(backend, 0700) < 0)
            return fail_errno("cannot create %s", backend);
        snprintf(spec, sizeof spec, "local:%.4000s", backend);
        const char *create[] = {"pool", "create", pool, "--cpus", cpus,
                                "--memory", ROOT_DEFAULT_MEMORY,
                                "--backend", spec, NULL};
        rc = engine_run(create, 2);
    } else {
        const char *list[] = {"pool", "ls", NULL};
        rc = engine_run(list, -1);
    }
    /* (Another create may have made or restarted it meanwhile: the
     * engine's command then failed, and the pool is up.) */
    if (pool_up(pool, &known)) {
        fail_clear();
        return 0;
    }
    return rc < 0 ? -1
                  : fail("pool %s: its danausd does not run (see its "
                         "danausd.log)", pool);
}

/* The container's root unmounted, by its danausd (or the kernel, when
 * that died); unless keep, its branch removed too, and the runtime's
 * record with it. The lock held. 0, or -1 (fail.h). */
static int release_locked(const char *id, int keep)
{
    char dir[STATE_PATH_MAX], path[STATE_PATH_MAX + 8];
    struct record rec, pool;
    root_dir(id, dir);
    snprintf(path, sizeof path, "%s/record", dir);
    if (record_load(path, &rec) < 0) {
        if (errno != ENOENT)
            return fail_errno("cannot read %s", path);
        snprintf(path, sizeof path, "%s/%s", ROOT_POINTER_DIR, id);
        unlink(path);
        return remove_tree(dir) < 0 && errno != ENOENT
                   ? fail_errno("cannot remove %s", dir)
                   : 0;
    }
    const char *name = record_get(&rec, "pool");
    const char *writable = record_get(&rec, "writable");
    const char *lower = record_get(&rec, "lower");
    int local = !record_get(&rec, "backend_kind") ||
                strcmp(record_get(&rec, "backend_kind"), "local") == 0;
    int known = name && query_pool(name, &pool) == 0;
    int live = known && service_alive(&pool);
    if (known)
        record_free(&pool);
    fail_clear();
    int rc = 0;
    snprintf(path, sizeof path, "%s/root", dir);
    if (live)
        rc = door_mount_remove(name, path);
    else
        umount2(path, MNT_DETACH); /* the dead door's */
    if (rc == 0 && lower) {
        umount2(lower, MNT_DETACH);
        rmdir(lower);
    }
    if (rc == 0 && keep) {
        record_set(&rec, "stopped", "1");
        snprintf(path, sizeof path, "%s/record", dir);
        if (record_save(path, &rec) < 0)
            rc = fail_errno("cannot save %s", path);
    } else if (rc == 0 && writable && local) {
        if (remove_tree(writable) < 0 && errno != ENOENT)
            rc = fail_errno("cannot remove %s", writable);
    } else if (rc == 0 && writable && known) {
        /* Through the pool's danausd, or once it runs again (of a pool
         * removed since, the branch stays: only its danausd reached it). */
        char branch[8 + ID_MAX_LEN];
        snprintf(branch, sizeof branch, "oci-%s", id);
        rc = live ? store_branch_remove(name, branch)
                  : store_branch_defer(name, branch);
    }
    record_free(&rec);
    if (rc == 0 && !keep) {
        if (remove_tree(dir) < 0)
            rc = fail_errno("cannot remove %s", dir);
        snprintf(path, sizeof path, "%s/%s", ROOT_POINTER_DIR, id);
        unlink(path);
    }
    return rc;
}

/* Removes the branches of stopped containers whose bundle is gone: podman
 * removes a container's bundle directory with the container (podman rm),
 * which the runtime is not told of. */
static void sweep_locked(void)
{
    int n;
    char **ids = state_list("runtime", &n);
    for (int i = 0; i < n; i++) {
        char path[STATE_PATH_MAX + 8];
        struct record rec;
        root_dir(ids[i], path);
        strcat(path, "/record");
        if (record_load(path, &rec) < 0)
            continue;
        const char *bundle = record_get(&rec, "bundle");
        int gone = record_num(&rec, "stopped", 0) && bundle &&
                   access(bundle, F_OK) < 0 && errno == ENOENT;
        record_free(&rec);
        if (gone && release_locked(ids[i], 0) < 0)
            fprintf(stderr, "danaus-runtime: %s\n", fail_message());
        fail_clear();
    }
    state_list_free(ids, n);
}

int root_stop(const char *id)
{
    char path[STATE_PATH_MAX + 8];
    struct record rec;
    if (state_lock() < 0)
        return -1;
    root_dir(id, path);
    strcat(path, "/record");
    int keep = record_load(path, &rec) == 0;
    if (keep) {
        const char *bundle = record_get(&rec, "bundle");
        keep = !record_num(&rec, "autoremove", 0) && bundle &&
               access(bundle, F_OK) == 0;
        record_free(&rec);
    }
    int rc = release_locked(id, keep);
    sweep_locked();
    state_unlock();
    return rc;
}

void root_forget(const char *id)
{
    char dir[STATE_PATH_MAX], pointer[STATE_PATH_MAX];
    root_dir(id, dir);
    snprintf(pointer, sizeof pointer, "%s/%s", ROOT_POINTER_DIR, id);
    if (access(dir, F_OK) < 0 && errno == ENOENT)
        unlink(pointer);
}

int root_pool(const char *id, char *pool)
{
    char path[STATE_PATH_MAX + 8];
    struct record rec;
    root_dir(id, path);
    strcat(path, "/record");
    if (record_load(path, &rec) < 0)
        return fail_errno("container %s is not one of danaus-runtime's", id);
    const char *name = record_get(&rec, "pool");
    int rc = name ? 0 : fail("%s names no pool", path);
    if (name)
        snprintf(pool, NAME_MAX_LEN + 1, "%s", name);
    record_free(&rec);
    return rc;
}

/* A new, empty writable branch at path in the pool's backend, named
 * branch there. In a host directory it is made here, as the pool's
 * danausd would make it (as root); in a backend of another kind through
 * the pool's store mount (store.h). containers/ stays root's and 0700
 * (store.c). 0, or -1 (fail.h). */
static int branch_create(const char *pool, const struct record *prec,
                         const char *branch, const char *path)
{
    if (strcmp(record_get(prec, "backend_kind"), "local") != 0)
        return store_branch_create(pool, branch);
    char kind[STATE_PATH_MAX + 16];
    snprintf(kind, sizeof kind, "%.4000s/containers",
             record_get(prec, "backend_dir"));
    if ((mkdir(kind, 0700) < 0 && errno != EEXIST) || chmod(kind, 0700) < 0)
        return fail_errno("cannot create %s", kind);
    if (remove_tree(path) < 0 && errno != ENOENT)
        return fail_errno("cannot remove %s", path);
    return mkdir(path, 0755) < 0 ? fail_errno("cannot create %s", path) : 0;
}

/* Makes what root_make promises, the lock held; the pool's record in
 * prec; reuse: the container ran before (stopped), its branch is kept. */
static int make_locked(const char *id, struct bundle *b, const char *bundle,
                       const char *pool, const struct record *prec,
                       int reuse, const char **paths, int *npaths)
{
    char dir[STATE_PATH_MAX], path[STATE_PATH_MAX + 8];
    char writable[STATE_PATH_MAX + 200], door[STATE_PATH_MAX];
    char branch[8 + ID_MAX_LEN], lower[STATE_PATH_MAX + 32];
    const char *kind = record_get(prec, "backend_kind");
    state_path(path, "runtime");
    if (mkdir(path, 0700) < 0 && errno != EEXIST)
        return fail_errno("cannot create %s", path);
    root_dir(id, dir);
    if (!reuse && mkdir(dir, 0700) < 0)
        return errno == EEXIST ? fail("container %s exists", id)
                               : fail_errno("cannot create %s", dir);
    snprintf(branch, sizeof branch, "oci-%s", id);
    struct record rec = {0};
    record_set(&rec, "pool", "%s", pool);
    snprintf(writable, sizeof writable, "%.3800s/containers/%s",
             record_get(prec, "backend_dir"), branch);
    record_set(&rec, "writable", "%s", writable);
    record_set(&rec, "backend_kind", "%s", kind);
    record_set(&rec, "bundle", "%s", bundle);
    record_set(&rec, "autoremove", "%d", b->autoremove);
    record_set(&rec, "stopped", "0");
    /* The caller's root reaches the union through a bind mount of the
     * runtime's own, new at each create: the pool's danausd keeps what it
     * served (branches.h), and so pins this mount, not the caller's, which
     * the caller then unmounts (containerd's shim: EBUSY otherwise); and
     * a root mounted again for a new start is never taken for the old. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(lower, sizeof lower, "%s/lower-%lld%09ld", dir,
             (long long)now.tv_sec, now.tv_nsec);
    record_set(&rec, "lower", "%s", lower);
    snprintf(path, sizeof path, "%s/record", dir);
    int rc = record_save(path, &rec) < 0 ? fail_errno("cannot save %s", path)
                                         : 0;
    record_free(&rec);
    if (rc < 0) {
        if (!reuse)
            remove_tree(dir);
        return -1;
    }
    snprintf(path, sizeof path, "%s/root", dir);
    service_door_dir(pool, door, sizeof door);
    if (mkdir(path, 0700) < 0 && errno != EEXIST)
        rc = fail_errno("cannot create %s", path);
    else if (mkdir(lower, 0700) < 0 ||
             mount(b->root, lower, NULL, MS_BIND, NULL) < 0)
        rc = fail_errno("cannot bind %s at %s", b->root, lower);
    else if ((!reuse && branch_create(pool, prec, branch, writable) < 0) ||
             door_union_add(pool, path, kind, writable,
                            strcmp(kind, "local") ? "local" : NULL, lower,
                            b->read_only    ? DOOR_MOUNT_RO
                            : b->autoremove ? DOOR_MOUNT_VOLATILE
                                            : DOOR_MOUNT_RW) < 0 ||
             bundle_write(b, dir, path, pool, door, service_library(), paths,
                          npaths) < 0)
        rc = -1;
    if (rc < 0) {
        char *why = strdup(fail_message() ? fail_message() : "");
        fail_clear();
        release_locked(id, reuse);
        fail_clear();
        fail("%s", why ? why : "out of memory");
        free(why);
    }
    return rc;
}

int root_make(const char *id, struct bundle *b, const char *bundle,
              char *pool, const char **paths, int *npaths)
{
    char path[STATE_PATH_MAX + 8];
    struct record rec, prec;
    if (b->pool && state_check_name("pool", b->pool) < 0)
        return -1;
    /* A container started again (podman start) keeps its pool and its
     * branch. */
    root_dir(id, path);
    strcat(path, "/record");
    int reuse = 0, known = record_load(path, &rec) == 0;
    if (known) {
        reuse = record_num(&rec, "stopped", 0) == 1;
        snprintf(pool, NAME_MAX_LEN + 1, "%s",
                 record_get(&rec, "pool") ? record_get(&rec, "pool") : "");
        record_free(&rec);
        if (!reuse)
            return fail("container %s exists", id);
    } else {
        snprintf(pool, NAME_MAX_LEN + 1, "%s",
                 b->pool ? b->pool : ROOT_DEFAULT_POOL);
    }
    if (pool_ready(pool, !known && !b->pool) < 0 || state_lock() < 0)
        return -1;
    sweep_locked();
    int rc = -1;
    if (query_pool(pool, &prec) == 0) {
        rc = make_locked(id, b, bundle, pool, &prec, reuse, paths, npaths);
        record_free(&prec);
    }
    state_unlock();
    return rc;
}

int root_view(const char *id, const char *pool, pid_t pid,
              const char **paths, int npaths)
{
    char root[STATE_PATH_MAX + 8], ns[64];
    root_dir(id, root);
    strcat(root, "/root");
    snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int)pid);
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    int ns_fd = open(ns, O_RDONLY | O_CLOEXEC);
    if (ns_fd < 0) {
        close(p[0]);
        close(p[1]);
        return fail_errno("cannot open %s", ns);
    }
    /* A child enters the container's namespace; this process stays. */
    pid_t child = fork();
    if (child == 0) {
        close(p[0]);
        if (door_view_in(pool, ns_fd, root, paths, npaths) < 0 &&
            write(p[1], fail_message(), strlen(fail_message())) < 0)
            _exit(2);
        _exit(0);
    }
    close(ns_fd);
    close(p[1]);
    char why[1024] = "";
    ssize_t n = child < 0 ? 0 : read(p[0], why, sizeof why - 1);
    close(p[0]);
    int status = 0;
    if (child < 0)
        return fail_errno("fork");
    waitpid(child, &status, 0);
    if (n > 0)
        return fail("%s", why);
    return status == 0 ? 0 : fail("pool %s: the view's process failed", pool);
}
