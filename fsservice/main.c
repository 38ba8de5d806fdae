/*
 * main.c - danausd: one tenant pool's file-system service.
 *
 *   danausd -c CONFIG          serve until SIGTERM or SIGINT
 *   danausd -c CONFIG --check  validate the configuration and exit
 *   danausd --keeper ...       a service's keeper (fsservice/doors/
 *                              fuse_keeper.h), started by the service
 *
 * Start-up order: configuration, the door's socket (which claims the
 * service's name), backends and instances, the doorbell queues, service
 * threads, and the door's thread last, so a client that connects early
 * waits until everything is ready. Shutdown runs it backwards.
 */
#include "fsservice/doors/door.h"
#include "fsservice/doors/fuse_door.h"
#include "fsservice/doors/fuse_keeper.h"
#include "fsservice/core/service.h"
#include "fsservice/core/branches.h"
#include "fsservice/core/cpus.h"
#include "fsservice/core/kept.h"
#include "fsservice/core/log.h"
#include "fsservice/core/workers.h"
#include "fsservice/core/writeback.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <urcu.h>

static void usage(void)
{
    fprintf(stderr, "usage: danausd -c CONFIG [--check]\n");
    exit(2);
}

static int die(const char *msg)
{
    fprintf(stderr, "danausd: %s\n", msg);
    log_flush(); /* in the log before the exit status is */
    return 1;
}

/*
 * Start-up can block for long before main reaches sigwait: a Ceph mount
 * waits up to its mount timeout for an unreachable cluster, and the reset
 * of a predecessor's session was seen to wait for good on a full cluster.
 * Until start-up ends this thread takes SIGTERM and SIGINT and ends the
 * process on them: nobody has been served yet, nothing needs an orderly
 * stop. A signal after it ends waits for main's sigwait.
 */
struct start_guard {
    pthread_t thread;
    sigset_t sigs;
    struct service *svc;
    _Atomic bool started;
};

static void *start_guard_main(void *arg)
{
    struct start_guard *g = arg;
    const struct timespec tick = {.tv_nsec = 100 * 1000 * 1000};
    while (!atomic_load(&g->started)) {
        int sig = sigtimedwait(&g->sigs, NULL, &tick);
        if (sig > 0) {
            fprintf(stderr, "danausd: %s: %s during start-up\n",
                    g->svc->cfg.service, strsignal(sig));
            /* A stop, not a crash: the keeper, if any, lets go. */
            fuse_door_farewell(
                __atomic_load_n(&g->svc->fuse, __ATOMIC_ACQUIRE));
            _exit(1);
        }
    }
    return NULL;
}

/* The backends' session name (ls_settings): one per service socket on
 * this host, which door_open holds for one process at a time, so a
 * restarted service finds its predecessor's session and no other. */
static void session_name(const struct door *door, char *buf, size_t len)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    snprintf(buf, len, "danaus:%s:%s", host, door->path);
}

/* Starts the backends the configured mounts name (registry,
 * libservice.h), then makes their instances. */
static int open_instances(struct service *svc, const struct door *door,
                          char *err, size_t errlen)
{
    struct config *cfg = &svc->cfg;
    char session[sizeof door->path + 300];
    session_name(door, session, sizeof session);
    struct ls_settings settings = {cfg->backend_settings,
                                   cfg->nbackend_settings, session};
    for (int i = 0; i < cfg->nmounts; i++) {
        struct ls_backend *b = ls_backend_find(cfg->mounts[i].backend);
        if (!b) {
            snprintf(err, errlen, "unknown backend %s",
                     cfg->mounts[i].backend);
            return -1;
        }
        if (ls_backend_start(b, &settings, err, errlen) < 0)
            return -1;
    }
    for (int i = 0; i < cfg->nmounts; i++) {
        struct config_mount *m = &cfg->mounts[i];
        struct ls_instance *inst =
            m->union_lower
                ? union_branches_mount(&svc->union_branches, m, err, errlen)
                : ls_instance_new(m->backend, m->source, err, errlen);
        if (!inst)
            return -1;
        /* A union's branches keep their links inside the container root. */
        if (!m->union_lower && strcmp(m->mountpoint, "/") != 0)
            inst->link_prefix = m->mountpoint;
        if (fstable_add(&svc->fs, m->mountpoint, inst) < 0) {
            inst->ops->destroy(inst);
            snprintf(err, errlen, "cannot add mount %s", m->mountpoint);
            return -1;
        }
    }
    return 0;
}

static const char *service_name;

/* A backend refused to let its files be cached (ls_backends_enable_cache). */
static void say_no_cache(const char *backend, int err)
{
    fprintf(stderr, "danausd: %s: no read cache for %s files: %s\n",
            service_name, backend, strerror(-err));
}

/* A backend's announcement (ls_change_sink): the pool's pages of key go,
 * and every client's copy stops counting. */
static void data_changed(void *arg, uint64_t key)
{
    struct service *svc = arg;
    poolcache_changed(&svc->poolcache, key);
    readcache_changed(&svc->readcache, key);
}

static void data_flush(void *arg, uint64_t key)
{
    struct service *svc = arg;
    readcache_flush_key(&svc->readcache, key);
}

/* The doorbell queues, and the geometry of client areas in g. */
static int create_queues(struct service *svc, const cpu_set_t *cpus,
                         struct ipc_geometry *g, cpu_set_t *groups,
                         uint32_t *ngroups, char *err, size_t errlen)
{
    struct config *cfg = &svc->cfg;
    *g = (struct ipc_geometry){
        .ncells = cfg->queue_cells,
        .nslots = cfg->client_slots < cfg->slots ? cfg->client_slots
                                                 : cfg->slots,
        .slot_buf = cfg->slot_buffer,
        .cache_blocks = cfg->read_cache_blocks,
        .dirty_pages = cfg->read_cache_blocks ? cfg->write_back_pages : 0,
    };
    int n = ipc_core_groups(cfg->core_group_level, cpus, g->cpu_queue, groups,
                            IPC_MAX_QUEUES);
    if (n <= 0) {
        snprintf(err, errlen, "cannot read the cpu topology");
        return -1;
    }
    g->nqueues = (uint32_t)n;
    *ngroups = (uint32_t)n;
    int rc = ipc_queues_create(g, &svc->seg);
    if (rc < 0) {
        snprintf(err, errlen, "cannot create the queues: %s", strerror(-rc));
        return -1;
    }
    return 0;
}

/* The service's threads run before its clients' on a shared cpu: a client
 * spinning or flooding requests from many threads must not take the cpu
 * time the service needs to answer the others (with the service at the
 * clients' priority, 8 threads sending stats slowed another client's median
 * stat 1,000x when they shared its cpus; at nice -10, not at all:
 * bench-fairness). Set before any thread starts: each inherits it. A
 * service started at a higher priority keeps it; one not allowed to raise
 * its own (no CAP_SYS_NICE, RLIMIT_NICE) says so and runs on. */
static void set_priority(const struct config *cfg)
{
    errno = 0;
    int now = getpriority(PRIO_PROCESS, 0);
    /* Never lower a priority the service was started with. */
    if ((now == -1 && errno) || now <= cfg->nice ||
        setpriority(PRIO_PROCESS, 0, cfg->nice) == 0)
        return;
    fprintf(stderr,
            "danausd: %s: cannot run at nice %d (%s): clients sharing its "
            "cpus may delay it\n",
            cfg->service, cfg->nice, strerror(errno));
}

/* Raises the soft descriptor limit to the hard one; returns the limit. */
/* Handles and record locks, per client and per uid (shares.h). A quarter
 * of the descriptors at most per client and half per uid (the local
 * backend holds one per open file): neither one client nor one uid can
 * exhaust them, and root and the owner are each kept a sixteenth. Locks:
 * client_locks per client, uid_locks per uid, 16 x client_locks in all. */
static void bound_locks_and_handles(struct service *svc, rlim_t nofile)
{
    const struct config *cfg = &svc->cfg;
    struct shares *s = &svc->clients.shares;
    uint32_t fds = nofile < (1u << 30) ? (uint32_t)nofile : 1u << 30;
    if (fds / 4 < HANDLES_MAX)
        svc->clients.handles_per_client = fds / 4 ? fds / 4 : 1;
    shares_bound(s, SHARE_HANDLES, fds,
                 cfg->uid_handles ? cfg->uid_handles : fds / 2, fds / 16);
    uint64_t locks = (uint64_t)cfg->client_locks * 16;
    if (locks > UINT32_MAX)
        locks = UINT32_MAX;
    shares_bound(s, SHARE_LOCKS, (uint32_t)locks,
                 cfg->uid_locks ? cfg->uid_locks
                                : (uint32_t)(locks / 4),
                 (uint32_t)(locks / 16));
    svc->locks.shares = s;
}

static rlim_t raise_nofile(void)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) < 0)
        return 1024;
    if (lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
            getrlimit(RLIMIT_NOFILE, &lim);
    }
    return lim.rlim_cur;
}

/* <rundir>/<service>.pid, written once ready: how a supervisor finds a
 * service the keeper restarted (fsservice/doors/fuse_keeper.h). Its path
 * goes to path, for the clean stop to remove. Whoever may write the rundir
 * (a container, when it is bound there) may plant names in it: the pid is
 * written into a file this call creates under a name nobody could guess
 * (O_CREAT | O_EXCL, which never follows a symlink), mode 0644, then
 * renamed over path, which replaces whatever path was without opening
 * it. */
static void write_pid_file(const struct config *cfg, char *path, size_t size)
{
    snprintf(path, size, "%s/%s.pid", cfg->rundir, cfg->service);
    char tmp[PATH_MAX + 16], line[32];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int n = snprintf(line, sizeof line, "%d\n", (int)getpid());
    int fd = mkostemp(tmp, O_CLOEXEC | O_NOFOLLOW);
    int rc = fd < 0 || fchmod(fd, 0644) < 0 ||
                     write(fd, line, (size_t)n) != n
                 ? -1
                 : 0;
    int e = errno;
    if (fd >= 0 && close(fd) < 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, path) < 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0) {
        if (fd >= 0)
            unlink(tmp);
        fprintf(stderr, "danausd: cannot write %s: %s\n", path, strerror(e));
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--keeper") == 0)
        return keeper_main(argc, argv);
    const char *conf = NULL;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            conf = argv[++i];
        else if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else
            usage();
    }
    if (!conf)
        usage();

    static struct service svc;
    char err[512];
    if (config_load(conf, &svc.cfg, err, sizeof err) < 0)
        return die(err);
    /* Before any thread starts, so that every thread inherits the set. */
    static cpu_set_t cpus;
    if (service_cpus_fix(&svc.cfg, conf, &cpus, err, sizeof err) < 0)
        return die(err);
    if (check) {
        printf("%s: ok, %d mounts\n", conf, svc.cfg.nmounts);
        return 0;
    }
    /* What a configuration's reader is told above needs no time; the
     * service's log from here on does. */
    log_start(svc.cfg.service);
    set_priority(&svc.cfg);
    svc.argv = argv;
    svc.euid = geteuid();
    svc.egid = getegid();
    /* The service's own files (socket, pid file, Ceph's admin socket and
     * log) are never writable by others, whatever umask it was started
     * with. Modes of the clients' files arrive with the client's umask
     * already applied (libfs): the local backend creates them from
     * threads with a umask of their own, 0 (local.c). */
    umask(umask(022) | 022);

    /* Signals are taken by sigwait below; threads inherit the mask. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    static struct start_guard guard = {.started = false};
    guard.sigs = sigs;
    guard.svc = &svc;
    if (pthread_create(&guard.thread, NULL, start_guard_main, &guard) != 0)
        return die("cannot start: out of threads");

    rcu_register_thread();
    rlim_t nofile = raise_nofile();
    fstable_init(&svc.fs);
    static cpu_set_t groups[IPC_MAX_QUEUES];
    uint32_t ngroups;
    static struct workers workers;
    static struct door door;
    static struct ipc_geometry geo;
    /* The door's socket first: it refuses a second service of the same
     * name, which must not reach the Ceph mount and reset the first one's
     * session. Clients are let in only at door_start. */
    if (door_open(&door, &svc, err, sizeof err) < 0 ||
        open_instances(&svc, &door, err, sizeof err) < 0 ||
        create_queues(&svc, &cpus, &geo, groups, &ngroups, err,
                      sizeof err) < 0) {
        door_close(&door);
        return die(err);
    }
    lock_table_init(&svc.locks, svc.cfg.client_locks);
    if (client_registry_init(&svc.clients, &geo, svc.cfg.slots) < 0)
        return die("cannot start service threads");
    /* Fair shares (shares.h): the owner and root each keep a reserve; the
     * door sets the bounds of what it gives out. Shares count the ids
     * the door maps clients to (idmap.h). */
    svc.clients.shares.owner = idmap_in(
        &svc.cfg.idmap,
        svc.cfg.owner_uid != (uid_t)-1 ? svc.cfg.owner_uid : svc.euid);
    uint32_t uid_slots = svc.cfg.uid_slots;
    if (!uid_slots)
        uid_slots = svc.cfg.slots / 2 > geo.nslots ? svc.cfg.slots / 2
                                                    : geo.nslots;
    shares_bound(&svc.clients.shares, SHARE_SLOTS, svc.cfg.slots, uid_slots,
                 svc.cfg.slots / 16 ? svc.cfg.slots / 16 : 1);
    svc.clients.locks = &svc.locks;
    bound_locks_and_handles(&svc, nofile);
    readcache_init(&svc.readcache);
    hrc_init(&svc.hrc);
    if (poolcache_init(&svc.poolcache, svc.cfg.cache_auto) < 0)
        return die("cannot make the pool's page cache: out of memory");
    if (cache_size_start(&svc.cache_size, svc.cfg.cache_auto, &svc.poolcache,
                         err, sizeof err) < 0)
        return die(err);
    if (announce_init(&svc.announce, svc.cfg.fuse_cache_timeout_ms) < 0)
        return die("cannot make the announcement page");
    admission_init(&svc.admission, svc.cfg.backend_ops_per_second,
                   svc.cfg.backend_write_bytes_per_second);
    struct fairshare_config fair = {
        svc.cfg.backend_fair_share, svc.cfg.backend_weight,
        svc.cfg.backend_reservation_ops, svc.cfg.backend_latency_target_ms,
    };
    int rc = pressure_init(&svc.pressure, svc.cfg.backend_pressure_dir,
                           svc.cfg.service, svc.cfg.backend_latency_target_ms,
                           svc.cfg.backend_ops_per_second,
                           svc.cfg.backend_write_bytes_per_second, &fair,
                           (uint32_t)CPU_COUNT(&cpus));
    if (rc < 0) {
        snprintf(err, sizeof err, "backend_pressure_dir %s: %s",
                 svc.cfg.backend_pressure_dir, strerror(-rc));
        return die(err);
    }
    svc.clients.readcache = &svc.readcache;
    static struct ls_change_sink sink = {.changed = data_changed,
                                         .flush = data_flush};
    sink.arg = &svc;
    svc.readcache.flush = writeback_flush;
    svc.readcache.flush_arg = &svc;
    service_name = svc.cfg.service;
    if (geo.cache_blocks || poolcache_on(&svc.poolcache))
        ls_backends_enable_cache(&sink, say_no_cache);
    if (client_spares_start(&svc.clients) < 0 ||
        workers_start(&workers, &svc, groups, ngroups) < 0)
        return die("cannot start service threads");
    /* After door_open, which refuses a second service of the same name,
     * and before clients are let in. */
    if (fuse_door_start(&svc, &svc.fuse) < 0)
        return die("cannot start the FUSE door: out of memory");
    /* Before any client comes in, and before the kept files close: their
     * leases hold other openers until the pages are in. */
    const struct kept_list *claimed = fuse_door_kept_writes(svc.fuse);
    kept_hand_on(&svc.readcache.kept, claimed);
    kept_recover(&geo, claimed);
    kept_let_go(&svc.readcache.kept, claimed);
    door_restore_mounts(&door);
    if (door_start(&door) < 0) {
        door_close(&door);
        fuse_door_stop(svc.fuse);
        return die("cannot start the door thread");
    }
    atomic_store(&guard.started, true);
    pthread_join(guard.thread, NULL);
    char where[1024];
    service_cpus_describe(&cpus, groups, ngroups, where, sizeof where);
    fprintf(stderr, "danausd: %s ready: %d mounts, %s, socket %s\n",
            svc.cfg.service, svc.cfg.nmounts, where, door.path);
    char pid_path[PATH_MAX];
    write_pid_file(&svc.cfg, pid_path, sizeof pid_path);

    int sig;
    sigwait(&sigs, &sig);
    fprintf(stderr, "danausd: %s stopping (%s)\n", svc.cfg.service,
            strsignal(sig));
    unlink(pid_path);
    door_stop(&door);
    door_close(&door);
    client_spares_stop(&svc.clients);
    int blocked = workers_stop(&workers);
    if (blocked > 0) {
        /* Calls blocked in a backend would hang an orderly teardown (a
         * Ceph unmount waits for them too): leave now, so SIGTERM always
         * ends the service within about 2 s. The kernel detaches clients
         * and closes the FUSE connections. */
        fprintf(stderr, "danausd: %s: %d calls still blocked in backends; "
                "exiting without them\n", svc.cfg.service, blocked);
        fuse_door_farewell(svc.fuse);
        fflush(NULL);
        log_flush();
        _exit(0);
    }
    fuse_door_stop(svc.fuse);
    pressure_close(&svc.pressure);
    ipc_queues_unmap(&svc.seg);
    rcu_barrier();
    lock_table_destroy(&svc.locks);
    client_registry_free(&svc.clients); /* the locks' shares were here */
    fstable_destroy(&svc.fs);
    stats_free(&svc.stats);
    hrc_free(&svc.hrc);
    union_branches_free(svc.union_branches);
    ls_backends_stop();
    readcache_free(&svc.readcache);
    poolcache_free(&svc.poolcache);
    announce_free(&svc.announce);
    config_free(&svc.cfg);
    rcu_unregister_thread();
    log_flush();
    return 0;
}
