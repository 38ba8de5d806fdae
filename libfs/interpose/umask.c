/*
 * umask.c - umask goes to libc unchanged; the library keeps the new mask,
 * which it applies to the creates it sends (libfs/umask.h).
 */
#include "libfs/export.h"
#include "libfs/real.h"
#include "libfs/umask.h"

#include <sys/stat.h>

DANAUS_EXPORT mode_t umask(mode_t mask)
{
    return umask_set(REAL(umask), mask);
}
