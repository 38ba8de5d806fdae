/*
 * size.h - byte sizes on the command line: 512M, 2G, 65536 (K, M, G, T are
 * powers of 1024, as cgroup files and docker take them).
 */
#ifndef ENGINE_SIZE_H
#define ENGINE_SIZE_H

#include <stdint.h>

/* 0, or -1 (fail.h) naming what, e.g. "memory". */
int size_parse(const char *what, const char *text, uint64_t *bytes);
/* The host's physical memory in bytes (MemTotal), 0 when unknown. */
uint64_t size_host_memory(void);

#endif
