/*
 * openfds.c - the open descriptors, from /proc/self/fd read with
 * getdents64 into a stack buffer (see openfds.h).
 */
#include "openfds.h"

#include "sys.h"

#include <danaus/wire.h>
#include <stdlib.h>

void openfds_each(void (*fn)(int fd, void *arg), void *arg)
{
    int dir = sys_open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    char buf[4096];
    for (;;) {
        long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
        if (n <= 0)
            break;
        for (long off = 0; off < n;) {
            struct danaus_dirent *d = (struct danaus_dirent *)(buf + off);
            off += d->d_reclen;
            char *end;
            long fd = strtol(d->d_name, &end, 10);
            if (*end == '\0' && end != d->d_name && fd != dir)
                fn((int)fd, arg);
        }
    }
    sys_close(dir);
}
