/*
 * usermem.h - can memory a caller handed over be used without a crash?
 *
 * The kernel answers EFAULT for a path or buffer it cannot reach; libdanaus
 * reads paths to route calls and copies answers into callers' buffers, so
 * it checks first: a path it cannot read is left to the kernel (which
 * answers EFAULT), and a Danaus call whose buffer is not there fails with
 * EFAULT.
 *
 * The test is whether the pages are mapped (mincore): a mapped page without
 * the needed access (PROT_NONE, or read-only for an output buffer) still
 * faults, as it would in any libc function that reads or writes it.
 */
#ifndef DANAUS_LIBFS_USERMEM_H
#define DANAUS_LIBFS_USERMEM_H

#include <stdbool.h>
#include <stddef.h>

/* s is a string on mapped pages, ending within max bytes. */
bool usermem_string(const char *s, size_t max);

/* The n bytes at p are on mapped pages (n == 0: always). */
bool usermem_range(const void *p, size_t n);

/* For a caller's n-byte output buffer: 0 if it is there, else -1 with
 * errno EFAULT, the kernel's answer once the lookup succeeded. */
int usermem_out(void *buf, size_t n);

#endif
