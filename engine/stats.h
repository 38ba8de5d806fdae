/*
 * stats.h - `danaus stats [NAME...]`: what each running container (or the
 * named ones) and its pool used over one second - CPU, memory, and the
 * file-system calls the pool's danausd served it through the preload
 * (calls/s, bytes/s read and written, p50 and p99 service time); and
 * `danaus top NAME`, the processes of one.
 */
#ifndef ENGINE_STATS_H
#define ENGINE_STATS_H

/* 0, or -1 (fail.h). */
int stats_show(char **names, int n);
/* top: the processes of a running container (its PID namespace) with
 * their host uid, pid, parent, CPU time and command line. 0 or -1. */
int stats_top(const char *name);

#endif
