/*
 * real.c - finding libc's own functions behind the interposers.
 *
 * dlsym(RTLD_NEXT) searches the objects loaded after libdanaus, which is
 * where libc is. Racing first calls may both look up; they store the same
 * address, so the race is harmless.
 */
#include "real.h"

#include "sys.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

void *real_lookup(_Atomic(void *) *cache, const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn) {
        /* write(2) directly: stdio might itself be what we are resolving. */
        static const char msg[] = "libdanaus: libc has no function ";
        syscall(SYS_write, 2, msg, sizeof msg - 1);
        syscall(SYS_write, 2, name, strlen(name));
        syscall(SYS_write, 2, "\n", 1);
        abort();
    }
    atomic_store_explicit(cache, fn, memory_order_release);
    return fn;
}
