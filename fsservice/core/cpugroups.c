/*
 * cpugroups.c - cpu cgroups for the service threads inside long calls
 * (cpugroups.h): finding the service's group, the groups' life, and the
 * mover.
 */
#include "cpugroups.h"

#include "ipc/ipc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GROUP_IDLE_NS 1000000000ull /* an empty uid group goes after this */
#define MOVER_TICK_MS 1000           /* the mover looks for idle groups */

/* Whether the comma-separated list has the word. */
static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0' ||
                                         p[n] == '\n' || p[n] == ' '))
            return true;
    return false;
}

/* The service's group in the v1 hierarchy that has the cpu controller
 * (/proc/self/cgroup's "N:...cpu...:PATH"), into path. */
static int own_cpu_group(char *path, size_t size)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -errno;
    char line[PATH_MAX + 128];
    int rc = -ENOENT;
    while (rc != 0 && fgets(line, sizeof line, f)) {
        char *ctl = strchr(line, ':');
        char *rel = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!rel)
            continue;
        *rel++ = '\0';
        rel[strcspn(rel, "\n")] = '\0';
        if (has_word(ctl + 1, "cpu") && (size_t)snprintf(path, size, "%s",
                                                         rel) < size)
            rc = 0;
    }
    fclose(f);
    return rc;
}

/* Where that hierarchy is mounted (mount point and the root it shows),
 * from /proc/self/mountinfo: "ID PARENT DEV ROOT POINT OPTS ... - cgroup
 * SOURCE SUPEROPTS". */
static int cpu_mount(char *root, char *point, size_t size)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -errno;
    char line[2 * PATH_MAX + 256];
    int rc = -ENOENT;
    while (rc != 0 && fgets(line, sizeof line, f)) {
        char *dash = strstr(line, " - ");
        char r[PATH_MAX], p[PATH_MAX], type[32], opts[512];
        if (!dash ||
            sscanf(line, "%*s %*s %*s %4095s %4095s", r, p) != 2 ||
            sscanf(dash + 3, "%31s %*s %511s", type, opts) != 2)
            continue;
        if (strcmp(type, "cgroup") == 0 && has_word(opts, "cpu") &&
            strlen(r) < size && strlen(p) < size) {
            strcpy(root, r);
            strcpy(point, p);
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, text, strlen(text));
    int err = errno;
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -err;
}

/* Moves every thread in the group at dir into the tasks file home (an
 * open descriptor) and removes the group. */
static void empty_and_remove(const char *dir, int home)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/tasks", dir);
    FILE *f = fopen(path, "re");
    char tid[32];
    while (f && home >= 0 && fgets(tid, sizeof tid, f))
        if (write(home, tid, strcspn(tid, "\n")) < 0) {
            /* gone meanwhile */
        }
    if (f)
        fclose(f);
    rmdir(dir);
}

/* Removes the group at dir with its uid groups (home: where their
 * threads go). */
static void remove_tree(const char *dir, int home)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "uid.", 4) == 0) {
            char sub[PATH_MAX + 300];
            snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
            empty_and_remove(sub, home);
        }
    if (d)
        closedir(d);
    empty_and_remove(dir, home);
}

/* The groups of danauds that no longer run, in the service's group. */
static void remove_stale(const struct cpu_groups *g)
{
    DIR *d = opendir(g->home);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int pid;
        char end;
        if (sscanf(e->d_name, "danausd.%d%c", &pid, &end) != 1 ||
            pid == getpid() || pid <= 0 || kill(pid, 0) == 0 ||
            errno != ESRCH)
            continue;
        char dir[PATH_MAX + 300];
        snprintf(dir, sizeof dir, "%s/%s", g->home, e->d_name);
        remove_tree(dir, g->home_tasks);
    }
    if (d)
        closedir(d);
}

/* Finds the service's group and makes the long calls' group in it. */
static int make_groups(struct cpu_groups *g, uint32_t shares)
{
    char rel[PATH_MAX], root[PATH_MAX], point[PATH_MAX];
    int rc = own_cpu_group(rel, sizeof rel);
    if (rc == 0)
        rc = cpu_mount(root, point, sizeof root);
    if (rc < 0)
        return rc;
    /* A mount of part of the hierarchy (a container's) names the part
     * as its root; the group lies below it. */
    const char *below = rel;
    size_t n = strlen(root);
    if (strcmp(root, "/") != 0 && strncmp(rel, root, n) == 0)
        below = rel + n;
    if ((size_t)snprintf(g->home, sizeof g->home, "%s%s", point, below) >=
        sizeof g->home)
        return -ENAMETOOLONG;
    size_t len = strlen(g->home);
    while (len > 1 && g->home[len - 1] == '/')
        g->home[--len] = '\0';
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/tasks", g->home);
    g->home_tasks = open(path, O_WRONLY | O_CLOEXEC);
    if (g->home_tasks < 0)
        return -errno;
    remove_stale(g);
    if ((size_t)snprintf(g->dir, sizeof g->dir, "%s/danausd.%d", g->home,
                         (int)getpid()) >= sizeof g->dir)
        return -ENAMETOOLONG;
    if (mkdir(g->dir, 0755) < 0 && errno != EEXIST)
        return -errno;
    char text[32];
    snprintf(text, sizeof text, "%u", shares);
    snprintf(path, sizeof path, "%s/cpu.shares", g->dir);
    rc = write_text(path, text);
    if (rc < 0)
        rmdir(g->dir);
    return rc;
}

/* The directory of uid's group (CPU_OTHER: the rest's), into dir. */
static void group_dir(const struct cpu_groups *g, int64_t uid, char *dir,
                      size_t size)
{
    if (uid == CPU_OTHER)
        snprintf(dir, size, "%s/uid.other", g->dir);
    else
        snprintf(dir, size, "%s/uid.%lld", g->dir, (long long)uid);
}

/* The group uid's threads go to: uid, or CPU_OTHER when CPU_UID_GROUPS
 * others have one; made if need be, or CPU_HOME when it cannot be. The
 * mover's. */
static int64_t group_of(struct cpu_groups *g, int64_t uid)
{
    struct cpu_uid_group *free_one = NULL;
    for (int i = 0; i <= CPU_UID_GROUPS; i++) {
        struct cpu_uid_group *u = &g->uids[i];
        if (u->uid == uid) {
            u->idle_since = 0;
            return uid;
        }
        if (u->uid == CPU_HOME && i < CPU_UID_GROUPS && !free_one)
            free_one = u;
    }
    if (uid != CPU_OTHER && !free_one)
        return group_of(g, CPU_OTHER);
    if (uid == CPU_OTHER)
        free_one = &g->uids[CPU_UID_GROUPS];
    char dir[PATH_MAX + 64];
    group_dir(g, uid, dir, sizeof dir);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return CPU_HOME;
    *free_one = (struct cpu_uid_group){uid, 0};
    return uid;
}

/* Writes m's tid into the tasks file of where's group. A group's file is
 * opened for the write only: a service out of descriptors (a client's
 * handles, docs/trust.md) then keeps the thread where it is, and holds
 * no descriptor for groups. A thread that has gone meanwhile is not
 * moved either. */
static void move(struct cpu_groups *g, struct cpu_member *m, int64_t where)
{
    char tid[32];
    int n = snprintf(tid, sizeof tid, "%d", (int)m->tid);
    if (where != CPU_HOME)
        where = group_of(g, where);
    if (where == CPU_HOME) {
        if (write(g->home_tasks, tid, (size_t)n) < 0) {
            /* ESRCH: it ended */
        }
        return;
    }
    char dir[PATH_MAX + 64], path[PATH_MAX + 80];
    group_dir(g, where, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/tasks", dir);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0 && write(fd, tid, (size_t)n) < 0) {
        /* ESRCH: it ended */
    }
    if (fd >= 0)
        close(fd);
}

/* Moves each member to where it wants to be. The lock is not held while
 * writing: a member being moved cannot leave (cpu_groups_leave waits),
 * and the next one is read under the lock. */
static void move_all(struct cpu_groups *g)
{
    pthread_mutex_lock(&g->lock);
    for (struct cpu_member *m = g->members; m; m = m->next) {
        int64_t want = atomic_load(&m->want);
        if (want == atomic_load(&m->at))
            continue;
        atomic_store(&m->moving, true);
        pthread_mutex_unlock(&g->lock);
        move(g, m, want);
        pthread_mutex_lock(&g->lock);
        atomic_store(&m->at, want);
        atomic_store(&m->moving, false);
        pthread_cond_broadcast(&g->moved);
    }
    pthread_mutex_unlock(&g->lock);
}

/* Removes the uid groups nobody has been in for GROUP_IDLE_NS. */
static void remove_idle(struct cpu_groups *g, uint64_t now)
{
    for (int i = 0; i <= CPU_UID_GROUPS; i++) {
        struct cpu_uid_group *u = &g->uids[i];
        if (u->uid == CPU_HOME)
            continue;
        bool used = false;
        pthread_mutex_lock(&g->lock);
        for (struct cpu_member *m = g->members; m && !used; m = m->next)
            used = atomic_load(&m->at) == u->uid ||
                   atomic_load(&m->want) == u->uid;
        pthread_mutex_unlock(&g->lock);
        if (used) {
            u->idle_since = 0;
            continue;
        }
        if (u->idle_since == 0)
            u->idle_since = now;
        if (now - u->idle_since < GROUP_IDLE_NS)
            continue;
        char dir[PATH_MAX + 64];
        group_dir(g, u->uid, dir, sizeof dir);
        /* EBUSY: a thread started inside it is still there; next time. */
        if (rmdir(dir) == 0 || errno == ENOENT)
            u->uid = CPU_HOME;
    }
}

static void *mover_main(void *arg)
{
    struct cpu_groups *g = arg;
    while (!atomic_load(&g->stop)) {
        uint32_t seen = atomic_load(&g->kick);
        move_all(g);
        remove_idle(g, ipc_now_ns());
        /* sleeping before the last look at kick, cpu_groups_want's
         * store to kick before its look at sleeping (both seq_cst): a
         * kick is never lost between them. */
        atomic_store(&g->sleeping, true);
        if (atomic_load(&g->kick) == seen && !atomic_load(&g->stop))
            ipc_futex_wait(&g->kick, seen, MOVER_TICK_MS);
        atomic_store(&g->sleeping, false);
    }
    return NULL;
}

int cpu_groups_start(struct cpu_groups *g, uint32_t shares)
{
    memset(g, 0, sizeof *g);
    g->home_tasks = -1;
    for (int i = 0; i <= CPU_UID_GROUPS; i++)
        g->uids[i].uid = CPU_HOME;
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->moved, NULL);
    if (shares == 0)
        return 0;
    int rc = make_groups(g, shares);
    if (rc < 0) {
        fprintf(stderr,
                "danausd: no cpu group for long calls (%s%s): they "
                "weigh as the service's other threads\n",
                rc == -ENOENT ? "no cgroup v1 cpu controller" : "",
                rc == -ENOENT ? "" : strerror(-rc));
        if (g->home_tasks >= 0)
            close(g->home_tasks);
        g->home_tasks = -1;
        return 0;
    }
    rc = pthread_create(&g->mover, NULL, mover_main, g);
    if (rc) {
        rmdir(g->dir);
        close(g->home_tasks);
        g->home_tasks = -1;
        return -rc;
    }
    g->on = true;
    return 0;
}

void cpu_groups_stop(struct cpu_groups *g)
{
    if (g->on) {
        atomic_store(&g->stop, true);
        atomic_fetch_add(&g->kick, 1);
        ipc_futex_wake(&g->kick, 1);
        pthread_join(g->mover, NULL);
        remove_tree(g->dir, g->home_tasks);
        g->on = false;
    }
    /* The lock stays: threads left inside calls still leave. */
    if (g->home_tasks >= 0)
        close(g->home_tasks);
    g->home_tasks = -1;
}

void cpu_groups_join(struct cpu_groups *g, struct cpu_member *m, bool home)
{
    m->g = g->on ? g : NULL;
    if (!m->g)
        return;
    m->tid = (pid_t)syscall(SYS_gettid);
    atomic_init(&m->want, CPU_HOME);
    atomic_init(&m->at, home ? CPU_HOME : CPU_UNKNOWN);
    atomic_init(&m->moving, false);
    pthread_mutex_lock(&g->lock);
    m->next = g->members;
    g->members = m;
    pthread_mutex_unlock(&g->lock);
    if (!home)
        cpu_groups_want(m, CPU_HOME);
}

void cpu_groups_leave(struct cpu_member *m)
{
    struct cpu_groups *g = m->g;
    if (!g)
        return;
    /* Not while the mover writes its tid: an ended thread's tid may be
     * another's soon. */
    pthread_mutex_lock(&g->lock);
    while (atomic_load(&m->moving))
        pthread_cond_wait(&g->moved, &g->lock);
    struct cpu_member **p = &g->members;
    while (*p != m)
        p = &(*p)->next;
    *p = m->next;
    pthread_mutex_unlock(&g->lock);
    m->g = NULL;
}

void cpu_groups_want(struct cpu_member *m, int64_t uid)
{
    struct cpu_groups *g = m ? m->g : NULL;
    if (!g || atomic_exchange(&m->want, uid) == uid)
        return;
    atomic_fetch_add(&g->kick, 1);
    if (atomic_load(&g->sleeping))
        ipc_futex_wake(&g->kick, 1);
}

bool cpu_groups_at_home(struct cpu_member *m)
{
    struct cpu_groups *g = m ? m->g : NULL;
    if (!g)
        return true;
    /* Under the lock: the mover decides to move m, and marks it moving,
     * under it; m's own want was stored before. */
    pthread_mutex_lock(&g->lock);
    bool home = atomic_load(&m->want) == CPU_HOME &&
                atomic_load(&m->at) == CPU_HOME &&
                !atomic_load(&m->moving);
    pthread_mutex_unlock(&g->lock);
    return home;
}
