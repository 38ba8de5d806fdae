/*
 * log.h - danausd's log: every line it writes to stderr begins with the
 * time and the service's name.
 */
#ifndef DANAUS_LOG_H
#define DANAUS_LOG_H

/* From now on each line written to descriptor 2, by any part of the
 * process (the doors, the backends, libfuse, libcephfs writing the
 * descriptor itself) or by the programs it starts, begins with the time,
 * UTC to the millisecond, and name: "2026-11-29T03:20:00.123Z NAME ...".
 * Descriptor 2 becomes a pipe that a relay process reads until every
 * writer is gone, so a line written before a crash or a kill is not
 * lost; a process started with the pipe of a relay that still reads it
 * (a keeper, a restarted service) keeps it. Call once, before any thread
 * starts. */
void log_start(const char *name);
/* Before a clean exit: waits (up to a second each for the lines and a
 * fence) until the relay has written every line written so far to the
 * log, so that whoever waits for the service's exit finds them there. */
void log_flush(void);

#endif
