/*
 * ident.c - the calls that change a process's identity: setuid, seteuid,
 * setreuid, setresuid, their gid twins, and setgroups. Each goes to libc
 * unchanged; afterwards routing learns whether the process still has the
 * identity it attached with (libfs/identity.h): while it does not, its
 * path calls go to the kernel and the FUSE door.
 */
#include "libfs/export.h"
#include "libfs/identity.h"
#include "libfs/real.h"

#include <grp.h>
#include <unistd.h>

DANAUS_EXPORT int setuid(uid_t uid)
{
    int rc = REAL(setuid)(uid);
    identity_recheck();
    return rc;
}

DANAUS_EXPORT int seteuid(uid_t euid)
{
    int rc = REAL(seteuid)(euid);
    identity_recheck();
    return rc;
}

DANAUS_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
    int rc = REAL(setreuid)(ruid, euid);
    identity_recheck();
    return rc;
}

DANAUS_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
    int rc = REAL(setresuid)(ruid, euid, suid);
    identity_recheck();
    return rc;
}

DANAUS_EXPORT int setgid(gid_t gid)
{
    int rc = REAL(setgid)(gid);
    identity_recheck();
    return rc;
}

DANAUS_EXPORT int setegid(gid_t egid)
{
    int rc = REAL(setegid)(egid);
    identity_recheck();
    return rc;
}

DANAUS_EXPORT int setregid(gid_t rgid, gid_t egid)
{
    int rc = REAL(setregid)(rgid, egid);
    identity_recheck();
    return rc;
}

DANAUS_EXPORT int setresgid(gid_t rgid, gid_t egid, gid_t sgid)
{
    int rc = REAL(setresgid)(rgid, egid, sgid);
    identity_recheck();
    return rc;
}

DANAUS_EXPORT int setgroups(size_t n, const gid_t *groups)
{
    int rc = REAL(setgroups)(n, groups);
    identity_recheck();
    return rc;
}
