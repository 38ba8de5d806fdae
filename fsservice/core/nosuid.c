/*
 * nosuid.c - a pool whose files give no privileges (nosuid.h).
 */
#include "nosuid.h"

#include <errno.h>
#include <sys/stat.h>

mode_t nosuid_mode(bool on, mode_t mode)
{
    return on ? mode & ~(mode_t)(S_ISUID | S_ISGID) : mode;
}

int nosuid_mknod(bool on, mode_t mode)
{
    return on && (S_ISCHR(mode) || S_ISBLK(mode)) ? -EPERM : 0;
}
