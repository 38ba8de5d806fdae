/*
 * fairness.c - how much one flooding client slows another client of the
 * same danausd (issue 10's bound: a flooder may not raise a victim's
 * median stat latency more than 2x). A benchmark, not a test: it prints
 * figures and asserts nothing about time.
 *
 *   security_fairness DANAUSD [SECONDS]
 *
 * One service on a local mount. A victim client (raw_client.h, one slot)
 * stats a file in a loop for SECONDS (default 5) and records every call's
 * latency: alone, then beside each flooder in turn:
 *   bells     a hostile client ringing doorbells as fast as it can (its own
 *             index with sequences it never posted, and other indices);
 *   requests  a client with 8 threads of its own sending stats back to
 *             back (real work, as much as the service will take);
 *   writes    a client with 4 threads sending 256 KiB pwrites with fsync
 *             (long requests);
 * and issue 35's attacks, from another uid (ATTACKER_UID; the socket is
 * opened to every uid for them):
 *   dents     a client listing a directory of 1,000 entries over and over
 *             while a second thread zeroes the first record's d_reclen in
 *             its slot;
 *   bigdents  a client listing a directory of 20,000 entries over and
 *             over, a slot buffer's worth per call: calls the kind of
 *             which says short that keep a service thread long;
 *   manydents 24 processes listing that directory so at once, more
 *             than a uid's share of a queue's threads (half of 36);
 *   twouids   the same 24, 12 of one uid and 12 of another: two uids
 *             together may hold all of a queue's threads but the
 *             reserves;
 *   hog       processes holding every attachment, slot and ticket the uid
 *             can get, and one making connections that never say hello as
 *             fast as the door closes them.
 * Every row gives the victim's calls per second, median and p99, and their
 * ratios to the row alone, how long its attach took (a victim call that
 * fails ends the run), and how long the victim's thread waited for a cpu
 * per call on average (its run-queue wait, /proc/thread-self/schedstat):
 * the part of its latency that is the kernel's sharing of the cpus, not
 * the service's. Each flooder runs in its own process, the
 * victim in another. With FAIRNESS_PIN=1 the victim runs on the first cpu
 * and the flooder on the last (the service anywhere): otherwise, on a
 * machine with few cores, the flooder's threads also take the victim's
 * cpu time, which is the kernel's sharing, not the service's.
 * FAIRNESS_CONFIG adds lines to the service's configuration (e.g. "nice 0"
 * to compare settings); FAIRNESS_ROWS names the rows to run besides
 * "alone" (e.g. "dents,hog"; default: all).
 *
 * With FAIRNESS_VICTIM=library the victim is an honest program instead:
 * it stats /fair/victim through libdanaus (danaus_stat), whose name cache
 * answers most calls without a round trip, as it would any program's.
 * With FAIRNESS_VICTIM=fsync the raw victim fsyncs its file instead: a
 * long call (workers.c), run on a thread of its own in its uid's cpu
 * group where the service makes them (cpugroups.h), beside the
 * attackers' long calls in theirs.
 *
 * With FAIRNESS_ATTACHER=1 an honest root client also attaches and detaches
 * every 20 ms during each row: the row adds its attaches' count, median,
 * p99 and longest (what a program starting beside the attack waits for).
 *
 * With FAIRNESS_KERNEL=1 the same rows run on the kernel's path instead,
 * the reference a tenant compares with: the victim stat(2)s the file in
 * the site's host directory, and each flooder does with system calls what
 * it did through the service (bells: one thread that only burns a cpu;
 * dents: getdents64 over the host directory beside a thread writing
 * memory; hog has no kernel counterpart and is left out). What the
 * kernel's rows show is what sharing the cpus with such a neighbour costs
 * any file system; the service's rows beyond it are the service's.
 */
#include "raw_client.h"
#include "harness.h"

#include <danaus/danaus.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MOUNT "/fair"
#define MAX_SAMPLES (4 << 20)
#define ATTACKER_UID 4243
#define ATTACKER2_UID 4244
#define DENTS 1000
#define BIG_DENTS 20000

static char sock[600];
static char site_dir[256]; /* the mount's host directory */
static double seconds = 5;
static bool pin;
static bool kernel; /* FAIRNESS_KERNEL: every row on the kernel's path */
static bool library_victim; /* FAIRNESS_VICTIM=library */
static bool fsync_victim;   /* FAIRNESS_VICTIM=fsync */
static bool attacher;       /* FAIRNESS_ATTACHER */

/* With pin: the calling process onto the first (victim) or the last cpu
 * it may use. */
static void pin_to(bool first)
{
    cpu_set_t set;
    if (!pin || sched_getaffinity(0, sizeof set, &set) < 0)
        return;
    int chosen = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set) && (chosen < 0 || !first))
            chosen = c;
    CPU_ZERO(&set);
    CPU_SET(chosen, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void attach(struct raw *r)
{
    if (raw_attach(r, sock) != 0) {
        fprintf(stderr, "security_fairness: cannot attach to %s\n", sock);
        _exit(1);
    }
}

/* ---- the victim ---- */

#define MAX_ATTACHES 4096

struct samples {
    size_t n;
    uint64_t attach_ns;
    uint64_t runq_ns; /* the victim's thread, waiting for a cpu */
    uint64_t ns[MAX_SAMPLES];
    /* FAIRNESS_ATTACHER: the attach prober's attaches (attach_loop). */
    size_t attaches;
    uint64_t attach_loop_ns[MAX_ATTACHES];
};

/* The calling thread's time waiting for a cpu so far (schedstat's
 * second field), or 0. */
static uint64_t runq_wait_ns(void)
{
    unsigned long long on_cpu = 0, waiting = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f && fscanf(f, "%llu %llu", &on_cpu, &waiting) != 2)
        waiting = 0;
    if (f)
        fclose(f);
    return waiting;
}

/* Times stat_once(arg) for the run's length, each call's latency into
 * s, and ends the victim's process (exit 1 when a call failed). */
static void time_stats(struct samples *s, int (*stat_once)(void *),
                       void *arg)
{
    uint64_t end = ipc_now_ns() + (uint64_t)(seconds * 1e9);
    uint64_t runq = runq_wait_ns();
    s->n = 0;
    while (s->n < MAX_SAMPLES) {
        uint64_t t0 = ipc_now_ns();
        int rc = stat_once(arg);
        if (rc != 0) {
            /* The run's whole wait for a cpu bounds the call's: read per
             * call, schedstat would be timed with every call. */
            fprintf(stderr,
                    "security_fairness: the victim's call %zu: %s after "
                    "%.1f ms; the victim waited %.1f ms for a cpu in all "
                    "its calls\n",
                    s->n, strerror(-rc), (double)(ipc_now_ns() - t0) / 1e6,
                    (double)(runq_wait_ns() - runq) / 1e6);
            _exit(1);
        }
        uint64_t t1 = ipc_now_ns();
        s->ns[s->n++] = t1 - t0;
        if (t1 >= end)
            break;
    }
    s->runq_ns = runq_wait_ns() - runq;
    _exit(0);
}

static int program_stat(void *path)
{
    struct stat st;
    int rc = kernel ? stat(path, &st) : danaus_stat(path, &st);
    return rc == 0 ? 0 : -errno;
}

struct raw_victim {
    struct raw r;
    int slot;
    uint32_t mount;
    int64_t handle;
};

static int raw_stat(void *arg)
{
    struct raw_victim *v = arg;
    struct danaus_desc d = {.call = DANAUS_CALL_STAT, .mount = v->mount};
    return (int)raw_call(&v->r, (uint32_t)v->slot, &d, "victim", 7, 10000);
}

static int raw_fsync(void *arg)
{
    struct raw_victim *v = arg;
    struct danaus_desc d = {.call = DANAUS_CALL_FSYNC, .mount = v->mount,
                            .handle = (uint64_t)v->handle};
    return (int)raw_call(&v->r, (uint32_t)v->slot, &d, NULL, 0, 10000);
}

/* victim() as a program: stat(2) of the same file on the kernel's path
 * (dir the site's host directory), or danaus_stat through libdanaus (dir
 * the mount). */
static void program_victim(struct samples *s, const char *dir)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/victim", dir);
    uint64_t t = ipc_now_ns();
    int fd = kernel ? open(path, O_CREAT | O_RDWR, 0644)
                    : danaus_open(path, O_CREAT | O_RDWR, 0644);
    if (fd < 0 || (kernel ? close(fd) : danaus_close(fd)) != 0)
        _exit(1);
    s->attach_ns = kernel ? 0 : ipc_now_ns() - t;
    time_stats(s, program_stat, path);
}

/* Stats (or fsyncs) "victim" for the run's length, each call's latency
 * into s. */
static void victim(struct samples *s)
{
    if (kernel)
        program_victim(s, site_dir);
    if (library_victim)
        program_victim(s, MOUNT);
    static struct raw_victim v;
    uint64_t t = ipc_now_ns();
    attach(&v.r);
    s->attach_ns = ipc_now_ns() - t;
    v.slot = raw_slot(&v.r);
    v.mount = raw_mount(&v.r, MOUNT);
    v.handle = raw_open(&v.r, (uint32_t)v.slot, v.mount, "victim",
                        O_CREAT | O_RDWR);
    if (v.slot < 0 || v.handle <= 0) {
        fprintf(stderr, "security_fairness: the victim's slot %d, open %lld\n",
                v.slot, (long long)v.handle);
        _exit(1);
    }
    time_stats(s, fsync_victim ? raw_fsync : raw_stat, &v);
}

/* The attach prober: an honest root client attaching and detaching every
 * 20 ms until killed, each attach's time into s. */
static void attach_loop(struct samples *s)
{
    s->attaches = 0;
    while (s->attaches < MAX_ATTACHES) {
        struct raw r;
        uint64_t t = ipc_now_ns();
        attach(&r);
        s->attach_loop_ns[s->attaches++] = ipc_now_ns() - t;
        raw_detach(&r);
        usleep(20000);
    }
    pause();
}

/* ---- the flooders: each runs until killed ---- */

static void flood_bells(void)
{
    struct raw r;
    attach(&r);
    for (uint32_t seq = 0;; seq++)
        for (uint32_t client = 0; client < 8; client++)
            for (uint32_t q = 0; q < r.seg.nqueues; q++)
                ipc_ring(&r.seg, ipc_queue(&r.seg, q),
                         (struct ipc_bell){client, seq % 8, seq}, NULL, NULL);
}

struct flood_thread {
    struct raw *r;
    int call;
};

static void *flood_thread_main(void *arg)
{
    /* The door is one socket: one exchange at a time. */
    static pthread_mutex_t door = PTHREAD_MUTEX_INITIALIZER;
    struct flood_thread *t = arg;
    pthread_mutex_lock(&door);
    int slot = raw_slot(t->r);
    pthread_mutex_unlock(&door);
    uint32_t m = raw_mount(t->r, MOUNT);
    char name[32];
    snprintf(name, sizeof name, "flood-%d", slot);
    int64_t h = raw_open(t->r, (uint32_t)slot, m, name, O_CREAT | O_RDWR);
    if (slot < 0 || h <= 0)
        _exit(1);
    static char data[256 << 10];
    for (uint64_t i = 0;; i++) {
        struct danaus_desc d = {.call = (uint32_t)t->call, .mount = m};
        if (t->call == DANAUS_CALL_STAT) {
            raw_call(t->r, (uint32_t)slot, &d, name, (uint32_t)strlen(name) + 1,
                     10000);
            continue;
        }
        d.handle = (uint64_t)h;
        d.arg[1] = (int64_t)(i % 16) * (int64_t)sizeof data;
        raw_call(t->r, (uint32_t)slot, &d, data, sizeof data, 10000);
        d = (struct danaus_desc){.call = DANAUS_CALL_FSYNC, .mount = m,
                                 .handle = (uint64_t)h};
        raw_call(t->r, (uint32_t)slot, &d, NULL, 0, 10000);
    }
    return NULL;
}

/* ---- the flooders' system calls, for the kernel's path ---- */

/* What a flooder's thread that only touches its memory (bells, dents'
 * rewriting thread) costs: a cpu. */
static void *burn_cpu(void *arg)
{
    (void)arg;
    static volatile uint64_t word;
    for (;;)
        word++;
    return NULL;
}

/* flood_thread_main's calls as system calls, on "flood-N" in the site. */
static void *kernel_flood_thread(void *arg)
{
    int call = (int)(intptr_t)arg;
    static _Atomic int next;
    char path[512];
    snprintf(path, sizeof path, "%s/flood-%d", site_dir, next++);
    int fd = open(path, O_CREAT | O_RDWR, 0644);
    if (fd < 0)
        _exit(1);
    static char data[256 << 10];
    struct stat st;
    for (uint64_t i = 0;; i++) {
        if (call == DANAUS_CALL_STAT) {
            stat(path, &st);
            continue;
        }
        if (pwrite(fd, data, sizeof data,
                   (off_t)(i % 16) * (off_t)sizeof data) != sizeof data ||
            fsync(fd) != 0)
            _exit(1);
    }
    return NULL;
}

static void flood_requests(int threads, int call)
{
    if (kernel) {
        pthread_t tid;
        for (int i = 0; i < threads; i++)
            pthread_create(&tid, NULL, kernel_flood_thread,
                           (void *)(intptr_t)call);
        pause();
    }
    static struct raw r;
    attach(&r);
    static struct flood_thread t[8];
    pthread_t tid[8];
    for (int i = 0; i < threads; i++) {
        t[i] = (struct flood_thread){&r, call};
        pthread_create(&tid[i], NULL, flood_thread_main, &t[i]);
    }
    pause();
}

/* ---- issue 35's attacks, as another uid ---- */

static void become(uid_t uid)
{
    if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0) {
        fprintf(stderr, "security_fairness: cannot become uid %d: %s\n",
                (int)uid, strerror(errno));
        _exit(1);
    }
}

static void become_attacker(void)
{
    become(ATTACKER_UID);
}

static void *zero_first_reclen(void *arg)
{
    _Atomic uint16_t *reclen = arg;
    for (;;)
        atomic_store_explicit(reclen, 0, memory_order_relaxed);
    return NULL;
}

/* list_dents on the kernel's path: getdents64 over the host directory,
 * with burn a thread burning a cpu beside it. */
static void kernel_list_dents(const char *dir, bool burn)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", site_dir, dir);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        _exit(1);
    pthread_t t;
    if (burn)
        pthread_create(&t, NULL, burn_cpu, NULL);
    static char buf[32 << 10];
    for (;;) {
        lseek(fd, 0, SEEK_SET);
        while (syscall(SYS_getdents64, fd, buf, sizeof buf) > 0)
            ;
    }
}

/* Lists dir over and over; with zero, a second thread zeroes the first
 * record's d_reclen in the slot meanwhile. */
static void list_dents(const char *dir, bool zero)
{
    if (kernel)
        kernel_list_dents(dir, zero);
    struct raw r;
    attach(&r);
    int slot = raw_slot(&r);
    uint32_t m = raw_mount(&r, MOUNT);
    int64_t h = raw_open(&r, (uint32_t)slot, m, dir, O_RDONLY | O_DIRECTORY);
    if (slot < 0 || h <= 0)
        _exit(1);
    pthread_t t;
    if (zero)
        pthread_create(&t, NULL, zero_first_reclen,
                       ipc_slot(&r.area, (uint32_t)slot)->buf +
                           offsetof(struct danaus_dirent, d_reclen));
    for (;;) {
        struct danaus_desc d = {.call = DANAUS_CALL_LSEEK, .mount = m,
                                .handle = (uint64_t)h};
        d.arg[1] = SEEK_SET;
        raw_call(&r, (uint32_t)slot, &d, NULL, 0, 10000);
        int64_t n;
        do {
            d = (struct danaus_desc){.call = DANAUS_CALL_GETDENTS, .mount = m,
                                     .handle = (uint64_t)h};
            d.arg[0] = r.area.slot_buf;
            n = raw_call(&r, (uint32_t)slot, &d, NULL, 0, 10000);
        } while (n > 0);
    }
}

/* list_dents as the attacker's uid. */
static void flood_dents(const char *dir, bool zero)
{
    become_attacker();
    list_dents(dir, zero);
}

/* n processes of uid listing the big directory at once: more slow calls
 * than a uid has threads for (threadshares.h). */
static void list_many_dents(uid_t uid, int n)
{
    become(uid);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after become, which clears it */
    for (int i = 0; i < n; i++)
        if (fork() == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            list_dents("bigdents", false);
        }
    pause();
}

static void flood_many_dents(int n)
{
    list_many_dents(ATTACKER_UID, n);
}

/* flood_many_dents split between two uids, from a process that keeps
 * root's uid: a parent's death signal reaches a child of another uid
 * only from a parent allowed to signal it. */
static void flood_two_uids(int n)
{
    if (fork() == 0)
        list_many_dents(ATTACKER_UID, n - n / 2);
    if (fork() == 0)
        list_many_dents(ATTACKER2_UID, n / 2);
    pause();
}

/* A process holding all the attachments it gets (16 per process), with
 * every slot and ticket each can get. */
static void hold_all(void)
{
    static struct raw r[64];
    for (int i = 0; i < 64 && raw_attach(&r[i], sock) == 0; i++) {
        while (raw_slot(&r[i]) >= 0)
            ;
        struct danaus_door_reply reply;
        while (raw_door(&r[i], DANAUS_DOOR_TICKET, DANAUS_TICKET_ALL, 0, NULL,
                        0, &reply) == 0)
            ;
    }
    pause();
}

static void flood_hog(void)
{
    become_attacker();
    for (int k = 0; k < 20; k++)
        if (fork() == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            hold_all();
            _exit(0);
        }
    usleep(500000); /* they hold it all */
    /* Connections that never say hello, made again as soon as the door
     * closes one. */
    enum { SILENT = 300 };
    static int fd[SILENT];
    for (int i = 0; i < SILENT; i++)
        fd[i] = -1;
    for (;;)
        for (int i = 0; i < SILENT; i++) {
            if (fd[i] >= 0) {
                struct pollfd p = {.fd = fd[i], .events = POLLIN};
                if (poll(&p, 1, 0) == 0)
                    continue;
                close(fd[i]);
            }
            struct raw c;
            fd[i] = raw_connect(&c, sock) == 0 ? c.door : -1;
            if (fd[i] < 0 && c.door >= 0)
                close(c.door);
        }
}

/* ---- running and reporting ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Runs the victim beside flooder (none when NULL); its median and p99 in
 * microseconds and its call count. False when the victim failed. */
static bool measure(void (*flooder)(int), int how, struct samples *s,
                    double *median, double *p99)
{
    pid_t f = -1;
    if (flooder) {
        f = fork();
        if (f == 0) {
            pin_to(false);
            flooder(how);
            _exit(0);
        }
        usleep(300000); /* the flood is under way */
    }
    pid_t a = -1;
    if (attacher && (a = fork()) == 0) {
        pin_to(true);
        attach_loop(s);
    }
    pid_t v = fork();
    if (v == 0) {
        pin_to(true);
        victim(s);
    }
    int status;
    waitpid(v, &status, 0);
    pid_t helpers[] = {f, a};
    for (int k = 0; k < 2; k++)
        if (helpers[k] > 0) {
            kill(helpers[k], SIGKILL);
            waitpid(helpers[k], NULL, 0);
        }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || s->n == 0) {
        fprintf(stderr, "security_fairness: the victim failed\n");
        return false;
    }
    qsort(s->ns, s->n, sizeof s->ns[0], cmp_u64);
    qsort(s->attach_loop_ns, s->attaches, sizeof s->attach_loop_ns[0],
          cmp_u64);
    *median = (double)s->ns[s->n / 2] / 1000;
    *p99 = (double)s->ns[s->n * 99 / 100] / 1000;
    return true;
}

static void bells(int how)
{
    (void)how;
    if (kernel)
        burn_cpu(NULL);
    flood_bells();
}

static void requests(int call)
{
    flood_requests(call == DANAUS_CALL_STAT ? 8 : 4, call);
}

static void dents(int big)
{
    flood_dents(big ? "bigdents" : "dents", !big);
}

static void hog(int how)
{
    (void)how;
    flood_hog();
}

/* Whether the comma-separated list only (NULL: every row) names row. */
static bool row_wanted(const char *only, const char *row)
{
    size_t n = strlen(row);
    for (const char *p = only; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, row, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    return !only;
}

/* A directory of n entries under dir, made on the host, for the dents
 * attacks to list. */
static int make_dents(const char *dir, const char *name, int n)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mkdir(path, 0755) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s/entry-with-a-long-name-%06d",
                 dir, name, i);
        if (mkdir(path, 0755) < 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: security_fairness DANAUSD [SECONDS]\n");
        return 2;
    }
    if (argc == 3)
        seconds = atof(argv[2]);
    pin = getenv("FAIRNESS_PIN") && atoi(getenv("FAIRNESS_PIN"));
    kernel = getenv("FAIRNESS_KERNEL") && atoi(getenv("FAIRNESS_KERNEL"));
    library_victim = getenv("FAIRNESS_VICTIM") &&
                     strcmp(getenv("FAIRNESS_VICTIM"), "library") == 0;
    fsync_victim = getenv("FAIRNESS_VICTIM") &&
                   strcmp(getenv("FAIRNESS_VICTIM"), "fsync") == 0;
    attacher = getenv("FAIRNESS_ATTACHER") && atoi(getenv("FAIRNESS_ATTACHER"));
    struct site site;
    struct daemon daemon_;
    if (site_make(&site, "fairness") != 0 ||
        site_write_config(&site, "fuse off\nmount %s local %s\n%s\n", MOUNT,
                          site.dir, getenv("FAIRNESS_CONFIG")
                                        ? getenv("FAIRNESS_CONFIG")
                                        : "") != 0 ||
        daemon_start(&daemon_, argv[1], &site, "danausd", 30000) != 0) {
        fprintf(stderr, "security_fairness: cannot start danausd\n");
        return 1;
    }
    snprintf(sock, sizeof sock, "%s/%s.sock", site.rundir, site.service);
    snprintf(site_dir, sizeof site_dir, "%s", site.dir);
    site_use(&site);
    /* The attacks' uid reaches the socket and the mount. */
    if (chmod(site.dir, 0755) < 0 || chmod(site.rundir, 0755) < 0 ||
        chmod(sock, 0666) < 0 || make_dents(site.dir, "dents", DENTS) < 0 ||
        make_dents(site.dir, "bigdents", BIG_DENTS) < 0) {
        fprintf(stderr, "security_fairness: cannot open the site\n");
        return 1;
    }
    /* The victim's samples, written by its process. */
    struct samples *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED)
        return 1;
    static const struct {
        const char *name;
        void (*flooder)(int);
        int how;
    } rows[] = {
        {"alone", NULL, 0},
        {"bells", bells, 0},
        {"requests", requests, DANAUS_CALL_STAT},
        {"writes", requests, DANAUS_CALL_PWRITE},
        {"dents", dents, 0},
        {"bigdents", dents, 1},
        {"manydents", flood_many_dents, 24},
        {"twouids", flood_two_uids, 24},
        {"hog", hog, 0},
    };
    double base = 0, base99 = 0, base_rate = 0;
    printf("%-10s %10s %10s %10s %10s %10s %10s %10s %10s", "beside",
           "calls/s", "median_us", "p99_us", "rate_x", "median_x", "p99_x",
           "attach_ms", "runq_us");
    printf(attacher ? " %10s %10s %10s %10s\n" : "\n", "attaches",
           "att_med_ms", "att_p99_ms", "att_max_ms");
    const char *only = getenv("FAIRNESS_ROWS");
    bool failed = false;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0] && !failed; i++) {
        if (i > 0 && (!row_wanted(only, rows[i].name) ||
                      (kernel && rows[i].flooder == hog)))
            continue;
        double median, p99;
        /* A failed victim ends the run, and the service with it. */
        failed = !measure(rows[i].flooder, rows[i].how, s, &median, &p99);
        if (failed)
            break;
        double rate = (double)s->n / seconds;
        if (i == 0) {
            base = median;
            base99 = p99;
            base_rate = rate;
        }
        printf("%-10s %10.0f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f "
               "%10.2f",
               rows[i].name, rate, median, p99, rate / base_rate,
               median / base, p99 / base99, (double)s->attach_ns / 1e6,
               (double)s->runq_ns / 1e3 / (double)s->n);
        if (attacher && s->attaches > 0)
            printf(" %10zu %10.2f %10.2f %10.2f", s->attaches,
                   (double)s->attach_loop_ns[s->attaches / 2] / 1e6,
                   (double)s->attach_loop_ns[s->attaches * 99 / 100] / 1e6,
                   (double)s->attach_loop_ns[s->attaches - 1] / 1e6);
        printf("\n");
        fflush(stdout);
    }
    int rc = daemon_stop(&daemon_) == 0 && !failed ? 0 : 1;
    site_remove(&site);
    return rc;
}
