/*
 * inspect.h - `danaus inspect [--format TEMPLATE] NAME...`: what the
 * engine knows of containers, as docker inspect shows it: a JSON array
 * of one object each (docker's Name, Created, State, Config, Mounts where
 * they exist here, the engine's own fields, the container's whole
 * record), or a line each through a template of field paths
 * ({{.State.Status}}, format.h).
 */
#ifndef ENGINE_INSPECT_H
#define ENGINE_INSPECT_H

/* template: NULL for the JSON array. 0, or -1 (fail.h: an unknown
 * container, a path that names no field; the others are shown). */
int inspect_containers(char *const *names, int n, const char *template);

#endif
