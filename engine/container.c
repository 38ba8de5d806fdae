/*
 * container.c - run, ps, stop, rm, logs (container.h).
 *
 * run: the pool's danausd mounts a new union instance for the container
 * (the image's layers below, a private writable branch in the backend on
 * top) through its FUSE door at containers/NAME/root; a child in new
 * mount, PID, UTS and network namespaces joins the pool's cgroups (and its
 * own, with a cgroup namespace) and IPC namespace, pivots into that root,
 * takes the limits of confine.h and execs the command with libdanaus.so
 * preloaded (docs/confinement.md has the order of steps);
 * before that it asks danausd to show programs of its mount namespace the
 * root instance at "/" (the view), so they reach it over shared memory.
 * exec runs a further command in a running container's namespaces.
 * The process that waits for it (the engine itself in the foreground, a
 * detached monitor with -d) records its exit and unmounts the root; rm
 * removes the writable branch.
 */
#include "container.h"
#include "cgroup.h"
#include "confine.h"
#include "cp.h"
#include "dns.h"
#include "door_client.h"
#include "fail.h"
#include "format.h"
#include "helper.h"
#include "image_config.h"
#include "layers.h"
#include "runinfo.h"
#include "ns.h"
#include "query.h"
#include "record.h"
#include "service.h"
#include "state.h"
#include "store.h"
#include "tty.h"
#include "user.h"
#include "net.h"
#include "userns.h"

#include <errno.h>
#include <linux/close_range.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_S 5
#define WAIT_RECORD_POLLS 50 /* of 100 ms */
#define REPORT_MESSAGE_MAX 1024 /* (within PIPE_BUF: one write) */
#define LIBRARY_INSIDE "/usr/lib/danaus/libdanaus.so"
#define RUNDIR_INSIDE "/run/danaus"

struct container {
    const struct run_options *o;
    char name[NAME_MAX_LEN + 1];
    char root[STATE_PATH_MAX];
    struct record rec;
    struct tty tty; /* -t */
    sigset_t caller_mask; /* the engine's, for the command */
    struct image_config image;
    char **argv;         /* ENTRYPOINT and CMD, or what run overrode */
    const char *workdir; /* -w, or the image's WORKDIR, or NULL */
    const char *user;    /* -u, or the image's USER; root by default */
    struct layer_list layers; /* the image's, bottom first */
    uint32_t userns_base; /* the pool's (userns.h); 0: the host's ids */
    int userns_sync[2];   /* the child asks the engine for its maps */
    int net_sync[2];      /* --network bridge: the engine says eth0 is up */
    int idmap_userns;     /* -v ...:idmap: mapped as its own will be */
};

static int save(struct container *c)
{
    char path[STATE_PATH_MAX];
    query_container_path(c->name, path);
    return record_save(path, &c->rec) < 0 ? fail_errno("cannot save %s", path)
                                          : 0;
}

/* save, with an address of the pool's bridge and its ports first for
 * --network bridge: chosen and saved under the state lock, so no other
 * container takes them. */
static int save_choosing_address(struct container *c)
{
    if (!c->o->bridge_network)
        return save(c);
    if (state_lock() < 0)
        return -1;
    int rc = net_reserve(c->name, c->o->pool, c->o->ports, c->o->nports,
                         &c->rec) < 0
                 ? -1
                 : save(c);
    state_unlock();
    return rc;
}

/* --network bridge: waits until the engine has given the container its
 * eth0 (net_attach). 0 or -1 (fail.h). */
static int await_network(struct container *c)
{
    char done;
    close(c->net_sync[1]);
    int rc = read(c->net_sync[0], &done, 1) == 1
                 ? 0
                 : fail("the engine did not give the container its network");
    close(c->net_sync[0]);
    return rc;
}

/* ---- inside the new namespaces ---- */

/* The command's environment but HOME: the engine's few, the image's ENV
 * over them, the library's, then -e over all. */
static void command_env(const struct container *c, struct env *e)
{
    const char *term = getenv("TERM");
    env_put(e, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
               "/sbin:/bin");
    env_putf(e, "HOSTNAME=%s", c->name);
    if (term)
        env_putf(e, "TERM=%s", term);
    for (int i = 0; c->image.env && c->image.env[i]; i++)
        env_put(e, c->image.env[i]);
    env_put(e, "LD_PRELOAD=" LIBRARY_INSIDE);
    env_putf(e, "DANAUS_SERVICE=%s", c->o->pool);
    env_put(e, "DANAUS_RUNDIR=" RUNDIR_INSIDE);
    for (int i = 0; i < c->o->nenv; i++)
        env_put(e, c->o->env[i]);
}

/* The command's environment; HOME, unless it set one, is home. */
static void child_env(const struct container *c, const char *home)
{
    struct env e = {0};
    command_env(c, &e);
    clearenv();
    for (int i = 0; i < e.n; i++)
        putenv(e.list[i]); /* (kept: the environment holds them) */
    setenv("HOME", home, 0);
}

/* The container's limits on what it asks of the kernel (confine.h): the
 * filter while this process may still install one without no_new_privs,
 * then the capabilities, before become's setuid. 0 or -1 (fail.h). */
static int confine(const struct run_options *o)
{
    return (!o->new_privileges && confine_no_new_privs() < 0) ||
                   confine_syscalls() < 0 || confine_caps() < 0
               ? -1
               : 0;
}

/* Without -i (and -t) the container's stdin is /dev/null, as docker's. */
static int stdin_null(void)
{
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || dup2(fd, 0) < 0)
        return fail_errno("cannot open /dev/null for the container's stdin");
    close(fd);
    return 0;
}

/* The working directory, as podman enters it: the image's WORKDIR is
 * made if missing, a -w DIR the container lacks is refused. 0 or -1
 * (fail.h). */
static int enter_workdir(const struct container *c)
{
    const char *dir = c->workdir ? c->workdir : "/";
    if (!c->o->workdir && make_dirs(dir, 0755) < 0)
        return fail_errno("working directory %s", dir);
    if (chdir(dir) == 0)
        return 0;
    if (errno == ENOENT && c->o->workdir)
        return fail("workdir %s does not exist in the container", dir);
    return fail_errno("working directory %s", dir);
}

/* The working directory and the user, once inside the container; the
 * user's home into u->home (podman's choice for a user without a passwd
 * entry: the working directory). 0 or -1 (fail.h). */
static int become(const struct container *c, struct user *u)
{
    const char *dir = c->workdir ? c->workdir : "/";
    if (enter_workdir(c) < 0)
        return -1;
    if (user_resolve(c->user ? c->user : "0", u) < 0)
        return -1;
    if (!u->home[0])
        snprintf(u->home, sizeof u->home, "%s", dir);
    if (setgroups((size_t)u->ngroups, u->groups) < 0 || setgid(u->gid) < 0 ||
        setuid(u->uid) < 0)
        return fail_errno("user %s (%u:%u)", c->user ? c->user : "0",
                          (unsigned)u->uid, (unsigned)u->gid);
    return 0;
}

/* Last of the container's setup as the host's root: the pool's user
 * namespace (userns.h). Its terminal, opened by host root, becomes its
 * root's first, so that it is not nobody's inside. 0 or -1 (fail.h). */
static int enter_userns(struct container *c)
{
    close(c->userns_sync[0]);
    if (c->o->tty && fchown(0, c->userns_base, (gid_t)-1) < 0)
        return fail_errno("cannot give the terminal to the container's root");
    int rc = userns_enter(c->userns_sync[1]);
    close(c->userns_sync[1]);
    return rc;
}

/* The container's first process (pid 1 of its PID namespace). Reports a
 * failure to start on report_fd (close-on-exec: a successful exec closes
 * it with nothing written): exec's errno, or -1 and the message of a step
 * before it. */
static int container_main(void *arg)
{
    struct container *c = arg;
    int report_fd = (int)record_num(&c->rec, "report_fd", -1);
    char ipc[STATE_PATH_MAX], door[STATE_PATH_MAX];
    state_path(ipc, "pools/%s/ipc", c->o->pool);
    service_door_dir(c->o->pool, door, sizeof door);
    const int nfiles = c->o->bridge_network ? 2 : 0,
              nbinds = 2 + c->o->nvolumes + nfiles,
              nkernel = nbinds + 3 + NS_SCRATCH_DIRS;
    struct ns_bind binds[nbinds];
    /* Of the service's run directory only the door: its keeper's socket
     * and pid file stay the host's. */
    binds[0] = (struct ns_bind){door, RUNDIR_INSIDE, 1, NULL, 0, 0};
    binds[1] = (struct ns_bind){service_library(), LIBRARY_INSIDE, 1, NULL,
                                0, 0};
    for (int i = 0; i < c->o->nvolumes; i++)
        binds[2 + i] = c->o->volumes[i];
    /* On the bridge, its resolv.conf and hosts (dns.h). */
    char resolv[STATE_PATH_MAX], hosts[STATE_PATH_MAX];
    state_path(resolv, "containers/%s/resolv.conf", c->name);
    state_path(hosts, "containers/%s/hosts", c->name);
    if (nfiles) {
        binds[nbinds - 2] = (struct ns_bind){resolv, "/etc/resolv.conf", 0,
                                             NULL, 1, 0};
        binds[nbinds - 1] = (struct ns_bind){hosts, "/etc/hosts", 0, NULL, 1,
                                             0};
    }
    /* What the kernel keeps inside the container: whatever is mounted
     * over the Danaus root. Libdanaus serves the rest from the service. */
    const char *kernel[nkernel];
    kernel[0] = "/proc";
    kernel[1] = "/dev";
    kernel[2] = "/sys";
    char served[c->o->nvolumes + 1][2 * STATE_PATH_MAX];
    for (int i = 0; i < nbinds; i++) {
        const struct ns_bind *b = &binds[i];
        kernel[i + 3] = b->inside;
        if (b->volume) { /* wire.h DANAUS_DOOR_VIEW: "PATH=MOUNTPOINT" */
            snprintf(served[i - 2], sizeof served[0], "%s=%s", b->inside,
                     b->host);
            kernel[i + 3] = served[i - 2];
        }
    }
    int nkept = nbinds + 3;
    for (int i = 0; c->o->read_only && i < NS_SCRATCH_DIRS; i++)
        kernel[nkept++] = ns_scratch_dirs[i];
    int err = 0;
    const char *message = "";
    static struct user user; /* (large: not on the clone's stack) */
    /* Before anything in the container can connect: this process's new
     * mount namespace is what the service recognises its clients by. The
     * cgroup namespace comes after the groups are joined: the container
     * sees its own group as the root. */
    if (cgroup_container_enter(c->o->pool, c->name) < 0 ||
        unshare(CLONE_NEWCGROUP) < 0 || ns_ipc_enter(ipc) < 0 ||
        (!c->o->host_network && ns_network_up() < 0) ||
        (c->o->bridge_network && await_network(c) < 0) ||
        sethostname(c->name, strlen(c->name)) < 0 ||
        door_view(c->o->pool, c->root, kernel, nkept) < 0 ||
        ns_enter_root(c->root, binds, nbinds, c->o->read_only,
                      c->userns_base, c->idmap_userns) < 0 ||
        (c->o->tty ? tty_attach(&c->tty) < 0
                   : !c->o->interactive && stdin_null() < 0) ||
        (c->userns_base && enter_userns(c) < 0) || confine(c->o) < 0 ||
        become(c, &user) < 0) {
        err = -1;
        message = fail_message() ? fail_message() : "cannot start";
    } else {
        child_env(c, user.home);
        /* The container gets stdin, stdout and stderr, nothing else the
         * engine's caller had open (report_fd is close-on-exec already). */
        close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
        sigprocmask(SIG_SETMASK, &c->caller_mask, NULL);
        execvp(c->argv[0], c->argv);
        err = errno;
    }
    char report[sizeof err + REPORT_MESSAGE_MAX];
    memcpy(report, &err, sizeof err);
    int len = snprintf(report + sizeof err, REPORT_MESSAGE_MAX, "%s", message);
    len = len < REPORT_MESSAGE_MAX ? len : REPORT_MESSAGE_MAX - 1;
    if (write(report_fd, report, sizeof err + (size_t)len) < 0)
        _exit(126);
    _exit(err == ENOENT ? 127 : 126);
}

/* ---- the supervising process ---- */

static int exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Whether the pool's danausd serves the container's root: the one that
 * mounted it, or a successor that took its FUSE mounts over from the
 * keeper (fsservice/doors/fuse_keeper.h). A root whose service died with
 * no successor is a dead mount (ENOTCONN), or none at all. */
static int root_served(const char *name, const struct record *rec)
{
    struct record pool;
    if (query_pool(record_get(rec, "pool"), &pool) < 0) {
        fail_clear();
        return 0;
    }
    int alive = service_alive(&pool);
    record_free(&pool);
    char root[STATE_PATH_MAX], above[STATE_PATH_MAX];
    state_path(root, "containers/%s/root", name);
    state_path(above, "containers/%s", name);
    /* statfs first: the kernel always asks a FUSE mount's service for it,
     * where a stat may be answered from attributes it caches. */
    struct stat st, up;
    struct statfs sfs;
    return alive && statfs(root, &sfs) == 0 && stat(root, &st) == 0 &&
           stat(above, &up) == 0 && st.st_dev != up.st_dev;
}

/* Takes away the mounts of a container's volumes (the service's, or the
 * kernel's leftovers when the service is down). */
static void unmount_volumes(const char *pool, const char *name, int live)
{
    char kind[STATE_PATH_MAX], mp[STATE_PATH_MAX];
    snprintf(kind, sizeof kind, "containers/%s/volumes", name);
    int n;
    char **vs = state_list(kind, &n);
    for (int i = 0; i < n; i++) {
        state_path(mp, "containers/%s/volumes/%s", name, vs[i]);
        if (live)
            door_mount_remove(pool, mp);
        else
            umount2(mp, MNT_DETACH);
    }
    state_list_free(vs, n);
}

/* Unmakes a container: one that never ran, or one run with --rm. */
static void unmake(struct container *c)
{
    char dir[STATE_PATH_MAX];
    net_release(&c->rec);
    unmount_volumes(c->o->pool, c->name, 1);
    door_mount_remove(c->o->pool, c->root);
    store_branch_remove(c->o->pool, c->name);
    cgroup_container_remove(c->o->pool, c->name);
    state_path(dir, "containers/%s", c->name);
    remove_tree(dir);
}

/* Reloads the record (stop may have touched it), marks the exit, unmounts
 * the root; with --rm, removes the container. Holds the state lock
 * meanwhile. */
static void finish(struct container *c, int code)
{
    char path[STATE_PATH_MAX];
    state_lock();
    if (c->o->remove) {
        unmake(c);
        state_unlock();
        return;
    }
    query_container_path(c->name, path);
    struct record now;
    int served = 1;
    if (record_load(path, &now) == 0) {
        served = root_served(c->name, &now);
        net_release(&now);
        record_set(&now, "status", "exited");
        record_set(&now, "exit", "%d", code);
        record_set(&now, "finished_at", "%lld", (long long)time(NULL));
        record_save(path, &now);
        record_free(&now);
    }
    unmount_volumes(c->o->pool, c->name, served);
    if (served)
        door_mount_remove(c->o->pool, c->root);
    else
        umount2(c->root, MNT_DETACH); /* its danausd is gone */
    cgroup_container_remove(c->o->pool, c->name);
    state_unlock();
}

/* --network bridge: the container's eth0 on the bridge, then word to it
 * that it has one. 0 or -1 (fail.h). */
static int give_network(struct container *c, pid_t pid)
{
    int rc = net_attach(pid, &c->rec);
    if (rc == 0 && write(c->net_sync[1], "n", 1) != 1)
        rc = fail_errno("cannot tell the container its network is up");
    close(c->net_sync[1]);
    return rc;
}

/* What the engine gives the container from outside once it exists: its
 * network (--network bridge), then its user namespace's maps. 0 or -1
 * (fail.h). */
static int hand_over(struct container *c, pid_t pid)
{
    int rc = c->o->bridge_network ? give_network(c, pid) : 0;
    if (c->userns_base) {
        if (rc == 0)
            rc = userns_map_child(pid, c->userns_sync[0], c->userns_base);
        close(c->userns_sync[0]);
    }
    return rc;
}

/* Starts the container; returns its pid, or -1 (fail.h) with in *err
 * exec's errno in the child, -1 for a step before it, or 0 for a failure
 * here. */
static pid_t start(struct container *c, int *err)
{
    int p[2];
    *err = 0;
    if (c->o->tty && tty_open(&c->tty) < 0)
        return -1;
    if (pipe2(p, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    if (c->userns_base &&
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
                   c->userns_sync) < 0) {
        close(p[0]);
        close(p[1]);
        return fail_errno("socketpair");
    }
    if (c->o->bridge_network && pipe2(c->net_sync, O_CLOEXEC) < 0) {
        close(p[0]);
        close(p[1]);
        if (c->userns_base) {
            close(c->userns_sync[0]);
            close(c->userns_sync[1]);
        }
        return fail_errno("pipe");
    }
    record_set(&c->rec, "report_fd", "%d", p[1]);
    static char stack[256 * 1024] __attribute__((aligned(16)));
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS |
                (c->o->host_network ? 0 : CLONE_NEWNET);
    pid_t pid = clone(container_main, stack + sizeof stack, flags | SIGCHLD,
                      c);
    close(p[1]);
    if (c->o->tty)
        close(c->tty.sock[1]);
    if (c->userns_base)
        close(c->userns_sync[1]);
    if (c->o->bridge_network)
        close(c->net_sync[0]);
    if (pid < 0) {
        close(p[0]);
        if (c->userns_base)
            close(c->userns_sync[0]);
        if (c->o->bridge_network)
            close(c->net_sync[1]);
        return fail_errno("cannot create the container's namespaces");
    }
    if (hand_over(c, pid) < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(p[0]);
        return -1;
    }
    char report[sizeof *err + REPORT_MESSAGE_MAX] = "";
    ssize_t n = read(p[0], report, sizeof report - 1);
    close(p[0]);
    if (n < (ssize_t)sizeof *err)
        return pid;
    waitpid(pid, NULL, 0);
    memcpy(err, report, sizeof *err);
    if (*err < 0)
        return fail("%s", report + sizeof *err);
    return fail("%s: %s", c->argv[0], strerror(*err));
}

/* Each -v VOLUME:DIR gets an instance of the volume's directory in the
 * pool's backend, mounted through the FUSE door under the container's
 * state directory: the container binds that mount at DIR, and its view
 * (container_main) gives the preload the instance there. 0 or -1. */
static int mount_volumes(const char *pool_name, const struct record *pool,
                         const char *name, struct ns_bind *volumes, int n)
{
    char dir[STATE_PATH_MAX], mp[STATE_PATH_MAX];
    for (int i = 0; i < n; i++) {
        struct ns_bind *b = &volumes[i];
        if (!b->volume)
            continue;
        snprintf(dir, sizeof dir, "%.3000s/volumes/%s",
                 record_get(pool, "backend_dir"), b->volume);
        state_path(mp, "containers/%s/volumes/%d", name, i);
        if (store_volume_create(pool_name, b->volume) < 0)
            return -1;
        if (make_dirs(mp, 0700) < 0)
            return fail_errno("cannot create %s", mp);
        if (door_mount_add(pool_name, mp, record_get(pool, "backend_kind"),
                           dir, "",
                           b->readonly ? DOOR_MOUNT_RO : DOOR_MOUNT_RW) < 0 ||
            !(b->host = strdup(mp)))
            return -1;
    }
    return 0;
}

/* The container's root: a union of its writable branch in the pool's
 * backend over the layers, mounted by the pool's danausd at
 * containers/NAME/root. 0 or -1 (fail.h). */
static int mount_root(const char *pool_name, const struct record *pool,
                      const char *name, const struct layer_list *layers,
                      enum door_mount_mode mode)
{
    const char *backend = record_get(pool, "backend_dir");
    char root[STATE_PATH_MAX], writable[STATE_PATH_MAX], lower[8192] = "";
    state_path(root, "containers/%s/root", name);
    snprintf(writable, sizeof writable, "%.3000s/containers/%s", backend,
             name);
    for (int i = layers->n - 1; i >= 0; i--)
        snprintf(lower + strlen(lower), sizeof lower - strlen(lower),
                 "%s%.3000s/layers/%s", i == layers->n - 1 ? "" : ":",
                 backend, layers->hex[i]);
    return door_mount_add(pool_name, root, record_get(pool, "backend_kind"),
                          writable, lower, mode);
}

/* What inspect shows of the run's configuration (runinfo.h). */
static int save_runinfo(const struct container *c, const struct record *pool)
{
    struct env e = {0};
    command_env(c, &e);
    const struct runinfo r = {e.list, c->argv, c->user, c->workdir,
                              c->o->volumes, c->o->nvolumes,
                              record_get(pool, "backend_dir")};
    int rc = runinfo_save(c->name, &r);
    env_free(&e);
    return rc;
}

static int prepare(struct container *c, struct record *pool)
{
    const struct run_options *o = c->o;
    if (store_publish(o->pool, &c->layers,
                      record_get(pool, "nosuid") != NULL) < 0)
        return -1;
    char dir[STATE_PATH_MAX];
    state_path(dir, "containers/%s", c->name);
    if (mkdir(dir, 0700) < 0 && !(o->again && errno == EEXIST))
        return errno == EEXIST ? fail("container name '%s' is taken", c->name)
                               : fail_errno("cannot create %s", dir);
    if (o->again && query_container(c->name, &c->rec) < 0)
        return -1;
    record_set(&c->rec, "pool", "%s", o->pool);
    record_set(&c->rec, "image", "%s", o->image);
    record_set(&c->rec, "status", "created");
    char cmd[1024] = "";
    for (int i = 0; c->argv[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s%s",
                 i ? " " : "", c->argv[i]);
    record_set(&c->rec, "command", "%s", cmd);
    record_set(&c->rec, "detached", "%d", o->detach);
    record_set(&c->rec, "read_only", "%d", o->read_only);
    record_set(&c->rec, "network", "%s",
               o->host_network     ? "host"
               : o->bridge_network ? "bridge"
                                   : "none");
    record_set(&c->rec, "no_new_privileges", "%d", !o->new_privileges);
    record_set(&c->rec, "pids_limit", "%ld", o->pids_limit);
    record_set(&c->rec, "userns_base", "%u", c->userns_base);
    if (!o->again)
        record_set(&c->rec, "created", "%lld", (long long)time(NULL));
    /* The danausd that serves its root: one restarted since does not. */
    if (save_choosing_address(c) < 0 || save_runinfo(c, pool) < 0 ||
        (o->bridge_network &&
         dns_write(dir, c->name, &c->rec, c->userns_base) < 0))
        return -1;
    if (cgroup_container_create(o->pool, c->name, o->pids_limit) < 0 ||
        (!o->again && store_branch_create(o->pool, c->name) < 0) ||
        mount_root(o->pool, pool, c->name, &c->layers,
                   o->read_only ? DOOR_MOUNT_RO
                   : o->remove  ? DOOR_MOUNT_VOLATILE
                                : DOOR_MOUNT_RW) < 0)
        return -1;
    return mount_volumes(o->pool, pool, c->name, o->volumes, o->nvolumes);
}

int container_mount_root(const char *name, const struct record *rec,
                         struct ns_bind *volumes, int n)
{
    const char *pool_name = record_get(rec, "pool");
    struct record pool, image;
    static struct layer_list layers; /* (large) */
    if (query_pool(pool_name, &pool) < 0)
        return -1;
    int rc = !service_alive(&pool)
                 ? fail("pool %s: danausd does not run", pool_name)
             : query_image(record_get(rec, "image"), &image) < 0 ? -1
                                                                 : 0;
    if (rc == 0) {
        rc = layer_list_of(&image, record_get(rec, "image"), &layers);
        record_free(&image);
    }
    if (rc == 0) {
        container_unmount_root(name, rec); /* what a killed cp left */
        rc = store_publish(pool_name, &layers,
                           record_get(&pool, "nosuid") != NULL) < 0 ||
                     mount_root(pool_name, &pool, name, &layers,
                                record_num(rec, "read_only", 0)
                                    ? DOOR_MOUNT_RO
                                    : DOOR_MOUNT_RW) < 0 ||
                     mount_volumes(pool_name, &pool, name, volumes, n) < 0
                 ? -1
                 : 0;
    }
    record_free(&pool);
    return rc;
}

void container_unmount_root(const char *name, const struct record *rec)
{
    char root[STATE_PATH_MAX];
    state_path(root, "containers/%s/root", name);
    char *saved = fail_message() ? strdup(fail_message()) : NULL;
    unmount_volumes(record_get(rec, "pool"), name, 1);
    door_mount_remove(record_get(rec, "pool"), root);
    fail_clear();
    if (saved)
        fail("%s", saved);
    free(saved);
}

/* The signals a foreground run passes to the container's pid 1, as docker
 * run's --sig-proxy does; a pid 1 that takes no action on them (the PID
 * namespace's init ignores what it does not handle) is killed after the
 * grace period, so the engine never leaves its container running. */
static const int proxied_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
static volatile sig_atomic_t proxy_target; /* pid 1, 0 once it has ended */
static volatile sig_atomic_t proxy_forwarded;

static void forward_signal(int sig)
{
    if (!proxy_target)
        return;
    kill(proxy_target, sig);
    if (!proxy_forwarded++)
        alarm(STOP_GRACE_S);
}

static void kill_after_grace(int sig)
{
    (void)sig;
    if (proxy_target)
        kill(proxy_target, SIGKILL);
}

/* The proxied signals and SIGALRM in set. */
static void proxy_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGALRM);
    for (size_t i = 0; i < sizeof proxied_signals / sizeof *proxied_signals;
         i++)
        sigaddset(set, proxied_signals[i]);
}

/* Waits for pid 1 to end; a foreground run meanwhile forwards signals.
 * The proxied signals were blocked since before the container was made,
 * so none is lost, nor taken by the engine's default action. */
static int wait_container(struct container *c, pid_t pid, int proxy)
{
    sigset_t set;
    proxy_set(&set);
    if (proxy) {
        struct sigaction sa = {.sa_handler = forward_signal};
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0;
             i < sizeof proxied_signals / sizeof *proxied_signals; i++)
            sigaction(proxied_signals[i], &sa, NULL);
        sa.sa_handler = kill_after_grace;
        sigaction(SIGALRM, &sa, NULL);
        proxy_target = pid;
    }
    sigprocmask(SIG_SETMASK, &c->caller_mask, NULL);
    if (c->o->tty)
        tty_relay(&c->tty, c->o->interactive);
    /* Not reaped until the proxy is off: its pid cannot be reused then. */
    siginfo_t info;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 &&
           errno == EINTR)
        ;
    sigprocmask(SIG_BLOCK, &set, NULL);
    alarm(0);
    proxy_target = 0;
    sigprocmask(SIG_SETMASK, &c->caller_mask, NULL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return exit_code(status);
}

/* Starts and waits: the foreground engine, or the detached monitor (which
 * tells the engine how the start went on tell_fd). */
static int supervise(struct container *c, int tell_fd)
{
    int err;
    sigset_t set;
    proxy_set(&set);
    sigprocmask(SIG_BLOCK, &set, &c->caller_mask);
    pid_t pid = start(c, &err);
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &c->caller_mask, NULL);
        int code = err == ENOENT ? 127 : err ? 126 : 125;
        if (tell_fd >= 0) {
            dprintf(tell_fd, "%d %s\n", code, fail_message());
            close(tell_fd);
        }
        return code;
    }
    record_set(&c->rec, "pid", "%d", (int)pid);
    record_set(&c->rec, "start", "%llu", process_start_time(pid));
    record_set(&c->rec, "status", "running");
    record_set(&c->rec, "started_at", "%lld", (long long)time(NULL));
    save(c);
    if (tell_fd >= 0) {
        dprintf(tell_fd, "0 started\n");
        close(tell_fd);
    }
    state_unlock();
    int code = wait_container(c, pid, tell_fd < 0);
    finish(c, code);
    return code;
}

/* -d: a monitor in its own session supervises; its output is the log. */
static int run_detached(struct container *c)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    char log[STATE_PATH_MAX];
    state_path(log, "containers/%s/log", c->name);
    pid_t monitor = fork();
    if (monitor < 0)
        return fail_errno("fork");
    if (monitor == 0) {
        close(p[0]);
        setsid();
        int null = open("/dev/null", O_RDONLY);
        int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        dup2(null, 0);
        dup2(out, 1);
        dup2(out, 2);
        signal(SIGHUP, SIG_IGN);
        _exit(supervise(c, p[1]));
    }
    close(p[1]);
    char reply[1200] = "";
    ssize_t n = read(p[0], reply, sizeof reply - 1);
    close(p[0]);
    int code = n > 0 ? atoi(reply) : 125;
    if (code != 0) {
        char *msg = strchr(reply, ' ');
        if (msg)
            msg[strcspn(msg, "\n")] = '\0';
        waitpid(monitor, NULL, 0);
        fail("%s", msg ? msg + 1 : "the container's monitor died");
        return code;
    }
    printf("%s\n", c->name);
    return 0;
}

static int count(char *const *list)
{
    int n = 0;
    while (list && list[n])
        n++;
    return n;
}

/* The image's record, read once: its layers, and what the
 * command is, where and as whom it runs: run's options over the image's
 * settings, as docker's are: --entrypoint replaces ENTRYPOINT and
 * drops CMD ("" for none), a command given replaces CMD. 0 or -1. */
static int settle(struct container *c)
{
    const struct run_options *o = c->o;
    struct record image;
    if (query_image(o->image, &image) < 0)
        return -1;
    image_config_load(&image, &c->image);
    int rc = layer_list_of(&image, o->image, &c->layers);
    record_free(&image);
    if (rc < 0)
        return -1;
    char *given[] = {(char *)o->entrypoint, NULL};
    char *const *entry = !o->entrypoint     ? c->image.entrypoint
                         : o->entrypoint[0] ? given
                                            : NULL;
    char *const *cmd = o->argv[0]       ? o->argv
                       : o->entrypoint ? NULL
                                       : c->image.cmd;
    int ne = count(entry), nc = count(cmd);
    if (ne + nc == 0)
        return fail("no command given: image '%s' has no ENTRYPOINT or CMD "
                    "(danaus run ... -- CMD [ARGS...])", o->image);
    c->argv = calloc((size_t)(ne + nc + 1), sizeof *c->argv);
    if (!c->argv)
        return fail_errno("calloc");
    memcpy(c->argv, entry, (size_t)ne * sizeof *c->argv);
    memcpy(c->argv + ne, cmd, (size_t)nc * sizeof *c->argv);
    c->workdir = o->workdir ? o->workdir : c->image.workdir;
    c->user = o->user ? o->user : c->image.user;
    return 0;
}

/* -v ...:idmap: the user namespace the binds are mapped to, made here in
 * the host's PID namespace, where its process's pid is /proc's. 0 or -1
 * (fail.h). */
static int idmap_userns(struct container *c)
{
    for (int i = 0; i < c->o->nvolumes; i++)
        if (c->o->volumes[i].idmap && !c->userns_base)
            return fail("-v %s:%s:idmap: pool %s shares the host's ids "
                        "(--userns=host): nothing to map to",
                        c->o->volumes[i].host, c->o->volumes[i].inside,
                        c->o->pool);
        else if (c->o->volumes[i].idmap && c->idmap_userns < 0 &&
                 (c->idmap_userns = userns_open_mapped(c->userns_base)) < 0)
            return -1;
    return 0;
}

int container_run(const struct run_options *o)
{
    struct container c = {.o = o, .idmap_userns = -1};
    struct record pool;
    if (query_pool(o->pool, &pool) < 0)
        return 125;
    c.userns_base = userns_base(&pool);
    if (userns_check(o->pool, c.userns_base) < 0)
        return record_free(&pool), 125;
    if (o->name) {
        if (state_check_name("container", o->name) < 0)
            return 125;
        snprintf(c.name, sizeof c.name, "%s", o->name);
    } else {
        unsigned char r[4];
        if (getrandom(r, sizeof r, 0) != sizeof r)
            return fail_errno("getrandom"), 125;
        snprintf(c.name, sizeof c.name, "c-%02x%02x%02x%02x", r[0], r[1], r[2],
                 r[3]);
    }
    state_path(c.root, "containers/%s/root", c.name);
    char dir[STATE_PATH_MAX];
    state_path(dir, "containers/%s", c.name);
    int existed = access(dir, F_OK) == 0;
    if (existed && !o->again) {
        record_free(&pool);
        fail("container name '%s' is taken", c.name);
        return 125;
    }
    if (settle(&c) < 0 || idmap_userns(&c) < 0) {
        if (c.idmap_userns >= 0)
            close(c.idmap_userns);
        free(c.argv);
        image_config_free(&c.image);
        record_free(&pool);
        return 125;
    }
    int code = 125;
    if (prepare(&c, &pool) == 0)
        code = o->detach ? run_detached(&c) : supervise(&c, -1);
    /* A container that never ran leaves nothing behind; one started
     * again is left ended. */
    if (fail_message() && o->again)
        finish(&c, code);
    else if (fail_message() && !record_get(&c.rec, "pid")) {
        char *saved = strdup(fail_message());
        unmake(&c);
        fail_clear();
        fail("%s", saved);
        free(saved);
    }
    if (c.idmap_userns >= 0)
        close(c.idmap_userns);
    free(c.argv);
    image_config_free(&c.image);
    record_free(&c.rec);
    record_free(&pool);
    return code;
}

/* ---- ps, stop, rm, logs ---- */

static int running(const struct record *rec)
{
    const char *s = record_get(rec, "status");
    return s && strcmp(s, "running") == 0 && service_alive(rec);
}

int container_list(int all, int quiet, const char *format)
{
    if (format && format_check(format) < 0)
        return -1;
    int n;
    char **cs = state_list("containers", &n);
    if (!quiet && !format)
        printf("%-16s %-12s %-12s %-12s %-8s %s\n", "CONTAINER", "POOL",
               "IMAGE", "STATUS", "PID", "COMMAND");
    for (int i = 0; i < n; i++) {
        struct record rec;
        char path[STATE_PATH_MAX], status[32];
        query_container_path(cs[i], path);
        if (record_load(path, &rec) < 0)
            continue;
        int up = running(&rec);
        if (up)
            snprintf(status, sizeof status, "%s",
                     root_served(cs[i], &rec) ? "running" : "root-lost");
        else
            snprintf(status, sizeof status, "exited(%lld)",
                     record_num(&rec, "exit", -1));
        struct ps_row row = {
            .name = cs[i], .pool = record_get(&rec, "pool"),
            .image = record_get(&rec, "image"), .status = status,
            .command = record_get(&rec, "command"),
            .pid = up ? record_num(&rec, "pid", 0) : 0,
            .read_only = (int)record_num(&rec, "read_only", 0)};
        if ((up || all) && quiet)
            printf("%s\n", row.name);
        else if ((up || all) && format)
            format_print(format, &row);
        else if (up || all)
            printf("%-16s %-12s %-12s %-12s %-8lld %s\n", row.name, row.pool,
                   row.image, row.status, row.pid, row.command);
        record_free(&rec);
    }
    state_list_free(cs, n);
    return 0;
}

/* SIGTERM to the container's pid 1 (which ignores it unless it handles
 * it: PID namespaces' init rule), SIGKILL after the grace period; killing
 * pid 1 ends every process of its namespace. */
/* Whether the container's record at path says it is still running: 1,
 * 0 (its supervisor recorded the end), or -1 (no record). */
static int recorded_running(const char *path)
{
    struct record now;
    if (record_load(path, &now) < 0)
        return -1;
    int up = strcmp(record_get(&now, "status"), "running") == 0;
    record_free(&now);
    return up;
}

static void kill_container(const char *name, struct record *rec,
                           unsigned grace_s)
{
    pid_t pid = (pid_t)record_num(rec, "pid", 0);
    kill(pid, SIGTERM);
    for (unsigned i = 0; i < grace_s * 20 && service_alive(rec); i++)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    if (service_alive(rec))
        kill(pid, SIGKILL);
    /* The supervisor records the exit; wait for it (without our lock). */
    char path[STATE_PATH_MAX];
    query_container_path(name, path);
    state_unlock();
    for (int i = 0; i < 200 && recorded_running(path) != 0; i++)
        nanosleep(&(struct timespec){0, 25000000}, NULL);
    state_lock();
}

int container_stop(const char *name, int grace_s)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    if (running(&rec))
        kill_container(name, &rec,
                       grace_s < 0 ? STOP_GRACE_S : (unsigned)grace_s);
    record_free(&rec);
    return 0;
}

int container_kill(const char *name, int sig)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    int rc = 0;
    if (!running(&rec))
        rc = fail("container '%s' is not running", name);
    else if (kill((pid_t)record_num(&rec, "pid", 0), sig) < 0)
        rc = fail_errno("cannot signal container '%s'", name);
    record_free(&rec);
    return rc;
}

int container_wait(const char *name)
{
    char path[STATE_PATH_MAX];
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    record_free(&rec);
    query_container_path(name, path);
    /* Without the state lock, so that stop and rm go on meanwhile. */
    state_unlock();
    long long code = -1;
    /* Its pid 1 ends before its monitor records the exit (under the
     * state lock): the record is watched until it says so, or for
     * WAIT_RECORD_POLLS more polls when no monitor is left to say it. */
    for (int after_end = 0; after_end <= WAIT_RECORD_POLLS;) {
        if (record_load(path, &rec) < 0)
            break; /* removed: its exit is gone with it */
        const char *status = record_get(&rec, "status");
        int recorded = !status || strcmp(status, "running") != 0;
        after_end += !running(&rec);
        code = record_num(&rec, "exit", -1);
        record_free(&rec);
        if (recorded)
            break;
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    state_lock();
    printf("%lld\n", code);
    return 0;
}

int container_remove(const char *name, int force)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    if (!running(&rec) && cp_check_idle(name) < 0)
        return record_free(&rec), -1;
    if (running(&rec)) {
        if (!force) {
            record_free(&rec);
            return fail("container '%s' is running (stop it, or rm -f)",
                        name);
        }
        kill_container(name, &rec, STOP_GRACE_S);
        /* Read again: its monitor, or another run meanwhile, may have
         * taken its published ports' rules away (net_release). */
        record_free(&rec);
        if (query_container(name, &rec) < 0)
            return -1;
    }
    const char *pool = record_get(&rec, "pool");
    char root[STATE_PATH_MAX], dir[STATE_PATH_MAX];
    state_path(root, "containers/%s/root", name);
    state_path(dir, "containers/%s", name);
    struct record prec;
    int live = query_pool(pool, &prec) == 0 && service_alive(&prec);
    record_free(&prec);
    fail_clear();
    int served = live && root_served(name, &rec);
    int rc;
    if (served) {
        /* A supervisor killed with its container leaves the root mounted. */
        unmount_volumes(pool, name, 1);
        rc = door_mount_remove(pool, root) < 0 ||
                     store_branch_remove(pool, name) < 0
                 ? -1
                 : 0;
    } else if (live) {
        /* Its root died with an earlier danausd: the dead door's mounts
         * go, the running one removes the branch. */
        unmount_volumes(pool, name, 0);
        umount2(root, MNT_DETACH);
        rc = store_branch_remove(pool, name) < 0 ? -1 : 0;
    } else {
        /* Without its service the pool's backend cannot be reached: the
         * dead door's mount goes, the branch is removed when the service
         * is back (store_sweep). */
        unmount_volumes(pool, name, 0);
        umount2(root, MNT_DETACH);
        rc = store_branch_defer(pool, name);
        if (rc == 0)
            fprintf(stderr, "danaus: pool %s: danausd is down; the writable "
                            "branch of '%s' is removed when it is back\n",
                    pool, name);
    }
    cgroup_container_remove(pool, name);
    net_release(&rec);
    if (rc == 0 && remove_tree(dir) < 0)
        rc = fail_errno("cannot remove %s", dir);
    record_free(&rec);
    return rc;
}

/* Where the last tail lines of f begin (0: the whole file). */
static long tail_start(FILE *f, long tail)
{
    long lines = 0, at = 0, pos = 0;
    /* Offsets of the last tail + 1 line starts, in a ring. */
    long *starts = calloc((size_t)tail + 1, sizeof *starts);
    if (!starts)
        return 0;
    int ch, fresh = 1;
    while ((ch = getc(f)) != EOF) {
        if (fresh)
            starts[lines++ % (tail + 1)] = pos;
        fresh = ch == '\n';
        pos++;
    }
    if (lines > tail)
        at = starts[(lines - tail) % (tail + 1)];
    free(starts);
    return at;
}

/* Copies what f holds from where it is to stdout; whether any. */
static int copy_out(FILE *f)
{
    char buf[8192];
    size_t n;
    int any = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        fwrite(buf, 1, n, stdout);
        any = 1;
    }
    clearerr(f);
    fflush(stdout);
    return any;
}

int container_logs(const char *name, int follow, long tail)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    int detached = (int)record_num(&rec, "detached", 0);
    record_free(&rec);
    if (!detached)
        return fail("container '%s' ran in the foreground: its output went "
                    "to the terminal", name);
    char log[STATE_PATH_MAX], path[STATE_PATH_MAX];
    state_path(log, "containers/%s/log", name);
    query_container_path(name, path);
    FILE *f = fopen(log, "re");
    if (!f)
        return 0;
    if (tail >= 0 && fseek(f, tail ? tail_start(f, tail) : 0,
                           tail ? SEEK_SET : SEEK_END) < 0) {
        fclose(f);
        return fail_errno("cannot read %s", log);
    }
    copy_out(f);
    /* -f: on until the container has ended and its last words are out;
     * the state lock is not held meanwhile, so others may stop it. */
    state_unlock();
    while (follow) {
        int ended = recorded_running(path) != 1;
        if (!copy_out(f) && ended)
            break;
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    state_lock();
    fclose(f);
    return 0;
}

/* ---- exec ---- */

/* Joins the groups and namespaces of the container's pid 1, all opened
 * before any is joined (the mount namespace brings the container's
 * /proc); the PID namespace applies to children. Its user namespace
 * (with a pool's, userns.h) is left open at *user, to be joined last, by
 * the child: joining it gives up the host's rights the others need. */
static int join_container(pid_t pid, const char *pool, const char *name,
                          int *user)
{
    char own[64];
    snprintf(own, sizeof own, "/proc/%d/ns/user", (int)pid);
    if (user && (*user = open(own, O_RDONLY | O_CLOEXEC)) < 0)
        return fail_errno("cannot open the container's user namespace");
    static const char *const kinds[] = {"ipc", "uts",    "net",
                                        "pid", "cgroup", "mnt"};
    enum { N = sizeof kinds / sizeof kinds[0] };
    int fds[N], rc = cgroup_container_enter(pool, name);
    for (int i = 0; i < N; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, kinds[i]);
        fds[i] = open(path, O_RDONLY | O_CLOEXEC);
    }
    for (int i = 0; i < N && rc == 0; i++)
        if (fds[i] < 0 || setns(fds[i], 0) < 0)
            rc = fail_errno("cannot join the container's %s namespace",
                            kinds[i]);
    for (int i = 0; i < N; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return rc;
}

int container_exec(const char *name, const struct run_options *x,
                   char **argv)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return 125;
    int up = running(&rec);
    const struct run_options o = {
        .pool = record_get(&rec, "pool"),
        .new_privileges = !record_num(&rec, "no_new_privileges", 1),
        .env = x->env, .nenv = x->nenv, .workdir = x->workdir,
        .user = x->user, .tty = x->tty, .interactive = x->interactive};
    struct container c = {.o = &o, .workdir = o.workdir, .user = o.user};
    snprintf(c.name, sizeof c.name, "%s", name);
    pid_t pid = (pid_t)record_num(&rec, "pid", 0);
    uid_t base = (uid_t)record_num(&rec, "userns_base", 0);
    int user = -1;
    if (!up || (o.tty && tty_open(&c.tty) < 0) ||
        join_container(pid, o.pool, name, base ? &user : NULL) < 0) {
        if (user >= 0)
            close(user);
        if (!up)
            fail("container '%s' is not running", name);
        record_free(&rec);
        return 125;
    }
    state_unlock();
    pid_t child = fork();
    if (child == 0) {
        static struct user u; /* (large) */
        /* As run's first process does, in the same order (container_main):
         * the terminal, then the user namespace, confinement, the user. */
        if ((o.tty ? tty_attach(&c.tty) < 0
                   : !o.interactive && stdin_null() < 0) ||
            (o.tty && base && fchown(0, base, (gid_t)-1) < 0) ||
            (user >= 0 && userns_join(user) < 0) || confine(&o) < 0 ||
            become(&c, &u) < 0) {
            dprintf(2, "danaus: %s\n", fail_message());
            _exit(126);
        }
        child_env(&c, u.home);
        close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
        execvp(argv[0], argv);
        dprintf(2, "danaus: %s: %s\n", argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    record_free(&rec);
    if (user >= 0)
        close(user);
    if (child < 0)
        return fail_errno("fork"), 125;
    if (o.tty) {
        close(c.tty.sock[1]);
        tty_relay(&c.tty, o.interactive);
    }
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    return exit_code(status);
}
