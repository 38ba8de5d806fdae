/*
 * volume.h - danaus volume create, ls, rm, prune, inspect: a pool's named
 * volumes, the directories BACKEND/volumes/NAME of its backend that
 * run's -v NAME:DIR mounts (making one there on first use) and that
 * outlive the containers using them (store.h).
 */
#ifndef ENGINE_VOLUME_H
#define ENGINE_VOLUME_H

/* Makes the volume (none there yet) and prints its name, as docker's.
 * 0 or -1 (fail.h). */
int volume_create(const char *pool, const char *name);
/* The volumes of the pool (NULL: of every pool): pool, driver (the
 * backend's kind) and name a line; quiet: names only. */
int volume_list(const char *pool, int quiet);
/* Removes the volume and what it holds; refused while any container
 * (running or not) names it in its -v, as docker refuses. */
int volume_remove(const char *pool, const char *name);
/* Removes every volume of the pool (NULL: of every pool whose danausd
 * runs) that no container names, printing each name, as docker's volume
 * prune; unless force, only after a line of stdin says y or yes. */
int volume_prune(const char *pool, int force);
/* docker's array, an object per volume: Name, Driver, Mountpoint (its
 * directory in the backend), Scope, the engine's Pool and UsedBy. */
int volume_inspect(const char *pool, char **names, int n);

#endif
