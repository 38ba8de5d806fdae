/*
 * branches.h - the branch instances of a service's unions, made from
 * the configuration's `union` lines and shared between unions: every union
 * that names the same read-only directory of the same backend uses one
 * instance of it (on Ceph, all of them use the service's one Ceph client),
 * so a file of a shared image is read and cached once, and each of its
 * directories listed once (union.h, a branch's layer). The read-only
 * branches may be of another backend than the writable one (a union the
 * engine adds: a container's changes in a Ceph pool over a root podman
 * prepared in a host directory).
 */
#ifndef DANAUS_UNION_BRANCHES_H
#define DANAUS_UNION_BRANCHES_H

#include "config.h"
#include "fsservice/libservice/libservice.h"

struct union_branches;

/* The union instance of mount m (m->union_lower set), over branches the
 * registry makes (libservice.h). *reg is made on first use. */
struct ls_instance *union_branches_mount(struct union_branches **reg,
                                         const struct config_mount *m,
                                         char *err, size_t errlen);
/* The union instance inst (union_branches_mount) was unmounted: its
 * branches no longer count it as a user, and its writable branch no
 * longer counts as taken, so its directory may serve a new union (a
 * container of the same name). The instances themselves stay until
 * union_branches_free: the unmounted union may still be in use. */
void union_branches_unmounted(struct union_branches *reg,
                              struct ls_instance *inst);
/* The instance of directory dir of backend is no longer found by its
 * path: a later union over dir gets a new one, of the directory found
 * there then (the engine removed an image layer's copy and may unpack
 * it again). 0 (also when there is none), or -EBUSY while a mounted
 * union uses it. The instance stays until union_branches_free. */
int union_branches_forget(struct union_branches *reg, const char *backend,
                          const char *dir);
/* Destroys the branch instances; the unions over them must be gone. */
void union_branches_free(struct union_branches *reg);

#endif
