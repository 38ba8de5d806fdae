/*
 * size.h - numbers on the command line: byte sizes (512M, 2G, 65536; K, M,
 * G, T are powers of 1024, as cgroup files and docker take them) and
 * counts; and sizes printed.
 */
#ifndef ENGINE_SIZE_H
#define ENGINE_SIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0, or -1 (fail.h) naming what, e.g. "memory". */
int size_parse(const char *what, const char *text, uint64_t *bytes);
/* Whether text is a whole number from 1 to max, into *out. */
bool count_parse(const char *text, unsigned long long max,
                 unsigned long long *out);
/* bytes as a person reads them (1.5MiB), into out. */
void size_human(char *out, size_t size, double bytes);
/* The host's physical memory in bytes (MemTotal), 0 when unknown. */
uint64_t size_host_memory(void);

#endif
