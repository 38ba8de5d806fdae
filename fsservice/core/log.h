/*
 * log.h - danausd's log: every line it writes to stderr begins with the
 * time and the service's name.
 */
#ifndef DANAUS_LOG_H
#define DANAUS_LOG_H

/* From now on each line written to stderr, by any part of the process
 * (the doors, the backends, libfuse), begins with the time, UTC to the
 * millisecond, and name: "2026-11-29T03:20:00.123Z NAME ...". Lines reach
 * descriptor 2 as they end. What writes descriptor 2 itself, not through
 * stdio, goes around it. Call once, before any thread starts. */
void log_start(const char *name);

#endif
