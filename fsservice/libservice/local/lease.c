/*
 * lease.c - what lets a client's read cache hold local files: read leases
 * (fcntl F_SETLEASE), the kernel's delegations.
 *
 * A read lease on a file descriptor opened read-only makes the kernel stop
 * any open of the file for writing, and any truncate, by any process of
 * the host (this service's own threads included), and signal the holder
 * first; a write lease on a descriptor opened for reading and writing,
 * which the kernel grants only while that descriptor is the file's only
 * open one, does the same for any open at all. Neither is broken by
 * writes through the holder's own descriptor: those the service's core
 * announces itself (libservice.h, cache_hold); the opener waits until the holder gives the lease up, or for
 * /proc/sys/fs/lease-break-time seconds (45 by default) if it never does.
 * Measured here: another process's open(O_WRONLY) and truncate, and this
 * process's own open(O_WRONLY), each waited for the holder's F_UNLCK. The
 * kernel refuses a read lease while the file is open for writing anywhere:
 * then nothing is cached.
 *
 * So cache_hold takes a lease on the file's descriptor, with CAP_LEASE,
 * which service threads keep whatever client they act for (cred.c: a
 * lease needs the file's owner or CAP_LEASE; the client's access was
 * checked at its open, and a lease changes nothing for it), and one
 * breaker thread takes the lease-break signals, sent to it alone
 * (F_SETOWN_EX with its tid, read through a signalfd): it announces the
 * change of the file the descriptor names now, has the pages clients kept
 * back of the file written (the sink's flush, LS_HOLD_WRITES) through the
 * holder's own descriptor, which breaks no lease, and only then gives the
 * lease up: the opener waits until they are in the file. A descriptor
 * closed and reused before its signal is read costs a spurious
 * announcement and lease of the new file, never a missed one: whatever
 * file loses its lease is announced first.
 */
#include "lease.h"
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
    struct ls_change_sink sink;
    pid_t breaker; /* the breaker thread's tid, 0 until it runs */
    pthread_mutex_t lock;
    pthread_cond_t started;
} leases = {.lock = PTHREAD_MUTEX_INITIALIZER,
            .started = PTHREAD_COND_INITIALIZER};

/* The name of a file's data in announcements. */
static uint64_t key_of(uint64_t dev, uint64_t ino)
{
    return ino ^ (dev * 0x9E3779B97F4A7C15ull);
}

static void *breaker_main(void *arg)
{
    (void)arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, LOCAL_LEASE_SIGNAL);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    pthread_mutex_lock(&leases.lock);
    leases.breaker = sfd < 0 ? -1 : (pid_t)syscall(SYS_gettid);
    pthread_cond_broadcast(&leases.started);
    pthread_mutex_unlock(&leases.lock);
    struct signalfd_siginfo si;
    while (sfd >= 0 && read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int fd = (int)si.ssi_fd;
        struct stat st;
        if (fstat(fd, &st) == 0) {
            uint64_t key = key_of(st.st_dev, st.st_ino);
            leases.sink.changed(leases.sink.arg, key);
            leases.sink.flush(leases.sink.arg, key);
        }
        fcntl(fd, F_SETLEASE, F_UNLCK);
    }
    return NULL;
}

int local_backend_enable_cache(const struct ls_change_sink *sink)
{
    leases.sink = *sink;
    pthread_t thread;
    int rc = pthread_create(&thread, NULL, breaker_main, NULL);
    if (rc != 0)
        return -rc;
    pthread_detach(thread);
    pthread_mutex_lock(&leases.lock);
    while (leases.breaker == 0)
        pthread_cond_wait(&leases.started, &leases.lock);
    rc = leases.breaker < 0 ? -EIO : 0;
    pthread_mutex_unlock(&leases.lock);
    return rc;
}

void local_lease_init(struct local_lease *l, const struct danaus_stat *st,
                      int flags)
{
    /* A read lease needs a read-only descriptor; a write lease, which an
     * O_RDWR descriptor takes, is broken by any other open of the file. */
    l->type = !S_ISREG(st->mode)                  ? -1
              : (flags & O_ACCMODE) == O_RDONLY ? F_RDLCK
                                                : F_WRLCK;
    l->key = key_of(st->dev, st->ino);
    atomic_init(&l->signalled, false);
}

int local_lease_hold(int fd, struct local_lease *l, uint64_t *key)
{
    pid_t breaker = leases.breaker;
    if (breaker <= 0 || l->type < 0)
        return 0;
    int held = l->type == F_WRLCK ? LS_HOLD_WRITES : 1;
    *key = l->key;
    if (atomic_load(&l->signalled) && fcntl(fd, F_GETLEASE) == l->type)
        return held;
    /* Before every lease, not once: giving one up (F_UNLCK) drops the
     * descriptor's signal and owner (seen here: the next lease's break
     * came as SIGIO, whose default killed danausd). */
    struct f_owner_ex owner = {F_OWNER_TID, breaker};
    if (fcntl(fd, F_SETSIG, LOCAL_LEASE_SIGNAL) < 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) < 0)
        return 0;
    atomic_store(&l->signalled, true);
    return fcntl(fd, F_SETLEASE, l->type) == 0 ? held : 0;
}

void local_lease_end(int fd, struct local_lease *l)
{
    if (l->type == F_WRLCK && atomic_load(&l->signalled))
        fcntl(fd, F_SETLEASE, F_UNLCK);
}
