/*
 * cgroup.c - pool cgroups on v2 or v1 (cgroup.h).
 */
#include "cgroup.h"
#include "fail.h"
#include "state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Group names are short (state.h), so these never truncate. */
#define CG_DIR 256
#define CG_FILE 512

#define V2_ROOT "/sys/fs/cgroup"
#define V1_CPUSET "/sys/fs/cgroup/cpuset"
#define V1_CPU "/sys/fs/cgroup/cpu"
#define V1_MEMORY "/sys/fs/cgroup/memory"
#define V1_PIDS "/sys/fs/cgroup/pids"
#define V1_DEVICES "/sys/fs/cgroup/devices"

static int read_file(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int err = errno;
    close(fd);
    errno = err;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Whether the space-separated list (cgroup.controllers) has the word. */
static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p; p += strcspn(p, " ")) {
        p += strspn(p, " ");
        if (strncmp(p, word, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
            return true;
    }
    return false;
}

/* v2 only when it has both controllers we need. */
static int is_v2(void)
{
    static int v2 = -1;
    if (v2 < 0) {
        char buf[512];
        v2 = read_file(V2_ROOT "/cgroup.controllers", buf, sizeof buf) == 0 &&
             has_word(buf, "cpuset") && has_word(buf, "memory");
    }
    return v2;
}

/* The engine's own directory in each hierarchy: "danaus-" and a hash of
 * its state directory, so that engines with different state directories
 * (two operators, or tests side by side) never meet on a pool's name. */
const char *cgroup_scope(void)
{
    static char name[32];
    if (!name[0]) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (const char *p = state_root(); *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
        snprintf(name, sizeof name, "danaus-%08x", h);
    }
    return name;
}

/* The pool's directory in hierarchy h (v2: the only one). */
static void dir_of(const char *h, const char *pool, char *out, size_t size)
{
    snprintf(out, size, "%s/%s%s%s", h, cgroup_scope(), pool ? "/" : "",
             pool ? pool : "");
}

void cgroup_memory_dir(const char *pool, char *out, size_t size)
{
    dir_of(is_v2() ? V2_ROOT : V1_MEMORY, pool, out, size);
}

uint64_t cgroup_memory_used(const char *pool)
{
    char dir[CG_DIR], path[CG_FILE + 32], text[64];
    cgroup_memory_dir(pool, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir,
             is_v2() ? "memory.current" : "memory.usage_in_bytes");
    return read_file(path, text, sizeof text) == 0
               ? strtoull(text, NULL, 10)
               : 0;
}

long long cgroup_oom_kills(const char *pool)
{
    char dir[CG_DIR], path[CG_FILE + 32], line[128];
    cgroup_memory_dir(pool, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir,
             is_v2() ? "memory.events" : "memory.oom_control");
    FILE *f = fopen(path, "re");
    long long kills = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "oom_kill %lld", &kills) == 1)
            break;
    if (f)
        fclose(f);
    return kills;
}

static int set(const char *dir, const char *file, const char *value)
{
    char p[CG_FILE + 64];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    if (write_file(p, value) < 0)
        return fail_errno("cannot write '%s' to %s", value, p);
    return 0;
}

/* A v1 cpuset group refuses tasks until it has cpus and mems: the danaus
 * parent group gets all of its parent's. */
static int v1_cpuset_parent(void)
{
    char dir[CG_DIR], buf[1024];
    dir_of(V1_CPUSET, NULL, dir, sizeof dir);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return fail_errno("cannot create %s", dir);
    if (read_file(V1_CPUSET "/cpuset.effective_cpus", buf, sizeof buf) < 0 ||
        set(dir, "cpuset.cpus", buf) < 0 ||
        read_file(V1_CPUSET "/cpuset.effective_mems", buf, sizeof buf) < 0 ||
        set(dir, "cpuset.mems", buf) < 0)
        return fail("cannot set up %s", dir);
    return 0;
}

/* Whether the pools get a cpu group: the cpu controller is there (it is
 * optional; without it a pool is bounded by its cpuset alone). */
static bool has_cpu_controller(void)
{
    char buf[512];
    if (!is_v2())
        return access(V1_CPU "/cpu.shares", F_OK) == 0;
    return read_file(V2_ROOT "/cgroup.controllers", buf, sizeof buf) == 0 &&
           has_word(buf, "cpu");
}

static int v2_parent(void)
{
    char dir[CG_DIR];
    dir_of(V2_ROOT, NULL, dir, sizeof dir);
    if (set(V2_ROOT, "cgroup.subtree_control", "+cpuset +memory +pids") < 0)
        return -1;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return fail_errno("cannot create %s", dir);
    if (set(dir, "cgroup.subtree_control", "+cpuset +memory +pids") < 0)
        return -1;
    /* The cpu controller where the host lets it be enabled (a realtime
     * task outside the root group, for one, makes the kernel refuse):
     * without it the pools are bounded by their cpusets alone. */
    char p[CG_FILE];
    snprintf(p, sizeof p, "%s/cgroup.subtree_control", dir);
    if (has_cpu_controller() &&
        write_file(V2_ROOT "/cgroup.subtree_control", "+cpu") == 0)
        write_file(p, "+cpu");
    return 0;
}

static int mems_of(const char *parent, char *buf, size_t size)
{
    char p[CG_FILE];
    snprintf(p, sizeof p, "%s/cpuset.effective_mems", parent);
    if (read_file(p, buf, size) < 0 || !*buf)
        return fail_errno("cannot read %s", p);
    return 0;
}

static int create_dir(const char *dir)
{
    if (mkdir(dir, 0755) < 0)
        return errno == EEXIST ? fail("cgroup %s already exists", dir)
                               : fail_errno("cannot create cgroup %s", dir);
    return 0;
}

static int create_v2(const char *pool, const char *cpus, const char *mem,
                     const char *pids)
{
    char dir[CG_DIR], parent[CG_DIR], mems[256];
    dir_of(V2_ROOT, pool, dir, sizeof dir);
    dir_of(V2_ROOT, NULL, parent, sizeof parent);
    if (v2_parent() < 0 || mems_of(parent, mems, sizeof mems) < 0 ||
        create_dir(dir) < 0)
        return -1;
    if (set(dir, "cpuset.cpus", cpus) < 0 ||
        set(dir, "cpuset.mems", mems) < 0 ||
        set(dir, "memory.max", mem) < 0 ||
        set(dir, "memory.swap.max", "0") < 0 || set(dir, "pids.max", pids) < 0)
        return -1;
    return 0;
}

/* The engine's directory in a v1 hierarchy, made if missing. */
static int v1_scope(const char *h)
{
    char dir[CG_DIR];
    dir_of(h, NULL, dir, sizeof dir);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return fail_errno("cannot create %s", dir);
    return 0;
}

/* The pool's group in the v1 cpu hierarchy, into dir, made if missing:
 * a pool an earlier engine made without one gets it when its danausd or a
 * container next enters. */
static int v1_cpu_group(const char *pool, char *dir, size_t size)
{
    dir_of(V1_CPU, pool, dir, size);
    if (v1_scope(V1_CPU) < 0)
        return -1;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return fail_errno("cannot create cgroup %s", dir);
    return 0;
}

static int create_v1(const char *pool, const char *cpus, const char *mem,
                     const char *pids)
{
    char cdir[CG_DIR], mdir[CG_DIR], pdir[CG_DIR], ddir[CG_DIR];
    char parent[CG_DIR];
    char mems[256];
    dir_of(V1_CPUSET, pool, cdir, sizeof cdir);
    dir_of(V1_MEMORY, pool, mdir, sizeof mdir);
    dir_of(V1_CPUSET, NULL, parent, sizeof parent);
    if (v1_cpuset_parent() < 0 || mems_of(parent, mems, sizeof mems) < 0)
        return -1;
    dir_of(V1_PIDS, pool, pdir, sizeof pdir);
    dir_of(V1_DEVICES, pool, ddir, sizeof ddir);
    if (v1_scope(V1_MEMORY) < 0 || v1_scope(V1_PIDS) < 0 ||
        v1_scope(V1_DEVICES) < 0)
        return -1;
    if (create_dir(cdir) < 0 || create_dir(mdir) < 0 || create_dir(pdir) < 0 ||
        create_dir(ddir) < 0)
        return -1;
    char udir[CG_DIR];
    if (has_cpu_controller() && v1_cpu_group(pool, udir, sizeof udir) < 0)
        return -1;
    if (set(cdir, "cpuset.cpus", cpus) < 0 ||
        set(cdir, "cpuset.mems", mems) < 0 ||
        set(mdir, "memory.limit_in_bytes", mem) < 0 ||
        set(pdir, "pids.max", pids) < 0)
        return -1;
    /* With swap on, a process over the limit would swap instead of being
     * killed; the memsw limit (where the kernel keeps it) counts both. */
    char p[CG_FILE];
    int n = snprintf(p, sizeof p, "%s/memory.memsw.limit_in_bytes", mdir);
    if (n < (int)sizeof p && access(p, F_OK) == 0 &&
        set(mdir, "memory.memsw.limit_in_bytes", mem) < 0)
        return -1;
    return 0;
}

int cgroup_create(const char *pool, const char *cpus, uint64_t memory,
                  long pids)
{
    char mem[32], max[32];
    snprintf(mem, sizeof mem, "%llu", (unsigned long long)memory);
    snprintf(max, sizeof max, "%ld", pids);
    if (!is_v2() && (access(V1_CPUSET "/cpuset.cpus", F_OK) < 0 ||
                     access(V1_MEMORY "/memory.limit_in_bytes", F_OK) < 0 ||
                     access(V1_PIDS "/cgroup.procs", F_OK) < 0 ||
                     access(V1_DEVICES "/devices.allow", F_OK) < 0))
        return fail("no cgroup hierarchy with cpuset, memory, pids and "
                    "devices controllers");
    int rc = is_v2() ? create_v2(pool, cpus, mem, max)
                     : create_v1(pool, cpus, mem, max);
    if (rc < 0) {
        char *saved = strdup(fail_message() ? fail_message() : "");
        cgroup_remove(pool);
        fail_clear();
        fail("%s", saved);
        free(saved);
    }
    return rc;
}

int cgroup_enter(const char *pool)
{
    /* "0" is the writer itself, in v1 and v2 alike; getpid() would be
     * wrong in a new PID namespace (it says 1 there). */
    const char *self = "0";
    char dir[CG_DIR];
    if (is_v2()) {
        dir_of(V2_ROOT, pool, dir, sizeof dir);
        return set(dir, "cgroup.procs", self);
    }
    dir_of(V1_CPUSET, pool, dir, sizeof dir);
    if (set(dir, "cgroup.procs", self) < 0)
        return -1;
    if (has_cpu_controller() &&
        (v1_cpu_group(pool, dir, sizeof dir) < 0 ||
         set(dir, "cgroup.procs", self) < 0))
        return -1;
    dir_of(V1_MEMORY, pool, dir, sizeof dir);
    return set(dir, "cgroup.procs", self);
}

int cgroup_exists(const char *pool)
{
    char dir[CG_DIR];
    dir_of(is_v2() ? V2_ROOT : V1_CPUSET, pool, dir, sizeof dir);
    return access(dir, F_OK) == 0;
}

static pid_t *pids_in(const char *dir, int *n)
{
    char p[CG_FILE];
    snprintf(p, sizeof p, "%s/cgroup.procs", dir);
    FILE *f = fopen(p, "re");
    *n = 0;
    if (!f)
        return NULL;
    pid_t *pids = NULL;
    int pid;
    while (fscanf(f, "%d", &pid) == 1) {
        pids = realloc(pids, (size_t)(*n + 1) * sizeof *pids);
        pids[(*n)++] = pid;
    }
    fclose(f);
    return pids;
}

pid_t *cgroup_pids(const char *pool, int *n)
{
    char dir[CG_DIR];
    dir_of(is_v2() ? V2_ROOT : V1_MEMORY, pool, dir, sizeof dir);
    if (access(dir, F_OK) < 0) {
        *n = -1;
        return NULL;
    }
    return pids_in(dir, n);
}

/* Kills everything in dir and removes it once empty (a killed process
 * leaves its cgroup when it is reaped, so this waits up to 5 s). */
static int empty_and_remove(const char *dir)
{
    if (access(dir, F_OK) < 0)
        return 0;
    for (int tries = 0; tries < 500; tries++) {
        int n;
        pid_t *pids = pids_in(dir, &n);
        for (int i = 0; i < n; i++)
            kill(pids[i], SIGKILL);
        free(pids);
        if (rmdir(dir) == 0 || errno == ENOENT)
            return 0;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    return fail_errno("cannot remove cgroup %s", dir);
}

/* Empties and removes the groups below dir, deepest first: the cpu
 * groups a pool's danausd made for its threads (fsservice/core/
 * cpugroups.c) stay behind when it is killed. */
static int remove_below(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
            strcmp(e->d_name, "..") == 0)
            continue;
        char sub[CG_FILE];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (remove_below(sub) < 0 || empty_and_remove(sub) < 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

/* The engine's directory in hierarchy h goes with its last pool (rmdir
 * refuses while any pool is left). */
static void remove_scope_if_empty(const char *h)
{
    char dir[CG_DIR];
    dir_of(h, NULL, dir, sizeof dir);
    rmdir(dir);
}

int cgroup_remove(const char *pool)
{
    char dir[CG_DIR];
    if (is_v2()) {
        dir_of(V2_ROOT, pool, dir, sizeof dir);
        int rc = empty_and_remove(dir);
        remove_scope_if_empty(V2_ROOT);
        return rc;
    }
    dir_of(V1_CPUSET, pool, dir, sizeof dir);
    int rc = empty_and_remove(dir);
    static const char *const others[] = {V1_MEMORY, V1_PIDS, V1_DEVICES,
                                         V1_CPU};
    enum { NOTHERS = sizeof others / sizeof *others };
    for (int i = 0; i < NOTHERS; i++) {
        dir_of(others[i], pool, dir, sizeof dir);
        if (remove_below(dir) < 0 || empty_and_remove(dir) < 0)
            rc = -1;
    }
    remove_scope_if_empty(V1_CPUSET);
    for (int i = 0; i < NOTHERS; i++)
        remove_scope_if_empty(others[i]);
    return rc;
}

/* ---- a container's own groups (v1: pids and devices) ---- */

/* What a container may open, as runc's default: null, zero, full,
 * random, urandom, tty, ptmx and the pseudo-terminals; mknod of any node
 * (opening it is what counts; CAP_MKNOD is not kept anyway). */
static const char *const devices_allowed[] = {
    "c *:* m",   "b *:* m",   "c 1:3 rwm",   "c 1:5 rwm", "c 1:7 rwm",
    "c 1:8 rwm", "c 1:9 rwm", "c 5:0 rwm",   "c 5:2 rwm", "c 136:* rwm",
};

static void container_dir(const char *h, const char *pool, const char *name,
                          char *out, size_t size)
{
    char dir[CG_DIR];
    dir_of(h, pool, dir, sizeof dir);
    snprintf(out, size, "%s/%s", dir, name);
}

int cgroup_container_create(const char *pool, const char *name, long pids)
{
    char dir[CG_DIR + 64], max[32];
    snprintf(max, sizeof max, "%ld", pids);
    if (is_v2()) /* the pool's group holds danausd: no children there */
        return 0;
    container_dir(V1_PIDS, pool, name, dir, sizeof dir);
    if (create_dir(dir) < 0 || set(dir, "pids.max", max) < 0)
        return -1;
    container_dir(V1_DEVICES, pool, name, dir, sizeof dir);
    if (create_dir(dir) < 0 || set(dir, "devices.deny", "a") < 0)
        return -1;
    for (size_t i = 0; i < sizeof devices_allowed / sizeof *devices_allowed;
         i++)
        if (set(dir, "devices.allow", devices_allowed[i]) < 0)
            return -1;
    return 0;
}

int cgroup_container_enter(const char *pool, const char *name)
{
    char dir[CG_DIR + 64];
    if (cgroup_enter(pool) < 0)
        return -1;
    if (is_v2())
        return 0;
    container_dir(V1_PIDS, pool, name, dir, sizeof dir);
    if (set(dir, "cgroup.procs", "0") < 0)
        return -1;
    container_dir(V1_DEVICES, pool, name, dir, sizeof dir);
    return set(dir, "cgroup.procs", "0");
}

void cgroup_container_remove(const char *pool, const char *name)
{
    char dir[CG_DIR + 64];
    if (is_v2())
        return;
    /* Quietly: a caller's own failure, recorded before, stays its message. */
    int quiet = fail_message() == NULL;
    container_dir(V1_PIDS, pool, name, dir, sizeof dir);
    empty_and_remove(dir);
    container_dir(V1_DEVICES, pool, name, dir, sizeof dir);
    empty_and_remove(dir);
    if (quiet)
        fail_clear();
}

long cgroup_container_pids_max(const char *pool, const char *name)
{
    char dir[CG_DIR + 64], path[CG_FILE], text[32];
    if (is_v2())
        dir_of(V2_ROOT, pool, dir, sizeof dir);
    else
        container_dir(V1_PIDS, pool, name, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/pids.max", dir);
    if (read_file(path, text, sizeof text) < 0)
        return -1;
    return strcmp(text, "max") == 0 ? 0 : strtol(text, NULL, 10);
}
