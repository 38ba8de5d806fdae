/*
 * real.h - the libc functions the interposers stand in front of.
 *
 * When libdanaus is preloaded, its open() is found before libc's; a call
 * that is not for Danaus goes on to libc's own function, which dlsym's
 * RTLD_NEXT finds. Lookups happen once per function, lazily, and are cached.
 *
 *   return REAL(open)(path, flags, mode);
 *
 * REAL(name) has the type of a pointer to libc's name, so calls are
 * type-checked against libc's prototype.
 */
#ifndef DANAUS_LIBFS_REAL_H
#define DANAUS_LIBFS_REAL_H

#include <stdatomic.h>

/* The cached address of libc's name, looked up on first use. Aborts with a
 * message naming the function if libc has none: no caller could go on. */
void *real_lookup(_Atomic(void *) *cache, const char *name);

#define REAL(name)                                                          \
    ({                                                                      \
        static _Atomic(void *) real_cache_;                                 \
        void *fn_ = atomic_load_explicit(&real_cache_, memory_order_acquire); \
        (__typeof__(&name))(fn_ ? fn_ : real_lookup(&real_cache_, #name));  \
    })

#endif
