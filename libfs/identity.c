/*
 * identity.c - the identity a process attached with, and whether it still
 * has it (see identity.h). The interposers of the set*id and setgroups
 * calls (interpose/ident.c) ask for a recheck after each change, which
 * also drops the name cache; routing asks identity_changed, one atomic
 * load.
 */
#include "identity.h"

#include "namecache.h"

#include <danaus/wire.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static struct {
    uid_t euid;
    gid_t egid;
    int ngroups; /* -1: more than DANAUS_MAX_GROUPS, never equal */
    gid_t groups[DANAUS_MAX_GROUPS];
} attached;
static atomic_bool remembered, changed;

static int current_groups(gid_t *groups)
{
    return getgroups(DANAUS_MAX_GROUPS, groups);
}

void identity_remember(void)
{
    attached.euid = geteuid();
    attached.egid = getegid();
    attached.ngroups = current_groups(attached.groups);
    atomic_store(&remembered, true);
    atomic_store(&changed, false);
}

void identity_recheck(void)
{
    /* Cached answers were given to the identity the process had. */
    namecache_drop();
    if (!atomic_load(&remembered))
        return; /* not attached: the identity of the attach is still to come */
    gid_t groups[DANAUS_MAX_GROUPS];
    int n = current_groups(groups);
    bool same = geteuid() == attached.euid && getegid() == attached.egid &&
                n >= 0 && n == attached.ngroups &&
                memcmp(groups, attached.groups, (size_t)n * sizeof *groups) ==
                    0;
    atomic_store(&changed, !same);
}

bool identity_changed(void)
{
    return atomic_load_explicit(&changed, memory_order_relaxed);
}
