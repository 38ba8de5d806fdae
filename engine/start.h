/*
 * start.h - `danaus start` and `restart`: an ended container runs again
 * with what it was run with (its record and its saved configuration,
 * runinfo.h) over the writable branch it kept, detached, as docker start
 * runs it.
 */
#ifndef ENGINE_START_H
#define ENGINE_START_H

/* Runs the ended container name again (a running one is left as it is);
 * prints its name. 0 or -1 (fail.h). */
int container_start(const char *name);
/* Stops the container if it runs (grace_s as container_stop's), then
 * starts it. 0 or -1 (fail.h). */
int container_restart(const char *name, int grace_s);

#endif
