/*
 * inspect.h - `danaus inspect NAME`: what the engine knows of a container,
 * as a JSON object on stdout (docker inspect's Name, State and Config
 * fields where they exist here, and the container's whole record).
 */
#ifndef ENGINE_INSPECT_H
#define ENGINE_INSPECT_H

/* 0, or -1 (fail.h: unknown container). */
int inspect_container(const char *name);

#endif
