/*
 * container.c - run, ps, stop, rm, logs (container.h).
 *
 * run: the pool's danausd mounts a new union instance for the container
 * (the image's layers below, a private writable branch in the backend on
 * top) through its FUSE door at containers/NAME/root; a child in new
 * mount, PID and UTS namespaces joins the pool's cgroup and IPC namespace,
 * pivots into that root and execs the command with libdanaus.so preloaded;
 * before that it asks danausd to show programs of its mount namespace the
 * root instance at "/" (the view), so they reach it over shared memory.
 * The process that waits for it (the engine itself in the foreground, a
 * detached monitor with -d) records its exit and unmounts the root; rm
 * removes the writable branch.
 */
#include "container.h"
#include "cgroup.h"
#include "door_client.h"
#include "fail.h"
#include "helper.h"
#include "ns.h"
#include "query.h"
#include "record.h"
#include "service.h"
#include "state.h"
#include "store.h"

#include <errno.h>
#include <linux/close_range.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_S 5
#define LIBRARY_INSIDE "/usr/lib/danaus/libdanaus.so"
#define RUNDIR_INSIDE "/run/danaus"

struct container {
    const struct run_options *o;
    char name[NAME_MAX_LEN + 1];
    char root[STATE_PATH_MAX];
    struct record rec;
};

static int save(struct container *c)
{
    char path[STATE_PATH_MAX];
    query_container_path(c->name, path);
    return record_save(path, &c->rec) < 0 ? fail_errno("cannot save %s", path)
                                          : 0;
}

/* ---- inside the new namespaces ---- */

static void child_env(const struct container *c)
{
    const char *term = getenv("TERM");
    clearenv();
    setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
                   "/sbin:/bin", 1);
    setenv("HOME", "/root", 1);
    setenv("HOSTNAME", c->name, 1);
    if (term)
        setenv("TERM", term, 1);
    setenv("LD_PRELOAD", LIBRARY_INSIDE, 1);
    setenv("DANAUS_SERVICE", c->o->pool, 1);
    setenv("DANAUS_RUNDIR", RUNDIR_INSIDE, 1);
    for (int i = 0; i < c->o->nenv; i++)
        putenv(c->o->env[i]);
}

/* The container's first process (pid 1 of its PID namespace). Reports a
 * failure to start as errno on report_fd (close-on-exec: a successful exec
 * closes it with nothing written). */
static int container_main(void *arg)
{
    struct container *c = arg;
    int report_fd = (int)record_num(&c->rec, "report_fd", -1);
    char ipc[STATE_PATH_MAX], run[STATE_PATH_MAX];
    state_path(ipc, "pools/%s/ipc", c->o->pool);
    state_path(run, "pools/%s/run", c->o->pool);
    const struct ns_bind binds[] = {
        {run, RUNDIR_INSIDE, 0},
        {service_library(), LIBRARY_INSIDE, 1},
    };
    /* What the kernel keeps inside the container: whatever is mounted
     * over the Danaus root. Libdanaus serves the rest from the service. */
    enum { NBINDS = sizeof binds / sizeof binds[0], NKERNEL = NBINDS + 2 };
    const char *kernel[NKERNEL] = {"/proc", "/dev"};
    for (int i = 0; i < NBINDS; i++)
        kernel[i + 2] = binds[i].inside;
    int err = 0;
    /* Before anything in the container can connect: this process's new
     * mount namespace is what the service recognises its clients by. */
    if (cgroup_enter(c->o->pool) < 0 || ns_ipc_enter(ipc) < 0 ||
        sethostname(c->name, strlen(c->name)) < 0 ||
        door_view(c->o->pool, c->root, kernel, NKERNEL) < 0 ||
        ns_enter_root(c->root, binds, NBINDS) < 0) {
        err = errno ? errno : EINVAL;
        dprintf(2, "danaus: %s\n", fail_message() ? fail_message()
                                                  : strerror(err));
    } else {
        child_env(c);
        /* The container gets stdin, stdout and stderr, nothing else the
         * engine's caller had open (report_fd is close-on-exec already). */
        close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
        execvp(c->o->argv[0], c->o->argv);
        err = errno;
    }
    if (write(report_fd, &err, sizeof err) < 0)
        _exit(126);
    _exit(err == ENOENT ? 127 : 126);
}

/* ---- the supervising process ---- */

static int exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Unmakes a container: one that never ran, or one run with --rm. */
static void unmake(struct container *c)
{
    char dir[STATE_PATH_MAX];
    door_mount_remove(c->o->pool, c->root);
    store_branch_remove(c->o->pool, c->name);
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
    if (record_load(path, &now) == 0) {
        record_set(&now, "status", "exited");
        record_set(&now, "exit", "%d", code);
        record_save(path, &now);
        record_free(&now);
    }
    door_mount_remove(c->o->pool, c->root);
    state_unlock();
}

/* Starts the container; returns its pid, or -1 with errno from the child
 * in *err (0: failed here, message in fail.h). */
static pid_t start(struct container *c, int *err)
{
    int p[2];
    *err = 0;
    if (pipe2(p, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    record_set(&c->rec, "report_fd", "%d", p[1]);
    static char stack[256 * 1024] __attribute__((aligned(16)));
    pid_t pid = clone(container_main, stack + sizeof stack,
                      CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | SIGCHLD, c);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return fail_errno("cannot create the container's namespaces");
    }
    ssize_t n = read(p[0], err, sizeof *err);
    close(p[0]);
    if (n == sizeof *err) {
        waitpid(pid, NULL, 0);
        return -1;
    }
    *err = 0;
    return pid;
}

static int prepare(struct container *c, struct record *pool)
{
    const struct run_options *o = c->o;
    int layers = query_image_layers(o->image);
    if (layers < 0 || store_publish(o->pool, o->image, layers) < 0)
        return -1;
    char dir[STATE_PATH_MAX], writable[STATE_PATH_MAX];
    state_path(dir, "containers/%s", c->name);
    if (mkdir(dir, 0700) < 0)
        return errno == EEXIST ? fail("container name '%s' is taken", c->name)
                               : fail_errno("cannot create %s", dir);
    record_set(&c->rec, "pool", "%s", o->pool);
    record_set(&c->rec, "image", "%s", o->image);
    record_set(&c->rec, "status", "created");
    char cmd[1024] = "";
    for (int i = 0; o->argv[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s%s",
                 i ? " " : "", o->argv[i]);
    record_set(&c->rec, "command", "%s", cmd);
    record_set(&c->rec, "detached", "%d", o->detach);
    if (save(c) < 0)
        return -1;
    const char *backend = record_get(pool, "backend_dir");
    snprintf(writable, sizeof writable, "%.3000s/containers/%s", backend,
             c->name);
    char lower[8192] = "";
    for (int i = layers - 1; i >= 0; i--)
        snprintf(lower + strlen(lower), sizeof lower - strlen(lower),
                 "%s%.3000s/images/%s/%d", i == layers - 1 ? "" : ":",
                 backend, o->image, i);
    if (store_branch_create(o->pool, c->name) < 0 ||
        door_mount_add(o->pool, c->root, record_get(pool, "backend_kind"),
                       writable, lower) < 0)
        return -1;
    return 0;
}

/* Starts and waits: the foreground engine, or the detached monitor (which
 * tells the engine how the start went on tell_fd). */
static int supervise(struct container *c, int tell_fd)
{
    int err;
    pid_t pid = start(c, &err);
    if (pid < 0) {
        if (err)
            fail("%s: %s", c->o->argv[0], strerror(err));
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
    save(c);
    if (tell_fd >= 0) {
        dprintf(tell_fd, "0 started\n");
        close(tell_fd);
    }
    state_unlock();
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    finish(c, exit_code(status));
    return exit_code(status);
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

int container_run(const struct run_options *o)
{
    struct container c = {.o = o};
    struct record pool;
    if (query_pool(o->pool, &pool) < 0)
        return 125;
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
    if (existed) {
        record_free(&pool);
        fail("container name '%s' is taken", c.name);
        return 125;
    }
    int code = 125;
    if (prepare(&c, &pool) == 0)
        code = o->detach ? run_detached(&c) : supervise(&c, -1);
    /* A container that never ran leaves nothing behind. */
    if (fail_message() && !record_get(&c.rec, "pid")) {
        char *saved = strdup(fail_message());
        unmake(&c);
        fail_clear();
        fail("%s", saved);
        free(saved);
    }
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

int container_list(int all)
{
    int n;
    char **cs = state_list("containers", &n);
    printf("%-16s %-12s %-12s %-12s %-8s %s\n", "CONTAINER", "POOL", "IMAGE",
           "STATUS", "PID", "COMMAND");
    for (int i = 0; i < n; i++) {
        struct record rec;
        char path[STATE_PATH_MAX], status[32];
        query_container_path(cs[i], path);
        if (record_load(path, &rec) < 0)
            continue;
        int up = running(&rec);
        if (up)
            snprintf(status, sizeof status, "running");
        else
            snprintf(status, sizeof status, "exited(%lld)",
                     record_num(&rec, "exit", -1));
        if (up || all)
            printf("%-16s %-12s %-12s %-12s %-8lld %s\n", cs[i],
                   record_get(&rec, "pool"), record_get(&rec, "image"),
                   status, up ? record_num(&rec, "pid", 0) : 0,
                   record_get(&rec, "command"));
        record_free(&rec);
    }
    state_list_free(cs, n);
    return 0;
}

/* SIGTERM to the container's pid 1 (which ignores it unless it handles
 * it: PID namespaces' init rule), SIGKILL after the grace period; killing
 * pid 1 ends every process of its namespace. */
static void kill_container(const char *name, struct record *rec)
{
    pid_t pid = (pid_t)record_num(rec, "pid", 0);
    kill(pid, SIGTERM);
    for (int i = 0; i < STOP_GRACE_S * 20 && service_alive(rec); i++)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    if (service_alive(rec))
        kill(pid, SIGKILL);
    /* The supervisor records the exit; wait for it (without our lock). */
    char path[STATE_PATH_MAX];
    query_container_path(name, path);
    state_unlock();
    for (int i = 0; i < 200; i++) {
        struct record now;
        int done = record_load(path, &now) == 0 &&
                   strcmp(record_get(&now, "status"), "running") != 0;
        record_free(&now);
        if (done)
            break;
        nanosleep(&(struct timespec){0, 25000000}, NULL);
    }
    state_lock();
}

int container_stop(const char *name)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    if (running(&rec))
        kill_container(name, &rec);
    record_free(&rec);
    return 0;
}

int container_remove(const char *name, int force)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    if (running(&rec)) {
        if (!force) {
            record_free(&rec);
            return fail("container '%s' is running (stop it, or rm -f)",
                        name);
        }
        kill_container(name, &rec);
    }
    const char *pool = record_get(&rec, "pool");
    char root[STATE_PATH_MAX], dir[STATE_PATH_MAX];
    state_path(root, "containers/%s/root", name);
    state_path(dir, "containers/%s", name);
    struct record prec;
    int live = query_pool(pool, &prec) == 0 && service_alive(&prec);
    record_free(&prec);
    fail_clear();
    int rc;
    if (live) {
        /* A supervisor killed with its container leaves the root mounted. */
        rc = door_mount_remove(pool, root) < 0 ||
                     store_branch_remove(pool, name) < 0
                 ? -1
                 : 0;
    } else {
        /* Without its service the pool's backend cannot be reached: the
         * dead door's mount goes, the branch is removed when the service
         * is back (store_sweep). */
        umount2(root, MNT_DETACH);
        rc = store_branch_defer(pool, name);
        if (rc == 0)
            fprintf(stderr, "danaus: pool %s: danausd is down; the writable "
                            "branch of '%s' is removed when it is back\n",
                    pool, name);
    }
    if (rc == 0 && remove_tree(dir) < 0)
        rc = fail_errno("cannot remove %s", dir);
    record_free(&rec);
    return rc;
}

int container_logs(const char *name)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    int detached = (int)record_num(&rec, "detached", 0);
    record_free(&rec);
    if (!detached)
        return fail("container '%s' ran in the foreground: its output went "
                    "to the terminal", name);
    char log[STATE_PATH_MAX];
    state_path(log, "containers/%s/log", name);
    FILE *f = fopen(log, "re");
    if (!f)
        return 0;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    return 0;
}
