/*
 * confine.h - the limits a container's processes run under, set by its
 * first process (and by exec's) after its namespaces, mounts and cgroups
 * are made and before it runs the container's command. The order of the
 * calls is the caller's: the filter first (it needs CAP_SYS_ADMIN unless
 * no_new_privs is set), then the capabilities, then -u's setuid.
 */
#ifndef ENGINE_CONFINE_H
#define ENGINE_CONFINE_H

#include <stdint.h>

/* Installs the seccomp filter (docs/confinement.md lists what it
 * refuses). 0 or -1 (fail.h). */
int confine_syscalls(void);
/* Bounds the capabilities of this process and of everything it execs to
 * podman's default set. 0 or -1 (fail.h). */
int confine_caps(void);
/* No execve gains privileges from here on (setuid bits, file caps). */
int confine_no_new_privs(void);
/* The capability mask confine_caps keeps. */
uint64_t confine_kept_caps(void);

#endif
