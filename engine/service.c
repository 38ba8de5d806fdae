/*
 * service.c - starting and watching a pool's danausd (service.h).
 *
 * danausd is started as a grandchild of the engine, in its own session, so
 * it outlives the command that started it; its stderr goes to
 * pools/NAME/danausd.log, where "ready" says that clients can attach.
 */
#include "service.h"
#include "cgroup.h"
#include "fail.h"
#include "ns.h"
#include "pool.h"
#include "state.h"
#include "userns.h"

#include <dirent.h>
#include <errno.h>
#include <linux/close_range.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_S 10

/* The engine (or danaus-runtime) run from its build tree uses the danausd
 * and libdanaus.so built beside it; an installed one, the installed ones. */
static int running_from_build_tree(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        return 0;
    self[n] = 0;
    return strcmp(self, ENGINE_BUILD_PATH) == 0 ||
           strcmp(self, RUNTIME_BUILD_PATH) == 0;
}

const char *service_danausd(void)
{
    const char *p = getenv("DANAUS_DANAUSD");
    if (p && *p)
        return p;
    return running_from_build_tree() ? DANAUSD_BUILD_PATH
                                     : DANAUSD_INSTALL_PATH;
}

const char *service_engine(void)
{
    const char *p = getenv("DANAUS_ENGINE");
    if (p && *p)
        return p;
    return running_from_build_tree() ? ENGINE_BUILD_PATH : ENGINE_INSTALL_PATH;
}

const char *service_library(void)
{
    const char *p = getenv("DANAUS_LIBRARY");
    if (p && *p)
        return p;
    return running_from_build_tree() ? LIBDANAUS_BUILD_PATH
                                     : LIBDANAUS_INSTALL_PATH;
}

void service_store_mount(const char *pool, char *out, size_t size)
{
    snprintf(out, size, "%s/pools/%s/store", state_root(), pool);
}

void service_door_dir(const char *pool, char *out, size_t size)
{
    snprintf(out, size, "%s/pools/%s/door", state_root(), pool);
}

void service_ceph_keyring(const char *pool, char *out, size_t size)
{
    snprintf(out, size, "%s/pools/%s/ceph.keyring", state_root(), pool);
}

static int write_config(const char *pool, const struct record *rec)
{
    char path[STATE_PATH_MAX], run[STATE_PATH_MAX], store[STATE_PATH_MAX];
    char door[STATE_PATH_MAX];
    char pressure[STATE_PATH_MAX];
    /* Where the pools meet to hold back for one another (pressure.h):
     * only root enters the state directory. */
    state_path(pressure, "pressure");
    if (mkdir(pressure, 0700) < 0 && errno != EEXIST)
        return fail_errno("cannot make %s", pressure);
    state_path(path, "pools/%s/danausd.conf", pool);
    state_path(run, "pools/%s/run", pool);
    service_door_dir(pool, door, sizeof door);
    service_store_mount(pool, store, sizeof store);
    FILE *f = fopen(path, "we");
    if (!f)
        return fail_errno("cannot write %s", path);
    fprintf(f, "# written by danaus pool create: pool %s\n", pool);
    /* A container's programs run as any uid of the tenant's (-u, setuid
     * programs) and reach its root through the FUSE door too (exec, mmap):
     * the door serves them all. Its mount points live in the engine's
     * state directory, which only root can enter. */
    fprintf(f, "service %s\nrundir %s\ncpus %s\nfuse_allow_other on\n", pool,
            run, record_get(rec, "cpus"));
    /* Containers get the door's directory, nothing else of the rundir. */
    fprintf(f, "door_dir %s\n", door);
    /* A crash costs the containers a pause, not their roots: the keeper
     * holds the FUSE mounts and starts the next danausd, which takes them
     * over (fsservice/doors/fuse_keeper.h). */
    fprintf(f, "restart on\n");
    /* The pool's user namespace (userns.h): the doors map its host ids to
     * the pool's, and its root owns the door's socket. */
    uint32_t base = userns_base(rec);
    if (base)
        fprintf(f, "idmap 0:%u:%u\nowner %u:%u\n", base, USERNS_SIZE, base,
                base);
    if (record_get(rec, "nosuid"))
        fprintf(f, "nosuid on\n");
    const char *kind = record_get(rec, "backend_kind");
    if (strcmp(kind, "ceph") == 0) {
        fprintf(f, "ceph_conf %s\n", record_get(rec, "ceph_conf"));
        /* The pool's own client sees its directory only, so it mounts
         * there (pools made before pools had one use the conf's). */
        if (record_get(rec, "ceph_id")) {
            char keyring[STATE_PATH_MAX];
            service_ceph_keyring(pool, keyring, sizeof keyring);
            fprintf(f, "ceph_client_id %s\nceph_keyring %s\nceph_root %s\n",
                    record_get(rec, "ceph_id"), keyring,
                    record_get(rec, "backend_dir"));
        }
        /* The data cache: auto's bound, --cache's size, or the default. */
        uint64_t cache =
            record_get(rec, "cache_auto")
                ? (uint64_t)record_num(rec, "cache_auto", 0)
            : record_get(rec, "cache")
                ? (uint64_t)record_num(rec, "cache", 0)
                : pool_cache_default((uint64_t)record_num(rec, "memory", 0));
        if (record_get(rec, "cache_auto"))
            fprintf(f, "cache_auto %llu\n", (unsigned long long)cache);
        else if (cache > 0)
            fprintf(f, "ceph_oc_size %llu\n", (unsigned long long)cache);
        fprintf(f, "ceph_cache_size %llu\n",
                (unsigned long long)pool_inode_cache(cache));
        if (record_get(rec, "write_through"))
            fprintf(f, "ceph_write_through on\n");
    }
    if (record_get(rec, "backend_ops"))
        fprintf(f, "backend_ops_per_second %s\n",
                record_get(rec, "backend_ops"));
    if (record_get(rec, "backend_write_rate"))
        fprintf(f, "backend_write_bytes_per_second %s\n",
                record_get(rec, "backend_write_rate"));
    fprintf(f, "backend_pressure_dir %s\n", pressure);
    if (record_get(rec, "backend_latency_target"))
        fprintf(f, "backend_latency_target_ms %s\n",
                record_get(rec, "backend_latency_target"));
    if (record_get(rec, "backend_weight"))
        fprintf(f, "backend_weight %s\n", record_get(rec, "backend_weight"));
    if (record_get(rec, "backend_reservation"))
        fprintf(f, "backend_reservation_ops %s\n",
                record_get(rec, "backend_reservation"));
    if (record_get(rec, "backend_fair_share"))
        fprintf(f, "backend_fair_share %s\n",
                record_get(rec, "backend_fair_share"));
    if (record_get(rec, "fuse_io_uring"))
        fprintf(f, "fuse_io_uring %s\n", record_get(rec, "fuse_io_uring"));
    fprintf(f, "mount %s %s %s\n", store, kind,
            record_get(rec, "backend_dir"));
    return fclose(f) == 0 ? 0 : fail_errno("cannot write %s", path);
}

const char *proc_stat_fields(pid_t pid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    /* The command name (field 2) may hold anything, ')' included. */
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p + 2 : NULL;
}

unsigned long long process_start_time(pid_t pid)
{
    char buf[1024];
    const char *fields = proc_stat_fields(pid, buf, sizeof buf);
    /* State, then fields 4..21, then starttime (field 22, proc(5)). */
    char state;
    unsigned long long start;
    if (!fields ||
        sscanf(fields, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
                       "%*u %*d %*d %*d %*d %*d %*d %llu",
               &state, &start) != 2)
        return 0;
    return state == 'Z' || state == 'X' ? 0 : start;
}

int service_alive(const struct record *rec)
{
    pid_t pid = (pid_t)record_num(rec, "pid", 0);
    unsigned long long start = (unsigned long long)record_num(rec, "start", 0);
    return pid > 0 && start && process_start_time(pid) == start;
}

/* The grandchild: joins the pool, then becomes danausd. */
static void become_service(const char *pool, int first, int log_fd,
                           int report_fd)
{
    char ipc[STATE_PATH_MAX], conf[STATE_PATH_MAX];
    state_path(ipc, "pools/%s/ipc", pool);
    state_path(conf, "pools/%s/danausd.conf", pool);
    int rc = cgroup_enter(pool);
    if (rc == 0)
        rc = first ? ns_ipc_create(ipc) : ns_ipc_enter(ipc);
    /* The memory killer should pick a tenant's process over the service
     * that all of the tenant's containers depend on. Lowering the score
     * needs CAP_SYS_RESOURCE, which a root without it lacks: then the
     * killer still prefers the larger process, the runaway container. */
    int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (adj >= 0) {
        ssize_t ignored = write(adj, "-900", 4);
        (void)ignored;
        close(adj);
    }
    if (rc == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(log_fd, 1);
        dup2(log_fd, 2);
        pid_t self = getpid();
        if (write(report_fd, &self, sizeof self) != sizeof self)
            _exit(127);
        /* Nothing else its starter had open: danaus-runtime's caller
         * (conmon) waits for the end of pipes it gave the runtime. */
        close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
        execl(service_danausd(), "danausd", "-c", conf, (char *)NULL);
        fail_errno("cannot run %s", service_danausd());
    }
    dprintf(log_fd, "danaus: %s\n", fail_message());
    _exit(127);
}

/* Forks twice so danausd is nobody's child here; returns its pid. */
static pid_t spawn(const char *pool, int first, int log_fd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    pid_t child = fork();
    if (child < 0)
        return fail_errno("fork");
    if (child == 0) {
        close(p[0]);
        setsid();
        pid_t g = fork();
        if (g == 0)
            become_service(pool, first, log_fd, p[1]);
        _exit(g < 0 ? 1 : 0);
    }
    close(p[1]);
    waitpid(child, NULL, 0);
    pid_t pid = 0;
    ssize_t n = read(p[0], &pid, sizeof pid);
    close(p[0]);
    return n == sizeof pid ? pid : -1;
}

/* The last non-empty line of the log from offset on. */
static void last_line(const char *log, off_t from, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(log, "re");
    if (!f)
        return;
    fseeko(f, from, SEEK_SET);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (*line)
            snprintf(out, size, "%s", line);
    }
    fclose(f);
}

static int log_says_ready(const char *log, off_t from)
{
    char line[1024];
    last_line(log, from, line, sizeof line);
    return strstr(line, " ready: ") != NULL;
}

/* SIGKILL to a pool's danausd that is not to come back: its keeper is
 * stopped first, or it would start the next one (restart on) or, dying
 * first, be replaced by the service (fsservice/doors/fuse_keeper.h). */
static void kill_service(const char *pool, pid_t pid)
{
    pid_t keeper = service_keeper(pool);
    if (keeper > 0)
        kill(keeper, SIGSTOP);
    kill(pid, SIGKILL);
    if (keeper > 0)
        kill(keeper, SIGKILL);
}

int service_start(const char *pool, struct record *rec, int first,
                  int timeout_s)
{
    char log[STATE_PATH_MAX], run[STATE_PATH_MAX];
    state_path(log, "pools/%s/danausd.log", pool);
    state_path(run, "pools/%s/run", pool);
    if (write_config(pool, rec) < 0)
        return -1;
    if (mkdir(run, 0755) < 0 && errno != EEXIST)
        return fail_errno("cannot create %s", run);
    int log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0)
        return fail_errno("cannot open %s", log);
    off_t from = lseek(log_fd, 0, SEEK_END);
    long long kills = cgroup_oom_kills(pool);
    pid_t pid = spawn(pool, first, log_fd);
    close(log_fd);
    char why[1024];
    if (pid <= 0) {
        last_line(log, from, why, sizeof why);
        return fail("pool %s: cannot start danausd: %s", pool, why);
    }
    unsigned long long start = process_start_time(pid);
    for (int i = 0; i < timeout_s * 20; i++) {
        if (log_says_ready(log, from)) {
            record_set(rec, "pid", "%d", (int)pid);
            record_set(rec, "start", "%llu", start);
            return 0;
        }
        if (process_start_time(pid) != start || !start)
            break;
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    last_line(log, from, why, sizeof why);
    kill_service(pool, pid);
    if (kills >= 0 && cgroup_oom_kills(pool) > kills)
        return fail("pool %s: the pool's memory limit (%lld MiB) killed its "
                    "own danausd as it started: give the pool more --memory",
                    pool, record_num(rec, "memory", 0) >> 20);
    return fail("pool %s: danausd did not start: %s", pool,
                *why ? why : "no word within the time limit");
}

/* Whether pid runs the program named comm (its /proc comm). */
static int runs(pid_t pid, const char *comm)
{
    char path[64], buf[32];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int same = fgets(buf, sizeof buf, f) &&
               strncmp(buf, comm, strlen(comm)) == 0 &&
               buf[strlen(comm)] == '\n';
    fclose(f);
    return same;
}

/* Whether pid's command line names the pool's configuration (a pid file
 * left by a dead danausd may name a pid used again since). */
static int serves(pid_t pid, const char *pool)
{
    char path[64], args[STATE_PATH_MAX + 64], conf[STATE_PATH_MAX];
    state_path(conf, "pools/%s/danausd.conf", pool);
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, args, sizeof args - 1);
    if (fd >= 0)
        close(fd);
    for (ssize_t at = 0; at < n; at += (ssize_t)strlen(args + at) + 1) {
        args[n] = '\0';
        if (strcmp(args + at, conf) == 0)
            return 1;
    }
    return 0;
}

int service_successor(const char *pool, struct record *rec)
{
    char path[STATE_PATH_MAX];
    state_path(path, "pools/%s/run/%s.pid", pool, pool);
    FILE *f = fopen(path, "re");
    int pid = 0;
    if (f) {
        if (fscanf(f, "%d", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    unsigned long long start = pid > 0 ? process_start_time(pid) : 0;
    if (!start || !runs(pid, "danausd") || !serves(pid, pool) ||
        pid == (pid_t)record_num(rec, "pid", 0))
        return 0;
    record_set(rec, "pid", "%d", pid);
    record_set(rec, "start", "%llu", start);
    return 1;
}

pid_t service_keeper(const char *pool)
{
    char run[STATE_PATH_MAX];
    state_path(run, "pools/%s/run", pool);
    DIR *proc = opendir("/proc");
    pid_t found = 0;
    for (struct dirent *e; proc && !found && (e = readdir(proc));) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0 || !runs(pid, "danaus-keeper"))
            continue;
        /* danausd --keeper RUNDIR SERVICE ... */
        char path[64], args[STATE_PATH_MAX + 64];
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, args, sizeof args - 1);
        if (fd >= 0)
            close(fd);
        if (n <= 0)
            continue;
        args[n] = '\0';
        const char *a1 = args + strlen(args) + 1;
        const char *a2 = a1 < args + n ? a1 + strlen(a1) + 1 : args + n;
        if (a2 < args + n && strcmp(a1, "--keeper") == 0 &&
            strcmp(a2, run) == 0)
            found = pid;
    }
    if (proc)
        closedir(proc);
    return found;
}

void service_stop(const char *pool, struct record *rec)
{
    /* A successor the keeper started is the one to stop. */
    if (!service_alive(rec))
        service_successor(pool, rec);
    /* A keeper whose service is dead holds the mounts it left: it ignores
     * SIGTERM, and a kill makes them stale, which unmounting takes away. */
    pid_t keeper = service_alive(rec) ? 0 : service_keeper(pool);
    if (keeper > 0)
        kill(keeper, SIGKILL);
    if (!service_alive(rec))
        return;
    pid_t pid = (pid_t)record_num(rec, "pid", 0);
    kill(pid, SIGTERM);
    for (int i = 0; i < STOP_GRACE_S * 20 && service_alive(rec); i++)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    if (service_alive(rec))
        kill_service(pool, pid);
    for (int i = 0; i < 100 && service_alive(rec); i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
}
