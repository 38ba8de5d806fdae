/*
 * cred.c - per-thread identity switching for the local backend.
 *
 * Why raw syscalls: glibc's setuid()/setgroups() family changes the identity
 * of every thread of the process (it signals them all, to keep POSIX
 * semantics), while the raw setfsuid, setfsgid, setgroups and capset
 * syscalls change only the calling thread. Checked here by experiment: a
 * thread that ran syscall(SYS_setfsuid, 1000), SYS_setfsgid and
 * SYS_setgroups saw "Uid: 0 0 0 1000" and "Groups: 5555" in
 * /proc/thread-self/status while the main thread kept "0 0 0 0" and no
 * groups; a thread's SYS_capset cleared only its own CapEff.
 *
 * Why capabilities too: a nonzero fsuid makes the kernel drop only the
 * file-system capabilities (CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER, ...);
 * CAP_SYS_ADMIN (trusted.* xattrs), CAP_SETFCAP (security.capability) and
 * CAP_SYS_RESOURCE would stay. So a non-root client runs with an
 * effective set of CAP_LEASE alone, and a root client with the full
 * permitted set. CAP_LEASE lets the read cache take its leases on files
 * the client does not own (lease.c) without a switch to root and back; a
 * lease is the service's own doing, never a client's request.
 *
 * The identity in force is cached per thread so that a switch (up to five
 * syscalls) happens only when the client differs from the previous one.
 * This backend therefore assumes nothing else on a service thread changes
 * the thread's fsuid, fsgid, groups or effective capabilities.
 *
 * A new thread inherits all four from the thread that created it (checked
 * here: a thread created by one acting as uid 65534 with no effective
 * capabilities started so, and its setgroups failed with EPERM), and
 * danausd's pool and libfuse create threads from service threads. So a
 * thread with no valid cache entry (new, or after a failed switch) knows
 * nothing of its state and sets every part of it, raising its effective
 * capabilities first.
 */
#include "cred.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct thread_identity {
    int valid; /* 0: the thread's state is unknown */
    uid_t uid;
    gid_t gid;
    int ngroups;
    gid_t groups[DANAUS_MAX_GROUPS];
};

static __thread struct thread_identity current;
static __thread unsigned epoch;

/* The identities the thread took lately, each with an epoch of its own
 * while it is remembered: a thread that goes back to one (the union
 * switches between its caller and its copy-up identity) gets its epoch
 * back, so what dirs.c resolved as that identity counts again. An epoch
 * is never given to two identities: a forgotten one's goes with it. */
#define RECENT 4
static __thread struct thread_identity recent[RECENT];
static __thread unsigned recent_epoch[RECENT];
static __thread unsigned last_epoch, next_recent;

/* Whether acting as a is acting as cred. Root's supplementary groups
 * decide nothing (its capabilities pass every check they would), so root
 * with either list is one identity: the union's copy-up identity and a
 * container's root then share a thread's state. */
static bool same(const struct thread_identity *a, const struct ls_cred *cred)
{
    if (!a->valid || a->uid != cred->uid || a->gid != cred->gid)
        return false;
    return cred->uid == 0 ||
           (a->ngroups == cred->ngroups &&
            memcmp(a->groups, cred->groups,
                   (size_t)cred->ngroups * sizeof(gid_t)) == 0);
}

/* The epoch of the identity the thread has now taken (current). */
static unsigned epoch_of_current(const struct ls_cred *cred)
{
    for (int i = 0; i < RECENT; i++)
        if (same(&recent[i], cred))
            return recent_epoch[i];
    int i = (int)(next_recent++ % RECENT);
    recent[i] = current;
    recent_epoch[i] = ++last_epoch;
    return recent_epoch[i];
}

unsigned local_cred_epoch(void)
{
    return epoch;
}

int local_cred_can_switch(void)
{
    return geteuid() == 0;
}


/* Effective capabilities := permitted (raise) or CAP_LEASE of them
 * (drop). */
static int set_effective_caps(int raise)
{
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

    if (syscall(SYS_capget, &header, data) < 0)
        return -errno;
    for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
        data[i].effective =
            data[i].permitted &
            (raise ? ~0u : i == CAP_TO_INDEX(CAP_LEASE) ? CAP_TO_MASK(CAP_LEASE)
                                                         : 0);
    if (syscall(SYS_capset, &header, data) < 0)
        return -errno;
    return 0;
}

int local_cred_enter(const struct ls_cred *cred)
{
    if (cred->ngroups < 0 || cred->ngroups > DANAUS_MAX_GROUPS)
        return -EINVAL;
    if (same(&current, cred))
        return 0;

    /* setgroups, setfsgid and setfsuid need CAP_SETGID/CAP_SETUID in the
     * effective set, which a previous non-root client (or whatever thread
     * created this one) emptied. */
    if (!current.valid || current.uid != 0) {
        current.valid = 0;
        int rc = set_effective_caps(1);
        if (rc < 0)
            return rc;
    }
    current.valid = 0;
    epoch = ++last_epoch; /* no identity's, until the switch is done */
    if (syscall(SYS_setgroups, (size_t)cred->ngroups, cred->groups) < 0)
        return -errno;
    /* setfsuid/setfsgid return the previous id and report no error; as
     * root (checked by the caller) they cannot fail. */
    syscall(SYS_setfsgid, cred->gid);
    syscall(SYS_setfsuid, cred->uid);
    if (cred->uid != 0) {
        int rc = set_effective_caps(0);
        if (rc < 0)
            return rc;
    }

    current.uid = cred->uid;
    current.gid = cred->gid;
    current.ngroups = cred->ngroups;
    memcpy(current.groups, cred->groups,
           (size_t)cred->ngroups * sizeof(gid_t));
    current.valid = 1;
    epoch = epoch_of_current(cred);
    return 0;
}
